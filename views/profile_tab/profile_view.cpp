#include "profile_tab/profile_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "backend_picker.h"
#include "chart_theme.h"
#include "engine/engine.h"
#include "engine/output_pool.h"
#include "ops/prepared.h"
#include "problem_controller.h"
#include "process_events.h"
#include "profile/clock.h"
#include "profile_tab/phase_table_model.h"
#include "profile_tab/profile_history_model.h"
#include "profile_tab/profile_history_panel.h"
#include "tensor/error.h"
#include "timeline/timeline_widget.h"

namespace bnscope {

ProfileView::ProfileView(ProblemController* controller, QWidget* parent)
    : QWidget(parent),
      controller_(controller),
      copy_roofline_(std::make_shared<CopyRoofline>()),
      job_(this, [this](Measured m, bool more) { finished(std::move(m), more); }) {
  setObjectName(QStringLiteral("profileView"));
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout();
  bar->addWidget(new QLabel(tr("Backends"), this));
  backends_ = new BackendPicker(BackendPicker::Mode::Several, this);
  backends_->setSelected(BackendPicker::timed());
  bar->addWidget(backends_);
  bar->addStretch(1);
  layout->addLayout(bar);
  // Settings and actions below the backends, so the bar never widens the window.
  bar = new QHBoxLayout();
  reps_ = new QSpinBox(this);
  reps_->setRange(1, 10000);
  reps_->setValue(10);
  reps_->setPrefix(tr("reps "));
  bar->addWidget(reps_);
  threads_ = new QSpinBox(this);
  threads_->setRange(0, 1024);
  threads_->setSpecialValueText(tr("all threads"));
  threads_->setPrefix(tr("threads "));
  bar->addWidget(threads_);
  run_ = new QPushButton(tr("Profile"), this);
  run_->setObjectName(QStringLiteral("profileRun"));
  bar->addWidget(run_);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setObjectName(QStringLiteral("profileCancel"));
  cancel_->setEnabled(false);
  bar->addWidget(cancel_);
  status_ = new QLabel(tr("Press Profile to time the current problem."), this);
  status_->setWordWrap(true);
  bar->addWidget(status_, 1);
  layout->addLayout(bar);
  // The roofline every CPU profile of the session is set against, and whence it came.
  bar = new QHBoxLayout();
  roofline_label_ = new QLabel(this);
  roofline_label_->setObjectName(QStringLiteral("profileRoofline"));
  roofline_label_->setWordWrap(true);
  bar->addWidget(roofline_label_, 1);
  remeasure_ = new QPushButton(tr("Re-measure"), this);
  remeasure_->setObjectName(QStringLiteral("profileRemeasure"));
  remeasure_->setToolTip(tr("Measure the copy roofline again now; later profiles use the new one"));
  bar->addWidget(remeasure_);
  layout->addLayout(bar);
  progress_timer_ = new QTimer(this);
  progress_timer_->setInterval(250);
  connect(progress_timer_, &QTimer::timeout, this, &ProfileView::showProgress);

  // The phase table and the history across the whole width, for their columns; the timeline
  // and the bandwidth bars share the pane below.
  auto* split = new QSplitter(Qt::Vertical, this);
  phases_ = new PhaseTableModel(this);
  auto* table = table_ = new QTableView(split);
  table->setObjectName(QStringLiteral("profileTable"));
  table->setModel(phases_);
  table->verticalHeader()->hide();
  table->verticalHeader()->setDefaultSectionSize(22);
  // Not stretched: the last column's numbers stay beside the others, right-aligned in its width.
  table->setAlternatingRowColors(true);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);

