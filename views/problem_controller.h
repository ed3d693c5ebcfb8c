#pragma once
// Owns the problem being debugged and re-runs it in the background after every change. Views
// read the latest outcome; tests drive this object without a window.

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <optional>

#include "analysis/channel_stats.h"
#include "backends/backend.h"
#include "ops/prepared.h"

namespace bnscope {

// Everything one run produced; immutable once published.
struct RunOutcome {
  Problem problem;
  std::string backend;
  std::optional<Prepared> prepared;  // empty when validation failed
  std::optional<Result> result;      // empty when validation or the run failed
  ChannelStats stats;
  QString error;  // the engine's message when something failed
  bool cancelled = false;
  bool ok() const { return result.has_value(); }
};

// The run itself, without Qt: validation, engine, channel statistics. Never throws.
std::shared_ptr<const RunOutcome> compute_outcome(const Problem& problem,
                                                  const std::string& backend,
                                                  const RunContext& ctx);

class ProblemController : public QObject {
  Q_OBJECT
 public:
  explicit ProblemController(QObject* parent = nullptr);
  ~ProblemController() override;

  const Problem& problem() const { return problem_; }
  const std::string& backend() const { return backend_; }
  std::shared_ptr<const RunOutcome> outcome() const { return outcome_; }
  bool isRunning() const { return running_; }
  bool isModified() const { return modified_; }
  void markSaved() { modified_ = false; }

  // Replaces the whole problem (a loaded file): not an unsaved edit.
  void setProblem(Problem p, bool modified = false);
  void setOp(const std::string& op);
  void setAttr(const std::string& name, AttrValue value);
  // Changes data_format; with convertData the x-shaped inputs are transposed to the new layout,
  // otherwise they are reinterpreted as already being in it.
  void setDataFormat(DataFormat f, bool convertData);
  void setDtype(std::optional<DType> t);
  void setConvention(ReserveConvention c);
  void setBackend(const std::string& name);
  void setInput(const std::string& name, Tensor t);
  // New random inputs for the current op and settings; reserve spaces from the forward op.
  void generateInputs(std::uint64_t seed);
  // Recomputes only the reserve spaces from x by running the forward op.
  void fillReserveFromForward();

  // A .npz with a problem.json replaces the problem; any other .npz adds its members named like
  // the op's inputs; a .npy becomes input `inputName` (default: the file's stem). On failure the
  // problem is left as it was and *error says why.
  bool openFile(const QString& path, const QString& inputName, QString* error);
  bool saveProblem(const QString& path, QString* error);
  // .npz: every defined output of the latest run; .npy: the output named `output`.
  bool saveOutputs(const QString& path, const QString& output, QString* error);

  void rerun();
  void cancel();
  // For tests and shutdown: processes events until no run is in flight.
  bool waitForIdle(int timeoutMs = 30000);

 signals:
  void problemChanged();
  void runStarted();
  void progressChanged(double fraction);
  void outcomeChanged();
  // An edit that could not be applied (bad generation request, ...); the problem is unchanged.
  void editFailed(const QString& message);

 private:
  void edited();
  void start();
  void finished();

  Problem problem_;
  std::string backend_ = "cpu";
  bool modified_ = false;
  bool pending_ = false;
  bool running_ = false;  // until the finished signal is handled, not just the future
  std::shared_ptr<const RunOutcome> outcome_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  QFutureWatcher<std::shared_ptr<const RunOutcome>> watcher_;
};

}  // namespace bnscope
