#include "tensor/layout.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace bnscope {

TEST(Layout, ParsesTensorFlowFormatNames) {
  for (auto name : {"NHWC", "NCHW", "NDHWC", "NCDHW"})
    EXPECT_EQ(data_format_name(*parse_data_format(name)), name);
  EXPECT_FALSE(parse_data_format("NWHC"));
  EXPECT_TRUE(is_channels_last(DataFormat::NDHWC));
  EXPECT_FALSE(is_channels_last(DataFormat::NCDHW));
}

TEST(Layout, ChannelViewIndexesBothLayouts) {
  const ChannelView nhwc = channel_view({2, 3, 4, 5}, true);
  EXPECT_EQ(nhwc.channels, 5);
  EXPECT_EQ(nhwc.outer, 24);
  EXPECT_EQ(nhwc.inner, 1);
  EXPECT_EQ(nhwc.per_channel(), 24);
  const ChannelView nchw = channel_view({2, 5, 3, 4}, false);
  EXPECT_EQ(nchw.channels, 5);
  EXPECT_EQ(nchw.outer, 2);
  EXPECT_EQ(nchw.inner, 12);
  EXPECT_EQ(nchw.index(1, 2, 3), (1 * 5 + 2) * 12 + 3);
  const ChannelView ncdhw = channel_view({2, 5, 3, 4, 6}, false);
  EXPECT_EQ(ncdhw.inner, 72);
  EXPECT_EQ(channel_view({2, 3, 4, 0}, true).channels, 0);
  EXPECT_EQ(channel_view({2, 3, 4, 0}, true).outer, 24);
}

TEST(Layout, ChannelsFirstAndBackIsTheIdentity) {
  for (const Shape& s : {Shape{2, 3, 4, 5}, Shape{1, 2, 3, 4, 5}, Shape{3, 7}}) {
    std::vector<double> v(static_cast<std::size_t>(num_elements(s)));
    std::iota(v.begin(), v.end(), 0.0);
    const Tensor t = Tensor::from_doubles(DType::F32, s, v);
    const Tensor first = to_channels_first(t);
    EXPECT_EQ(first.dim(1), s.back());
    EXPECT_EQ(to_channels_last(first).to_doubles(), v);
  }
}

TEST(Layout, ChannelsFirstMovesEachElementToItsChannelPlane) {
  // NHWC [1,2,2,3] with value = 10*position + channel.
  std::vector<double> v;
  for (int p = 0; p < 4; ++p)
    for (int c = 0; c < 3; ++c) v.push_back(10 * p + c);
  const Tensor nchw = to_channels_first(Tensor::from_doubles(DType::F64, {1, 2, 2, 3}, v));
  EXPECT_EQ(nchw.shape(), (Shape{1, 3, 2, 2}));
  EXPECT_EQ(nchw.to_doubles(), (std::vector<double>{0, 10, 20, 30, 1, 11, 21, 31, 2, 12, 22, 32}));
}

TEST(Layout, BlockedThreadedTranspositionMatchesTheElementwiseOne) {
  // Sizes off the tile and band edges, every element size, one and several threads.
  for (const DType t : {DType::F16, DType::F32, DType::F64})
    for (const Shape& s : {Shape{3, 37, 41, 300}, Shape{2, 5, 1, 3, 33}, Shape{1, 1}}) {
      const std::int64_t n = num_elements(s);
      std::vector<double> v(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i)
        v[static_cast<std::size_t>(i)] = static_cast<double>(i % 2003);
      const Tensor last = Tensor::from_doubles(t, s, v);
      const std::int64_t c = s.back(), batch = s[0], spatial = n / batch / c;
      std::vector<double> want(v.size());
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t p = 0; p < spatial; ++p)
          for (std::int64_t k = 0; k < c; ++k)
            want[static_cast<std::size_t>((b * c + k) * spatial + p)] =
                v[static_cast<std::size_t>((b * spatial + p) * c + k)];
      for (const int threads : {1, 2, 3}) {
        const Tensor first = to_channels_first(last, threads);
        EXPECT_EQ(first.dtype(), t);
        EXPECT_EQ(first.to_doubles(), want) << shape_str(s) << " threads " << threads;
        EXPECT_EQ(to_channels_last(first, threads).to_doubles(), v);
      }
    }
}

