#pragma once
// Two walks of the same rows that add every lane's rows in the same order, so the choice changes
// no bit, only the time, and that time is the memory system's: a trial on chunks of the pass
// itself picks one per host.
//
// - The rows reduce pass: rows in pairs through the accumulator rows, or one at a time
//   (simd.h: Sweep::pairs). Pairs halve the accumulator loads and stores. On the Zen 3 EPYC its
//   prefetchers lost pairs of rows 512 bytes to 1 KiB long (the reduce pass of 32x56x56x256
//   channels-last ran 1.2-1.3x slower in every dtype than one row at a time), where pairs of 2 KiB
//   rows (32x28x28x512 float32, 0.89x) and of 128 bytes (16-bit C = 64, 0.93-0.96x) ran faster;
//   no prefetch order tried made pairs of 1 KiB fast, and from caches the two walks take the same
//   time.
// - The single sweep (sums and dx in one pass) of rows too wide for their lane arrays to stay in
//   L1 (kernels.h: row_tile): in row tiles, a channel block at a time, or one row at a time. On
//   the Zen 4 EPYC tiles ran the 2048-lane single sweep 1.15-1.35x faster than rows; on the Zen 3
//   EPYC rows ran 32x14x14x1024 and 32x7x7x2048 channels-last inference-mode float32 1.34x and
//   1.28x faster than tiles. A synthetic timing at start (a few MiB of its own, within the L3)
//   judged 2048 lanes the other way, and 1024 lanes either way from one process to the next with
//   where the heap placed its arrays. Its trials time whole passes (PassTrial below).
// - The training grads' reduce pass over such rows, in tiles or rows (then in pairs or one at a
//   time). On the Zen 1 EPYC rows through L1 ran the 16-bit reduce pass of 2048 lanes 0.82-0.85x
//   the time of tiles, while tiles paid for 16-bit rows from memory down to 64 lanes; trials on
//   the pass's chunks could not see the first (its middle chunks sit in the L3 and tie), so this
//   one also times whole passes (docs/performance-zen1-avx2.md). On the Zen 5 EPYC the two tie
//   (trials run to eight in most keys and pick either).
// - The rows sweeps with or without their software prefetch 2 KiB ahead (simd.h:
//   Sweep::prefetch), decided apart for the reduce pass, the write pass and the single sweep. On
//   the Zen 3 EPYC the prefetch ran the 16-bit channels-last sweeps 5-12% faster; on the Zen 5
//   EPYC, one thread, without it the reduce pass of 32x56x56x256 ran 1.12x faster in float32 and
//   bfloat16, the write pass 1.08x (float32) and 1.17x (32x112x112x64), the single sweep 1.12x,
//   while the plane sweeps needed it (1.36-2.2x slower without), which is why those keep it
//   (docs/performance-zen5-avx512.md).
// - The training grads' write pass over rows, each thread's chunks last first (starting on what
//   the reduce pass read last) or first to last. On the Zen 5 EPYC, in busy minutes, first to
//   last ran 32x56x56x64 and 32x112x112x16 channels-last float32 training 3-8% faster and
//   32x7x7x2048 2-7% slower, and no rule from sizes separates them.
//
// So no synthetic measurement (it would need buffers past the last-level cache, placed as the
// layer's are): the first thread of a long pass times chunks of its own both ways, alternating,
// in the middle of its span (the start is often still in cache from the pass before), or, for
// the walks a trial on chunks cannot see (tiles or rows, the write walk), whole passes or calls
// take the two walks in turn, and the process keeps the walk two trials in a row agree on. A trial
// on chunks is one per pass, since the threads of one pass share the host's moment: on the shared
// Zen 3 VM both threads of a pass often agreed with each other and not with the next pass.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/simd.h"

