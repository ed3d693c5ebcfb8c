// The one core call: which backend is the reference, causes found from the runs already made,
// saved outputs that lack some outputs, cancellation.

#include "analysis/pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <random>

#include "engine/engine.h"
#include "engine/output_pool.h"
#include "io/npy.h"
#include "ops/sample.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

// cpu under another name, counting its runs: what the pipeline and the cause finder ran.
class CountingBackend : public Backend {
 public:
  explicit CountingBackend(std::atomic<int>* runs) : runs_(runs) {}
  std::string_view name() const override { return "counting-cpu"; }
  std::string_view description() const override { return "cpu, counted"; }
  void run(const Prepared& p, Result& result, const RunContext& ctx) override {
    ++*runs_;
    Result inner;
    BackendRegistry::instance().find("cpu")->run(p, inner, ctx);
    result.op = inner.op;
    result.outputs = std::move(inner.outputs);
  }

 private:
  std::atomic<int>* runs_;
};

std::atomic<int>& counting_runs() {
  static std::atomic<int> runs{0};
  static const bool registered = [] {
    BackendRegistry::instance().add(std::make_unique<CountingBackend>(&runs));
    return true;
  }();
  (void)registered;
  return runs;
}

class TempDir {
 public:
  TempDir() {
    dir_ = std::filesystem::temp_directory_path() /
           ("bnscope-pipeline-test-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string path(const std::string& name = "") const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};

Problem small_problem(ReserveConvention c = ReserveConvention::Variance) {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 6};
  spec.convention = c;
  return random_problem(spec);
}

TEST(Pipeline, CpuReferenceIsTheReferenceWheneverListed) {
  PipelineRequest request;
  request.backends = {"cpu", "cpu-reference"};
  const PipelineResult r = run_pipeline(small_problem(), request);
  EXPECT_EQ(r.reference, "cpu-reference");
  EXPECT_TRUE(r.reference_is_backend);
  ASSERT_EQ(r.diff.comparisons.size(), 1u);
  EXPECT_EQ(r.diff.comparisons[0].reference, "cpu-reference");
  EXPECT_EQ(r.diff.comparisons[0].candidate, "cpu");
  EXPECT_TRUE(r.passed());
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].backend, "cpu-reference");  // the reference runs first
  ASSERT_EQ(r.candidates().size(), 1u);
  EXPECT_EQ(r.candidates()[0]->backend, "cpu");
}

TEST(Pipeline, FirstBackendIsTheReferenceWithoutCpuReference) {
  counting_runs();
  PipelineRequest request;
  request.backends = {"counting-cpu", "cpu"};
  const PipelineResult r = run_pipeline(small_problem(), request);
  EXPECT_EQ(r.reference, "counting-cpu");
  ASSERT_EQ(r.diff.comparisons.size(), 1u);
  EXPECT_EQ(r.diff.comparisons[0].candidate, "cpu");
  // cpu against itself (under two names) agrees bit for bit.
  for (const OutputDiff& o : r.diff.comparisons[0].outputs) EXPECT_EQ(o.max_abs, 0) << o.name;
}

TEST(Pipeline, AnExplicitReferenceIsRunEvenWhenNotListed) {
  PipelineRequest request;
  request.backends = {"cpu"};
  request.reference = "cpu-reference";
  const PipelineResult r = run_pipeline(small_problem(), request);
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].backend, "cpu-reference");
  ASSERT_EQ(r.diff.comparisons.size(), 1u);
  EXPECT_EQ(r.diff.comparisons[0].candidate, "cpu");
}

TEST(Pipeline, OneBackendAndNoSavedOutputsIsNoDiff) {
  PipelineRequest request;
  request.backends = {"cpu"};
  const PipelineResult r = run_pipeline(small_problem(), request);
  EXPECT_FALSE(r.has_diff);
  EXPECT_TRUE(r.diff.comparisons.empty());
  EXPECT_TRUE(r.passed());
  ASSERT_EQ(r.runs.size(), 1u);
}

