#pragma once
// One pass over a tensor laid out like x for every per-channel figure the views show: min, max,
// sums and non-finite counts, and optionally the magnitudes' min, sum and sum of squares.
//
// Why one pass: on a real layer every tensor shaped like x is 100 MB or more and the scan of a
// new output ends every run the app makes, so it is read once, by all threads, at close to
// memory speed: a tile of channels' accumulators stays in registers across many rows, in vector
// clones for AVX2 and AVX-512 picked at run time. The figures are the same bits whichever clone
// runs and on any host (the order of additions is fixed, see channel_scan.cpp); they depend only
// on the thread count. A scan polls the cancel flag per block of about 64 K elements.

#include <atomic>
#include <cstdint>
#include <vector>

#include "tensor/layout.h"
#include "tensor/tensor.h"

namespace bnscope {

// How a scan runs: the cancel flag it polls per block (Error(Cancelled) when set), its threads
// (0: every hardware thread) and, for tests, a counter of the blocks it read and a cap on its
// vector clones.
struct ScanControl {
  const std::atomic<bool>* cancel = nullptr;
  int threads = 0;
  std::atomic<std::int64_t>* blocks_read = nullptr;
  // For tests: the widest of the scan's vector clones it may pick (0: the baseline build's, 1:
  // AVX2, 2: AVX-512); the figures are the same bits whichever runs.
  int max_isa = 2;
};

// One tensor seen through a ChannelView, per channel, from one pass. min/max/sum cover the
// finite values (min +inf, max -inf where there are none); abs_* and sq_sum their magnitudes,
// filled only when the scan was asked for them.
struct ChannelScan {
  ChannelView view;
  std::vector<double> min, max, sum, abs_min, abs_max, abs_sum, sq_sum;
  std::vector<std::int64_t> finite, non_finite;
};
ChannelScan scan_channels(const Tensor& t, const ChannelView& v, const ScanControl& ctl = {},
                          bool magnitudes = true);

}  // namespace bnscope
