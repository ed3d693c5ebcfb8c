// The run the app shows, without a window: a comparison rides on the backend's run, fails alone
// when it cannot be made, reuses a run already shown, and words errors as the caller asks.

#include "analysis/outcome.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "engine/engine.h"
#include "io/npy.h"
#include "ops/sample.h"

namespace bnscope {
namespace {

Problem outcome_problem() {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 6};
  return random_problem(spec);
}

PipelineRequest against_reference(std::vector<std::string> candidates) {
  PipelineRequest r;
  r.reference = kReferenceBackend;
  r.backends = std::move(candidates);
  return r;
}

std::string_view loud_name(Option o) {
  return o == Option::Against ? "SAVED" : "OTHER";
}
std::string no_hint(Option) {
  return {};
}

TEST(Outcome, WithBackendRunsReferenceFirstAndEachBackendOnce) {
  const PipelineRequest c = against_reference({"cpu", "cpu-reference"});
  const PipelineRequest r = with_backend("cpu", &c);
  EXPECT_EQ(r.backends, (std::vector<std::string>{"cpu-reference", "cpu"}));
  EXPECT_EQ(r.reference, "cpu-reference");
  // Saved outputs: no reference backend runs, the app's backend joins the candidates.
  PipelineRequest saved;
  saved.against = "/some/outputs.npz";
  saved.backends = {"cpu-reference"};
  const PipelineRequest s = with_backend("cpu", &saved);
  EXPECT_EQ(s.backends, (std::vector<std::string>{"cpu-reference", "cpu"}));
  EXPECT_EQ(s.against, saved.against);
  // Alone, the backend is its own reference and nothing is compared.
  const PipelineRequest alone = with_backend("cpu", nullptr);
  EXPECT_EQ(alone.backends, std::vector<std::string>{"cpu"});
  EXPECT_EQ(alone.reference, "cpu");
  EXPECT_FALSE(alone.find_causes);
}

TEST(Outcome, AComparisonAnswersOnTheSameRun) {
  const Problem p = outcome_problem();
  const PipelineRequest c = against_reference({"cpu"});
  const auto out = compute_outcome(p, "cpu", RunContext{}, 7, &c);
  ASSERT_TRUE(out->ok()) << out->error;
  ASSERT_TRUE(out->diff);
  ASSERT_TRUE(out->diff->ok()) << out->diff->error;
  EXPECT_EQ(out->diff->result, out->pipeline);  // one pipeline serves both
  EXPECT_EQ(out->diff->revision, 7u);
  EXPECT_EQ(out->result, out->pipeline->run("cpu"));
  EXPECT_TRUE(out->diff->report().passed());
  ASSERT_NE(out->diff->expected("x_backprop"), nullptr);
  ASSERT_NE(out->diff->candidate("cpu", "x_backprop"), nullptr);
  // The expected outputs are cpu-reference's, bit for bit as it runs alone.
  const Result ref = run_problem(p, kReferenceBackend);
  EXPECT_EQ(out->diff->expected("x_backprop")->tensor.to_doubles(),
            ref.output("x_backprop").tensor.to_doubles());
  EXPECT_EQ(out->stats.channels, 6);  // NHWC: the last axis
}

TEST(Outcome, AComparisonThatCannotBeMadeFailsAlone) {
  const Problem p = outcome_problem();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("bnscope-outcome-test-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  PipelineRequest c;
  c.against = (dir / "missing.npz").string();
  c.backends = {"cpu"};
  const auto out = compute_outcome(p, "cpu", RunContext{}, 1, &c);
  ASSERT_TRUE(out->ok()) << out->error;  // the backend's own run stands
  ASSERT_TRUE(out->diff);
  EXPECT_FALSE(out->diff->ok());
  EXPECT_NE(out->diff->error.find(c.against), std::string::npos) << out->diff->error;

  // Saved outputs lacking some: an error about that option, in the caller's words.
  write_npy((dir / "x_backprop.npy").string(),
            run_problem(p, kReferenceBackend).output("x_backprop").tensor);
  c.against = dir.string();
  const OptionWords loud{loud_name, no_hint};
  const auto worded = compute_outcome(p, "cpu", RunContext{}, 1, &c, nullptr, loud);
  ASSERT_TRUE(worded->ok()) << worded->error;
  EXPECT_NE(worded->diff->error.find("SAVED"), std::string::npos) << worded->diff->error;
  EXPECT_NE(worded->diff->error.find("scale_backprop"), std::string::npos);
  std::filesystem::remove_all(dir);

  PipelineRequest none = against_reference({});
  const auto empty = compute_outcome(p, "cpu", RunContext{}, 1, &none);
  ASSERT_TRUE(empty->ok());
  EXPECT_NE(empty->diff->error.find("at least one backend"), std::string::npos);
  EXPECT_EQ(comparison_problem(none), empty->diff->error);
  EXPECT_EQ(comparison_problem(against_reference({"cpu"})), std::nullopt);
}

TEST(Outcome, AFailedRunStillSummarizesTheInputs) {
  Problem p = outcome_problem();
  p.inputs.erase("scale");
  const PipelineRequest c = against_reference({"cpu"});
  const auto out = compute_outcome(p, "cpu", RunContext{}, 2, &c);
  EXPECT_FALSE(out->ok());
  EXPECT_FALSE(out->prepared);
  EXPECT_NE(out->error.find("scale"), std::string::npos) << out->error;
  EXPECT_FALSE(out->stats.inputs.empty());
  ASSERT_TRUE(out->diff);
  EXPECT_EQ(out->diff->error, out->error);  // the comparison says the same
}

TEST(Outcome, ARunAlreadyShownIsNotRunAgain) {
  const Problem p = outcome_problem();
  const auto shown = compute_outcome(p, "cpu", RunContext{}, 3);
  ASSERT_TRUE(shown->ok());
  EXPECT_FALSE(shown->diff);
  const PipelineRequest c = against_reference({"cpu"});
  const auto compared = compute_outcome(p, "cpu", RunContext{}, 3, &c, shown.get());
  ASSERT_TRUE(compared->ok() && compared->diff && compared->diff->ok());
  EXPECT_TRUE(compared->result->output("x_backprop")
                  .tensor.shares_storage_with(shown->result->output("x_backprop").tensor));
  // Another revision is another problem: its run is made afresh.
  const auto next = compute_outcome(p, "cpu", RunContext{}, 4, &c, shown.get());
  ASSERT_TRUE(next->ok());
  EXPECT_FALSE(next->result->output("x_backprop")
                   .tensor.shares_storage_with(shown->result->output("x_backprop").tensor));
}

// A problem replaced whole keeps of the outcome shown only what it read of the buffers the next
// problem keeps: no outputs, no comparison, no other large input.
TEST(Outcome, ReadingsKeepOnlyTheBuffersTheNextProblemKeeps) {
  SampleSpec spec;
  spec.shape = {4, 32, 32, 160};  // float32 2.6 MB, float16 1.3 MB: past what counts as small
  Problem p = random_problem(spec);
  p.dtype = DType::F16;
  const PipelineRequest c = against_reference({"cpu"});
  auto shown = compute_outcome(p, "cpu", RunContext{}, 1, &c);
  ASSERT_TRUE(shown->ok() && shown->diff && shown->diff->ok()) << shown->error;
  const std::weak_ptr<const void> dx = shown->result->output("x_backprop").tensor.storage_handle();
  const std::weak_ptr<const void> ref =
      shown->pipeline->run(kReferenceBackend)->output("x_backprop").tensor.storage_handle();
  const Tensor x16 = shown->prepared->in("x");
  const Tensor dy16 = shown->prepared->in("y_backprop");
  ASSERT_EQ(x16.dtype(), DType::F16);
  ASSERT_FALSE(x16.shares_storage_with(p.inputs.at("x")));

  // Nothing kept: the readings hold none of the large tensors.
  const auto none = readings_of(*shown, {});
  EXPECT_FALSE(none->pipeline);
  EXPECT_EQ(none->result, nullptr);
  EXPECT_FALSE(none->diff);
  EXPECT_FALSE(none->prepared);
  EXPECT_EQ(none->stats.input("x"), nullptr);
  EXPECT_EQ(none->stats.input("y_backprop"), nullptr);
  EXPECT_NE(none->stats.input("scale"), nullptr);  // per-channel: small

  // The float32 inputs kept (Open Recent back to the file's float32): their summaries stay; the
  // float16 conversions, which nothing keeps, go with the prepared problem.
  const std::vector<Tensor> originals{p.inputs.at("x"), p.inputs.at("y_backprop")};
  const auto same_inputs = readings_of(*shown, originals);
  ASSERT_NE(same_inputs->stats.input("x"), nullptr);
  EXPECT_TRUE(same_inputs->stats.input("x")->tensor.shares_storage_with(p.inputs.at("x")));
  EXPECT_FALSE(same_inputs->prepared);

  // Conversions kept too: the next run of the same buffers takes them instead of converting.
  const auto with_conversions = readings_of(*shown, {originals[0], originals[1], x16, dy16});
  ASSERT_TRUE(with_conversions->prepared);
  shown.reset();
  EXPECT_TRUE(dx.expired());
  EXPECT_TRUE(ref.expired());
  const auto next = compute_outcome(p, "cpu", RunContext{}, 2, nullptr, with_conversions.get());
  ASSERT_TRUE(next->ok()) << next->error;
  EXPECT_TRUE(next->prepared->in("x").shares_storage_with(x16));
  EXPECT_TRUE(next->prepared->in("y_backprop").shares_storage_with(dy16));
}

TEST(Outcome, RecompareKeepsTheRunsAndAppliesNewOptions) {
  const Problem p = outcome_problem();
  const PipelineRequest c = against_reference({"cpu"});
  const auto diff = compute_diff(p, c);
  ASSERT_TRUE(diff->ok()) << diff->error;
  DiffOptions strict;
  strict.atol = 0.0;
  strict.rtol = 0.0;
  const auto again = recompare(*diff, strict);
  ASSERT_TRUE(again->result);
  EXPECT_TRUE(again->request.diff == strict);
  EXPECT_TRUE(same_request(again->request, [&] {
    PipelineRequest r = c;
    r.diff = strict;
    return r;
  }()));
  EXPECT_FALSE(same_request(again->request, c));
  EXPECT_TRUE(
      again->result->run("cpu")
          ->output("x_backprop")
          .tensor.shares_storage_with(diff->result->run("cpu")->output("x_backprop").tensor));
}

}  // namespace
}  // namespace bnscope
