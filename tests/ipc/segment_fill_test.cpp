#include "ipc/segment_fill.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "tensor/error.h"

namespace bnscope::ipc {
namespace {

std::vector<unsigned char> pattern(std::size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  std::uint32_t s = seed * 2654435761u + 1;
  for (auto& b : v) {
    s = s * 1664525u + 1013904223u;
    b = static_cast<unsigned char>(s >> 24);
  }
  return v;
}

// Fresh segments (written through the descriptor) and written ones (streamed into the mapping
// in slices) beside each other, of sizes that are not whole slices, pages or vectors.
TEST(SegmentFill, FreshAndWrittenSegmentsHoldTheBytes) {
  const std::size_t sizes[] = {(20u << 20) + 12345, (3u << 20) + 7, 100, 0};
  std::vector<SharedMemory> segs;
  std::vector<std::vector<unsigned char>> first, second;
  std::vector<SegmentFill> fills;
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    segs.push_back(SharedMemory::create(sizes[i], "fill"));
    first.push_back(pattern(sizes[i], static_cast<unsigned>(i)));
  }
  for (std::size_t i = 0; i < segs.size(); ++i)
    fills.push_back({&segs[i], first[i].data(), sizes[i], true});
  fill_segments(fills, 3);
  for (std::size_t i = 0; i < segs.size(); ++i)
    // memcmp takes no null pointer, not even for zero bytes (an empty segment maps nothing).
    EXPECT_TRUE(sizes[i] == 0 || std::memcmp(segs[i].data(), first[i].data(), sizes[i]) == 0) << i;

  fills.clear();
  for (std::size_t i = 0; i < segs.size(); ++i) {
    second.push_back(pattern(sizes[i], static_cast<unsigned>(i + 10)));
    fills.push_back({&segs[i], second[i].data(), sizes[i], false});
  }
  fill_segments(fills, 3);
  for (std::size_t i = 0; i < segs.size(); ++i)
    EXPECT_TRUE(sizes[i] == 0 || std::memcmp(segs[i].data(), second[i].data(), sizes[i]) == 0) << i;
}

TEST(SegmentFill, StreamCopyTakesAnyLengthAndSourceAlignment) {
  const std::size_t n = (2u << 20) + 77;
  const std::vector<unsigned char> src = pattern(n + 16, 3);
  std::vector<unsigned char> dst(n + 64);
  auto* d = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(dst.data()) + 15) &
                                             ~std::uintptr_t{15});
  for (std::size_t offset : {0, 1, 5}) {
    for (std::size_t len : {n, std::size_t{1} << 20, std::size_t{63}, std::size_t{0}}) {
      std::memset(d, 0, n);
      stream_copy(d, src.data() + offset, len);
      EXPECT_TRUE(len == 0 || std::memcmp(d, src.data() + offset, len) == 0)
          << offset << " " << len;
      if (len < n) {
        EXPECT_EQ(d[len], 0) << "wrote past " << len;
      }
    }
  }
}

// A fill that fails is reported once every other has ended, not lost on a worker thread.
TEST(SegmentFill, AFailedWriteIsThrown) {
  SharedMemory small = SharedMemory::create(4096, "small");
  SharedMemory big = SharedMemory::create(20u << 20, "big");
  const std::vector<unsigned char> src = pattern(20u << 20, 1);
  const std::vector<SegmentFill> fills = {{&small, src.data(), 8192, true},
                                          {&big, src.data(), src.size(), true}};
  EXPECT_THROW(fill_segments(fills, 2), Error);
  EXPECT_EQ(std::memcmp(big.data(), src.data(), src.size()), 0);
}

}  // namespace
}  // namespace bnscope::ipc
