#pragma once
// Whether the rows reduce pass adds two rows per trip through its accumulator rows or one
// (simd.h: Sweep::pairs). Pairs halve the accumulator loads and stores, and every lane adds its
// rows in row order either way, so the choice changes no bit; only the time, and that time is
// the memory system's. On the Zen 3 EPYC its prefetchers lost pairs of rows 512 bytes to 1 KiB
// long (the reduce pass of 32x56x56x256 channels-last ran 1.2-1.3x slower in every dtype than
// one row at a time), where pairs of 2 KiB rows (32x28x28x512 float32, 0.89x) and of 128 bytes
// (16-bit C = 64, 0.93-0.96x) ran faster; no prefetch order tried made pairs of 1 KiB fast, and
// from caches the two walks take the same time. So no synthetic measurement at start (it would
// need buffers past the last-level cache): the first thread of a long reduce pass times chunks
// of its own both ways, alternating, in the middle of its span (the start is often still in cache
// from the write pass before), and the process keeps the walk two passes in a row agree on. One
// trial per pass, since the threads of one pass share the host's moment: on the shared Zen 3 VM
// both threads of a pass often agreed with each other and not with the next pass.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/simd.h"

namespace bnscope::cpu {

// BNSCOPE_ROW_PAIRS=pairs or rows forces a walk (for A/B runs); anything else measures.
enum class PairPolicy { Measure, Pairs, Rows };
PairPolicy pair_policy();

// What one trial says: a walk whose median time is under 0.9 of the other's, else nothing. The
// effects worth a walk of their own measured 15-30%; pairs of 128-byte rows ran 4-7% faster than
// single rows, within what chunks of a busy host vary by.
enum class PairVerdict { None, Pairs, Rows };
PairVerdict pair_verdict(std::vector<double> pairs_seconds, std::vector<double> rows_seconds);

// What a walk is decided for: the row's lanes and element type, and whether the pass reads more
// than the last-level cache holds. Pairs of 128-byte rows read from memory (32x112x112x64
// channels-last bfloat16) timed slower than single rows in trials, while the same rows of a
// layer a quarter that size (32x56x56x64, mostly in the L3) ran 1.33x slower as single rows.
struct PairKey {
  std::int64_t lanes = 0;
  simd::Elem elem = simd::Elem::F32;
  bool past_llc = true;
  bool operator==(const PairKey& o) const {
    return lanes == o.lanes && elem == o.elem && past_llc == o.past_llc;
  }
};

// The walks decided per key: a walk is kept once two trials in a row say it; a trial that says
// nothing changes nothing, and after kMaxTrials without a decision the pairs are kept (the walks
// tie there, or the host's noise is larger than their gap). Thread-safe; one process-wide
// instance (pair_walks()).
class PairWalks {
 public:
  static constexpr int kMaxTrials = 8;

  std::optional<bool> pairs(const PairKey& key) const;  // nullopt: undecided
  void add(const PairKey& key, PairVerdict verdict);
  int trials(const PairKey& key) const;  // verdicts until the decision, None included
  void clear();
  // One "256 lanes float32 past the LLC: rows (2 trials)" per key tried, "; "-separated, for
  // benchmark records; empty when no trial ran.
  std::string describe() const;

 private:
  struct State {
    PairKey key;
    PairVerdict last = PairVerdict::None;  // the previous trial's verdict
    std::optional<bool> pairs;             // decided
    int trials = 0;
  };
  mutable std::mutex mutex_;
  std::vector<State> states_;
};
PairWalks& pair_walks();

// One thread's walk of its chunks of a reduce pass (rows of key.lanes lanes): the decided walk,
// else pairs. A thread that `times` walks 2 * kTimed chunks from the middle of a span of at least
// kMinChunks alternating pairs and rows (pairs, rows, rows, pairs, ...) and times them; their
// verdict goes to `walks`, and the rest of the span takes a walk it decides.
class PairTrial {
 public:
  static constexpr int kTimed = 6;
  static constexpr std::int64_t kMinChunks = 48;

  PairTrial(const PairKey& key, std::int64_t chunks, bool times = true,
            PairPolicy policy = pair_policy(), PairWalks& walks = pair_walks());
  // Walks the next chunk: chunk(pairs) with this trial's walk, timed where the trial asks.
  template <class F>
  void walk(F&& chunk) {
    if (!timed()) {
      chunk(pairs());
      return record(0.0);
    }
    const auto start = std::chrono::steady_clock::now();
    chunk(pairs());
    record(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  bool pairs() const;           // the walk of the next chunk
  bool timed() const;           // whether the next chunk's time is to be recorded
  void record(double seconds);  // after each chunk; the time counts only when timed()

 private:
  PairKey key_;
  PairWalks* walks_;
  std::int64_t next_ = 0, first_ = -1;  // first_: the first timed chunk, -1 for none
  bool pairs_ = true;
  std::vector<double> pairs_seconds_, rows_seconds_;
};

}  // namespace bnscope::cpu