// Moving the channel axis within the storage gives the bytes of the copying move, element range
// by element range, and the opposite move puts back every byte; the storage stays the same.
TEST(Layout, InPlaceMoveMatchesTheCopyAndUndoes) {
  for (const DType t : {DType::F32, DType::F16, DType::F64})
    for (const Shape& s : {Shape{3, 5, 7, 4}, Shape{2, 3, 33, 40}, Shape{4, 2, 3, 2, 6}}) {
      const std::int64_t n = num_elements(s);
      std::vector<double> v(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i)
        v[static_cast<std::size_t>(i)] = static_cast<double>(i % 1009);
      const Tensor last = Tensor::from_doubles(t, s, v);
      const Tensor want = to_channels_first(last);
      Tensor work = Tensor::from_doubles(t, s, v);
      const void* storage = static_cast<const Tensor&>(work).raw();
      const Tensor other = work;  // another handle on the same storage sees the move too
      move_channel_axis_in_place(work, true, 0, 1, 2);
      move_channel_axis_in_place(work, true, 1, s[0], 3);
      const Tensor moved = work.reshaped(channel_axis_moved(s, true));
      EXPECT_EQ(moved.shape(), want.shape());
      EXPECT_EQ(static_cast<const Tensor&>(work).raw(), storage);
      EXPECT_EQ(other.reshaped(want.shape()).to_doubles(), want.to_doubles()) << shape_str(s);
      move_channel_axis_in_place(moved, false, 0, s[0]);
      EXPECT_EQ(work.to_doubles(), v) << shape_str(s);
      EXPECT_EQ(channel_axis_moved(want.shape(), false), s);
    }
}

namespace {

// A tensor whose bytes all differ from their neighbours' (NaN payloads, subnormals and all): the
// moves are permutations of whole elements and must keep every bit.
Tensor patterned(DType dtype, const Shape& shape, std::uint32_t seed) {
  Tensor t = Tensor::uninitialized(dtype, shape);
  auto* p = static_cast<unsigned char*>(t.raw());
  std::uint32_t x = seed;
  for (std::size_t i = 0; i < t.nbytes(); ++i) {
    x = x * 1664525u + 1013904223u;
    p[i] = static_cast<unsigned char>(x >> 24);
  }
  return t;
}

std::vector<unsigned char> bytes_of(const Tensor& t) {
  const auto* p = static_cast<const unsigned char*>(t.raw());
  return {p, p + t.nbytes()};
}

// The plain index mapping: [N, spatial, C] <-> [N, C, spatial], batch elements [begin, end)
// moved, the others left as they are.
std::vector<unsigned char> moved_bytes(const Tensor& t, bool to_first, std::int64_t begin,
                                       std::int64_t end) {
  const Shape& s = t.shape();
  const std::size_t es = dtype_size(t.dtype());
  const std::int64_t n = s[0], c = to_first ? s.back() : s[1];
  const std::int64_t spatial = n && c ? t.numel() / n / c : 0;
  const std::vector<unsigned char> in = bytes_of(t);
  std::vector<unsigned char> out = in;
  for (std::int64_t b = begin; b < end; ++b)
    for (std::int64_t p = 0; p < spatial; ++p)
      for (std::int64_t k = 0; k < c; ++k) {
        const std::int64_t last = (b * spatial + p) * c + k, first = (b * c + k) * spatial + p;
        std::memcpy(&out[static_cast<std::size_t>(to_first ? first : last) * es],
                    &in[static_cast<std::size_t>(to_first ? last : first) * es], es);
      }
  return out;
}

// Channel counts and spatial sizes on and off the register and cache tiles: C = 1, one
// position, single rows, ranks 2 to 5, and a layer-like element.
const Shape kOddShapes[] = {{1, 1},           {3, 1},           {2, 5},          {2, 1, 1, 1},
                            {2, 1, 1, 8},     {3, 4, 4, 1},     {2, 3, 3, 3},    {2, 5, 7, 9},
                            {3, 8, 8, 16},    {2, 9, 7, 33},    {3, 11, 13, 64}, {2, 6, 6, 100},
                            {2, 1, 3, 2, 17}, {1, 17, 19, 255}, {2, 28, 28, 64}, {2, 3, 129},
                            {4, 40, 40, 8}};

}  // namespace

