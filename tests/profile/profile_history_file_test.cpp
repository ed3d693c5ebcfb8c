// The profile history as a file: every figure the history's table and comparison read comes back
// as it was (profiles measured for real, and one built by hand with non-finite and odd values),
// the baseline pinned again; anything that is not such a file is refused, naming where.
#include "profile/profile_history_file.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/sample.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

Profile measured(const char* backend) {
  SampleSpec spec;
  spec.shape = {2, 3, 4, 5};
  ProfileOptions o;
  o.reps = 3;
  o.copy_probe = [](int, std::size_t) { return 20.0; };
  return profile_problem(random_problem(spec), backend, o);
}

// Field by field, the figures a history keeps (events and counters are not kept).
void expect_same(const Profile& a, const Profile& b) {
  EXPECT_EQ(a.op, b.op);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.measures_speed, b.measures_speed);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.is_training, b.is_training);
  EXPECT_EQ(a.warmup, b.warmup);
  EXPECT_EQ(a.reps, b.reps);
  EXPECT_EQ(a.threads, b.threads);
  EXPECT_EQ(a.time_budget, b.time_budget);
  EXPECT_EQ(a.host_run, b.host_run);
  ASSERT_EQ(a.phases.size(), b.phases.size());
  for (std::size_t i = 0; i < a.phases.size(); ++i) {
    EXPECT_EQ(a.phases[i].phase, b.phases[i].phase);
    EXPECT_EQ(a.phases[i].samples, b.phases[i].samples);
    EXPECT_EQ(a.phases[i].stats.count, b.phases[i].stats.count);
    EXPECT_EQ(a.phases[i].stats.median, b.phases[i].stats.median);
    EXPECT_EQ(a.phases[i].stats.min, b.phases[i].stats.min);
    EXPECT_EQ(a.phases[i].stats.max, b.phases[i].stats.max);
    EXPECT_EQ(a.phases[i].stats.mean, b.phases[i].stats.mean);
  }
  ASSERT_EQ(a.phase_plan.size(), b.phase_plan.size());
  for (std::size_t i = 0; i < a.phase_plan.size(); ++i) {
    EXPECT_EQ(a.phase_plan[i].name, b.phase_plan[i].name);
    EXPECT_EQ(a.phase_plan[i].description, b.phase_plan[i].description);
    EXPECT_EQ(a.phase_plan[i].x_tensors, b.phase_plan[i].x_tensors);
    EXPECT_EQ(a.phase_plan[i].shade, b.phase_plan[i].shade);
  }
  EXPECT_EQ(a.code_path, b.code_path);
  EXPECT_EQ(a.wall.median, b.wall.median);
  EXPECT_EQ(a.wall.count, b.wall.count);
  EXPECT_EQ(a.kernel_seconds, b.kernel_seconds);
  EXPECT_EQ(a.traffic.data_bytes, b.traffic.data_bytes);
  EXPECT_EQ(a.traffic.channel_bytes, b.traffic.channel_bytes);
  EXPECT_EQ(a.traffic.data_passes, b.traffic.data_passes);
  EXPECT_EQ(a.achieved_gbps, b.achieved_gbps);
  EXPECT_EQ(a.roofline_gbps, b.roofline_gbps);
  EXPECT_EQ(a.roofline_source, b.roofline_source);
  EXPECT_TRUE(a.roofline_fraction == b.roofline_fraction ||
              (std::isnan(a.roofline_fraction) && std::isnan(b.roofline_fraction)));
  EXPECT_EQ(a.copy_after_gbps, b.copy_after_gbps);
}

