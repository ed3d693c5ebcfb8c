#pragma once
// Runs diffs off the UI thread, one at a time: a new request cancels the running one and starts
// when it has stopped. The latest finished outcome is kept until the next one.

#include <QFutureWatcher>
#include <QObject>
#include <atomic>
#include <memory>
#include <optional>

#include "diff/diff_compute.h"

namespace bnscope {

class DiffRunner : public QObject {
  Q_OBJECT
 public:
  explicit DiffRunner(QObject* parent = nullptr);
  ~DiffRunner() override;

  void start(DiffRequest request);
  // New tolerances on the latest outcome's outputs (no backend re-runs but the cause finder's).
  void recompare(DiffOptions options);
  void cancel();
  bool isRunning() const { return running_; }
  std::shared_ptr<const DiffOutcome> outcome() const { return outcome_; }
  // For tests and shutdown: processes events until nothing is queued or running.
  bool waitForIdle(int timeoutMs = 60000);

 signals:
  void started();
  void finished();

 private:
  struct Job {
    std::optional<DiffRequest> request;  // empty: recompare the latest outcome
    DiffOptions options;
  };
  void launch();
  void done();

  std::optional<Job> pending_;
  bool running_ = false;
  std::shared_ptr<const DiffOutcome> outcome_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  QFutureWatcher<std::shared_ptr<const DiffOutcome>> watcher_;
};

}  // namespace bnscope
