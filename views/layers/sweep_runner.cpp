#include "layers/sweep_runner.h"

#include <QtConcurrent/QtConcurrentRun>

#include "background_priority.h"
#include "option_words.h"
#include "process_events.h"
#include "tensor/error.h"

namespace bnscope {

std::shared_ptr<const SweepOutcome> compute_sweep(const QString& dir, const SweepRequest& request,
                                                  const SweepProgress& progress,
                                                  const std::atomic<bool>* cancel) {
  auto out = std::make_shared<SweepOutcome>();
  out->dir = dir;
  RunContext ctx;
  ctx.cancel = cancel;
  try {
    const Capture capture = read_capture_folder(dir.toStdString());
    out->result = run_sweep(capture, request, progress, ctx);
  } catch (const Error& e) {
    out->cancelled = e.code() == ErrorCode::Cancelled;
    out->error = app_error_text(e);
  } catch (const std::exception& e) {
    // Anything else (out of memory, a filesystem error) still ends the sweep with a message.
    out->error = app_error_text(e);
  }
  return out;
}

SweepRunner::SweepRunner(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcherBase::finished, this, &SweepRunner::done);
}

SweepRunner::~SweepRunner() {
  pending_.reset();
  cancel();
  watcher_.waitForFinished();
}

void SweepRunner::start(const QString& dir, SweepRequest request) {
  pending_ = Job{dir, std::move(request)};
  if (running_)
    cancel();
  else
    launch();
}

void SweepRunner::cancel() {
  if (auto flag = cancel_) flag->store(true);
}

void SweepRunner::launch() {
  if (!pending_) return;
  Job job = std::move(*pending_);
  pending_.reset();
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  running_ = true;
  emit started(job.dir);
  auto progress = [this](std::size_t done, std::size_t total, const std::string& layer) {
    emit layerStarting(static_cast<int>(done), static_cast<int>(total),
                       QString::fromStdString(layer));
  };
  watcher_.setFuture(QtConcurrent::run([job = std::move(job), flag = cancel_, progress] {
    yield_to_ui_thread();
    return compute_sweep(job.dir, job.request, progress, flag.get());
  }));
}

void SweepRunner::done() {
  std::shared_ptr<const SweepOutcome> out = watcher_.result();
  running_ = false;
  if (pending_) {
    // Cancelled to make way for the next folder: nobody asked for this outcome any more.
    launch();
    return;
  }
  outcome_ = std::move(out);
  emit finished();
}

bool SweepRunner::waitForIdle(int timeoutMs) {
  return process_events_while([this] { return running_ || pending_; }, timeoutMs);
}

}  // namespace bnscope