  auto* chart = new QChart();
  // No title: the tab names the chart, and the pane is short, so the plot takes its height.
  chart->setMargins(QMargins(4, 4, 4, 4));
  bars_ = new QBarSeries(chart);
  achieved_ = new QBarSet(tr("achieved"), bars_);
  achieved_->setColor(QColor(70, 130, 200));
  roofline_ = new QBarSet(tr("roofline"), bars_);
  roofline_->setColor(QColor(200, 200, 205));
  bars_->append(achieved_);
  bars_->append(roofline_);
  bars_->setLabelsVisible(true);
  bars_->setLabelsFormat(QStringLiteral("@value"));
  bars_->setLabelsPrecision(3);
  bars_->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);  // readable on short bars
  chart->addSeries(bars_);
  axis_x_ = new QBarCategoryAxis(chart);
  axis_y_ = new QValueAxis(chart);
  axis_y_->setLabelFormat(QStringLiteral("%.3g"));
  chart->addAxis(axis_x_, Qt::AlignBottom);
  chart->addAxis(axis_y_, Qt::AlignLeft);
  bars_->attachAxis(axis_x_);
  bars_->attachAxis(axis_y_);
  chart->legend()->setAlignment(Qt::AlignRight);
  split->addWidget(table);

  // The session's runs, newest first; one pinned as the baseline.
  history_ = new ProfileHistoryPanel(controller_->revision(), split);
  split->addWidget(history_);

  auto* lower = new QTabWidget(split);
  lower->setObjectName(QStringLiteral("profileLower"));
  lower->setDocumentMode(true);
  if (ImGuiWidget::platformSupported()) {
    timeline_ = new TimelineWidget(lower);
    timeline_->setObjectName(QStringLiteral("profileTimeline"));
    lower->addTab(timeline_, tr("Timeline"));
  } else {
    // Showing a QOpenGLWidget where the platform has no OpenGL crashes inside Qt.
    lower->addTab(
        new QLabel(tr("The timeline needs OpenGL, which this display does not offer."), lower),
        tr("Timeline"));
  }
  chart_view_ = new QChartView(chart, lower);
  chart_view_->setRenderHint(QPainter::Antialiasing);
  lower->addTab(chart_view_, tr("Bandwidth vs roofline, GB/s"));
  split->addWidget(lower);
  split->setSizes({200, 200, 220});
  layout->addWidget(split, 1);

  connect(run_, &QPushButton::clicked, this, &ProfileView::run);
  connect(cancel_, &QPushButton::clicked, this, &ProfileView::cancel);
  connect(controller_, &ProblemController::problemChanged, this, &ProfileView::problemChanged);
  connect(threads_, &QSpinBox::valueChanged, this, &ProfileView::updateRooflineLabel);
  connect(remeasure_, &QPushButton::clicked, this, &ProfileView::remeasureRoofline);
  connect(history_, &ProfileHistoryPanel::baselineChanged, this, &ProfileView::baselineChanged);
  // Below what the profile says (the history is saved once its figures are shown).
  connect(history_, &ProfileHistoryPanel::saveFailed, this, [this](const QString& why) {
    status_->setText(status_->text() + QStringLiteral("<br>") + why.toHtmlEscaped());
  });
  baselineChanged(history_->model()->history().baseline());
  updateRooflineLabel();
}

ProfileView::~ProfileView() = default;

void ProfileView::keepHistoryIn(const QString& path) {
  const QString told = history_->keepIn(path);
  if (!told.isEmpty()) status_->setText(told.toHtmlEscaped());
}

ProfileHistoryModel* ProfileView::historyModel() const {
  return history_->model();
}

QTableView* ProfileView::historyTable() const {
  return history_->table();
}

QLabel* ProfileView::baselineLabel() const {
  return history_->baselineLabel();
}

void ProfileView::setBackends(const QStringList& backends) {
  backends_->setSelected(backends);
}

QStringList ProfileView::backends() const {
  return backends_->selected();
}

void ProfileView::setReps(int reps) {
  reps_->setValue(reps);
}

void ProfileView::setCopyProbe(std::function<double(int, std::size_t)> probe) {
  copy_roofline_ = std::make_shared<CopyRoofline>(std::move(probe));
  updateRooflineLabel();
}

void ProfileView::setBusy(bool busy) {
  run_->setEnabled(!busy);
  remeasure_->setEnabled(!busy);
  cancel_->setEnabled(busy);
}