TEST(Pipeline, UnknownBackendFailsBeforeAnythingRuns) {
  PipelineRequest request;
  request.backends = {"cpu", "no-such-backend"};
  EXPECT_THROW(run_pipeline(small_problem(), request), Error);
}

TEST(Pipeline, NotesComeFromPrepareOnce) {
  Problem p = small_problem();
  p.inputs.at("y_backprop").set(3, std::nan(""));
  PipelineRequest request;
  request.backends = {"cpu-reference", "cpu"};
  const PipelineResult r = run_pipeline(p, request);
  int non_finite_input = 0;
  for (const Note& n : r.notes) non_finite_input += n.code == "non-finite-input";
  EXPECT_EQ(non_finite_input, 1);
}

// The user's problem declares the CPU convention, but reserve_space_2 holds 1/sqrt(var + eps);
// the truth's outputs are saved to a directory.
struct ConventionTrap {
  TempDir dir;
  Problem user;
  ConventionTrap() {
    const Problem truth = small_problem(ReserveConvention::InvStd);
    for (const OutputTensor& o : run_problem(truth, "cpu-reference").outputs)
      write_npy(dir.path(o.name + ".npy"), o.tensor);
    user = truth;
    user.convention = ReserveConvention::Variance;
  }
};

TEST(Pipeline, CausesComeFromTheCandidatesRunWithoutRunningItAgain) {
  ConventionTrap trap;
  std::atomic<int>& runs = counting_runs();
  runs = 0;
  PipelineRequest request;
  request.backends = {"counting-cpu"};
  request.against = trap.dir.path();
  const PipelineResult r = run_pipeline(trap.user, request);
  EXPECT_FALSE(r.reference_is_backend);
  EXPECT_EQ(r.reference, trap.dir.path());
  ASSERT_FALSE(r.passed());
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes[0].code, "reserve-convention");
  EXPECT_EQ(r.causes[0].candidate, "counting-cpu");
  EXPECT_TRUE(r.causes[0].resolves);
  EXPECT_DOUBLE_EQ(r.causes[0].before, r.diff.comparisons[0].worst_tolerance_ratio());
  // One run for the comparison; the cause search re-runs the cpu backend, never the candidate.
  EXPECT_EQ(runs.load(), 1);
}

TEST(Pipeline, FindCausesStartsFromTheResultItIsGiven) {
  ConventionTrap trap;
  const std::vector<OutputTensor> expected =
      load_expected_outputs(trap.dir.path(), *find_op(trap.user.op));
  // A run that already agrees (cpu on the right convention) explains nothing: the finder must
  // measure "before" on this Result, not on a fresh run of the user's problem.
  Problem right = trap.user;
  right.convention = ReserveConvention::InvStd;
  const Result agreeing = run_problem(right, "cpu");
  EXPECT_TRUE(find_causes(trap.user, agreeing, expected, {}).empty());
  const Result disagreeing = run_problem(trap.user, "cpu");
  const std::vector<Cause> found = find_causes(trap.user, disagreeing, expected, {});
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].code, "reserve-convention");
  EXPECT_EQ(found[0].candidate, "cpu");
}

TEST(Pipeline, SavedOutputsLackingSomeFailNamingThem) {
  const Problem p = small_problem();
  TempDir dir;
  const Result ref = run_problem(p, "cpu-reference");
  write_npy(dir.path("x_backprop.npy"), ref.output("x_backprop").tensor);
  PipelineRequest request;
  request.backends = {"cpu"};
  request.against = dir.path();
  try {
    run_pipeline(p, request);
    FAIL() << "expected an error naming the missing outputs";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("scale_backprop"), std::string::npos) << what;
    EXPECT_NE(what.find("offset_backprop"), std::string::npos) << what;
    EXPECT_EQ(what.find("x_backprop,"), std::string::npos) << what;      // present: not named
    EXPECT_EQ(what.find("reserve_space_4"), std::string::npos) << what;  // [0]: nothing to save
    // Structured: about the saved outputs, at their path; allow-missing would accept them. No
    // front end's spelling of either option.
    EXPECT_EQ(e.parts().about, Option::Against);
    EXPECT_EQ(e.parts().value, dir.path());
    EXPECT_EQ(e.parts().hint, Option::AllowMissing);
    EXPECT_EQ(what.find("--"), std::string::npos) << what;
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  }
  request.allow_missing = true;
  const PipelineResult r = run_pipeline(p, request);
  ASSERT_EQ(r.diff.comparisons.size(), 1u);
  EXPECT_TRUE(r.passed());
  int compared = 0;
  for (const OutputDiff& o : r.diff.comparisons[0].outputs) compared += o.compared;
  EXPECT_EQ(compared, 1);
}

