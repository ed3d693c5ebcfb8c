#include "planner.h"

#include <algorithm>
#include <limits>
#include <string>

#include "tensor/error.h"

namespace bnscope::gpu {

std::string_view variant_name(Variant v) {
  return v == Variant::CtaPerGroup ? "cta-per-group" : "split-m";
}

namespace {

constexpr int kThreads = 256;      // 8 warps: 8 resident CTAs fill an SM's 2048 threads
constexpr int kCtasPerSm = 8;      // the wave the split count aims for
constexpr int kMinPerThread = 16;  // positions per thread and slice before splitting M pays off
constexpr int kShortM = 64;        // positions per thread one CTA handles without splitting

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

int pow2_at_least(std::int64_t v, int cap) {
  int p = 1;
  while (p < v && p < cap) p *= 2;
  return p;
}

}  // namespace

Plan plan_launch(const ShapeIn& s, const DeviceLimits& d) {
  if (s.outer <= 0 || s.channels <= 0 || s.inner <= 0)
    fail("plan_launch: every extent of the [outer, C, inner] view must be positive, got [" +
         std::to_string(s.outer) + ", " + std::to_string(s.channels) + ", " +
         std::to_string(s.inner) + "]");
  Plan p;
  const std::int64_t m = s.outer * s.inner;
  const std::int64_t e = m * s.channels;
  p.index64 = e > std::numeric_limits<std::int32_t>::max();

  // Channels-last rows are C contiguous values: lanes take neighbouring channels so a warp reads
  // whole 32-channel rows. With inner > 1 a channel's values are runs of `inner`: all lanes take
  // one channel and walk M.
  p.block_x = s.inner == 1 ? pow2_at_least(s.channels, 32) : 1;
  const int threads = std::min(kThreads, d.max_threads_per_block);
  p.block_y = std::max(1, threads / p.block_x);
  p.groups = ceil_div(s.channels, p.block_x);
  p.shared_bytes = 2 * p.threads() * s.acc_bytes;

  const std::int64_t wave = static_cast<std::int64_t>(d.sm_count) * kCtasPerSm;
  const std::int64_t useful_splits =
      ceil_div(m, static_cast<std::int64_t>(p.block_y) * kMinPerThread);
  // A short M that already spreads over half the SMs stays in one launch: splitting would add
  // two launches to save a few loop iterations per thread.
  const bool short_m = p.groups * 2 >= d.sm_count && m <= std::int64_t{p.block_y} * kShortM;
  std::int64_t splits = 1;
  if (p.groups < wave && !short_m) splits = std::min(ceil_div(wave, p.groups), useful_splits);
  splits = std::clamp<std::int64_t>(splits, 1, d.max_grid_y);
  p.splits = static_cast<int>(splits);

  // Forward statistics always go through the reduce kernel and its second stage; the gradient
  // kernels keep a channel group in one CTA when that already fills the GPU or M is short.
  p.variant = s.work == Work::Moments || p.splits > 1 ? Variant::SplitM : Variant::CtaPerGroup;
  p.m_per_split = ceil_div(m, p.splits);
  p.splits = static_cast<int>(ceil_div(m, p.m_per_split));  // no slice starts past M
  if (p.variant == Variant::SplitM)
    p.workspace_bytes = static_cast<std::int64_t>(p.splits) * s.channels * 2 * s.acc_bytes;

  p.ew_block = threads;
  p.ew_grid = std::clamp<std::int64_t>(ceil_div(e, p.ew_block), 1,
                                       static_cast<std::int64_t>(d.sm_count) * 32);
  return p;
}

}  // namespace bnscope::gpu
