#pragma once
// The Profile tab: the current problem timed on each chosen backend, a per-backend, per-phase
// table, achieved bandwidth against the roofline as bars, and the kernel timeline below.
// Profiling runs in the background and only when asked: it loads every core for a while.

#include <QFutureWatcher>
#include <QWidget>
#include <functional>
#include <optional>

#include "profile/profile_compute.h"
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
class QValueAxis;

namespace bnscope {

class PhaseTableModel;
class ProblemController;
class TimelineWidget;

class ProfileView : public QWidget {
  Q_OBJECT
 public:
  explicit ProfileView(ProblemController* controller, QWidget* parent = nullptr);
  ~ProfileView() override;

  void setBackends(const QStringList& backends);
  QStringList backends() const;
  void setReps(int reps);
  // The CPU roofline probe; tests pass a fixed number instead of measuring 256 MB copies.
  void setCopyProbe(std::function<double(int, std::size_t)> probe) { probe_ = std::move(probe); }

  void run();
  bool isRunning() const { return running_; }
  bool waitForIdle(int timeoutMs = 120000);
  // Shows these profiles (what run() does with its results).
  void setProfiles(std::vector<Profile> profiles, const std::vector<std::string>& errors = {});

  // The problem the shown profiles were measured on; nullptr when they came from setProfiles.
  const Problem* profiledProblem() const { return profiled_ ? &*profiled_ : nullptr; }

  PhaseTableModel* phaseModel() const { return phases_; }
  // Null where the platform has no OpenGL (see ImGuiWidget::platformSupported).
  TimelineWidget* timeline() const { return timeline_; }
  // The events the timeline shows, laid out in lanes; kept with or without the widget.
  const TimelineLayout& timelineLayout() const { return timeline_layout_; }
  QChartView* bandwidthChart() const { return chart_view_; }
  QBarSet* achievedBars() const { return achieved_; }
  QBarSet* rooflineBars() const { return roofline_; }
  QLabel* statusLabel() const { return status_; }

 signals:
  void profileFinished();

 private:
  void finished();
  void updateChart();

  ProblemController* controller_;
  std::function<double(int, std::size_t)> probe_;
  bool running_ = false;
  bool pending_ = false;
  std::optional<Problem> running_problem_, profiled_;
  QFutureWatcher<ProfileBatch> watcher_;

  QList<QCheckBox*> backend_checks_;
  QSpinBox* reps_;
  QSpinBox* threads_;
  QPushButton* run_;
  QLabel* status_;
  PhaseTableModel* phases_;
  QTableView* table_;
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
