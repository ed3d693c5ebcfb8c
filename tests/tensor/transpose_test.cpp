#include "tensor/transpose.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace bnscope {
namespace {

// Every byte of every element different from its neighbours', so that a swapped element, a
// swapped byte within one or a lane moved to the wrong row all show.
std::vector<std::byte> pattern(std::size_t bytes) {
  std::vector<std::byte> v(bytes);
  std::uint32_t x = 12345;
  for (std::byte& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::byte>(x >> 24);
  }
  return v;
}

using Transpose = void (*)(std::size_t, const std::byte*, std::byte*, std::int64_t, std::int64_t,
                           std::int64_t, std::int64_t);

// dst (cols x rows) against the index mapping: columns [r0, r1) moved, every other byte left.
void check(Transpose f, const char* path, std::size_t es, std::int64_t rows, std::int64_t cols,
           std::int64_t r0, std::int64_t r1) {
  const auto n = static_cast<std::size_t>(rows * cols) * es;
  const std::vector<std::byte> src = pattern(n);
  std::vector<std::byte> dst(n, std::byte{0xEE});
  f(es, src.data(), dst.data(), rows, cols, r0, r1);
  std::size_t wrong = 0;
  for (std::int64_t c = 0; c < cols; ++c)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::size_t k = 0; k < es; ++k) {
        const std::byte got = dst[static_cast<std::size_t>(c * rows + r) * es + k];
        const std::byte want = r >= r0 && r < r1
                                   ? src[static_cast<std::size_t>(r * cols + c) * es + k]
                                   : std::byte{0xEE};
        if (got != want && ++wrong <= 3)
          ADD_FAILURE() << path << " es " << es << " " << rows << "x" << cols << " rows [" << r0
                        << ", " << r1 << "): element (" << r << ", " << c << ") byte " << k;
      }
  EXPECT_EQ(wrong, 0u) << path << " es " << es << " " << rows << "x" << cols << " rows [" << r0
                       << ", " << r1 << ")";
}

struct Dims {
  std::int64_t rows, cols;
};

// Sizes on, off and across the 4- and 8-element register tiles and the 32-element cache tiles,
// single rows and columns, and a real layer's element (56*56 positions, 256 channels) both ways.
const Dims kDims[] = {{1, 1},   {1, 9},   {9, 1},   {2, 3},     {4, 4},      {8, 8},     {7, 9},
                      {9, 7},   {16, 16}, {17, 15}, {32, 32},   {33, 31},    {31, 65},   {64, 64},
                      {100, 3}, {3, 100}, {40, 72}, {129, 257}, {3136, 256}, {256, 3136}};

TEST(Transpose, EveryElementSizeAndShapeMatchesTheIndexMapping) {
  for (const std::size_t es : {1u, 2u, 3u, 4u, 8u, 16u})
    for (const Dims& d : kDims) {
      if (d.rows * d.cols * static_cast<std::int64_t>(es) > (std::int64_t{1} << 22) && es != 4)
        continue;  // the layer-size matrices at the small sizes only: a quick test
      check(transpose_rows, "dispatched", es, d.rows, d.cols, 0, d.rows);
      check(transpose_rows_scalar, "scalar", es, d.rows, d.cols, 0, d.rows);
    }
}

// A band of rows (a work item of the copying move) writes its own columns and nothing else.
TEST(Transpose, RowBandsWriteOnlyTheirColumns) {
  for (const std::size_t es : {1u, 2u, 4u, 8u, 16u})
    for (const Dims& d : {Dims{45, 37}, Dims{70, 24}, Dims{9, 200}, Dims{300, 8}})
      for (const auto& [r0, r1] : {std::pair<std::int64_t, std::int64_t>{0, 1},
                                   {0, 8},
                                   {3, 11},
                                   {5, d.rows},
                                   {d.rows / 3, 2 * d.rows / 3},
                                   {d.rows - 1, d.rows},
                                   {4, 4}}) {
        if (r1 > d.rows) continue;
        check(transpose_rows, "dispatched", es, d.rows, d.cols, r0, r1);
        check(transpose_rows_scalar, "scalar", es, d.rows, d.cols, r0, r1);
      }
}

}  // namespace
}  // namespace bnscope
