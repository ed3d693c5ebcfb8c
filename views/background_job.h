#pragma once
// Work off the UI thread, one job at a time, with cancel. The controller's runs, the diff runner
// and the profile view share it: a request while a job runs is queued (a later request replaces
// the queued one) and starts when the running job has ended; it may also ask the running job to
// stop. Work is built on the UI thread when it starts, so it sees the state of that moment; the
// worker owns copies of what it reads, so edits during a run are safe. A result is handed on,
// not kept: once done has taken it, the job holds nothing of it (a run's outcome holds hundreds
// of MB that must go when its holder lets go).

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "background_priority.h"
#include "process_events.h"

namespace bnscope {

template <class T>
class BackgroundJob {
 public:
  // Runs on a worker thread; polls the flag where it can stop.
  using Work = std::function<T(const std::atomic<bool>& cancelled)>;
  // Called on the UI thread with each job's result; `more` is true when a queued job starts
  // right after, which makes this result already out of date.
  using Done = std::function<void(T result, bool more)>;

  BackgroundJob(QObject* owner, Done done) : watcher_(owner), done_(std::move(done)) {
    QObject::connect(&watcher_, &QFutureWatcherBase::finished, owner, [this] { finished(); });
  }
  ~BackgroundJob() {
    pending_ = nullptr;
    cancel();
    watcher_.waitForFinished();
  }
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;

  // Starts the work make() builds now, or queues it behind the running job; with cancelRunning
  // the running job is asked to stop first.
  void request(std::function<Work()> make, bool cancelRunning = true) {
    pending_ = std::move(make);
    if (!running_)
      launch();
    else if (cancelRunning)
      cancel();
  }
  // Asks the running job to stop; a queued job still starts after it.
  void cancel() {
    if (cancel_) cancel_->store(true);
  }
  // Drops the queued job and stops the running one.
  void cancelAll() {
    pending_ = nullptr;
    cancel();
  }
  bool isRunning() const { return running_; }
  bool isBusy() const { return running_ || pending_; }
  // For tests and shutdown: processes events until nothing runs or waits.
  bool waitForIdle(int timeoutMs) {
    return process_events_while([this] { return isBusy(); }, timeoutMs);
  }

 private:
  void launch() {
    if (!pending_) return;
    std::function<Work()> make = std::move(pending_);
    pending_ = nullptr;
    Work work = make();
    if (!work) return;  // nothing to do after all
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    slot_ = std::make_shared<Slot>();
    running_ = true;
    // The future carries no result (it would keep it until the next job): the slot does.
    watcher_.setFuture(QtConcurrent::run([work = std::move(work), flag = cancel_, slot = slot_] {
      yield_to_ui_thread();
      try {
        slot->result.emplace(work(*flag));
      } catch (...) {
        slot->error = std::current_exception();
      }
    }));
  }
  void finished() {
    running_ = false;
    const bool more = static_cast<bool>(pending_);
    const std::shared_ptr<Slot> slot = std::exchange(slot_, nullptr);
    if (slot->error) std::rethrow_exception(slot->error);  // as QFuture::result() would
    done_(std::move(*slot->result), more);
    launch();
  }

  struct Slot {
    std::optional<T> result;
    std::exception_ptr error;
  };
  QFutureWatcher<void> watcher_;
  std::shared_ptr<Slot> slot_;
  Done done_;
  std::function<Work()> pending_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  bool running_ = false;  // until done_ has seen the result, not just the future
};

}  // namespace bnscope
