#include "diff/diff_runner.h"

namespace bnscope {

DiffRunner::DiffRunner(QObject* parent)
    : QObject(parent), job_(this, [this](std::shared_ptr<const DiffOutcome> out, bool more) {
        done(std::move(out), more);
      }) {}

DiffRunner::~DiffRunner() = default;

void DiffRunner::start(DiffRequest request) {
  request_ = std::move(request);
  options_.reset();
  job_.request([this] { return next(); }, true);
}

void DiffRunner::recompare(DiffOptions options) {
  if (!outcome_ && !job_.isBusy()) return;
  // A recompare queued behind a full run applies to the request that run carries.
  if (request_)
    request_->options = std::move(options);
  else
    options_ = std::move(options);
  job_.request([this] { return next(); }, false);
}

void DiffRunner::cancel() {
  job_.cancel();
}

void DiffRunner::clear() {
  request_.reset();
  options_.reset();
  job_.cancelAll();
  outcome_.reset();
}

DiffRunner::Job::Work DiffRunner::next() {
  if (request_) {
    emit started();
    return [request = std::exchange(request_, std::nullopt).value()](
               const std::atomic<bool>& cancel) { return compute_diff(request, &cancel); };
  }
  if (!options_ || !outcome_) return {};
  emit started();
  return [previous = outcome_, options = std::exchange(options_, std::nullopt).value()](
             const std::atomic<bool>& cancel) {
    return bnscope::recompare(*previous, options, &cancel);
  };
}

void DiffRunner::done(std::shared_ptr<const DiffOutcome> out, bool more) {
  // A cancelled run is replaced by whatever cancelled it; keep showing the last complete one.
  if (out && !out->cancelled) outcome_ = std::move(out);
  if (!more) emit finished();
}

bool DiffRunner::waitForIdle(int timeoutMs) {
  return job_.waitForIdle(timeoutMs);
}

}  // namespace bnscope