TEST(Pipeline, RecompareUsesTheRunsAlreadyMade) {
  std::atomic<int>& runs = counting_runs();
  PipelineRequest request;
  request.backends = {"cpu-reference", "counting-cpu"};
  request.find_causes = false;
  const Problem p = small_problem();
  const PipelineResult first = run_pipeline(p, request);
  ASSERT_TRUE(first.passed());
  runs = 0;
  DiffOptions strict;
  strict.atol = 0;
  strict.rtol = 0;
  const PipelineResult again = recompare(p, first, strict, false);
  EXPECT_EQ(runs.load(), 0);
  EXPECT_FALSE(again.passed());  // float32 against float64 never agrees exactly
  EXPECT_EQ(again.runs.size(), first.runs.size());
}

TEST(Pipeline, CancelledBeforeTheFirstRunThrowsCancelled) {
  std::atomic<bool> cancel{true};
  RunContext ctx;
  ctx.cancel = &cancel;
  PipelineRequest request;
  request.backends = {"cpu-reference", "cpu"};
  try {
    run_pipeline(small_problem(), request, ctx);
    FAIL() << "expected Cancelled";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Cancelled);
  }
}

TEST(Pipeline, ProgressCoversEveryRunInOrder) {
  RunContext ctx;
  std::vector<double> seen;
  ctx.progress = [&](double f) { seen.push_back(f); };
  PipelineRequest request;
  request.backends = {"cpu-reference", "cpu"};
  run_pipeline(small_problem(), request, ctx);
  ASSERT_FALSE(seen.empty());
  for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]);
  EXPECT_LE(seen.back(), 1.0);
  EXPECT_GT(seen.back(), 0.5);  // the second run reported too
}

TEST(Pipeline, PooledResultsLendTheirBuffersAndGiveTheSameAnswer) {
  const Problem p = small_problem();
  PipelineRequest request;
  request.backends = {"cpu"};
  const Prepared prepared = prepare(p);
  std::vector<Result> recycle{run_problem(p, "cpu")};
  const void* buffer = static_cast<const Tensor&>(recycle.front().outputs.front().tensor).raw();
  // Garbage in the lent buffers must not show through.
  for (OutputTensor& o : recycle.front().outputs) {
    std::vector<double> garbage(static_cast<std::size_t>(o.tensor.numel()), 12345.0);
    o.tensor.set_doubles(garbage);
  }
  output_pool().replace(std::move(recycle));
  ASSERT_FALSE(output_pool().empty());
  const PipelineResult r = run_pipeline(p, prepared, request, {});
  EXPECT_TRUE(output_pool().empty());
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(static_cast<const Tensor&>(r.runs[0].outputs.front().tensor).raw(), buffer);
  const Result fresh = run_problem(p, "cpu");
  for (const OutputTensor& o : fresh.outputs)
    if (o.defined) {
      EXPECT_EQ(r.runs[0].output(o.name).tensor.to_doubles(), o.tensor.to_doubles()) << o.name;
    }
}