TEST(ProfileHistoryFile, GivesBackEveryRunAndTheBaseline) {
  ProfileHistory h;
  ProfileRun first;
  first.profiles = {measured("cpu"), measured("cpu-reference")};
  first.problem = "FusedBatchNormGradV3 [2,3,4,5] float32 NHWC training";
  first.problem_key = 7;
  first.reps = 3;
  first.when = std::chrono::system_clock::time_point(std::chrono::milliseconds(1764756000123));
  const std::uint64_t one = h.add(first);
  ProfileRun second;
  Profile odd = measured("cpu");
  odd.backend = "a \"quoted\" name\nwith a line break";
  odd.roofline_fraction = std::numeric_limits<double>::quiet_NaN();
  odd.dtype = DType::BF16;
  odd.shape = {};
  second.profiles = {odd};
  second.problem = "another";
  second.threads = 2;
  second.reps = 5;
  second.when = std::chrono::system_clock::time_point(std::chrono::milliseconds(-5));
  h.add(second);
  ASSERT_TRUE(h.pin(one));

  const ProfileHistory back = parse_profile_history(profile_history_json(h), "test");
  ASSERT_EQ(back.runs().size(), 2u);
  ASSERT_TRUE(back.baseline());
  EXPECT_EQ(back.baseline()->problem, first.problem);
  for (std::size_t r = 0; r < 2; ++r) {
    const ProfileRun& a = h.runs()[r];
    const ProfileRun& b = back.runs()[r];
    EXPECT_EQ(b.id, r + 1);
    EXPECT_TRUE(b.earlier_session);
    EXPECT_EQ(b.problem_key, 0u);  // the key was the earlier session's own
    EXPECT_EQ(b.problem, a.problem);
    EXPECT_EQ(b.reps, a.reps);
    EXPECT_EQ(b.threads, a.threads);
    EXPECT_EQ(b.when, a.when);
    ASSERT_EQ(b.profiles.size(), a.profiles.size());
    for (std::size_t p = 0; p < a.profiles.size(); ++p) expect_same(a.profiles[p], b.profiles[p]);
  }
  // What the comparison with a baseline reads is all there: it gives the same deltas.
  const ProfileComparison before =
      compare_profiles(h.runs()[1].profiles[0], h.runs()[0].profiles[0]);
  const ProfileComparison after =
      compare_profiles(back.runs()[1].profiles[0], back.runs()[0].profiles[0]);
  ASSERT_EQ(before.phases.size(), after.phases.size());
  ASSERT_FALSE(before.phases.empty());
  for (std::size_t i = 0; i < before.phases.size(); ++i) {
    EXPECT_EQ(before.phases[i].delta_seconds, after.phases[i].delta_seconds);
    EXPECT_TRUE(before.phases[i].gbps == after.phases[i].gbps ||
                (std::isnan(before.phases[i].gbps) && std::isnan(after.phases[i].gbps)));
  }
  // An empty history, and one without a baseline, come back as they were.
  EXPECT_TRUE(parse_profile_history(profile_history_json(ProfileHistory{}), "t").runs().empty());
  ProfileHistory unpinned;
  unpinned.add(second);
  EXPECT_FALSE(parse_profile_history(profile_history_json(unpinned), "t").baseline());
}

TEST(ProfileHistoryFile, KeepsTheCapacityAndTheBaseline) {
  ProfileHistory h;
  for (int i = 0; i < 5; ++i) {
    ProfileRun r;
    r.problem = "run " + std::to_string(i);
    r.profiles = {Profile{}};
    h.add(r);
  }
  ASSERT_TRUE(h.pin(1));
  const ProfileHistory back = parse_profile_history(profile_history_json(h), "t", 3);
  ASSERT_EQ(back.runs().size(), 3u);
  EXPECT_EQ(back.runs()[0].problem, "run 0");  // the baseline stays
  EXPECT_EQ(back.runs()[1].problem, "run 3");
  EXPECT_EQ(back.runs()[2].problem, "run 4");
  ASSERT_TRUE(back.baseline());
  EXPECT_EQ(back.baseline()->problem, "run 0");
}

std::string refusal(const std::string& text) {
  try {
    parse_profile_history(text, "history.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text;
  return {};
}

TEST(ProfileHistoryFile, RefusesWhatIsNotAHistoryNamingWhere) {
  ProfileHistory h;
  ProfileRun r;
  r.profiles = {measured("cpu")};
  r.problem = "p";
  h.add(r);
  h.pin(1);
  const std::string good = profile_history_json(h);
  const auto edited = [&good](const std::string& from, const std::string& to) {
    const std::size_t at = good.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return good.substr(0, at) + to + good.substr(at + from.size());
  };
  EXPECT_NE(refusal("").find("history.json"), std::string::npos);
  EXPECT_NE(refusal("{\"schema\": ").find("history.json"), std::string::npos);
  EXPECT_NE(refusal("[]").find("history.json: expected a JSON object"), std::string::npos);
  EXPECT_NE(refusal(edited("bnscope-profile-history/1", "bnscope-report/2")).find("schema"),
            std::string::npos);
  EXPECT_NE(refusal(edited("\"reps\": 3", "\"reps\": \"3\"")).find("runs[0].profiles[0].reps"),
            std::string::npos);
  EXPECT_NE(refusal(edited("\"reps\": 3", "\"reps\": -3")).find("whole number"), std::string::npos);
  EXPECT_NE(refusal(edited("\"reps\": 3", "\"reps\": 2.5")).find("whole number"),
            std::string::npos);
  EXPECT_NE(refusal(edited("\"float32\"", "\"float8\"")).find("runs[0].profiles[0].dtype"),
            std::string::npos);
  EXPECT_NE(refusal(edited("\"baseline\": 0", "\"baseline\": 4")).find("baseline"),
            std::string::npos);
  EXPECT_NE(refusal(edited("\"phases\": [", "\"phases\": 5, \"unused\": [")).find("phases"),
            std::string::npos);
  // Every field is asked for: one left out is named.
  EXPECT_NE(refusal(edited("\"code_path\":", "\"code_pathx\":")).find("code_path"),
            std::string::npos);
}

}  // namespace
}  // namespace bnscope
