#pragma once
// The Profile tab: the current problem timed on each chosen backend, a per-backend, per-phase
// table, achieved bandwidth against the roofline as bars, the session's history of profile runs
// (one pinned as the baseline the table is set against), and the kernel timeline below.
// Profiling runs in the background and only when asked: it loads every core for a while. The
// CPU roofline is measured once per session, at the first profile that needs it, and again only
// when asked (Re-measure).

#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

#include "background_job.h"
#include "profile/profile_batch.h"
#include "profile/roofline.h"
#include "timeline/timeline_layout.h"

class QBarSet;
class QBarCategoryAxis;
class QBarSeries;
class QChartView;
class QCheckBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;
class QTimer;
class QValueAxis;

namespace bnscope {

class BackendPicker;
class PhaseTableModel;
class ProblemController;
class ProfileHistoryModel;
class ProfileHistoryPanel;
struct ProfileRun;
class TimelineWidget;

class ProfileView : public QWidget {
  Q_OBJECT
 public:
  explicit ProfileView(ProblemController* controller, QWidget* parent = nullptr);
  ~ProfileView() override;

  void setBackends(const QStringList& backends);
  QStringList backends() const;
  void setReps(int reps);
  // The CPU roofline's probe (one probe's GB/s; CopyRoofline takes the best of its probes);
  // tests pass a fixed number instead of copying 48 MiB. Forgets what was measured.
  void setCopyProbe(std::function<double(int, std::size_t)> probe);
  static constexpr std::size_t kCopyProbeBytes = std::size_t{48} << 20;
  const CopyRoofline& roofline() const { return *copy_roofline_; }
  // Measures the roofline again in the background (not while a profile runs).
  void remeasureRoofline();

  void run();
  // Stops the profile in flight at the next repetition; what was measured is dropped.
  void cancel();
  bool isRunning() const { return job_.isBusy(); }
  bool waitForIdle(int timeoutMs = 120000);
  // Shows these profiles (what run() does with its results).
  void setProfiles(std::vector<Profile> profiles, const std::vector<std::string>& errors = {});

  // The controller's revision the shown profiles were measured on; none when they came from
  // setProfiles or the problem changed since.
  std::optional<std::uint64_t> profiledRevision() const { return profiled_; }

  // Keeps the history in that file across starts of the app (ProfileHistoryPanel::keepIn); what
  // the user should know of it goes to the status line.
  void keepHistoryIn(const QString& path);

  PhaseTableModel* phaseModel() const { return phases_; }
  ProfileHistoryModel* historyModel() const;
  QTableView* historyTable() const;
  // Pins run `id` of the history as the baseline; the selected row's run (else the latest) for
  // pinSelected. The phase table then shows each row against it.
  void pinBaseline(std::uint64_t id);
  void pinSelected();
  void clearBaseline();
  // The run the phase table shows, when it came from run() (none after setProfiles).
  std::optional<std::uint64_t> shownRun() const { return shown_run_; }
  QLabel* rooflineLabel() const { return roofline_label_; }
  QLabel* baselineLabel() const;
  // Null where the platform has no OpenGL (see ImGuiWidget::platformSupported).
  TimelineWidget* timeline() const { return timeline_; }
  // The events the timeline shows, laid out in lanes; kept with or without the widget.
  const TimelineLayout& timelineLayout() const { return timeline_layout_; }
  QChartView* bandwidthChart() const { return chart_view_; }
  QBarSet* achievedBars() const { return achieved_; }
  QBarSet* rooflineBars() const { return roofline_; }
  QLabel* statusLabel() const { return status_; }
  // Where the last profile's repetitions wrote their first output (tests tell by it whose
  // output set was used); null before any.
  const void* outputBuffer() const { return output_buffer_; }

 signals:
  void profileFinished();

 private:
  struct Measured {
    ProfileBatch batch;
    std::uint64_t revision = 0;
    bool cancelled = false;
    // The set the repetitions wrote into; shared, because the finished future keeps a copy of
    // this struct: emptied once read, so no copy holds the buffers afterwards.
    std::shared_ptr<Result> outputs;
    bool lent = false;  // the comparison's reference outputs, restored: back to the controller
    bool roofline_only = false;  // a re-measure of the roofline, no profile
    std::string problem;         // describe_case of what was profiled
    int reps = 0, threads = 0;
  };
  void showEvent(QShowEvent* e) override;
  void finished(Measured m, bool more);
  void showProgress();
  void updateChart();
  void problemChanged();
  void baselineChanged(const ProfileRun* base);
  void updateRooflineLabel();
  // The measurement for the threads asked for, else the latest.
  std::optional<RooflineMeasurement> shownRoofline() const;
  void setBusy(bool busy);

  ProblemController* controller_;
  std::shared_ptr<CopyRoofline> copy_roofline_;
  std::optional<std::uint64_t> profiled_;
  std::optional<std::uint64_t> shown_run_;
  const void* output_buffer_ = nullptr;
  BackgroundJob<Measured> job_;
  std::shared_ptr<std::atomic<int>> clock_reads_;
  int expected_reads_ = 0;
  int profiling_ = 0;  // backends
  QTimer* progress_timer_;

  BackendPicker* backends_;
  QSpinBox* reps_;
  QSpinBox* threads_;
  QPushButton* run_;
  QPushButton* cancel_;
  QLabel* status_;
  PhaseTableModel* phases_;
  QTableView* table_;
  ProfileHistoryPanel* history_;
  QLabel* roofline_label_;
  QPushButton* remeasure_;
  QChartView* chart_view_;
  QBarSeries* bars_;
  QBarSet* achieved_;
  QBarSet* roofline_;
  QBarCategoryAxis* axis_x_;
  QValueAxis* axis_y_;
  TimelineWidget* timeline_ = nullptr;
  TimelineLayout timeline_layout_;
};

}  // namespace bnscope
