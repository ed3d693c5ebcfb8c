#pragma once
// How the single sweeps (sums and dx in one pass) walk rows too wide for their lane arrays to
// stay in L1: in row tiles, a channel block at a time, or one row at a time through the
// accumulator rows (simd.h: rows_sweep). Both add every lane's rows in row order, so the choice
// changes no bit; only the time. Cache sizes do not settle it: on the Zen 4 EPYC tiles ran the
// 2048-lane single sweep 1.15-1.35x faster than rows, on the Zen 3 EPYC (the same L1, half the
// L2, AVX2) rows ran the 1024- and 2048-lane single sweeps 0.70-0.93x the time of tiles (six
// alternating runs, 2 threads, docs/performance-zen3-avx2.md). So the first wide sweep of each kind
// in a process times both walks on a few MiB of its own and keeps the faster; tiles stay unless
// rows are clearly faster. Sweeps without an output (the reduce pass) keep row_tile's rule: there
// the two walks measured within 5% of each other on the Zen 3.

#include <cstdint>
#include <string>
#include <vector>

#include "backends/cpu/simd.h"

namespace bnscope::cpu {

// How the walk is chosen: BNSCOPE_ROW_WALK=tiles or rows forces one (for A/B runs), anything
// else (or unset) measures.
enum class RowWalkPolicy { Measure, Tiles, Rows };
RowWalkPolicy row_walk_policy();

// Rows win when their median time is under 0.97 of the tiles' (a tie keeps the tiles). Empty
// lists keep the tiles.
bool rows_walk_faster(std::vector<double> tiles_seconds, std::vector<double> rows_seconds);

// The tile a single sweep of `lanes` lanes of `elem` takes where row_tile gave `tile` > 0: `tile`
// or 0 (rows), decided once per (lanes, elem) in a process and kept.
std::int64_t single_sweep_tile(std::int64_t lanes, simd::Elem elem, std::int64_t tile);

// What this process decided so far, one "lanes elem: walk (rows/tiles time)" per entry, for
// benchmark headers.
std::string describe_row_walks();

}  // namespace bnscope::cpu
