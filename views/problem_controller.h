#pragma once
// Owns the problem being debugged and re-runs it in the background after every change. Views
// read the latest outcome; tests drive this object without a window.

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "analysis/channel_stats.h"
#include "analysis/outcome.h"
#include "backends/backend.h"
#include "background_job.h"
#include "ops/prepared.h"
#include "problem_state.h"

namespace bnscope {

class ProblemController : public QObject {
  Q_OBJECT
 public:
  explicit ProblemController(QObject* parent = nullptr);
  ~ProblemController() override;

  const Problem& problem() const { return problem_; }
  const std::string& backend() const { return backend_; }
  std::shared_ptr<const RunOutcome> outcome() const { return outcome_; }
  // The outcome shown is the last good one, kept when the run of a later change was cancelled.
  bool isStale() const { return outcome_ && outcome_->stale; }
  bool isRunning() const { return job_.isBusy() || converting_ || loading_; }
  // A problem file is being read in the background (see openFile).
  bool isLoading() const { return loading_; }
  // Counts every change of the problem; views record it to tell whether what they show is current.
  std::uint64_t revision() const { return revision_; }
  // The problem differs from what its file holds (or it has none): an edit set back is none.
  bool isModified() const;
  void markSaved();
  // The problem file the current problem came from or was last saved to; empty for none.
  const QString& path() const { return path_; }

  // Replaces the whole problem (a loaded file, path its file): not an unsaved edit. The shown
  // outcome is let go first (outcomeReleased): nothing of the problem before is held beside this
  // one but the readings of buffers both share.
  void setProblem(Problem p, bool modified = false, const QString& path = {});
  // Switches the op, carrying over what maps to the new op and generating the rest (see
  // op_switch.h); what happened is in switchNote() and the notice signal.
  void setOp(const std::string& op);
  // Replaces the problem as an edit (unsaved, same file): a fix applied to it.
  void editProblem(Problem p);
  const QString& switchNote() const { return switch_note_; }
  void setAttr(const std::string& name, AttrValue value);
  // Changes data_format; with convertData the x-shaped inputs are transposed to the new layout,
  // otherwise they are reinterpreted as already being in it. A transposition of more than
  // kConvertInPlaceBytes runs in the background and the edit lands when it is done (isRunning()
  // meanwhile); it is dropped, with editFailed, if those inputs changed in between, and by
  // cancel().
  // When nothing but the controller's own problem and outcome holds those inputs and no run is
  // in flight, the background transposition rewrites their own storage (no second copy of the
  // data, no fresh pages); meanwhile inputsInFlux() is true, nothing may read their data, and
  // every edit first waits for it (settle). Cancelled, it moves back what it had moved.
  void setDataFormat(DataFormat f, bool convertData);
  static constexpr std::size_t kConvertInPlaceBytes = std::size_t{16} << 20;
  bool inputsInFlux() const { return in_place_.has_value(); }
  // When the change lands, outcome() becomes a copy of the outcome shown (the same revision and
  // pipeline, no outcomeChanged: the figures are those of the same data) whose input summaries
  // describe the new layout; a view holding the shown outcome swaps it in on problemChanged.
  // Waits for an in-place layout change in flight and applies it; a reader of the problem's
  // input data off the UI thread (the profile, a report export) calls it first.
  void settle();
  void setDtype(std::optional<DType> t);
  void setConvention(ReserveConvention c);
  void setBackend(const std::string& name);
  // The comparison every run also makes (the Diff tab's, while it is shown); none: runs only the
  // backend. Takes effect with the next run; rerun now when the current outcome lacks it.
  void setComparison(std::optional<PipelineRequest> comparison, bool rerunNow);
  const std::optional<PipelineRequest>& comparison() const { return comparison_; }
  void setInput(const std::string& name, Tensor t);
  // New random inputs for the current op and settings; reserve spaces from the forward op.
  void generateInputs(std::uint64_t seed);
  // Recomputes only the reserve spaces from x by running the forward op.
  void fillReserveFromForward();

  // A .npz with a problem.json replaces the problem; any other .npz adds its members named like
  // the op's inputs; a .npy becomes input `inputName` (default: the file's stem). On failure the
  // problem is left as it was and *error says why.
  // A problem file over kLoadInPlaceBytes is read in the background (isRunning() meanwhile): it
  // replaces the problem when read, or editFailed says why not; openFile then returns true. The
  // shown outcome is let go before the read (outcomeReleased), so a real layer's outputs are not
  // held beside the next layer's inputs; if the read fails or is cancelled, the problem, which
  // stays as it was, runs again.
  bool openFile(const QString& path, const QString& inputName, QString* error);
  static constexpr qint64 kLoadInPlaceBytes = qint64{64} << 20;
  bool saveProblem(const QString& path, QString* error);
  // .npz: every defined output of the latest run; .npy: the output named `output`.
  bool saveOutputs(const QString& path, const QString& output, QString* error);

