#include "backends/cpu/walk_trial.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "tensor/dtype.h"

namespace bnscope::cpu {

namespace {

// Timed chunk i walks the first walk at 0, 3, 4, 7, ...: each walk goes first as often as the
// other, so a drift in the host's speed over the trial favours neither.
bool trial_first(std::int64_t i) {
  const std::int64_t r = i % 4;
  return r == 0 || r == 3;
}

// "154.1 MB"
std::string megabytes_text(std::int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

std::atomic<int> paused_trials{0};

}  // namespace

double median_seconds(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

WalkVerdict walk_verdict(std::vector<double> first_seconds, std::vector<double> second_seconds,
                         double threshold) {
  return ratio_verdict(walk_ratio(std::move(first_seconds), std::move(second_seconds)), threshold);
}

WalkVerdict ratio_verdict(double ratio, double threshold) {
  if (ratio < threshold) return WalkVerdict::Second;
  if (ratio * threshold > 1) return WalkVerdict::First;
  return WalkVerdict::None;
}

double walk_ratio(std::vector<double> first_seconds, std::vector<double> second_seconds) {
  if (first_seconds.empty() || second_seconds.empty()) return 1.0;
  const double f = median_seconds(std::move(first_seconds)),
               s = median_seconds(std::move(second_seconds));
  return f > 0 && s > 0 ? s / f : 1.0;
}

Walks::Walks(std::string first, std::string second, const char* env, double threshold)
    : names_{std::move(first), std::move(second)}, env_(env), threshold_(threshold) {}

WalkPolicy Walks::policy() const {
  const char* v = env_ ? std::getenv(env_) : nullptr;
  if (v && v == names_[0]) return WalkPolicy::First;
  if (v && v == names_[1]) return WalkPolicy::Second;
  return WalkPolicy::Measure;
}

std::optional<bool> Walks::forced() const {
  switch (policy()) {
    case WalkPolicy::First:
      return true;
    case WalkPolicy::Second:
      return false;
    case WalkPolicy::Measure:
      break;
  }
  return std::nullopt;
}

std::optional<bool> Walks::known(const WalkKey& key) const {
  if (const std::optional<bool> f = forced()) return f;
  return first(key);
}

std::optional<bool> Walks::first(const WalkKey& key) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const State& s : states_)
    if (s.key == key) return s.first;
  return std::nullopt;
}

Walks::State& Walks::state(const WalkKey& key) {
  auto it =
      std::find_if(states_.begin(), states_.end(), [&](const State& s) { return s.key == key; });
  if (it == states_.end()) it = states_.insert(states_.end(), State{key});
  return *it;
}

void Walks::add_locked(State& s, WalkVerdict verdict, double ratio) {
  if (s.first) return;
  ++s.trials;
  if (ratio > 0 && std::isfinite(ratio)) s.log_ratio += std::log(ratio);
  if (verdict != WalkVerdict::None && s.last == verdict)
    s.first = verdict == WalkVerdict::First;
  else if (s.trials >= kMaxTrials)
    s.first = s.log_ratio >= 0;
  if (verdict != WalkVerdict::None) s.last = verdict;
}

void Walks::add(const WalkKey& key, WalkVerdict verdict, double ratio) {
  const std::lock_guard<std::mutex> lock(mutex_);
  add_locked(state(key), verdict, ratio);
}

int Walks::claim_pass(const WalkKey& key, int period) {
  const std::lock_guard<std::mutex> lock(mutex_);
  State& s = state(key);
  if (s.first) return -1;
  // Passes that run at once (two callers of the backend) share a trial's places in turn.
  return s.passes_claimed++ % period;
}

void Walks::record_pass(const WalkKey& key, bool first, double seconds) {
  const std::lock_guard<std::mutex> lock(mutex_);
  State& s = state(key);
  if (s.first) return;
  (first ? s.pass_first : s.pass_second).push_back(seconds);
  if (s.pass_first.size() + s.pass_second.size() < PassTrial::kPasses) return;
  const double ratio = walk_ratio(s.pass_first, s.pass_second);
  s.pass_first.clear();
  s.pass_second.clear();
  add_locked(s, ratio_verdict(ratio, threshold_), ratio);
}

int Walks::trials(const WalkKey& key) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  for (const State& s : states_)
    if (s.key == key) return s.trials;
  return 0;
}

void Walks::clear() {
  const std::lock_guard<std::mutex> lock(mutex_);
  states_.clear();
}

std::string Walks::describe() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  for (const State& s : states_) {
    if (!out.empty()) out += "; ";
    const std::string type(dtype_name(simd::dtype_of(s.key.elem)));
    if (s.key.bytes > 0)
      out += megabytes_text(s.key.bytes) + " of tensors, " + std::to_string(s.key.lanes) +
             " channels " + type +
             (s.key.channels_first ? " channels-first: " : " channels-last: ");
    else
      out += std::to_string(s.key.lanes) + " lanes " + type +
             (s.key.past_llc ? " past the LLC: " : " within the LLC: ");
    out += (s.first ? names_[*s.first ? 0 : 1] : "undecided") + " (" + std::to_string(s.trials) +
           (s.trials == 1 ? " trial)" : " trials)");
  }
  return out;
}