namespace bnscope::cpu {

// The upper median of a non-empty list of times: robust to the odd preempted run.
double median_seconds(std::vector<double> v);

// How a walk is chosen: forced to the first or the second walk (for A/B runs), or measured.
enum class WalkPolicy { Measure, First, Second };

// What one trial says: a walk whose median time is under `threshold` of the other's, else
// nothing. The effects worth a walk of their own measured 15-35%; pairs of 128-byte rows ran 4-7%
// faster than single rows, within what chunks of a busy host vary by, so the pairs and tiles
// trials keep 0.9. The prefetch trials judge at 0.95 (Walks below).
enum class WalkVerdict { None, First, Second };
WalkVerdict walk_verdict(std::vector<double> first_seconds, std::vector<double> second_seconds,
                         double threshold = 0.9);
// The same from the two walks' walk_ratio.
WalkVerdict ratio_verdict(double ratio, double threshold);
// The second walk's median time over the first's (above 1: the first is faster); 1 when either
// list is empty or a median is not positive.
double walk_ratio(std::vector<double> first_seconds, std::vector<double> second_seconds);

// What a walk is decided for: the row's lanes and element type, and whether the pass reads more
// than the last-level cache holds. Pairs of 128-byte rows read from memory (32x112x112x64
// channels-last bfloat16) timed slower than single rows in trials, while the same rows of a
// layer a quarter that size (32x56x56x64, mostly in the L3) ran 1.33x slower as single rows.
// The store trial (dx_stores.h) keys whole calls: their channels as lanes, their tensors' bytes
// and their layout.
struct WalkKey {
  std::int64_t lanes = 0;
  simd::Elem elem = simd::Elem::F32;
  bool past_llc = true;
  std::int64_t bytes = 0;       // a whole call's tensors; 0 for the walks of rows
  bool channels_first = false;  // a whole call's layout
  bool operator==(const WalkKey& o) const {
    return lanes == o.lanes && elem == o.elem && past_llc == o.past_llc && bytes == o.bytes &&
           channels_first == o.channels_first;
  }
};

// The walks of one kind decided per key: a walk is kept once two trials in a row say it; a trial
// that says nothing changes nothing, and after kMaxTrials without a decision the walk faster over
// all of them is kept (the geometric mean of their median ratios; the first on a tie): there the
// walks tie, or their gap is smaller than one trial's noise, which eight trials average down.
// On the Zen 5 the single sweep of 256 float32 lanes ran 1.06x faster without the prefetch on two
// threads in three alternated pairs of runs, a gap the 5% verdict left undecided in 8 trials. The
// policy comes from an environment variable naming either walk (BNSCOPE_ROW_PAIRS=pairs|rows for
// the reduce pass, BNSCOPE_ROW_WALK=tiles|rows for the single sweep). Thread-safe; one process-wide
// instance per kind (pair_walks(), tile_walks()).
class Walks {
 public:
  static constexpr int kMaxTrials = 8;

  Walks(std::string first, std::string second, const char* env = nullptr, double threshold = 0.9);
  WalkPolicy policy() const;           // read from the environment each time (tests switch it)
  std::optional<bool> forced() const;  // the walk the policy forces; nullopt: measured
  std::optional<bool> first(const WalkKey& key) const;  // nullopt: undecided
  // The walk forced by the policy, else the decided one; nullopt: still to be measured.
  std::optional<bool> known(const WalkKey& key) const;
  // ratio: the trial's walk_ratio, which decides after kMaxTrials without a verdict.
  void add(const WalkKey& key, WalkVerdict verdict, double ratio = 1.0);
  int trials(const WalkKey& key) const;  // verdicts until the decision, None included
  void clear();
  double threshold() const { return threshold_; }
  // One "256 lanes float32 past the LLC: rows (2 trials)" per key tried, "; "-separated, for
  // benchmark records; empty when no trial ran.
  std::string describe() const;

  // PassTrial's side, once the policy measures: the place among `period` (PassTrial::kPasses,
  // twice that where passes settle) of the pass about to run in key's current trial, -1 where the
  // walk is decided; then a timed pass's time. Every PassTrial::kPasses times are one trial (add).
  int claim_pass(const WalkKey& key, int period);
  void record_pass(const WalkKey& key, bool first, double seconds);

 private:
  struct State {
    WalkKey key;
    WalkVerdict last = WalkVerdict::None;  // the previous trial's verdict
    std::optional<bool> first;             // decided
    int trials = 0;
    double log_ratio = 0.0;  // sum of the trials' log(walk_ratio)
    // Whole-pass trials: places handed out and the times of the current trial's passes.
    int passes_claimed = 0;
    std::vector<double> pass_first, pass_second;
  };
  State& state(const WalkKey& key);  // with mutex_ held
  void add_locked(State& s, WalkVerdict verdict, double ratio);
  std::string names_[2];
  const char* env_;
  double threshold_;  // walk_verdict's
  mutable std::mutex mutex_;
  std::vector<State> states_;
};
Walks& pair_walks();  // the reduce pass: "pairs" first, "rows"
// Rows too wide for L1 (kernels.h: row_tile) in tiles or one at a time, decided on whole passes
// apart for the single sweep and the training grads' reduce pass: "tiles" first, "rows"
// (BNSCOPE_ROW_WALK names either, for both).
Walks& tile_walks();         // the single sweep
Walks& reduce_tile_walks();  // the reduce pass of the training grads
// The training grads' write pass over rows: each thread's chunks "last-first" (where the reduce
// pass ended) or "forward" (BNSCOPE_WRITE_WALK names either). Decided on whole calls
// (PassTrial, settling): the walk changes what the next call's reduce pass finds in the caches.
Walks& write_walks();
// The rows sweeps' software prefetch: "prefetch" first, "none" (BNSCOPE_PREFETCH names either,
// for every pass alike). One instance per pass, as each moves its own mix of traffic.
enum class RowsPass { Reduce, Write, Single };
Walks& prefetch_walks(RowsPass pass);

// A pass's walk for all of its chunks and threads, with trials of whole passes: for walks whose
// gain a trial on chunks cannot see. On the Zen 5 the single sweep of 2048 float32 lanes ran 4-6%
// faster in rows than in tiles over whole passes (32x7x7x2048, inference-mode and global grads),
// while trials on its chunks, one thread alternating as the other walked tiles, read the two
// level (ratios 0.80-1.20, geometric means 0.97-1.06) and took tiles in some processes; passes
// alternated whole read rows ahead in every process (geometric means 0.91-0.97 over eight
// trials). Passes of one undecided key alternate the walks in the chunk trials' order (first,
// second, second, first, ...), each timed whole, and every kPasses passes make one trial of
// `walks` (Walks::add: two agreeing verdicts, or after kMaxTrials the walk faster over all).
// A pass too short for its time to mean much (`times` false) takes the decided walk, else the
// first, and times nothing. Where a walk changes what the next pass finds in the caches
// (`settle`), passes take each walk twice in a row and only the second of the two is timed.
class PassTrial {
 public:
  static constexpr int kPasses = 8;  // timed passes a trial

