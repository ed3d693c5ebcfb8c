#pragma once
// Whether the rows reduce pass adds two rows per trip through its accumulator rows or one
// (simd.h: Sweep::pairs). Pairs halve the accumulator loads and stores, and every lane adds its
// rows in row order either way, so the choice changes no bit; only the time, and that time is
// the memory system's. On the Zen 3 EPYC its prefetchers lost pairs of rows 512 bytes to 1 KiB
// long (the reduce pass of 32x56x56x256 channels-last ran 1.2-1.3x slower in every dtype than
// one row at a time), where pairs of 2 KiB rows (32x28x28x512 float32, 0.89x) and of 128 bytes
// (16-bit C = 64, 0.93-0.96x) ran faster; no prefetch order tried made pairs of 1 KiB fast, and
// from caches the two walks take the same time. So no synthetic measurement at start (it would
// need buffers past the last-level cache): threads of long reduce passes time chunks of their
// own both ways, alternating, in the middle of their span (its start is often still in cache
// from the write pass before), and the process keeps the walk two such trials agree on.

#include <cstdint>
#include <optional>
#include <vector>

#include "backends/cpu/simd.h"

namespace bnscope::cpu {

// BNSCOPE_ROW_PAIRS=pairs or rows forces a walk (for A/B runs); anything else measures.
enum class PairPolicy { Measure, Pairs, Rows };
PairPolicy pair_policy();

// What one trial says: a walk whose median time is under 0.95 of the other's, else nothing.
enum class PairVerdict { None, Pairs, Rows };
PairVerdict pair_verdict(std::vector<double> pairs_seconds, std::vector<double> rows_seconds);

// The walks decided per (lanes, elem): a walk is kept once two trials in a row say it; a trial
// that says nothing changes nothing. Thread-safe; one process-wide instance (pair_walks()).
class PairWalks {
 public:
  std::optional<bool> pairs(std::int64_t lanes, simd::Elem elem) const;  // nullopt: undecided
  void add(std::int64_t lanes, simd::Elem elem, PairVerdict verdict);
  int trials(std::int64_t lanes, simd::Elem elem) const;  // verdicts added, None included
  void clear();

 private:
  struct State {
    std::int64_t lanes;
    simd::Elem elem;
    PairVerdict last = PairVerdict::None;  // the previous trial's verdict
    std::optional<bool> pairs;             // decided
    int trials = 0;
  };
  std::vector<State> states_;
};
PairWalks& pair_walks();

// One thread's walk of its chunks of a reduce pass over rows of `lanes` lanes: the decided walk,
// else pairs, except 2 * kTimed chunks from the middle of a span of at least kMinChunks, which
// alternate pairs and rows (pairs, rows, rows, pairs, ...) and are timed; their verdict goes to
// `walks`, and the rest of the span takes a walk it decides.
class PairTrial {
 public:
  static constexpr int kTimed = 6;
  static constexpr std::int64_t kMinChunks = 48;

  PairTrial(std::int64_t lanes, simd::Elem elem, std::int64_t chunks,
            PairPolicy policy = pair_policy(), PairWalks& walks = pair_walks());
  bool pairs() const;           // the walk of the next chunk
  bool timed() const;           // whether the next chunk's time is to be recorded
  void record(double seconds);  // after each chunk; the time counts only when timed()

 private:
  std::int64_t lanes_;
  simd::Elem elem_;
  PairWalks* walks_;
  std::int64_t next_ = 0, first_ = -1;  // first_: the first timed chunk, -1 for none
  bool pairs_ = true;
  std::vector<double> pairs_seconds_, rows_seconds_;
};

}  // namespace bnscope::cpu
