// The layout transpose TensorFlow runs around cuDNN, run by the emulator: every element lands
// where NCHW (or NHWC) puts it, for tiles cut at both edges, every element size, and back again.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "host_runtime.h"
#include "launch.h"

namespace bnscope::gpu {
namespace {

struct NoHooks : PhaseHooks {
  void begin(const char*) override {}
  void end() override {}
};

template <class T>
void check_round_trip(std::int64_t n, std::int64_t rows, std::int64_t cols) {
  DeviceRuntime& rt = host_runtime();
  const auto count = static_cast<std::size_t>(n * rows * cols);
  std::vector<T> src(count), mid(count), back(count);
  for (std::size_t i = 0; i < count; ++i) src[i] = static_cast<T>(i * 2654435761u + 1);
  NoHooks hooks;
  rt.kernels().transpose(sizeof(T), src.data(), mid.data(), n, rows, cols, nullptr, hooks);
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c)
        ASSERT_EQ(mid[static_cast<std::size_t>((b * cols + c) * rows + r)],
                  src[static_cast<std::size_t>((b * rows + r) * cols + c)])
            << "batch " << b << " row " << r << " col " << c;
  rt.kernels().transpose(sizeof(T), mid.data(), back.data(), n, cols, rows, nullptr, hooks);
  EXPECT_EQ(std::memcmp(src.data(), back.data(), count * sizeof(T)), 0);
}

TEST(LayoutTranspose, NhwcToNchwAndBackForEveryElementSize) {
  check_round_trip<std::uint16_t>(3, 45, 70);  // tiles cut at both edges
  check_round_trip<std::uint32_t>(2, 32, 64);  // whole tiles
  check_round_trip<std::uint64_t>(1, 1, 5);    // one row
  check_round_trip<std::uint32_t>(2, 7, 1);    // one channel
}

}  // namespace
}  // namespace bnscope::gpu