void ProfileView::remeasureRoofline() {
  if (job_.isBusy()) return;  // a copy beside a profile's runs would disturb both
  job_.request(
      [this]() -> decltype(job_)::Work {
        setBusy(true);
        cancel_->setEnabled(false);  // the probes take a second or so and stop on their own
        roofline_label_->setText(tr("Measuring the copy roofline..."));
        return [roofline = copy_roofline_, threads = threads_->value()](const std::atomic<bool>&) {
          Measured m;
          m.roofline_only = true;
          try {
            roofline->remeasure(threads, kCopyProbeBytes);
          } catch (const std::exception& e) {
            m.batch.errors.push_back(std::string("copy roofline: ") + e.what());
          }
          return m;
        };
      },
      false);
}

void ProfileView::run() {
  job_.request(
      [this]() -> decltype(job_)::Work {
        std::vector<std::string> names;
        for (const QString& b : backends()) names.push_back(b.toStdString());
        ProfileOptions options;
        options.reps = reps_->value();
        options.threads = threads_->value();
        // The session's roofline, measured after the runs (below), not a probe per batch.
        options.measure_copy = false;
        controller_->settle();  // the repetitions read the inputs off the UI thread
        // The repetitions write into an output set the app already holds, handed to the
        // engine's pool for them: the Diff tab's reference outputs (that backend runs into them
        // again at the end), else the controller's spare set; a fresh one only when there is
        // neither. The other spare sets go now.
        std::optional<ProblemController::Loan> loan = controller_->lendComparisonOutputs();
        std::vector<Result> spare = controller_->takeSpareResults();
        Result into;
        std::string restore;
        if (loan) {
          into = std::move(loan->outputs);
          restore = loan->backend;
        } else if (!spare.empty()) {
          into = std::move(spare.front());
        }
        spare.clear();
        setBusy(true);
        profiling_ = static_cast<int>(names.size());
        // Two clock reads a timed repetition: the progress, counted where a cancel lands too.
        clock_reads_ = std::make_shared<std::atomic<int>>(0);
        expected_reads_ = 2 * options.reps * profiling_;
        showProgress();
        progress_timer_->start();
        return [problem = controller_->problem(), revision = controller_->revision(), names,
                options, into = std::move(into), restore = std::move(restore), reads = clock_reads_,
                roofline = copy_roofline_](const std::atomic<bool>& cancel) mutable {
          // The clock is read around every repetition, and each read is the progress; a cancel
          // lands there, and between the passes of any run (options.cancel).
          options.clock = [&cancel, reads]() -> double {
            if (cancel.load(std::memory_order_relaxed))
              throw Error(ErrorCode::Cancelled, "profiling cancelled");
            reads->fetch_add(1, std::memory_order_relaxed);
            return steady_seconds();
          };
          options.cancel = &cancel;  // warm-ups too
          Measured m;
          m.revision = revision;
          output_pool().give(std::move(into));
          std::optional<Prepared> prepared;
          try {
            prepared = prepare(problem);
          } catch (const std::exception&) {
          }
          // Without a preparation, the problem's form says prepare's error for each backend.
          m.batch = prepared ? profile_backends(*prepared, names, options)
                             : profile_backends(problem, names, options);
          into = output_pool().take();  // the set the repetitions wrote into
          if (prepared && !restore.empty()) {
            try {
              // No cancel: the lent set must go back whole. The threads of the app's own runs.
              run_backend_into(*prepared, backend_or_throw(restore), into, RunContext{});
            } catch (const std::exception& e) {
              m.batch.errors.push_back(restore + ": " + e.what());
            }
          }
          m.cancelled = cancel.load();
          m.problem = describe_case(problem);
          m.reps = options.reps;
          m.threads = options.threads;
          // Two 48 MiB buffers: three times a large last-level cache, yet small enough that the
          // probe stays within the real layer's own footprint. Measured at the first profile of
          // the session that runs on the host, the same figure for every later one.
          const bool host = std::any_of(m.batch.profiles.begin(), m.batch.profiles.end(),
                                        [](const Profile& p) { return p.host_run; });
          if (host && !m.cancelled) {
            try {
              const RooflineMeasurement r = roofline->get(options.threads, kCopyProbeBytes);
              for (Profile& p : m.batch.profiles)
                if (p.host_run) apply_roofline(p, r);
            } catch (const std::exception& e) {
              m.batch.errors.push_back(std::string("copy roofline: ") + e.what());
            }
          }
          m.lent = !restore.empty();
          m.outputs = std::make_shared<Result>(std::move(into));
          return m;
        };
      },
      false);
}

