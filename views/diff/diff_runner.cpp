#include "diff/diff_runner.h"

#include <QtConcurrent/QtConcurrentRun>

#include "process_events.h"

namespace bnscope {

DiffRunner::DiffRunner(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcherBase::finished, this, &DiffRunner::done);
}

DiffRunner::~DiffRunner() {
  cancel();
  watcher_.waitForFinished();
}

void DiffRunner::start(DiffRequest request) {
  pending_ = Job{std::move(request), {}};
  if (running_)
    cancel();
  else
    launch();
}

void DiffRunner::recompare(DiffOptions options) {
  if (!outcome_ && !running_) return;
  // A recompare queued behind a full run applies to the request that run carries.
  if (pending_ && pending_->request) {
    pending_->request->options = std::move(options);
  } else {
    pending_ = Job{std::nullopt, std::move(options)};
  }
  if (!running_) launch();
}

void DiffRunner::cancel() {
  if (cancel_) cancel_->store(true);
}

void DiffRunner::launch() {
  if (!pending_) return;
  Job job = std::move(*pending_);
  pending_.reset();
  if (!job.request && !outcome_) return;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  running_ = true;
  emit started();
  auto flag = cancel_;
  if (job.request) {
    watcher_.setFuture(QtConcurrent::run(
        [request = std::move(*job.request), flag] { return compute_diff(request, flag.get()); }));
  } else {
    watcher_.setFuture(
        QtConcurrent::run([previous = outcome_, options = std::move(job.options), flag] {
          return bnscope::recompare(*previous, options, flag.get());
        }));
  }
}

void DiffRunner::done() {
  std::shared_ptr<const DiffOutcome> out = watcher_.result();
  running_ = false;
  // A cancelled run is replaced by whatever cancelled it; keep showing the last complete one.
  if (out && !out->cancelled) outcome_ = std::move(out);
  if (pending_) {
    launch();
    return;
  }
  emit finished();
}

bool DiffRunner::waitForIdle(int timeoutMs) {
  return process_events_while([this] { return running_ || pending_; }, timeoutMs);
}

}  // namespace bnscope