Walks& pair_walks() {
  static Walks w("pairs", "rows", "BNSCOPE_ROW_PAIRS");
  return w;
}

Walks& tile_walks() {
  static Walks w("tiles", "rows", "BNSCOPE_ROW_WALK");
  return w;
}

Walks& reduce_tile_walks() {
  static Walks w("tiles", "rows", "BNSCOPE_ROW_WALK");
  return w;
}

// The prefetch's effects on the rows passes are 5-17% (walk_trial.h), so its trials judge at 0.95:
// on the Zen 5 the ratio of the two walks' chunk medians, trial by trial (32x56x56x256 float32,
// one thread), spread 0.89-0.99 around 0.93 for the write pass (no prefetch faster) and
// 1.01-1.08 around 1.05 for a reduce sweep (the prefetch faster), one trial in 30 beyond either
// edge; two agreeing trials decide, so a walk taken on noise alone is rare, and costs no bit.
constexpr double kPrefetchThreshold = 0.95;

Walks& prefetch_walks(RowsPass pass) {
  static Walks walks[] = {
      {"prefetch", "none", "BNSCOPE_PREFETCH", kPrefetchThreshold},   // RowsPass::Reduce
      {"prefetch", "none", "BNSCOPE_PREFETCH", kPrefetchThreshold},   // RowsPass::Write
      {"prefetch", "none", "BNSCOPE_PREFETCH", kPrefetchThreshold}};  // RowsPass::Single
  return walks[static_cast<int>(pass)];
}

// The write walk's effect measured 3-8% either way (docs/performance-zen5-avx512.md), so it
// judges at the prefetch trials' 5%.
Walks& write_walks() {
  static Walks w("last-first", "forward", "BNSCOPE_WRITE_WALK", kPrefetchThreshold);
  return w;
}

namespace {
std::atomic<std::uint64_t> trial_pass_count{0};
}  // namespace

TrialPause::TrialPause(bool on) : on_(on) {
  if (on_) paused_trials.fetch_add(1, std::memory_order_relaxed);
}

TrialPause::~TrialPause() {
  if (on_) paused_trials.fetch_sub(1, std::memory_order_relaxed);
}

bool trials_paused() {
  return paused_trials.load(std::memory_order_relaxed) > 0;
}

std::uint64_t trial_passes() {
  return trial_pass_count.load(std::memory_order_relaxed);
}

PassTrial::PassTrial(const WalkKey& key, bool times, Walks& walks, bool settle)
    : key_(key), walks_(&walks), known_(walks.known(key)) {
  if (known_) {
    first_ = *known_;
    return;
  }
  if (!times || trials_paused()) return;
  const int place = walks.claim_pass(key, settle ? 2 * kPasses : kPasses);
  if (place < 0) return;
  trial_pass_count.fetch_add(1, std::memory_order_relaxed);
  first_ = trial_first(settle ? place / 2 : place);
  timed_ = !settle || place % 2 == 1;
}

void PassTrial::record(double seconds) {
  if (timed_) walks_->record_pass(key_, first_, seconds);
  timed_ = false;
}

WalkTrial::WalkTrial(const WalkKey& key, std::int64_t chunks, bool times, Walks& walks,
                     std::int64_t min_chunks, int window)
    : key_(key), walks_(&walks) {
  if (const std::optional<bool> known = walks.known(key)) {
    first_ = *known;
    return;
  }
  // The middle window starts at chunks / 2 - kTimed; window w ends where window w - 1 starts.
  const std::int64_t at = chunks / 2 - kTimed - 2 * kTimed * window;
  if (times && !trials_paused() && chunks >= std::max<std::int64_t>(min_chunks, 2 * kTimed) &&
      at >= 0) {
    first_timed_ = at;
    trial_pass_count.fetch_add(1, std::memory_order_relaxed);
  }
}

bool WalkTrial::timed() const {
  return first_timed_ >= 0 && next_ >= first_timed_ && next_ < first_timed_ + 2 * kTimed;
}

bool WalkTrial::first() const {
  return timed() ? trial_first(next_ - first_timed_) : first_;
}

void WalkTrial::record(double seconds) {
  if (timed()) {
    (first() ? first_seconds_ : second_seconds_).push_back(seconds);
    if (next_ + 1 == first_timed_ + 2 * kTimed) {
      const double ratio = walk_ratio(first_seconds_, second_seconds_);
      walks_->add(key_, ratio_verdict(ratio, walks_->threshold()), ratio);
      first_ = walks_->first(key_).value_or(true);
    }
  }
  ++next_;
}

}  // namespace bnscope::cpu