void ProfileView::cancel() {
  job_.cancel();
}

void ProfileView::showProgress() {
  const int reads = clock_reads_ ? clock_reads_->load(std::memory_order_relaxed) : 0;
  // The warm-ups and the copy probe read no clock: never 100 % before the end.
  const int percent = expected_reads_ > 0 ? std::min(99, 100 * reads / expected_reads_) : 0;
  if (copy_roofline_->measuring()) {
    status_->setText(tr("Measuring the copy roofline (once per session)..."));
    return;
  }
  status_->setText(
      tr("Profiling %1 backend(s)... %2 % (Esc or Cancel stops it)").arg(profiling_).arg(percent));
}

bool ProfileView::waitForIdle(int timeoutMs) {
  return job_.waitForIdle(timeoutMs);
}

void ProfileView::finished(Measured m, bool more) {
  Result outputs = m.outputs ? std::exchange(*m.outputs, Result{}) : Result{};
  if (!outputs.outputs.empty())
    output_buffer_ = std::as_const(outputs.outputs.front().tensor).raw();
  if (m.lent) controller_->returnComparisonOutputs(std::move(outputs));
  setBusy(more);
  if (!more) progress_timer_->stop();
  updateRooflineLabel();
  if (m.roofline_only) {
    if (!m.batch.errors.empty())
      status_->setText(QString::fromStdString(m.batch.errors.front()).toHtmlEscaped());
  } else if (m.cancelled) {
    status_->setText(tr("Profiling cancelled."));
  } else {
    ProfileRun run;
    run.profiles = m.batch.profiles;
    run.problem = m.problem;
    run.problem_key = m.revision;
    run.reps = m.reps;
    run.threads = m.threads;
    run.when = std::chrono::system_clock::now();
    setProfiles(std::move(m.batch.profiles), m.batch.errors);
    if (!run.profiles.empty()) shown_run_ = history_->add(std::move(run));
    if (m.revision == controller_->revision()) profiled_ = m.revision;
  }
  if (!more && !m.roofline_only) emit profileFinished();
}

void ProfileView::problemChanged() {
  // The history keeps the runs, marked as of another problem; the table drops them, since
  // numbers measured on another problem would pass for this one's.
  history_->setCurrentProblem(controller_->revision());
  if (phases_->profiles().empty()) return;
  profiled_.reset();
  setProfiles({});
  status_->setText(
      tr("The problem changed: press Profile to time it (the history keeps the earlier runs)."));
}

void ProfileView::pinBaseline(std::uint64_t id) {
  history_->pin(id);
}

void ProfileView::pinSelected() {
  history_->pinSelected();
}

void ProfileView::clearBaseline() {
  history_->clearBaseline();
}

void ProfileView::baselineChanged(const ProfileRun* base) {
  if (base)
    phases_->setBaseline(base->profiles, tr("#%1").arg(base->id));
  else
    phases_->setBaseline({});
  table_->resizeColumnsToContents();
}

std::optional<RooflineMeasurement> ProfileView::shownRoofline() const {
  std::optional<RooflineMeasurement> m = copy_roofline_->cached(threads_->value(), kCopyProbeBytes);
  return m ? m : copy_roofline_->latest();
}

void ProfileView::updateRooflineLabel() {
  const std::optional<RooflineMeasurement> m = shownRoofline();
  if (!m) {
    roofline_label_->setText(
        tr("Copy roofline: not measured yet; the first profile measures it, once per session."));
    return;
  }
  roofline_label_->setText(tr("Copy roofline %1 GB/s, %2, measured at %3")
                               .arg(m->gbps, 0, 'f', 1)
                               .arg(QString::fromStdString(m->how()),
                                    local_time(m->when).toString(QStringLiteral("HH:mm:ss"))));
}

