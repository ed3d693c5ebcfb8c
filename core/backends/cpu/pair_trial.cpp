#include "backends/cpu/pair_trial.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "backends/cpu/walk_timing.h"
#include "tensor/dtype.h"

namespace bnscope::cpu {

namespace {

// Timed chunk i walks pairs at 0, 3, 4, 7, ...: each walk goes first as often as the other, so a
// drift in the host's speed over the trial favours neither.
bool trial_pairs(std::int64_t i) {
  const std::int64_t r = i % 4;
  return r == 0 || r == 3;
}

}  // namespace

PairPolicy pair_policy() {
  const char* v = std::getenv("BNSCOPE_ROW_PAIRS");
  if (v && std::strcmp(v, "pairs") == 0) return PairPolicy::Pairs;
  if (v && std::strcmp(v, "rows") == 0) return PairPolicy::Rows;
  return PairPolicy::Measure;
}

PairVerdict pair_verdict(std::vector<double> pairs_seconds, std::vector<double> rows_seconds) {
  if (pairs_seconds.empty() || rows_seconds.empty()) return PairVerdict::None;
  const double p = median_seconds(std::move(pairs_seconds)),
               r = median_seconds(std::move(rows_seconds));
  if (r < 0.9 * p) return PairVerdict::Rows;
  if (p < 0.9 * r) return PairVerdict::Pairs;
  return PairVerdict::None;
}

std::optional<bool> PairWalks::pairs(const PairKey& key) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const State& s : states_)
    if (s.key == key) return s.pairs;
  return std::nullopt;
}

void PairWalks::add(const PairKey& key, PairVerdict verdict) {
  const std::lock_guard<std::mutex> lock(mutex_);
  auto it =
      std::find_if(states_.begin(), states_.end(), [&](const State& s) { return s.key == key; });
  if (it == states_.end()) it = states_.insert(states_.end(), State{key});
  if (it->pairs) return;
  ++it->trials;
  if (verdict != PairVerdict::None && it->last == verdict)
    it->pairs = verdict == PairVerdict::Pairs;
  else if (it->trials >= kMaxTrials)
    it->pairs = true;
  if (verdict != PairVerdict::None) it->last = verdict;
}

int PairWalks::trials(const PairKey& key) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const State& s : states_)
    if (s.key == key) return s.trials;
  return 0;
}

void PairWalks::clear() {
  const std::lock_guard<std::mutex> lock(mutex_);
  states_.clear();
}

std::string PairWalks::describe() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  for (const State& s : states_) {
    if (!out.empty()) out += "; ";
    out += std::to_string(s.key.lanes) + " lanes " +
           std::string(dtype_name(simd::dtype_of(s.key.elem))) +
           (s.key.past_llc ? " past the LLC: " : " within the LLC: ") +
           (s.pairs ? (*s.pairs ? "pairs" : "rows") : "undecided") + " (" +
           std::to_string(s.trials) + (s.trials == 1 ? " trial)" : " trials)");
  }
  return out;
}

PairWalks& pair_walks() {
  static PairWalks w;
  return w;
}

PairTrial::PairTrial(const PairKey& key, std::int64_t chunks, bool times, PairPolicy policy,
                     PairWalks& walks)
    : key_(key), walks_(&walks) {
  switch (policy) {
    case PairPolicy::Pairs:
      return;
    case PairPolicy::Rows:
      pairs_ = false;
      return;
    case PairPolicy::Measure:
      break;
  }
  if (const std::optional<bool> decided = walks.pairs(key)) {
    pairs_ = *decided;
    return;
  }
  if (times && chunks >= kMinChunks) first_ = chunks / 2 - kTimed;
}

bool PairTrial::timed() const {
  return first_ >= 0 && next_ >= first_ && next_ < first_ + 2 * kTimed;
}

bool PairTrial::pairs() const {
  return timed() ? trial_pairs(next_ - first_) : pairs_;
}

void PairTrial::record(double seconds) {
  if (timed()) {
    (pairs() ? pairs_seconds_ : rows_seconds_).push_back(seconds);
    if (next_ + 1 == first_ + 2 * kTimed) {
      walks_->add(key_, pair_verdict(pairs_seconds_, rows_seconds_));
      pairs_ = walks_->pairs(key_).value_or(true);
    }
  }
  ++next_;
}

}  // namespace bnscope::cpu
