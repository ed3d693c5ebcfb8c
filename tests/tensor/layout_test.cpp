#include "tensor/layout.h"

#include <gtest/gtest.h>

#include <numeric>
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

}  // namespace bnscope