// The copying move against the index mapping, byte for byte, for every dtype, odd shapes and
// thread counts, both ways and back.
TEST(Layout, CopyingMoveMatchesTheIndexMappingForEveryDtype) {
  std::uint32_t seed = 1;
  for (const DType d : kAllDTypes)
    for (const Shape& s : kOddShapes) {
      const Tensor last = patterned(d, s, ++seed);
      const Tensor first_want = last.reshaped(channel_axis_moved(s, true));
      const std::vector<unsigned char> want = moved_bytes(last, true, 0, s[0]);
      for (const int threads : {1, 2, 3}) {
        const Tensor first = to_channels_first(last, threads);
        ASSERT_EQ(first.shape(), channel_axis_moved(s, true));
        EXPECT_EQ(bytes_of(first), want) << dtype_name(d) << " " << shape_str(s) << " " << threads;
        const Tensor back = to_channels_last(first, threads);
        EXPECT_EQ(back.shape(), s);
        EXPECT_EQ(bytes_of(back), bytes_of(last)) << dtype_name(d) << " " << shape_str(s);
      }
      // The other way from an arbitrary channels-first tensor, not only from a moved one.
      const Tensor nchw = patterned(d, first_want.shape(), ++seed);
      EXPECT_EQ(bytes_of(to_channels_last(nchw)), moved_bytes(nchw, false, 0, s[0]))
          << dtype_name(d) << " " << shape_str(s);
    }
}

// The in-place move, a batch range at a time as the app calls it, with and without scratch:
// the moved elements match the index mapping, the others are untouched, and the opposite move
// puts back every byte.
TEST(Layout, InPlaceMoveOfBatchRangesMatchesTheIndexMapping) {
  std::uint32_t seed = 100;
  for (const DType d : kAllDTypes)
    for (const Shape& s : kOddShapes)
      for (const bool to_first : {true, false}) {
        const Shape shape = to_first ? s : channel_axis_moved(s, true);
        const Tensor orig = patterned(d, shape, ++seed);
        const std::int64_t n = shape[0];
        const std::size_t element = orig.nbytes() / static_cast<std::size_t>(n);
        for (const auto& [begin, end] : {std::pair<std::int64_t, std::int64_t>{0, n},
                                         {0, 1},
                                         {n - 1, n},
                                         {1, n},
                                         {-3, n + 5},
                                         {n, n}}) {
          const std::string what = std::string(dtype_name(d)) + " " + shape_str(shape) +
                                   (to_first ? " to first" : " to last") + " [" +
                                   std::to_string(begin) + ", " + std::to_string(end) + ")";
          const std::vector<unsigned char> want =
              moved_bytes(orig, to_first, std::max<std::int64_t>(begin, 0), std::min(end, n));
          for (const int threads : {1, 2, 3}) {
            Tensor work = Tensor::uninitialized(d, shape);
            std::memcpy(work.raw(), orig.raw(), orig.nbytes());
            std::vector<std::byte> scratch(element * 3);
            if (threads == 2)
              move_channel_axis_in_place(work, to_first, begin, end, threads, scratch);
            else
              move_channel_axis_in_place(work, to_first, begin, end, threads);
            ASSERT_EQ(bytes_of(work), want) << what << " threads " << threads;
            const Tensor moved = work.reshaped(channel_axis_moved(shape, to_first));
            move_channel_axis_in_place(moved, !to_first, begin, end, threads);
            ASSERT_EQ(bytes_of(work), bytes_of(orig)) << what << " back, threads " << threads;
          }
        }
      }
}