  PassTrial(const WalkKey& key, bool times, Walks& walks, bool settle = false);
  bool first() const { return first_; }
  // The walk forced or decided when the pass began (Walks::known); nullopt while it is tried.
  std::optional<bool> known() const { return known_; }
  bool timed() const { return timed_; }
  void record(double seconds);  // the pass's time, once it ran; nothing when not timed()
  // Runs pass(first()) and records its time.
  template <class F>
  void run(F&& pass) {
    const auto start = std::chrono::steady_clock::now();
    pass(first_);
    record(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }

 private:
  WalkKey key_;
  Walks* walks_;
  std::optional<bool> known_;
  bool first_ = true;
  bool timed_ = false;
};

// One thread's walk of its chunks of a pass: the decided walk, else the first. A thread that
// `times` walks 2 * kTimed chunks from the middle of a span of at least `min_chunks` alternating
// the first walk and the second (first, second, second, first, ...) and times them; their verdict
// goes to `walks`, and the rest of the span takes a walk it decides. Two trials of one pass (the
// reduce pass's pairs and prefetch) time windows of their own: `window` 1 is the 2 * kTimed
// chunks before the middle ones, and needs a span long enough for both.
class WalkTrial {
 public:
  static constexpr int kTimed = 6;
  static constexpr std::int64_t kMinChunks = 48;

  WalkTrial(const WalkKey& key, std::int64_t chunks, bool times, Walks& walks,
            std::int64_t min_chunks = kMinChunks, int window = 0);
  // Walks the next chunk: chunk(first) with this trial's walk, timed where the trial asks.
  template <class F>
  void walk(F&& chunk) {
    if (!timed()) {
      chunk(first());
      return record(0.0);
    }
    const auto start = std::chrono::steady_clock::now();
    chunk(first());
    record(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  bool first() const;           // the walk of the next chunk
  bool timed() const;           // whether the next chunk's time is to be recorded
  void record(double seconds);  // after each chunk; the time counts only when timed()

 private:
  WalkKey key_;
  Walks* walks_;
  std::int64_t next_ = 0, first_timed_ = -1;  // -1: no chunk timed
  bool first_ = true;
  std::vector<double> first_seconds_, second_seconds_;
};

// While held (on), PassTrial and WalkTrial time nothing and take the decided walk, else the first:
// a trial of whole calls (dx_stores.h) is under way, and walks alternating inside its calls would
// time into it. Process-wide, as the pool's threads construct the trials on chunks; one run of
// the backend at a time holds it.
class TrialPause {
 public:
  explicit TrialPause(bool on);
  ~TrialPause();
  TrialPause(const TrialPause&) = delete;
  TrialPause& operator=(const TrialPause&) = delete;

 private:
  bool on_;
};
bool trials_paused();

// Passes that have taken part in a trial so far in this process (a PassTrial that claimed a place,
// a WalkTrial that times chunks): a run that raised it ran walks of different speeds.
std::uint64_t trial_passes();

// The fewest chunks a thread for a trial of the single sweep's chunks (two windows of
// WalkTrial::kTimed; 32x7x7x2048 channels-last gives each of two threads 24) and for a pass or
// call timed whole: shorter ones are over too soon for their times to mean much.
inline constexpr std::int64_t kMinPassTrialChunks = 2 * WalkTrial::kTimed;

}  // namespace bnscope::cpu
