// Profiles of one problem on several backends as one batch: one output set and one copy probe
// for all of them, the pool's set written into, failures kept, the events on one time axis.
#include "profile/profile_batch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "engine/output_pool.h"
#include "ops/prepared.h"
#include "ops/sample.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

Problem batch_problem() {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 5};
  return random_problem(spec);
}

TEST(ProfileBatch, BackendsShareOneProbeAndOneOutputSet) {
  const Problem problem = batch_problem();
  ProfileOptions options;
  options.reps = 2;
  std::vector<std::size_t> probes;
  options.copy_probe = [&probes](int, std::size_t bytes) {
    probes.push_back(bytes);
    return 20.0;
  };
  output_pool().clear();
  Result earlier = run_problem(problem, "cpu");
  const void* buffer = std::as_const(earlier.outputs.front().tensor).raw();
  output_pool().give(std::move(earlier));
  const ProfileBatch batch = profile_backends(problem, {"cpu", "cpu-reference"}, options);
  EXPECT_TRUE(batch.errors.empty());
  EXPECT_FALSE(batch.first_error);
  ASSERT_EQ(batch.profiles.size(), 2u);
  // Both backends' repetitions wrote into the one output set the pool held, back there now.
  const std::vector<Result> held = output_pool().held();
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(std::as_const(held.front().outputs.front().tensor).raw(), buffer);
  EXPECT_EQ(held.front().backend, "cpu-reference");
  // One probe for the batch, its figure the roofline of every CPU profile.
  EXPECT_EQ(probes.size(), 1u);
  for (const Profile& p : batch.profiles) {
    EXPECT_EQ(p.roofline_gbps, 20.0);
    EXPECT_EQ(p.roofline_source, "copy bandwidth measured in this run");
    EXPECT_EQ(p.roofline_fraction, p.achieved_gbps / 20.0);
  }
  options.measure_copy = false;
  EXPECT_EQ(profile_backends(problem, {"cpu"}, options).profiles.front().roofline_gbps, 0.0);
  EXPECT_EQ(probes.size(), 1u);
}

// Without a probe given, the copy probe runs in the largest buffer of the set the repetitions
// wrote into, which stays held; when that buffer is too small for both of the probe's arrays,
// the set is let go before the probe makes its own.
TEST(ProfileBatch, TheCopyProbeRunsInTheOutputSet) {
  const Problem problem = batch_problem();
  output_pool().clear();
  Result earlier = run_problem(problem, "cpu-reference");
  const std::size_t bytes = earlier.outputs.front().tensor.nbytes();
  const void* buffer = std::as_const(earlier.outputs.front().tensor).raw();
  output_pool().give(std::move(earlier));
  ProfileOptions options;
  options.reps = 2;
  options.copy_bytes = bytes / 2;
  ProfileBatch batch = profile_backends(problem, {"cpu"}, options);
  EXPECT_TRUE(batch.errors.empty());
  ASSERT_EQ(batch.profiles.size(), 1u);
  EXPECT_GT(batch.profiles.front().roofline_gbps, 0);
  ASSERT_EQ(output_pool().held().size(), 1u);
  EXPECT_EQ(std::as_const(output_pool().held().front().outputs.front().tensor).raw(), buffer);
  options.copy_bytes = bytes * 4;  // two arrays of it are past the set's largest buffer
  batch = profile_backends(problem, {"cpu"}, options);
  ASSERT_EQ(batch.profiles.size(), 1u);
  EXPECT_GT(batch.profiles.front().roofline_gbps, 0);
  EXPECT_TRUE(output_pool().empty());
}

// The prepared form runs the same batch on a problem prepared once by the caller.
TEST(ProfileBatch, RunsOnAPreparedProblem) {
  const Prepared prepared = prepare(batch_problem());
  ProfileOptions options;
  options.reps = 2;
  options.copy_probe = [](int, std::size_t) { return 20.0; };
  const ProfileBatch batch = profile_backends(prepared, {"cpu-reference", "cpu"}, options);
  EXPECT_TRUE(batch.errors.empty());
  ASSERT_EQ(batch.profiles.size(), 2u);
  EXPECT_EQ(batch.profiles[0].backend, "cpu-reference");
  EXPECT_EQ(batch.profiles[1].backend, "cpu");
  EXPECT_EQ(batch.profiles[1].reps, 2);
  EXPECT_EQ(batch.profiles[1].roofline_gbps, 20.0);
}

// A backend that fails is named and the next still runs; the first failure is kept as thrown,
// its message and code, for a caller that stops at it.
TEST(ProfileBatch, KeepsTheFirstFailureAsThrown) {
  ProfileOptions options;
  options.reps = 2;
  options.measure_copy = false;
  const ProfileBatch batch = profile_backends(batch_problem(), {"nosuch", "cpu"}, options);
  ASSERT_EQ(batch.profiles.size(), 1u);
  EXPECT_EQ(batch.profiles.front().backend, "cpu");
  ASSERT_EQ(batch.errors.size(), 1u);
  EXPECT_EQ(batch.errors.front().rfind("nosuch: unknown backend 'nosuch'", 0), 0u)
      << batch.errors.front();
  ASSERT_TRUE(batch.first_error);
  try {
    std::rethrow_exception(batch.first_error);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ("nosuch: " + std::string(e.what()), batch.errors.front());
  }
}

// A problem prepare() refuses is every backend's error, and nothing is profiled.
TEST(ProfileBatch, ARefusedProblemIsEveryBackendsError) {
  Problem problem = batch_problem();
  problem.inputs.at("scale") = Tensor(DType::F32, {7});  // x has 5 channels
  ProfileOptions options;
  options.reps = 2;
  const ProfileBatch batch = profile_backends(problem, {"cpu", "cpu-reference"}, options);
  EXPECT_TRUE(batch.profiles.empty());
  ASSERT_EQ(batch.errors.size(), 2u);
  EXPECT_EQ(batch.errors[0].rfind("cpu: ", 0), 0u) << batch.errors[0];
  EXPECT_EQ(batch.errors[1].rfind("cpu-reference: ", 0), 0u) << batch.errors[1];
  EXPECT_EQ(batch.errors[0].substr(5), batch.errors[1].substr(15));
  EXPECT_TRUE(batch.first_error);
}

// The timeline gets every profile's events, each profile after the one before.
TEST(ProfileBatch, CombinedEventsLayTheProfilesOneAfterAnother) {
  ProfileOptions options;
  options.warmup = 1;
  options.reps = 3;
  options.measure_copy = false;
  const Profile p = profile_problem(batch_problem(), "cpu", options);
  ASSERT_FALSE(p.events.events().empty());
  const EventStore all = combined_events({p, p});
  ASSERT_EQ(all.events().size(), 2 * p.events.events().size());
  double end_first = 0;
  for (std::size_t i = 0; i < p.events.events().size(); ++i)
    end_first = std::max(end_first, all.events()[i].start + all.events()[i].duration);
  for (std::size_t i = p.events.events().size(); i < all.events().size(); ++i)
    EXPECT_GE(all.events()[i].start, end_first);
}

}  // namespace
}  // namespace bnscope
