// What a framework worker is sent: a run whose inputs are the buffers it already holds sends no
// input bytes (an attr toggled re-sends nothing), a changed input is sent alone, and the results
// are the framework's for each problem. Needs a Python with torch, as the failure tests do.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "analysis/diff.h"
#include "backends/frameworks/framework_worker.h"
#include "backends/frameworks/python_choice.h"
#include "engine/engine.h"
#include "ops/sample.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

std::string worker_python() {
  if (const char* env = std::getenv("BNSCOPE_PYTHON"); env && *env) return env;
  return BNSCOPE_TEST_PYTHON;
}

// Whether workers started now lend their outputs: the library is built and the user preloads
// nothing of their own.
bool lending_on() {
  const char* own = std::getenv("LD_PRELOAD");
  return !worker_lending_library().empty() && !(own && *own);
}

std::uint64_t input_bytes(const Problem& p) {
  std::uint64_t n = 0;
  for (const auto& [name, t] : p.inputs) n += static_cast<std::uint64_t>(t.nbytes());
  return n;
}

class WorkerTransfer : public ::testing::Test {
 protected:
  void SetUp() override {
    // FrameworkWorker::run starts the worker in the user's Python (framework_python()): make
    // that the test's, or every run would restart it in another and the counts mean nothing.
    ::setenv("BNSCOPE_PYTHON", worker_python().c_str(), 0);
    SampleSpec spec;
    spec.shape = {4, 6, 6, 8};
    problem_ = random_problem(spec);
    try {
      run(problem_);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Unavailable) GTEST_SKIP() << e.what();
      throw;
    }
    if (!worker_.info().unavailable.empty()) GTEST_SKIP() << worker_.info().unavailable;
  }

  Result run(const Problem& p) {
    worker_.ensure_started(worker_python(), {});
    if (!worker_.info().unavailable.empty())
      throw Error(ErrorCode::Unavailable, worker_.info().unavailable);
    Result r;
    worker_.run(prepare(p), r, {});
    return r;
  }

  // A dx of 8 MiB: large enough to be streamed, lent and prefetched.
  static Problem big_problem(std::uint64_t seed) {
    SampleSpec spec;
    spec.shape = {16, 32, 32, 128};
    spec.seed = seed;
    return random_problem(spec);
  }

  FrameworkWorker worker_{{"torch", "torch", "cpu", {{"CUDA_VISIBLE_DEVICES", ""}}}};
  Problem problem_;
};

TEST_F(WorkerTransfer, TheSameInputsAreSentOnce) {
  EXPECT_EQ(worker_.bytes_sent(), input_bytes(problem_));
  run(problem_);
  EXPECT_EQ(worker_.bytes_sent(), input_bytes(problem_));
}

TEST_F(WorkerTransfer, AnAttrToggleSendsNothingAndChangesTheResult) {
  const Result training = run(problem_);
  Problem inference = problem_;
  inference.attrs["is_training"] = false;
  const Result other = run(inference);
  EXPECT_EQ(worker_.bytes_sent(), input_bytes(problem_));
  // The worker ran the new attrs, not a cached answer: inference-mode gradients differ.
  const Tensor& a = training.output("x_backprop").tensor;
  const Tensor& b = other.output("x_backprop").tensor;
  ASSERT_EQ(a.numel(), b.numel());
  bool differs = false;
  for (std::int64_t i = 0; i < a.numel() && !differs; ++i) differs = a.get(i) != b.get(i);
  EXPECT_TRUE(differs);
}

TEST_F(WorkerTransfer, AChangedInputIsSentAlone) {
  Problem changed = problem_;
  Tensor& x = changed.inputs.at("x");
  x.set(0, x.get(0) + 1.0);  // a write makes x its own buffer; the others stay shared
  const Result r = run(changed);
  EXPECT_EQ(worker_.bytes_sent(), input_bytes(problem_) + static_cast<std::uint64_t>(x.nbytes()));
  // And the result is for the changed x: it agrees with cpu-reference on it.
  const Result direct = run_problem(changed, "cpu-reference");
  const Comparison c =
      compare_results("cpu-reference", direct.outputs, "torch", r.outputs, DiffOptions{});
  EXPECT_TRUE(c.passed);
}

bool same_bits(const Result& a, const Result& b) {
  if (a.outputs.size() != b.outputs.size()) return false;
  for (std::size_t i = 0; i < a.outputs.size(); ++i) {
    const Tensor& x = a.outputs[i].tensor;
    const Tensor& y = b.outputs[i].tensor;
    // memcmp takes no null pointer, not even for zero bytes (an empty output has no storage).
    if (x.nbytes() != y.nbytes() || (x.nbytes() && std::memcmp(x.raw(), y.raw(), x.nbytes())))
      return false;
  }
  return true;
}

