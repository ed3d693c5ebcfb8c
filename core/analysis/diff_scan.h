#pragma once
// The element arithmetic of a comparison of two float32 outputs, vectorized (Highway, the best
// target the CPU has, picked at the first call). diff.cpp's scan takes these per-element values
// and order-free figures and adds what needs element order (histogram counts, per-channel
// figures, the first index of the largest error). float16 and bfloat16 outputs come widened to
// float32 (exact), so that a half-precision run compared with a float32 reference takes it too;
// float64 outputs take the scalar loop.
//
// Every value is the one diff.cpp's scalar loop gives for the element, bit for bit: the same
// IEEE operations in double precision (no fused multiply-add: the file is built with
// -ffp-contract=off), and maxima taken as std::max(acc, x) takes them (a NaN or an equal value
// never replaces the accumulator).

#include <cstdint>

#include "analysis/diff.h"

namespace bnscope::diff_scan {

// The histogram's decade edges (diff.h), fixed so the scan compares against each without a loop.
inline constexpr int kEdges = kHistogramDecadeHigh - kHistogramDecadeLow;
// The bins of the finite positive errors (edges + 1) and one for the lanes not counted share
// sixteen packed counters.
static_assert(kEdges + 2 <= 16);

struct Params {
  double atol = 0, rtol = 0;
  bool nan_equal = false;
  const double* edges = nullptr;  // the histogram's kEdges decade edges, ascending
  int nan_bin = 0;                // the histogram bin of a NaN mismatch
  // The type ulp distances are counted in (the candidate's): float32, or float16 or bfloat16,
  // to which each value is rounded first (a value of that type is unchanged by it).
  DType ulp = DType::F32;
};

// Order-free figures, folded into by every call (start them at the scan's current values).
struct Figures {
  double tolerance_ratio = 0, required_atol = 0, max_rel = 0, max_abs_reference = 0;
  double max_abs = -1;  // the largest error of an element without NaN; -1 while there is none
  std::uint64_t max_ulp = 0;
  double finite = 0, mismatches = 0, nan_both = 0, nan_mismatches = 0;  // counts, exact below 2^53
};

// Per element j: its finite error or 0 (error), what ranks it among the worst (score), its
// relative error (0 with a NaN), what it gives its channel's largest error (inf for a NaN on one
// side) and 1 when it mismatches; the elements' histogram counts are added to histogram
// (kEdges + 3 bins, the NaN bin last). n must be a multiple of lanes().
struct Elements {
  double *error, *score, *rel, *channel_abs, *mismatch;
  std::int64_t* histogram;
};

std::int64_t lanes();
void scan_f32(const float* ref, const float* cand, std::int64_t n, const Params& p,
              const Elements& out, Figures& f);

}  // namespace bnscope::diff_scan
