// The session's profile runs and their baseline: bounded, the baseline kept, and the per-phase
// comparison computed from profiles built by hand with known times and bytes.
#include "profile/profile_history.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace bnscope {
namespace {

PhaseStats phase(std::string name, double median) {
  PhaseStats ps;
  ps.phase = std::move(name);
  ps.samples = {median};
  ps.stats.count = 1;
  ps.stats.min = ps.stats.median = ps.stats.max = ps.stats.mean = median;
  return ps;
}

// A cpu profile: the whole run and two passes, 12 MB moved in all (4 MB per x-sized tensor),
// the reduce pass charged x and dy, the write pass x, dy and dx.
Profile cpu_profile(double kernel, double reduce, double write, double wall) {
  Profile p;
  p.backend = "cpu";
  p.host_run = true;
  p.traffic.data_bytes = 12'000'000;
  p.traffic.data_passes = 3;
  p.phase_plan = {{"pass:reduce", "", 2}, {"pass:write", "", 3}};
  p.phases = {phase("kernel:cpu", kernel), phase("pass:reduce", reduce),
              phase("pass:write", write)};
  p.wall.median = wall;
  p.kernel_seconds = kernel;
  p.achieved_gbps = 12'000'000 / kernel / 1e9;
  p.events.add("kernel:cpu", "cpu", kHostTrack, 0, kernel);
  return p;
}

ProfileRun run_of(std::vector<Profile> profiles, std::uint64_t key = 1) {
  ProfileRun r;
  r.profiles = std::move(profiles);
  r.problem = "FusedBatchNormGradV3 [2,3,4,5] float32 NHWC training";
  r.problem_key = key;
  r.reps = 10;
  return r;
}

TEST(ProfileHistory, KeepsRunsInOrderWithIdsAndWithoutTheirEvents) {
  ProfileHistory h;
  const std::uint64_t a = h.add(run_of({cpu_profile(1e-3, 4e-4, 6e-4, 1.1e-3)}));
  const std::uint64_t b = h.add(run_of({cpu_profile(2e-3, 8e-4, 1.2e-3, 2.1e-3)}, 2));
  EXPECT_EQ(a, 1u);
  EXPECT_EQ(b, 2u);
  ASSERT_EQ(h.runs().size(), 2u);
  EXPECT_EQ(h.runs()[0].id, a);
  EXPECT_EQ(h.runs()[1].problem_key, 2u);
  EXPECT_TRUE(h.runs()[0].profiles[0].events.empty());
  EXPECT_EQ(h.runs()[0].profiles[0].phases.size(), 3u);  // the figures stay
  ASSERT_NE(h.find(b), nullptr);
  EXPECT_EQ(h.find(b)->profiles[0].kernel_seconds, 2e-3);
  EXPECT_EQ(h.find(99), nullptr);
  EXPECT_NE(h.runs()[0].find("cpu"), nullptr);
  EXPECT_EQ(h.runs()[0].find("cpu-reference"), nullptr);
}

TEST(ProfileHistory, IsBoundedDroppingTheOldestButNeverTheBaseline) {
  ProfileHistory h(3);
  for (int i = 0; i < 3; ++i) h.add(run_of({cpu_profile(1e-3, 4e-4, 6e-4, 1e-3)}));
  h.add(run_of({cpu_profile(1e-3, 4e-4, 6e-4, 1e-3)}));
  ASSERT_EQ(h.runs().size(), 3u);
  EXPECT_EQ(h.runs().front().id, 2u);
  EXPECT_EQ(h.runs().back().id, 4u);
  ASSERT_TRUE(h.pin(2));
  h.add(run_of({cpu_profile(1e-3, 4e-4, 6e-4, 1e-3)}));
  h.add(run_of({cpu_profile(1e-3, 4e-4, 6e-4, 1e-3)}));
  ASSERT_EQ(h.runs().size(), 3u);
  EXPECT_EQ(h.runs()[0].id, 2u);  // the baseline stays, the runs after it go
  EXPECT_EQ(h.runs()[1].id, 5u);
  EXPECT_EQ(h.runs()[2].id, 6u);
  ASSERT_NE(h.baseline(), nullptr);
  EXPECT_EQ(h.baseline()->id, 2u);
  EXPECT_EQ(h.baseline(), &h.runs()[0]);
}

TEST(ProfileHistory, PinsAndClearsTheBaseline) {
  ProfileHistory h;
  EXPECT_EQ(h.baseline(), nullptr);
  EXPECT_FALSE(h.pin(1));
  h.add(run_of({cpu_profile(1e-3, 4e-4, 6e-4, 1e-3)}));
  h.add(run_of({cpu_profile(2e-3, 4e-4, 6e-4, 1e-3)}));
  EXPECT_TRUE(h.pin(2));
  EXPECT_EQ(h.baseline(), &h.runs()[1]);
  EXPECT_FALSE(h.pin(7));  // no such run: the baseline stays
  EXPECT_EQ(h.baseline()->id, 2u);
  EXPECT_TRUE(h.pin(1));
  EXPECT_EQ(h.baseline()->id, 1u);
  h.clearBaseline();
  EXPECT_EQ(h.baseline(), nullptr);
  EXPECT_EQ(h.runs().size(), 2u);
  h.pin(2);
  h.clear();
  EXPECT_TRUE(h.runs().empty());
  EXPECT_EQ(h.baseline(), nullptr);
}

TEST(CompareProfiles, GivesTimeBandwidthAndPercentPerPhase) {
  // Twice as slow on the whole run, the reduce pass half the baseline's time, the write as before.
  const Profile now = cpu_profile(2e-3, 2e-4, 6e-4, 3e-3);
  const Profile base = cpu_profile(1e-3, 4e-4, 6e-4, 1.5e-3);
  const ProfileComparison c = compare_profiles(now, base);
  EXPECT_EQ(c.backend, "cpu");
  ASSERT_EQ(c.phases.size(), 3u);
  EXPECT_TRUE(c.only_in_profile.empty());
  EXPECT_TRUE(c.only_in_baseline.empty());
  const PhaseDelta& k = c.phases[0];
  EXPECT_EQ(k.phase, "kernel:cpu");
  EXPECT_DOUBLE_EQ(k.seconds, 2e-3);
  EXPECT_DOUBLE_EQ(k.baseline_seconds, 1e-3);
  EXPECT_DOUBLE_EQ(k.delta_seconds, 1e-3);
  EXPECT_DOUBLE_EQ(k.percent, 100.0);
  // 12 MB in 2 ms is 6 GB/s, in 1 ms 12 GB/s.
  EXPECT_DOUBLE_EQ(k.gbps, 6.0);
  EXPECT_DOUBLE_EQ(k.baseline_gbps, 12.0);
  EXPECT_DOUBLE_EQ(k.delta_gbps, -6.0);
  const PhaseDelta& r = c.phases[1];
  EXPECT_EQ(r.phase, "pass:reduce");
  EXPECT_DOUBLE_EQ(r.percent, -50.0);
  EXPECT_DOUBLE_EQ(r.gbps, 40.0);  // 8 MB in 0.2 ms
  EXPECT_DOUBLE_EQ(r.baseline_gbps, 20.0);
  EXPECT_DOUBLE_EQ(c.phases[2].percent, 0.0);
  EXPECT_DOUBLE_EQ(c.phases[2].delta_gbps, 0.0);
  EXPECT_DOUBLE_EQ(c.wall.percent, 100.0);
  EXPECT_TRUE(std::isnan(c.wall.gbps));
  EXPECT_EQ(find_delta(c, "pass:reduce"), &c.phases[1]);
  EXPECT_EQ(find_delta(c, "wall"), &c.wall);
  EXPECT_EQ(find_delta(c, "upload"), nullptr);
}

TEST(CompareProfiles, NamesThePhasesOnlyOneSideHas) {
  Profile now = cpu_profile(1e-3, 4e-4, 6e-4, 1e-3);
  Profile base = cpu_profile(1e-3, 4e-4, 6e-4, 1e-3);
  now.phases.push_back(phase("pass:scale", 1e-4));
  base.phases.erase(base.phases.begin() + 1);  // no reduce pass in the baseline
  base.phases[0].stats.median = 0;             // a baseline time of 0: no percent
  const ProfileComparison c = compare_profiles(now, base);
  ASSERT_EQ(c.phases.size(), 2u);
  EXPECT_EQ(c.phases[0].phase, "kernel:cpu");
  EXPECT_TRUE(std::isnan(c.phases[0].percent));
  EXPECT_EQ(c.phases[1].phase, "pass:write");
  EXPECT_EQ(c.only_in_profile, (std::vector<std::string>{"pass:reduce", "pass:scale"}));
  EXPECT_TRUE(c.only_in_baseline.empty());
  const ProfileComparison back = compare_profiles(base, now);
  EXPECT_EQ(back.only_in_baseline, (std::vector<std::string>{"pass:reduce", "pass:scale"}));
}

}  // namespace
}  // namespace bnscope