// A set something else still reads is never written into.
TEST(OutputPool, KeepsOnlySetsNothingElseHolds) {
  const Problem p = small_problem();
  const Result shown = run_problem(p, "cpu");
  std::vector<Result> runs;
  runs.push_back(shown);
  runs.push_back(run_problem(p, "cpu"));
  output_pool().replace(std::move(runs));
  {
    const std::vector<Result> held = output_pool().held();
    ASSERT_EQ(held.size(), 1u);
    EXPECT_NE(static_cast<const Tensor&>(held[0].outputs.front().tensor).raw(),
              static_cast<const Tensor&>(shown.outputs.front().tensor).raw());
    // Handles held elsewhere (these copies) keep the buffers from being lent as scratch.
    EXPECT_EQ(output_pool().largest_buffer().nbytes(), 0u);
  }
  {
    const Tensor scratch = output_pool().largest_buffer();
    EXPECT_GT(scratch.nbytes(), 0u);
    // A set whose buffer is out as scratch is not handed to a run.
    EXPECT_EQ(output_pool().take().outputs.size(), 0u);
    EXPECT_FALSE(output_pool().empty());
  }
  output_pool().clear();
  EXPECT_TRUE(output_pool().empty());
  EXPECT_EQ(output_pool().take().outputs.size(), 0u);
}

TEST(Pipeline, RunsAlreadyMadeAreNotRunAgain) {
  std::atomic<int>& runs = counting_runs();
  const Problem p = small_problem();
  const Prepared prepared = prepare(p);
  PipelineRequest request;
  request.backends = {"counting-cpu", "cpu-reference"};
  Result made = run_prepared(prepared, *BackendRegistry::instance().find("counting-cpu"));
  request.made.push_back(made);
  const int before = runs.load();
  const PipelineResult r = run_pipeline(p, prepared, request);
  EXPECT_EQ(runs.load(), before);  // only cpu-reference ran
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].backend, "cpu-reference");
  const Result* cpu = r.run("counting-cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_TRUE(cpu->outputs.front().tensor.shares_storage_with(made.outputs.front().tensor));
  EXPECT_TRUE(r.passed());
}

TEST(Pipeline, SavedOutputsReadBeforeStandWhileTheFileIsUnchanged) {
  const Problem p = small_problem();
  TempDir dir;
  const Result ref = run_problem(p, "cpu-reference");
  for (const OutputTensor& o : ref.outputs)
    if (o.defined) write_npy(dir.path(o.name + ".npy"), o.tensor);
  PipelineRequest request;
  request.backends = {"cpu"};
  request.against = dir.path();
  const PipelineResult first = run_pipeline(p, request);
  ASSERT_FALSE(first.against_stamp.empty());
  request.saved = first.expected;
  request.saved_stamp = first.against_stamp;
  const PipelineResult again = run_pipeline(p, request);
  ASSERT_FALSE(again.expected.empty());
  EXPECT_TRUE(again.expected.front().tensor.shares_storage_with(first.expected.front().tensor));
  EXPECT_TRUE(again.passed());
  // The file rewritten (another value, another size): read again, and the comparison sees it.
  Tensor moved = ref.output("x_backprop").tensor;
  moved.set(0, moved.get(0) + 10.0);
  write_npy(dir.path("x_backprop.npy"), moved);
  std::filesystem::last_write_time(
      dir.path("x_backprop.npy"),
      std::filesystem::file_time_type::clock::now() + std::chrono::seconds(5));
  const PipelineResult changed = run_pipeline(p, request);
  EXPECT_NE(changed.against_stamp, first.against_stamp);
  EXPECT_FALSE(changed.passed());
  // Stamps of another request's file never match.
  request.saved_stamp = "elsewhere";
  EXPECT_FALSE(run_pipeline(p, request)
                   .expected.front()
                   .tensor.shares_storage_with(first.expected.front().tensor));
}

TEST(OutputPool, LetsGoOfSetsARunCannotWriteInto) {
  output_pool().clear();
  const Problem p = small_problem();
  Result f32 = run_problem(p, "cpu");
  Problem half = p;
  half.dtype = DType::F16;
  std::vector<Result> runs;
  runs.push_back(std::move(f32));
  output_pool().replace(std::move(runs));
  ASSERT_FALSE(output_pool().empty());
  output_pool().keep_fitting(prepare(p));  // the same problem: kept
  EXPECT_FALSE(output_pool().empty());
  output_pool().keep_fitting(prepare(half));  // float16 outputs cannot reuse float32 buffers
  EXPECT_TRUE(output_pool().empty());
}

}  // namespace
}  // namespace bnscope
