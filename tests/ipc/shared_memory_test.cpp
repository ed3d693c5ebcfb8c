#include "ipc/shared_memory.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "ipc/child_process.h"
#include "tensor/error.h"

namespace bnscope::ipc {
namespace {

constexpr std::chrono::milliseconds kSegmentLimit{20000};

TEST(SharedMemory, StartsZeroedAndMoves) {
  SharedMemory a = SharedMemory::create(1 << 20, "zeroed");
  ASSERT_TRUE(a.valid());
  EXPECT_EQ(a.size(), 1u << 20);
  for (std::size_t i = 0; i < a.size(); i += 4096) EXPECT_EQ(a.data()[i], std::byte{0});
  const std::string path = a.path();
  SharedMemory b = std::move(a);
  EXPECT_FALSE(a.valid());
  EXPECT_EQ(b.path(), path);
  SharedMemory empty = SharedMemory::create(0, "empty");
  EXPECT_TRUE(empty.valid());
  EXPECT_EQ(empty.size(), 0u);
}

// A large tensor's bytes, written by one process, read by the other, both ways.
TEST(SharedMemory, ChildSeesAndWritesTheSameBytes) {
  const std::size_t n = 96u << 20;
  SharedMemory s = SharedMemory::create(n, "both-ways");
  ChildProcess c;
  c.start({{IPC_TEST_CHILD}, {}, "test child"});
  const std::string size = " " + std::to_string(n) + " ";

  c.send("fill " + s.path() + size + "5", kSegmentLimit);
  std::uint64_t expect = 0;
  for (std::size_t i = 0; i < n; ++i) expect += 5 + i % 7;
  EXPECT_EQ(c.receive(kSegmentLimit), std::to_string(expect));
  EXPECT_EQ(s.data()[0], std::byte{5});
  EXPECT_EQ(s.data()[n - 1], std::byte(5 + (n - 1) % 7));

  auto* p = reinterpret_cast<unsigned char*>(s.data());
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(i * 31 >> 3);
  const std::uint64_t sum = std::accumulate(p, p + n, std::uint64_t{0});
  c.send("sum " + s.path() + size + "0", kSegmentLimit);
  EXPECT_EQ(c.receive(kSegmentLimit), std::to_string(sum));
}

// write() goes through the descriptor: the mapping here and the child's both see the bytes, in
// pages the segment did not have before and in pages it had.
TEST(SharedMemory, WriteFillsThroughTheDescriptor) {
  const std::size_t n = (8u << 20) + 1000;  // not whole pages
  SharedMemory s = SharedMemory::create(n, "written");
  std::vector<unsigned char> src(n);
  for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(i * 7 >> 2);
  s.write(0, src.data(), n);
  EXPECT_EQ(std::memcmp(s.data(), src.data(), n), 0);
  const unsigned char again[3] = {1, 2, 3};
  s.write(n - 3, again, 3);  // the last bytes, into a page that exists now
  src[n - 3] = 1;
  src[n - 2] = 2;
  src[n - 1] = 3;
  EXPECT_EQ(std::memcmp(s.data(), src.data(), n), 0);

  ChildProcess c;
  c.start({{IPC_TEST_CHILD}, {}, "test child"});
  c.send("sum " + s.path() + " " + std::to_string(n) + " 0", kSegmentLimit);
  EXPECT_EQ(c.receive(kSegmentLimit),
            std::to_string(std::accumulate(src.begin(), src.end(), std::uint64_t{0})));
}

TEST(SharedMemory, AWritePastTheEndIsRefused) {
  SharedMemory s = SharedMemory::create(4096, "short");
  const std::vector<unsigned char> src(4097, 1);
  EXPECT_THROW(s.write(0, src.data(), src.size()), Error);
  EXPECT_THROW(s.write(4096, src.data(), 1), Error);
  s.write(4096, src.data(), 0);  // nothing at the end is no write past it
  EXPECT_EQ(s.data()[0], std::byte{0});
}

}  // namespace
}  // namespace bnscope::ipc
