#pragma once
// Runs diffs off the UI thread, one at a time: a new request cancels the running one and starts
// when it has stopped. The latest finished outcome is kept until the next one.

#include <QObject>
#include <memory>
#include <optional>

#include "background_job.h"
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
  bool isRunning() const { return job_.isRunning(); }
  std::shared_ptr<const DiffOutcome> outcome() const { return outcome_; }
  // Forgets the latest outcome (the problem it belongs to is gone) and stops any run.
  void clear();
  // For tests and shutdown: processes events until nothing is queued or running.
  bool waitForIdle(int timeoutMs = 60000);

 signals:
  void started();
  void finished();

 private:
  using Job = BackgroundJob<std::shared_ptr<const DiffOutcome>>;
  Job::Work next();
  void done(std::shared_ptr<const DiffOutcome> out, bool more);

  // What the next job does: a full run of request, or (without one) a recompare of the latest
  // outcome with options.
  std::optional<DiffRequest> request_;
  std::optional<DiffOptions> options_;
  std::shared_ptr<const DiffOutcome> outcome_;
  Job job_;
};

}  // namespace bnscope
