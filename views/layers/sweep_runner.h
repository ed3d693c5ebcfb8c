#pragma once
// Sweeps a capture folder off the UI thread, one sweep at a time: a new request cancels the
// running one and starts when it has stopped. The latest finished outcome is kept until the next.

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <optional>

#include "analysis/sweep.h"

namespace bnscope {

struct SweepOutcome {
  QString dir;
  std::optional<SweepResult> result;  // empty when the capture could not be read or swept
  QString error;                      // why, in one line
  bool cancelled = false;
  bool ok() const { return result.has_value(); }
};

// The sweep itself, without Qt's event loop: reads the folder, sweeps it. Never throws.
std::shared_ptr<const SweepOutcome> compute_sweep(const QString& dir, const SweepRequest& request,
                                                  const SweepProgress& progress,
                                                  const std::atomic<bool>* cancel);

class SweepRunner : public QObject {
  Q_OBJECT
 public:
  explicit SweepRunner(QObject* parent = nullptr);
  ~SweepRunner() override;

  void start(const QString& dir, SweepRequest request = {});
  // Only raises the running sweep's flag, so it may be called from any thread (also from a
  // directly connected layerStarting slot).
  void cancel();
  bool isRunning() const { return running_; }
  std::shared_ptr<const SweepOutcome> outcome() const { return outcome_; }
  // For tests and shutdown: processes events until nothing is queued or running.
  bool waitForIdle(int timeoutMs = 60000);

 signals:
  void started(const QString& dir);
  // Emitted from the sweeping thread before each layer (done = layers finished so far) and once
  // at the end; queued to receivers in other threads.
  void layerStarting(int done, int total, const QString& layer);
  void finished();

 private:
  struct Job {
    QString dir;
    SweepRequest request;
  };
  void launch();
  void done();

  std::optional<Job> pending_;
  bool running_ = false;
  std::shared_ptr<const SweepOutcome> outcome_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  QFutureWatcher<std::shared_ptr<const SweepOutcome>> watcher_;
};

}  // namespace bnscope
