#include "planner.h"

#include <algorithm>
#include <limits>
#include <string>

#include "occupancy.h"
#include "tensor/error.h"

namespace bnscope::gpu {

std::string_view variant_name(Variant v) {
  switch (v) {
    case Variant::CtaPerGroup:
      return "cta-per-group";
    case Variant::SplitM:
      return "split-m";
    case Variant::SinglePass:
      break;
  }
  return "single-pass";
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

int round_down(int v, int unit) {
  return v / unit * unit;
}

// Reduction scratch at the front of the single-pass kernel's shared memory: block_reduce_y's
// 2*threads accumulators (also the 4 coefficients per column afterwards), 16-byte aligned.
int single_pass_scratch(const Plan& p, int acc_bytes) {
  const int bytes = std::max(2 * p.threads(), 4 * p.block_x) * acc_bytes;
  return (bytes + 15) / 16 * 16;
}

// Shared memory one of `per_sm` resident CTAs may take, after the driver's reserved share.
int shared_budget(const DeviceLimits& d, int per_sm) {
  const int budget = round_down(d.shared_per_sm / per_sm, 128) - d.reserved_shared_per_block;
  return std::min(budget, d.max_shared_per_block_optin);
}

bool single_pass_possible(const ShapeIn& s, const DeviceLimits& d, const Plan& p) {
  return s.work == Work::GradTraining && d.cooperative_launch && s.elem_bytes <= 4 &&
         p.threads() == kSinglePassThreads;
}

// The training grad in one cooperative launch when x and dy fit in the registers and shared
// memory of the co-resident CTAs. Small problems fill each thread's registers before spreading
// over more CTAs (fewer, fuller CTAs: more loads in flight per thread, a shorter final sum);
// larger ones take every co-resident CTA and put the rest of each tile in shared memory.
bool plan_single_pass(const ShapeIn& s, const DeviceLimits& d, Plan& p) {
  if (!single_pass_possible(s, d, p)) return false;
  const std::int64_t m = s.outer * s.inner;
  const int scratch = single_pass_scratch(p, s.acc_bytes);
  const std::int64_t per_item = std::int64_t{2} * p.threads() * s.elem_bytes;
  for (int per_sm = kSinglePassMinBlocksPerSm; per_sm >= 1; --per_sm) {
    const std::int64_t smem_cap =
        std::max<std::int64_t>(0, (shared_budget(d, per_sm) - scratch) / per_item);
    std::int64_t max_splits = std::int64_t{per_sm} * d.sm_count / p.groups;
    max_splits = std::min<std::int64_t>(max_splits, d.max_grid_y);
    if (max_splits < 1) return false;
    std::int64_t splits = std::clamp<std::int64_t>(
        ceil_div(m, std::int64_t{p.block_y} * kSinglePassRegItems), 1, max_splits);
    const std::int64_t items = ceil_div(m, splits * p.block_y);
    if (items > kSinglePassRegItems + smem_cap) continue;
    const int smem_items = static_cast<int>(std::max<std::int64_t>(0, items - kSinglePassRegItems));
    const int shared = scratch + static_cast<int>(smem_items * per_item);
    KernelFootprint k;
    k.threads = p.threads();
    k.registers_per_thread = kSinglePassRegisters;
    k.dynamic_shared_bytes = shared;
    const std::int64_t m_per_split = items * p.block_y;
    splits = ceil_div(m, m_per_split);
    if (occupancy(d, k).co_resident(d) < splits * p.groups) continue;
    p.variant = Variant::SinglePass;
    p.splits = static_cast<int>(splits);
    p.m_per_split = m_per_split;
    p.smem_items = smem_items;
    p.tile_offset_bytes = scratch;
    p.shared_bytes = shared;
    p.workspace_bytes = splits * s.channels * 2 * s.acc_bytes;
    return true;
  }
  return false;
}

}  // namespace

std::int64_t single_pass_capacity_bytes(const ShapeIn& s, const DeviceLimits& d) {
  std::int64_t best = 0;
  for (int per_sm = kSinglePassMinBlocksPerSm; per_sm >= 1; --per_sm) {
    const int scratch = (2 * kSinglePassThreads * s.acc_bytes + 15) / 16 * 16;
    const std::int64_t per_item = std::int64_t{2} * kSinglePassThreads * s.elem_bytes;
    const std::int64_t smem_cap =
        std::max<std::int64_t>(0, (shared_budget(d, per_sm) - scratch) / per_item);
    best = std::max(
        best, std::int64_t{per_sm} * d.sm_count * (kSinglePassRegItems + smem_cap) * per_item);
  }
  return best;
}

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

  plan_single_pass(s, d, p);

  p.ew_block = threads;
  p.ew_grid = std::clamp<std::int64_t>(ceil_div(e, p.ew_block), 1,
                                       static_cast<std::int64_t>(d.sm_count) * 32);
  return p;
}

}  // namespace bnscope::gpu
