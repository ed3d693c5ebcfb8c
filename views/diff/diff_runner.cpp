#include "diff/diff_runner.h"

namespace bnscope {

DiffRunner::DiffRunner(QObject* parent)
    : QObject(parent), job_(this, [this](Done d, bool more) { done(std::move(d), more); }) {}

DiffRunner::~DiffRunner() = default;

void DiffRunner::adopt(std::shared_ptr<const DiffOutcome> outcome) {
  ++generation_;
  options_.reset();
  job_.cancelAll();
  outcome_ = std::move(outcome);
  emit finished();
}

void DiffRunner::recompare(DiffOptions options) {
  if (!outcome_) return;
  options_ = std::move(options);
  // A recompare queued behind another replaces it; the running one finishes first, as the
  // queued one starts from its outcome.
  job_.request(
      [this]() -> BackgroundJob<Done>::Work {
        if (!options_ || !outcome_) return {};
        emit started();
        return [previous = outcome_, options = std::exchange(options_, std::nullopt).value(),
                generation = generation_](const std::atomic<bool>& cancel) {
          return Done{bnscope::recompare(*previous, options, &cancel), generation};
        };
      },
      false);
}

void DiffRunner::cancel() {
  job_.cancel();
}

void DiffRunner::clear() {
  ++generation_;
  options_.reset();
  job_.cancelAll();
  outcome_.reset();
}

void DiffRunner::done(Done d, bool more) {
  // Stale or cancelled work is replaced by whatever superseded it; keep the last complete one.
  if (d.generation == generation_ && d.outcome && !d.outcome->cancelled)
    outcome_ = std::move(d.outcome);
  if (!more) emit finished();
}

bool DiffRunner::waitForIdle(int timeoutMs) {
  return job_.waitForIdle(timeoutMs);
}

}  // namespace bnscope
