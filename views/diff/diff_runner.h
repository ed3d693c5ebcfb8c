#pragma once
// The Diff tab's latest outcome and the work on it off the UI thread: outcomes made by the
// controller's run are adopted as they are; new tolerances re-compare those runs in the
// background (only the cause finder runs anything), the newest request winning.

#include <QObject>
#include <memory>
#include <optional>

#include "background_job.h"
#include "analysis/outcome.h"

namespace bnscope {

class DiffRunner : public QObject {
  Q_OBJECT
 public:
  explicit DiffRunner(QObject* parent = nullptr);
  ~DiffRunner() override;

  // An outcome made elsewhere becomes the latest; a re-compare in flight is dropped.
  void adopt(std::shared_ptr<const DiffOutcome> outcome);
  // New tolerances on the latest outcome's runs.
  void recompare(DiffOptions options);
  void cancel();
  // Forgets the latest outcome (the problem it belongs to is gone) and stops any work.
  void clear();
  bool isRunning() const { return job_.isBusy(); }
  std::shared_ptr<const DiffOutcome> outcome() const { return outcome_; }
  // For tests and shutdown: processes events until nothing is queued or running.
  bool waitForIdle(int timeoutMs = 60000);

 signals:
  void started();
  void finished();

 private:
  struct Done {
    std::shared_ptr<const DiffOutcome> outcome;
    std::uint64_t generation = 0;
  };
  void done(Done d, bool more);

  std::optional<DiffOptions> options_;
  std::shared_ptr<const DiffOutcome> outcome_;
  std::uint64_t generation_ =
      0;  // results of work started before the latest adopt/clear are dropped
  BackgroundJob<Done> job_;
};

}  // namespace bnscope
