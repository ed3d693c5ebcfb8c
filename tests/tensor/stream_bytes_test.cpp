// The streaming copy: every length (whole 64-byte blocks, a tail, both, none) and any source
// alignment gives memcpy's bytes, and nothing past the end is written.
#include "tensor/stream_bytes.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bnscope {
namespace {

TEST(StreamBytes, CopiesEveryLengthAndSourceOffsetExactly) {
  std::vector<std::uint8_t> src(4096 + 64);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 131 + 7);
  alignas(64) static std::uint8_t dst[4096 + 128];
  for (std::size_t n : {0, 1, 15, 63, 64, 65, 127, 128, 1000, 4096})
    for (std::size_t offset : {0, 1, 16, 33}) {
      for (std::uint8_t& b : dst) b = 0xEE;
      stream_bytes(dst, src.data() + offset, n);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(dst[i], src[offset + i]) << "n " << n << " offset " << offset << " at " << i;
      for (std::size_t i = n; i < sizeof dst; ++i)
        ASSERT_EQ(dst[i], 0xEE) << "n " << n << " offset " << offset << " wrote at " << i;
    }
}

}  // namespace
}  // namespace bnscope