// The app's call pattern on a layer-size element: steps of two batch elements through two
// elements of scratch, both ways.
TEST(Layout, InPlaceMoveInStepsOfTwoMatchesTheCopy) {
  for (const DType d : {DType::F32, DType::F16, DType::F64}) {
    const Shape s{3, 56, 56, 24};
    const Tensor orig = patterned(d, s, 7);
    Tensor work = Tensor::uninitialized(d, s);
    std::memcpy(work.raw(), orig.raw(), orig.nbytes());
    std::vector<std::byte> scratch(orig.nbytes() / 3 * 2);
    for (std::int64_t b = 0; b < s[0]; b += 2)
      move_channel_axis_in_place(work, true, b, b + 2, 2, scratch);
    EXPECT_EQ(bytes_of(work), bytes_of(to_channels_first(orig))) << dtype_name(d);
    const Tensor first = work.reshaped(channel_axis_moved(s, true));
    for (std::int64_t b = 0; b < s[0]; b += 2)
      move_channel_axis_in_place(first, false, b, b + 2, 2, scratch);
    EXPECT_EQ(bytes_of(work), bytes_of(orig)) << dtype_name(d);
  }
}

// The app's call: one call per tensor that a cancel may stop between elements. Whatever the
// moment of the stop, what it reports moved is exactly the first elements of the range, moved
// whole, and the opposite move of them puts back every byte.
TEST(Layout, InPlaceMoveUntilStopMovesAPrefixOfWholeElements) {
  std::uint32_t seed = 500;
  for (const DType d : kAllDTypes)
    for (const Shape& s : kOddShapes)
      for (const bool to_first : {true, false}) {
        const Shape shape = to_first ? s : channel_axis_moved(s, true);
        const Tensor orig = patterned(d, shape, ++seed);
        const std::int64_t n = shape[0];
        const std::size_t element = orig.nbytes() / static_cast<std::size_t>(n);
        for (const int threads : {1, 2, 3})
          for (const int when : {0, 1, 2}) {  // stopped before, by a thread meanwhile, never
            const std::string what = std::string(dtype_name(d)) + " " + shape_str(shape) +
                                     (to_first ? " to first" : " to last") + " threads " +
                                     std::to_string(threads) + " stop " + std::to_string(when);
            Tensor work = Tensor::uninitialized(d, shape);
            std::memcpy(work.raw(), orig.raw(), orig.nbytes());
            std::vector<std::byte> scratch(element * 3);
            std::atomic<bool> stop{when == 0};
            std::thread stopper;
            if (when == 1) stopper = std::thread([&stop] { stop.store(true); });
            const std::int64_t moved = move_channel_axis_in_place_until(
                work, to_first, 0, n, &stop, threads,
                threads == 2 ? std::span(scratch) : std::span<std::byte>());
            if (stopper.joinable()) stopper.join();
            ASSERT_GE(moved, 0) << what;
            ASSERT_LE(moved, n) << what;
            if (when == 0) {
              EXPECT_EQ(moved, 0) << what;
            } else if (when == 2) {
              EXPECT_EQ(moved, n) << what;
            }
            ASSERT_EQ(bytes_of(work), moved_bytes(orig, to_first, 0, moved)) << what;
            const Tensor back = work.reshaped(channel_axis_moved(shape, to_first));
            move_channel_axis_in_place(back, !to_first, 0, moved, threads);
            ASSERT_EQ(bytes_of(work), bytes_of(orig)) << what << " back";
          }
      }
}

}  // namespace bnscope