void ProfileView::setProfiles(std::vector<Profile> profiles,
                              const std::vector<std::string>& errors) {
  profiled_.reset();
  shown_run_.reset();
  const EventStore events = combined_events(profiles);
  const std::vector<PhaseInfo> phases = combined_phase_plan(profiles);
  const std::vector<PhaseBytes> bytes = combined_phase_bytes(profiles);
  timeline_layout_.setEvents(events, phases, bytes);
  if (timeline_) timeline_->setEvents(events, phases, bytes);
  phases_->setProfiles(std::move(profiles));
  table_->resizeColumnsToContents();
  updateChart();
  QStringList lines;
  QStringList sources;  // the rooflines', each named once after the backends' lines
  for (const Profile& p : phases_->profiles()) {
    QString line = tr("%1: %2 median, %3 GB/s")
                       .arg(QString::fromStdString(p.backend), duration_text(p.kernel_seconds))
                       .arg(p.achieved_gbps, 0, 'f', 2);
    if (p.roofline_gbps > 0)
      line += tr(" (%1 % of %2 GB/s)")
                  .arg(p.roofline_fraction * 100, 0, 'f', 1)
                  .arg(p.roofline_gbps, 0, 'f', 1);
    lines << line.toHtmlEscaped();
    if (const std::string caveat = speed_caveat(p); !caveat.empty())
      lines << QString::fromStdString(caveat).toHtmlEscaped();
    const QString source = QString::fromStdString(p.roofline_source);
    if (!source.isEmpty() && !sources.contains(source)) sources << source;
  }
  // The session's roofline has a line of its own (updateRooflineLabel).
  if (const auto shown = shownRoofline())
    sources.removeAll(QString::fromStdString(shown->source()));
  if (!sources.isEmpty())
    lines << tr("GB/s against: %1").arg(sources.join(QStringLiteral("; "))).toHtmlEscaped();
  for (const std::string& e : errors) lines << QString::fromStdString(e).toHtmlEscaped();
  status_->setText(lines.isEmpty() ? tr("Nothing profiled.") : lines.join(QStringLiteral("<br>")));
}

void ProfileView::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  QChart* chart = chart_view_->chart();
  if (!apply_chart_theme(chart, this)) return;
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->legend()->setAlignment(Qt::AlignRight);
  // The theme's colours replace these: the bars' meaning stays the same in either theme.
  achieved_->setColor(QColor(70, 130, 200));
  roofline_->setColor(palette_is_dark(this) ? QColor(110, 110, 118) : QColor(200, 200, 205));
  // Labels sit outside the bars, on the chart's own background.
  const QColor label = chart->titleBrush().color();
  achieved_->setLabelColor(label);
  roofline_->setLabelColor(label);
}

void ProfileView::updateChart() {
  QStringList categories;
  QList<qreal> achieved, roof;
  double hi = 0;
  for (const Profile& p : phases_->profiles()) {
    categories << QString::fromStdString(p.backend);
    achieved << p.achieved_gbps;
    roof << p.roofline_gbps;
    hi = std::max({hi, p.achieved_gbps, p.roofline_gbps});
  }
  achieved_->remove(0, achieved_->count());
  roofline_->remove(0, roofline_->count());
  achieved_->append(achieved);
  roofline_->append(roof);
  axis_x_->clear();
  axis_x_->append(categories);
  // Three or four round steps: the pane is short, and Qt Charts elides every label of a value
  // axis to "..." once its ticks stand closer than a label is high.
  const double top = hi > 0 ? hi * 1.15 : 1;
  double step = std::pow(10.0, std::floor(std::log10(top / 3)));
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * step >= top / 3) {
      step *= m;
      break;
    }
  axis_y_->setTickType(QValueAxis::TicksDynamic);
  axis_y_->setTickAnchor(0);
  axis_y_->setTickInterval(step);
  axis_y_->setRange(0, std::ceil(top / step) * step);
}

}  // namespace bnscope