  void rerun();
  // Stops the run in flight; the last good outcome stays, marked stale (RunOutcome::stale).
  void cancel();
  // Results of a replaced outcome that nothing reads any more, held in the engine's pool
  // (output_pool()) for the next run to write into (no fresh page faults on a real layer);
  // released after kSpareHoldMs without a run. A set no run of the current problem could write
  // into (another dtype or shape) is freed at once. Another job of the same problem (the profile)
  // may take them instead.
  std::vector<Result> takeSpareResults();
  std::vector<Result> spareResults() const;
  static constexpr int kSpareHoldMs = 3000;
  // The comparison's reference outputs, lent whole to a job of the same problem (the profile
  // writes its repetitions into them rather than into a third output set). Only when the shown
  // outcome is current, its comparison ran a reference backend apart from the app's run, and
  // nothing but that comparison holds those buffers. Until returned they read as empty there
  // and nothing may read them (the Diff tab waits: comparisonOutputsLent); the borrower runs
  // the reference backend into them again before giving them back.
  struct Loan {
    Result outputs;
    std::string backend;  // the reference backend, whose outputs they must hold when returned
  };
  std::optional<Loan> lendComparisonOutputs();
  void returnComparisonOutputs(Result outputs);
  bool comparisonOutputsLent() const { return loan_.has_value(); }
  // A reader of the comparison's outputs off the UI thread (the Diff tab's re-compare, a report
  // export) starts or ends: nothing is lent meanwhile. Reading changes nothing, hence const.
  void beginComparisonRead() const { ++comparison_readers_; }
  void endComparisonRead() const { --comparison_readers_; }
  // The comparison the Diff tab shows: when a re-compare made it a copy of the outcome's, its
  // handles on the reference's buffers are named too, so those can still be lent.
  void setShownComparison(std::weak_ptr<const DiffOutcome> shown) {
    shown_comparison_ = std::move(shown);
  }
  // For tests and shutdown: processes events until no run is in flight.
  bool waitForIdle(int timeoutMs = 30000);

 signals:
  void problemChanged();
  // Before the problemChanged of a problem replaced whole (setProblem, a problem file) or of
  // inputs read into it from a file: what the views show is no longer an edit of what came
  // before.
  void problemOpened();
  void runStarted();
  void progressChanged(double fraction);
  void outcomeChanged();
  // An edit that could not be applied (bad generation request, ...); the problem is unchanged.
  void editFailed(const QString& message);
  // Something the person should know about an edit that succeeded.
  void notice(const QString& message);
  // The lent comparison outputs are back, holding the reference's outputs again.
  void comparisonOutputsReturned();
  // The shown outcome was let go before a problem replaced whole is read or run: views drop
  // what they hold of it; outcome() is null until that problem's run answers.
  void outcomeReleased();

 private:
  void edited();
  void changed();
  void finished(std::shared_ptr<const RunOutcome> out, bool more);
  // The data_format edit with its transposed inputs, once they are ready.
  struct Converted {
    DataFormat format;
    std::vector<std::pair<std::string, Tensor>> from, to;
    QString error;  // why a transposition failed (memory); nothing changes then
  };
  void converted(const Converted& c);
  bool ownsEveryCopy(const Tensor& t) const;
  void convertInPlace(DataFormat f, std::vector<std::pair<std::string, Tensor>> tensors);
  void convertedInPlace(bool completed);
  struct InPlace {
    std::uint64_t ticket = 0;
    DataFormat format = DataFormat::NHWC;
    std::vector<std::pair<std::string, Tensor>> tensors;  // in the old layout's shapes
    std::shared_ptr<std::atomic<bool>> cancel;
    QFutureWatcher<bool>* watcher = nullptr;
  };
  std::optional<InPlace> in_place_;
  void loadInBackground(const QString& path, std::map<std::string, Tensor> known);
  // Lets the shown outcome go, keeping for the next run what it read of the buffers in `kept`.
  void releaseOutcome(const std::map<std::string, Tensor>& kept);
  std::map<std::string, Tensor> unchangedFromFile(const QString& path) const;

  Problem problem_;
  std::string backend_ = "cpu";
  std::optional<PipelineRequest> comparison_;
  // What the file holds, as it was read or saved; none: unsaved from the start.
  std::optional<ProblemState> saved_;
  QString path_;
  std::string stamp_;  // path_'s file_stamp when it was read or saved; empty: not known
  QString switch_note_;
  std::uint64_t revision_ = 0;
  std::shared_ptr<const RunOutcome> outcome_;
  BackgroundJob<std::shared_ptr<const RunOutcome>> job_;
  bool converting_ = false;
  bool loading_ = false;
  std::uint64_t load_ = 0;        // a finished read applies only if still the latest
  std::uint64_t conversion_ = 0;  // a finished transposition applies only if still the latest
  QTimer* spare_timer_ = nullptr;
  // After a layout conversion: the previous outcome with the scans of the old-layout inputs
  // also filed under the converted tensors (per-channel figures do not depend on the layout),
  // for the next run to reuse instead of reading 200 MB again.
  std::shared_ptr<const RunOutcome> scan_hint_;
  struct Lent {
    struct Held {
      std::shared_ptr<const PipelineResult> pipeline;  // kept alive until the buffers are back
      std::vector<std::pair<std::size_t, std::size_t>> expected;  // (expected index, output)
    };
    std::vector<Held> held;
  };
  std::weak_ptr<const DiffOutcome> shown_comparison_;
  std::optional<Lent> loan_;
  mutable int comparison_readers_ = 0;
};

}  // namespace bnscope