// The outputs come back whichever way they were filled: written into a new segment (the first
// run, and a run while an earlier result still holds the segment before), copied into the
// segment of the run before (streamed for a dx of 8 MiB), or written there by the kernel itself
// (output lending, from the third such run: the second finds which allocation is the output).
// Each run's bits are the first's, and the framework's own for the problem (cpu-reference
// agrees with them).
TEST_F(WorkerTransfer, EveryWayOfFillingTheOutputsGivesTheSameBits) {
  const Problem big = big_problem(7);
  const Result first = run(big);
  Result held = run(big);  // `first` holds its segment: a new one
  EXPECT_TRUE(same_bits(first, held));
  held = Result();
  Result reused;
  for (int i = 0; i < 3; ++i) {  // the segment before is free again: copied or lent
    reused = Result();
    reused = run(big);
    EXPECT_TRUE(same_bits(first, reused)) << "run " << i;
  }
  if (lending_on()) {  // the last two: PyTorch's grad in place
    const auto dx = static_cast<std::uint64_t>(reused.output("x_backprop").tensor.nbytes());
    EXPECT_EQ(worker_.bytes_in_place(), 2 * dx);
  }
  const Result direct = run_problem(big, "cpu-reference");
  EXPECT_TRUE(
      compare_results("cpu-reference", direct.outputs, "torch", first.outputs, DiffOptions{})
          .passed);
}

// The app shows one result while the next run is made, and lets the result before go (its
// output pool drops a set a backend still holds): the worker writes into that set's segments,
// which it has mapped, so the framework's kernel writes there too (output lending), not into a
// new segment each run. Here the set let go of is handed to the run, which drops it.
TEST_F(WorkerTransfer, ASetGivenBackIsWrittenAgainWhileAnotherIsShown) {
  if (!lending_on()) GTEST_SKIP() << "no output lending here (no library, or LD_PRELOAD set)";
  const Prepared big = prepare(big_problem(13));
  Result shown;
  worker_.run(big, shown, {});
  Result spare;
  worker_.run(big, spare, {});
  const std::uint64_t before = worker_.bytes_in_place();
  for (int i = 0; i < 4; ++i) {  // run into the spare, show it, give the shown one back
    worker_.run(big, spare, {});
    EXPECT_TRUE(same_bits(shown, spare)) << "run " << i;
    std::swap(shown, spare);
  }
  // The first runs into each set find which allocation is PyTorch's output; later ones land.
  EXPECT_GT(worker_.bytes_in_place(), before);
}

// A user's own preloaded library (an allocator, typically) is left alone: no lending beside it,
// every output copied, the same bits.
TEST_F(WorkerTransfer, NoLendingBesideALibraryTheUserPreloads) {
  const Problem big = big_problem(17);
  const Result before_preload = run(big);
  worker_.stop();
  const char* had = std::getenv("LD_PRELOAD");
  const std::string saved = had ? had : "";
  ::setenv("LD_PRELOAD", "libm.so.6", 1);  // harmless, and the user's
  const std::uint64_t before = worker_.bytes_in_place();
  Result r;
  for (int i = 0; i < 4; ++i) {
    r = Result();
    worker_.run(prepare(big), r, {});
  }
  if (had)
    ::setenv("LD_PRELOAD", saved.c_str(), 1);
  else
    ::unsetenv("LD_PRELOAD");
  worker_.stop();  // the next test's worker starts as before
  EXPECT_EQ(worker_.bytes_in_place(), before);
  EXPECT_TRUE(same_bits(before_preload, r));
}

// A fresh worker's first run writes its inputs while the worker imports its framework, and the
// worker maps the large ones meanwhile (8 MiB each here): the bits are those of the same problem
// sent to a worker already running.
TEST_F(WorkerTransfer, AFreshWorkersFirstRunGivesTheBitsOfAWarmOne) {
  const Problem big = big_problem(11);
  const Result warm = run(big);
  worker_.stop();
  const std::uint64_t before = worker_.bytes_sent();
  Result fresh;
  worker_.run(prepare(big), fresh, {});  // the run starts the worker itself
  EXPECT_EQ(worker_.bytes_sent() - before, input_bytes(big));
  EXPECT_TRUE(same_bits(warm, fresh));
}

}  // namespace
}  // namespace bnscope
