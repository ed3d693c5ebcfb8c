// The host cache description the pass structures size themselves from: sysfs text parsing,
// missing files, and the fallbacks.

#include "backends/cpu/host_caches.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "backends/cpu/simd.h"

namespace bnscope::testing {
namespace {

namespace fs = std::filesystem;

TEST(HostCaches, ParsesSysfsSizes) {
  EXPECT_EQ(cpu::parse_cache_size("32K\n"), std::size_t{32} << 10);
  EXPECT_EQ(cpu::parse_cache_size("512K"), std::size_t{512} << 10);
  EXPECT_EQ(cpu::parse_cache_size("32768K"), std::size_t{32} << 20);
  EXPECT_EQ(cpu::parse_cache_size(" 2M "), std::size_t{2} << 20);
  EXPECT_EQ(cpu::parse_cache_size("1024"), std::size_t{1024});
  EXPECT_FALSE(cpu::parse_cache_size(""));
  EXPECT_FALSE(cpu::parse_cache_size("K"));
  EXPECT_FALSE(cpu::parse_cache_size("12Q"));
  EXPECT_FALSE(cpu::parse_cache_size("-4K"));
}

TEST(HostCaches, CountsCpuLists) {
  EXPECT_EQ(cpu::count_cpu_list("0\n"), 1);
  EXPECT_EQ(cpu::count_cpu_list("0-1"), 2);
  EXPECT_EQ(cpu::count_cpu_list("0,2,4-7"), 6);
  EXPECT_EQ(cpu::count_cpu_list(""), 0);
  EXPECT_EQ(cpu::count_cpu_list("3-1"), 0);
  EXPECT_EQ(cpu::count_cpu_list("a"), 0);
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

void write_index(const fs::path& dir, int i, const std::string& level, const std::string& type,
                 const std::string& size, const std::string& shared) {
  const fs::path d = dir / ("index" + std::to_string(i));
  write(d / "level", level + "\n");
  write(d / "type", type + "\n");
  write(d / "size", size + "\n");
  if (!shared.empty()) write(d / "shared_cpu_list", shared + "\n");
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("bnscope_caches_" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

TEST(HostCaches, ReadsASysfsTree) {
  TempDir t;
  // The Zen 3 EPYC of the speed tables: instruction caches are ignored.
  write_index(t.path, 0, "1", "Data", "32K", "0");
  write_index(t.path, 1, "1", "Instruction", "32K", "0");
  write_index(t.path, 2, "2", "Unified", "512K", "0");
  write_index(t.path, 3, "3", "Unified", "32768K", "0-1");
  const cpu::HostCaches c = cpu::read_sysfs_caches(t.path.string());
  EXPECT_EQ(c.l1d, std::size_t{32} << 10);
  EXPECT_EQ(c.l2, std::size_t{512} << 10);
  EXPECT_EQ(c.l3, std::size_t{32} << 20);
  EXPECT_EQ(c.l2_sharing, 1);
  EXPECT_EQ(c.l3_sharing, 2);
  EXPECT_EQ(c.reuse_bytes(), std::size_t{448} << 10);  // 512 KiB less an eighth
  // and a quarter of this CPU's half of the L3
  EXPECT_EQ(c.resident_bytes(), (std::size_t{448} << 10) + (std::size_t{4} << 20));
  EXPECT_EQ(c.llc_bytes(), std::size_t{32} << 20);
  EXPECT_EQ(cpu::describe(c), "L1d 32 KiB, L2 512 KiB, L3 32 MiB shared by 2 (sysfs)");
}

TEST(HostCaches, SharedL2AndNoL3) {
  TempDir t;
  write_index(t.path, 0, "1", "Data", "48K", "0");
  write_index(t.path, 1, "2", "Unified", "2048K", "0-1");  // an L2 two CPUs share
  const cpu::HostCaches c = cpu::read_sysfs_caches(t.path.string());
  EXPECT_EQ(c.l2, std::size_t{2} << 20);
  EXPECT_EQ(c.l3, 0u);
  EXPECT_EQ(c.reuse_bytes(), std::size_t{896} << 10);  // this CPU's 1 MiB less an eighth
  EXPECT_EQ(c.resident_bytes(), c.reuse_bytes());      // no L3 to add
  EXPECT_EQ(c.llc_bytes(), std::size_t{2} << 20);
}

TEST(HostCaches, MissingOrMalformedEntriesAreSkipped) {
  TempDir t;
  write_index(t.path, 0, "2", "Unified", "garbage", "0");
  write(t.path / "index1" / "level", "3\n");       // no type, no size
  write_index(t.path, 2, "1", "Data", "32K", "");  // no shared_cpu_list: one CPU
  const cpu::HostCaches c = cpu::read_sysfs_caches(t.path.string());
  EXPECT_EQ(c.l1d, std::size_t{32} << 10);
  EXPECT_EQ(c.l2, 0u);
  EXPECT_EQ(c.l3, 0u);
  const cpu::HostCaches none = cpu::read_sysfs_caches((t.path / "absent").string());
  EXPECT_EQ(none.l1d + none.l2 + none.l3, 0u);
}

TEST(HostCaches, ThisHostHasAnL2AndAVectorWidth) {
  const cpu::HostCaches& c = cpu::host_caches();
  EXPECT_GT(c.l2, 0u) << cpu::describe(c);  // read, or the documented default
  EXPECT_TRUE(c.source == "sysfs" || c.source == "cpuid" || c.source == "default");
  EXPECT_GE(c.reuse_bytes(), 1u);
  // One float a lane on the scalar target (BNSCOPE_SIMD=SCALAR), else a 128-, 256- or 512-bit
  // vector.
  const std::int64_t v = cpu::simd::vector_bytes();
  if (std::string_view(cpu::simd::target_name()) == "SCALAR") {
    EXPECT_EQ(v, 4);
  } else {
    EXPECT_TRUE(v == 16 || v == 32 || v == 64) << cpu::simd::target_name() << " " << v;
  }
}

}  // namespace
}  // namespace bnscope::testing
