#pragma once
// The cpu-reference kernels, one per op family: plain loops over the ChannelView of the data,
// everything in double, outputs rounded once at the end. fused_grad's channels-last float32 and
// float64 passes run the same operations as vector clones (grad_channels_last.h).

#include <algorithm>
#include <functional>

#include "backends/backend.h"

namespace bnscope::reference {

void fused_grad(const Prepared& p, Result& result, const RunContext& ctx);
void fused_forward(const Prepared& p, Result& result, const RunContext& ctx);
void global_grad(const Prepared& p, Result& result, const RunContext& ctx);
void global_forward(const Prepared& p, Result& result, const RunContext& ctx);

// Reports progress after pass `done` of `total` and polls for cancellation.
void end_pass(const RunContext& ctx, int done, int total);

// Writes doubles into an output tensor of any dtype.
void store(Tensor& t, const std::vector<double>& values);

// Elements [begin, begin + n) of a tensor as doubles, exactly as to_doubles() gives them.
void load(const Tensor& t, std::int64_t begin, std::int64_t n, double* out);
// Writes n doubles at element `begin` of storage of the given dtype, rounding as Tensor::set.
void store(DType dtype, void* base, std::int64_t begin, std::int64_t n, const double* values);

// A channel range's segments are a fraction of each row, rows apart: hardware prefetchers,
// which follow contiguous lines, would start over at every row. The same segment a few rows on
// is asked for ahead, for both tensors.
void prefetch_rows_ahead(const ChannelView& v, const Tensor& a, const Tensor& b, std::int64_t begin,
                         std::int64_t n);

// The reductions run on ctx.threads threads, each over a contiguous range of channels: every
// channel's sums see their terms in the single-threaded order, so they are bitwise the same on
// any thread count. body(c0, c1) sees the channels [c0, c1).
void for_channel_ranges(const ChannelView& v, const RunContext& ctx,
                        const std::function<void(std::int64_t c0, std::int64_t c1)>& body);

// The element-wise passes run on ctx.threads threads over contiguous ranges of rows (outer
// indices), each element written by one thread. body(o0, o1) sees the rows [o0, o1).
void for_row_ranges(const ChannelView& v, const RunContext& ctx,
                    const std::function<void(std::int64_t o0, std::int64_t o1)>& body);

// Calls f(begin, cb, ce) for the segments of rows [o0, o1) and channels [c0, c1), row by row
// (o ascending): element `begin` is (o, cb, 0) and the segment holds channels [cb, ce) whole,
// (ce - cb) * inner elements, at most max(kSegment, inner).
inline constexpr std::int64_t kSegment = 16384;
template <class F>
void for_segments(const ChannelView& v, std::int64_t o0, std::int64_t o1, std::int64_t c0,
                  std::int64_t c1, F f) {
  const std::int64_t per = std::max<std::int64_t>(1, kSegment / std::max<std::int64_t>(v.inner, 1));
  for (std::int64_t o = o0; o < o1; ++o)
    for (std::int64_t cb = c0; cb < c1; cb += per) f(v.index(o, cb, 0), cb, std::min(c1, cb + per));
}
template <class F>
void for_segments(const ChannelView& v, std::int64_t c0, std::int64_t c1, F f) {
  for_segments(v, 0, v.outer, c0, c1, f);
}

}  // namespace bnscope::reference
