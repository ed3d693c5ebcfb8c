// The session's copy roofline: measured once as the best of several probes, remembered with how
// and when, measured again only on request, one measurement at a time.
#include "profile/roofline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace bnscope {
namespace {

TEST(CopyRoofline, MeasuresOnceAsTheBestOfItsProbes) {
  std::vector<double> figures = {40, 90, 60, 85, 70, 10, 20, 30, 25, 15};
  std::vector<std::size_t> sizes;
  std::size_t next = 0;
  CopyRoofline roofline([&](int, std::size_t bytes) {
    sizes.push_back(bytes);
    return figures.at(next++);
  });
  EXPECT_FALSE(roofline.latest());
  EXPECT_FALSE(roofline.cached(2, 1 << 20));
  const auto before = std::chrono::system_clock::now();
  const RooflineMeasurement m = roofline.get(2, std::size_t{48} << 20);
  EXPECT_EQ(m.gbps, 90.0);
  EXPECT_EQ(m.probes, 5);
  EXPECT_EQ(m.threads, 2);
  EXPECT_EQ(m.threads_used, 2);
  EXPECT_EQ(m.bytes, std::size_t{48} << 20);
  EXPECT_GE(m.when, before);
  EXPECT_EQ(m.how(), "best of 5 copy probes of 48 MiB on 2 threads");
  EXPECT_EQ(sizes, std::vector<std::size_t>(5, std::size_t{48} << 20));
  // Later profiles take the same figure without probing.
  EXPECT_EQ(roofline.get(2, std::size_t{48} << 20).gbps, 90.0);
  EXPECT_EQ(roofline.get(2, std::size_t{48} << 20).when, m.when);
  EXPECT_EQ(next, 5u);
  EXPECT_EQ(roofline.measurements(), 1);
  ASSERT_TRUE(roofline.latest());
  EXPECT_EQ(roofline.latest()->gbps, 90.0);
  // On request it measures again: the next five probes, their best replacing the first.
  const RooflineMeasurement again = roofline.remeasure(2, std::size_t{48} << 20);
  EXPECT_EQ(again.gbps, 30.0);
  EXPECT_EQ(next, 10u);
  EXPECT_EQ(roofline.get(2, std::size_t{48} << 20).gbps, 30.0);
  EXPECT_EQ(roofline.measurements(), 2);
}

TEST(CopyRoofline, OtherThreadsAreAnotherRoofline) {
  int probes = 0;
  CopyRoofline roofline(
      [&](int threads, std::size_t) {
        ++probes;
        return 10.0 * threads;
      },
      3);
  EXPECT_EQ(roofline.get(1, 4096).gbps, 10.0);
  EXPECT_EQ(roofline.get(4, 4096).gbps, 40.0);
  EXPECT_EQ(probes, 6);
  EXPECT_EQ(roofline.get(1, 4096).gbps, 10.0);  // each kept
  EXPECT_EQ(probes, 6);
  EXPECT_EQ(roofline.latest()->threads, 4);
  EXPECT_EQ(roofline.get(1, 4096).how(), "best of 3 copy probes of 4096 bytes on 1 thread");
}

TEST(CopyRoofline, ConcurrentCallersShareOneMeasurement) {
  std::atomic<int> probes{0};
  CopyRoofline roofline([&](int, std::size_t) {
    ++probes;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return 50.0;
  });
  std::vector<std::thread> callers;
  std::vector<double> got(4);
  for (int i = 0; i < 4; ++i)
    callers.emplace_back(
        [&, i] { got[static_cast<std::size_t>(i)] = roofline.get(0, 1 << 20).gbps; });
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(probes.load(), 5);
  EXPECT_EQ(got, std::vector<double>(4, 50.0));
}

TEST(CopyRoofline, TheDefaultProbeCopiesRealMemory) {
  CopyRoofline roofline({}, 2);
  const RooflineMeasurement m = roofline.get(1, std::size_t{4} << 20);
  EXPECT_GT(m.gbps, 0.1);
  EXPECT_EQ(m.how(), "best of 2 copy probes of 4 MiB on 1 thread");
}

TEST(CopyRoofline, SetsAProfilesRooflineAndSaysWhence) {
  CopyRoofline roofline([](int, std::size_t) { return 20.0; });
  const RooflineMeasurement m = roofline.get(2, std::size_t{48} << 20);
  Profile p;
  p.achieved_gbps = 5;
  apply_roofline(p, m);
  EXPECT_EQ(p.roofline_gbps, 20.0);
  EXPECT_EQ(p.roofline_fraction, 0.25);
  EXPECT_EQ(p.roofline_source.rfind("copy roofline, best of 5 copy probes of 48 MiB on 2 threads, "
                                    "measured at 20",
                                    0),
            0u);
  EXPECT_EQ(p.roofline_source.back(), 'Z');
}

}  // namespace
}  // namespace bnscope
