// The Profile tab offscreen: its models filled from core's Profile, the bandwidth bars, the
// timeline's events, a background run on the controller's problem, the outputs it borrows and the
// copy roofline. Its history of runs: profile_history_test.cpp.
#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QLabel>
#include <QTableView>
#include <QtCharts/QBarSet>
#include <QtTest>

#include "analysis_test_util.h"
#include "diff/diff_view.h"
#include "diff/marked_heatmap.h"
#include "diff/verdict_model.h"
#include "engine/engine.h"
#include "ops/prepared.h"
#include "problem_controller.h"
#include "profile_tab/phase_table_model.h"
#include "profile_tab/profile_history_model.h"
#include "profile_tab/profile_view.h"
#include "sample_source.h"
#include "timeline/timeline_widget.h"

using namespace bnscope;

class ProfileViewTest : public QObject {
  Q_OBJECT
 private slots:
  void modelsFollowTheProfiles();
  void runsInTheBackground();
  void backendsThatDoNotMeasureSpeedAreNotProfiledByDefault();
  void cancelStopsTheProfile();
  void cpuPassesAreRowsAndALane();
  void theTabTakesTheSpareOutputsAndTheSmallerProbe();
  void profileAfterDiffWritesIntoTheReferenceOutputs();
  void cancelledProfileRestoresTheReference();
  void aToleranceEditWaitsForTheLentOutputs();
  void theRooflineIsMeasuredOncePerSession();
};

namespace {

// What the Diff tab shows that depends on the reference's outputs.
struct DiffShown {
  std::vector<QString> verdict;
  std::vector<double> slice;
  std::vector<double> reference;
  const void* buffer = nullptr;
};

DiffShown diff_shown(const DiffView& diff) {
  DiffShown s;
  const VerdictModel* m = diff.verdictModel();
  for (int r = 0; r < m->rowCount(); ++r)
    for (int c = 0; c < m->columnCount(); ++c)
      s.verdict.push_back(m->index(r, c).data().toString());
  s.slice = diff.heatmap()->slice().values;
  const OutputTensor* ref = diff.outcome()->expected("x_backprop");
  s.reference = ref->tensor.to_doubles();
  s.buffer = std::as_const(ref->tensor).raw();
  return s;
}

// A controller with a compared problem, the Diff tab showing a slice through batch 1, channel 3.
void compare(ProblemController& controller, DiffView& diff) {
  SampleSpec spec;
  spec.shape = {4, 16, 16, 32};
  controller.setProblem(generate_problem(spec));
  QVERIFY(controller.waitForIdle());
  diff.setReferenceBackend(QStringLiteral("cpu-reference"));
  diff.setCandidates({QStringLiteral("cpu")});
  diff.run();
  QVERIFY(diff.waitForIdle());
  QVERIFY(diff.outcome() && diff.outcome()->ok());
  diff.selectRow(0);
  diff.showSlice(SliceMode::SpatialAtBatchChannel, 1, 3);
  QVERIFY(!diff.heatmap()->slice().values.empty());
}

}  // namespace

void ProfileViewTest::modelsFollowTheProfiles() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  ProfileView view(&controller);
  QAbstractItemModelTester tester(view.phaseModel(),
                                  QAbstractItemModelTester::FailureReportingMode::QtTest);
  const Problem p = test::analysis_sample();
  Profile a = profile_problem(p, "cpu-reference", test::quick_profile_options(4));
  Profile b = profile_problem(p, "cpu", test::quick_profile_options(4));
  view.setProfiles({a, b});
  PhaseTableModel* m = view.phaseModel();
  QCOMPARE(m->rowCount(), static_cast<int>(a.phases.size() + b.phases.size() + 2));
  QCOMPARE(m->index(0, PhaseTableModel::Backend).data().toString(),
           QStringLiteral("cpu-reference"));
  QCOMPARE(m->value(0, PhaseTableModel::Median), a.phases[0].stats.median);
  QCOMPARE(m->value(0, PhaseTableModel::Max), a.phases[0].stats.max);
  const int b0 = static_cast<int>(a.phases.size()) + 1;
  QCOMPARE(m->index(b0, PhaseTableModel::Backend).data().toString(), QStringLiteral("cpu"));
  QCOMPARE(m->value(b0, PhaseTableModel::Median), b.phases[0].stats.median);
  // Bars: one category per backend, achieved against the 20 GB/s roofline.
  QCOMPARE(view.achievedBars()->count(), 2);
  QCOMPARE(view.achievedBars()->at(0), a.achieved_gbps);
  QCOMPARE(view.achievedBars()->at(1), b.achieved_gbps);
  QCOMPARE(view.rooflineBars()->at(1), 20.0);
  QVERIFY(view.statusLabel()->text().contains(QStringLiteral("cpu-reference")));
  // The roofline's source once, after both backends' lines.
  QCOMPARE(a.roofline_source, b.roofline_source);
  QVERIFY(!a.roofline_source.empty());
  QCOMPARE(view.statusLabel()->text().count(QString::fromStdString(a.roofline_source)), 1);
  // The timeline holds every event, one host lane per backend and a lane of cpu's passes.
  const TimelineLayout& l = view.timelineLayout();
  QCOMPARE(l.eventCount(), a.events.events().size() + b.events.events().size());
  QCOMPARE(l.lanes().size(), std::size_t{3});
  QCOMPARE(l.lanes()[0].label, std::string("cpu-reference host"));
  QCOMPARE(l.lanes()[1].label, std::string("cpu host"));
  QCOMPARE(l.lanes()[2].label, std::string("cpu passes"));
  view.setProfiles({});
  QCOMPARE(m->rowCount(), 0);
  QCOMPARE(view.achievedBars()->count(), 0);
  QCOMPARE(view.timelineLayout().eventCount(), std::size_t{0});
}

// Backend "emulated": runs (as cpu-reference), but its timings are not its speed.
class EmulatedBackend : public Backend {
 public:
  std::string_view name() const override { return "emulated"; }
  std::string_view description() const override { return "an emulator"; }
  bool measures_speed() const override { return false; }
  void run(const Prepared& p, Result& r, const RunContext& ctx) override {
    BackendRegistry::instance().find(kReferenceBackend)->run(p, r, ctx);
  }
};

void ProfileViewTest::backendsThatDoNotMeasureSpeedAreNotProfiledByDefault() {
  BackendRegistry::instance().add(std::make_unique<EmulatedBackend>());
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  ProfileView view(&controller);
  QVERIFY(view.backends().contains(QStringLiteral("cpu")));
  QVERIFY(view.backends().contains(QString::fromLatin1(kReferenceBackend)));
  QVERIFY(!view.backends().contains(QStringLiteral("emulated")));
  // Still listed and runnable when asked for, its times said to be the emulation's.
  view.setBackends({QStringLiteral("emulated")});
  QCOMPARE(view.backends(), QStringList{QStringLiteral("emulated")});
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setReps(1);
  view.run();
  QVERIFY(view.waitForIdle());
  QCOMPARE(view.phaseModel()->profiles().size(), std::size_t{1});
  QVERIFY(!view.phaseModel()->profiles().front().measures_speed);
  QVERIFY(view.statusLabel()->text().contains(
      QStringLiteral("emulated: the times of an emulation on this CPU")));
}

void ProfileViewTest::runsInTheBackground() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  ProfileView view(&controller);
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setBackends({QStringLiteral("cpu"), QStringLiteral("no-such-backend")});
  QCOMPARE(view.backends(), QStringList{QStringLiteral("cpu")});
  view.setReps(3);
  view.run();
  QVERIFY(view.isRunning());
  QVERIFY(view.waitForIdle());
  QCOMPARE(view.phaseModel()->profiles().size(), std::size_t{1});
  const Profile& p = view.phaseModel()->profiles().front();
  QCOMPARE(p.backend, std::string("cpu"));
  QCOMPARE(p.reps, 3);
  QVERIFY(p.achieved_gbps > 0);
  QCOMPARE(view.profiledRevision(), std::optional<std::uint64_t>(controller.revision()));
  QCOMPARE(view.timelineLayout().eventCount(), p.events.events().size());
}

void ProfileViewTest::cancelStopsTheProfile() {
  ProblemController controller;
  SampleSpec spec;
  spec.shape = {8, 32, 32, 64};
  controller.setProblem(generate_problem(spec));
  ProfileView view(&controller);
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setBackends({QStringLiteral("cpu"), QStringLiteral("cpu-reference")});
  view.setReps(10000);  // minutes of work unless the cancel lands
  QElapsedTimer clock;
  clock.start();
  view.run();
  QVERIFY(view.isRunning());
  QTest::qWait(50);
  view.cancel();
  QVERIFY(view.waitForIdle(20000));
  QVERIFY(clock.elapsed() < 20000);
  QCOMPARE(view.phaseModel()->rowCount(), 0);
  QVERIFY(!view.profiledRevision());
  QVERIFY(view.statusLabel()->text().contains(QStringLiteral("cancelled")));
  // A later run still works.
  view.setReps(2);
  view.setBackends({QStringLiteral("cpu")});
  view.run();
  QVERIFY(view.waitForIdle());
  QCOMPARE(view.phaseModel()->profiles().size(), std::size_t{1});
}

// The cpu backend's passes, as its planner chose them for this problem, are rows of the phase table
// after the whole run and boxes of their own lane, each inside its run's box.
void ProfileViewTest::cpuPassesAreRowsAndALane() {
  ProblemController controller;
  SampleSpec spec;
  spec.shape = {4, 32, 32, 16};
  controller.setProblem(generate_problem(spec));
  ProfileView view(&controller);
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setBackends({QStringLiteral("cpu")});
  view.setReps(3);
  view.run();
  QVERIFY(view.waitForIdle());
  std::vector<std::string> plan;
  for (const PhaseInfo& info :
       BackendRegistry::instance().find("cpu")->phase_plan(prepare(controller.problem()), 0))
    plan.push_back(info.name);
  QVERIFY(!plan.empty());
  PhaseTableModel* m = view.phaseModel();
  QCOMPARE(m->rowCount(), static_cast<int>(plan.size()) + 2);  // kernel:cpu, passes, wall
  QCOMPARE(m->index(0, PhaseTableModel::Phase).data().toString(), QStringLiteral("kernel:cpu"));
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const int row = static_cast<int>(i) + 1;
    QCOMPARE(m->index(row, PhaseTableModel::Phase).data().toString(),
             QString::fromStdString(plan[i]));
    QVERIFY(m->value(row, PhaseTableModel::Median) > 0);
    QVERIFY(m->value(row, PhaseTableModel::Median) <= m->value(0, PhaseTableModel::Max));
    QVERIFY(!m->index(row, PhaseTableModel::Phase).data(Qt::ToolTipRole).toString().isEmpty());
    // Each pass is charged its own tensors: the reduce reads x and dy, the write also writes dx.
    const double e = 4.0 * 32 * 32 * 16 * sizeof(float);
    if (plan[i] == "pass:reduce") QCOMPARE(m->value(row, PhaseTableModel::Bytes), 2 * e);
    if (plan[i] == "pass:write") QCOMPARE(m->value(row, PhaseTableModel::Bytes), 3 * e);
    QVERIFY(m->value(row, PhaseTableModel::Gbps) > 0);
  }
  QCOMPARE(plan, (std::vector<std::string>{"pass:reduce", "pass:write"}));  // NHWC training
  const TimelineLayout& l = view.timelineLayout();
  QCOMPARE(l.lanes().size(), std::size_t{2});
  QCOMPARE(l.lanes()[1].label, std::string("cpu passes"));
  const std::vector<TraceEvent>& runs = l.lanes()[0].events;
  const std::vector<TraceEvent>& passes = l.lanes()[1].events;
  QCOMPARE(runs.size(), std::size_t{3});
  QCOMPARE(passes.size(), 3 * plan.size());
  for (std::size_t k = 0; k < passes.size(); ++k) {
    const TraceEvent& run = runs[k / plan.size()];
    const TraceEvent& e = passes[k];
    QCOMPARE(l.store().name(e.name), plan[k % plan.size()]);
    QVERIFY(e.duration > 0);
    QVERIFY(e.start >= run.start);
    QVERIFY(e.start + e.duration <= run.start + run.duration + 1e-12);
    if (k % plan.size()) QVERIFY(e.start >= passes[k - 1].start + passes[k - 1].duration);
  }
}

// The tab asks for the smaller probe, and takes the controller's spare outputs rather than
// holding them beside its own (core's profile_backends shares one probe and one output set:
// tests/profile/profile_batch_test.cpp).
void ProfileViewTest::theTabTakesTheSpareOutputsAndTheSmallerProbe() {
  const Problem problem = test::analysis_sample();
  std::vector<std::size_t> probes;
  ProblemController controller;
  controller.setProblem(problem);
  QVERIFY(controller.waitForIdle());
  controller.setAttr("epsilon", 0.01);
  QVERIFY(controller.waitForIdle());
  QVERIFY(!controller.spareResults().empty());
  ProfileView view(&controller);
  view.setCopyProbe([&probes](int, std::size_t bytes) {
    probes.push_back(bytes);
    return 20.0;
  });
  view.setBackends({QStringLiteral("cpu")});
  view.setReps(2);
  view.run();
  QVERIFY(view.waitForIdle());
  // Nothing is left held once the profile is done: the spare set went to the repetitions and came
  // back out with them. (Not checked while the profile runs: its thread hands the set to the pool
  // for the repetitions, and may have done so already.)
  QVERIFY(controller.spareResults().empty());
  // The session's roofline: the best of its probes, each of the smaller size.
  QCOMPARE(probes.size(), static_cast<std::size_t>(CopyRoofline::kProbes));
  QCOMPARE(probes.back(), ProfileView::kCopyProbeBytes);
}

// Profile after Diff writes its repetitions into the Diff tab's reference outputs (no third
// output set), and the tab shows the same figures and heatmap afterwards; a slice asked for
// meanwhile is shown once the buffers are back.
void ProfileViewTest::profileAfterDiffWritesIntoTheReferenceOutputs() {
  ProblemController controller;
  DiffView diff(&controller);
  compare(controller, diff);
  const DiffShown before = diff_shown(diff);
  diff.showSlice(SliceMode::SpatialAtBatchChannel, 0, 0);
  const std::vector<double> other = diff.heatmap()->slice().values;
  QVERIFY(other != before.slice);

  ProfileView view(&controller);
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setBackends({QStringLiteral("cpu"), QStringLiteral("cpu-reference")});
  view.setReps(3);
  view.run();
  QVERIFY(view.isRunning());
  QVERIFY(controller.comparisonOutputsLent());
  diff.showSlice(SliceMode::SpatialAtBatchChannel, 1, 3);
  QCOMPARE(diff.heatmap()->slice().values, other);  // kept while the buffers are lent
  QVERIFY(view.waitForIdle());
  QVERIFY(!controller.comparisonOutputsLent());
  QCOMPARE(view.phaseModel()->profiles().size(), std::size_t{2});
  QCOMPARE(view.outputBuffer(), before.buffer);
  const DiffShown after = diff_shown(diff);
  QCOMPARE(after.buffer, before.buffer);
  QCOMPARE(after.reference, before.reference);
  QCOMPARE(after.verdict, before.verdict);
  QCOMPARE(after.slice, before.slice);

  // Nothing of the profile keeps a handle on them: a second profile borrows them again.
  view.run();
  QVERIFY(controller.comparisonOutputsLent());
  QVERIFY(view.waitForIdle());
  QCOMPARE(view.outputBuffer(), before.buffer);
  QCOMPARE(diff_shown(diff).reference, before.reference);

  // Without a comparison's outputs to borrow, the profile writes into a set of its own.
  ProblemController alone;
  alone.setProblem(controller.problem());
  QVERIFY(alone.waitForIdle());
  ProfileView other_view(&alone);
  other_view.setCopyProbe([](int, std::size_t) { return 20.0; });
  other_view.setBackends({QStringLiteral("cpu")});
  other_view.setReps(2);
  other_view.run();
  QVERIFY(!alone.comparisonOutputsLent());
  QVERIFY(other_view.waitForIdle());
  QVERIFY(other_view.outputBuffer() != nullptr);
  QVERIFY(other_view.outputBuffer() !=
          std::as_const(alone.outcome()->result->outputs.front().tensor).raw());
}

void ProfileViewTest::cancelledProfileRestoresTheReference() {
  ProblemController controller;
  DiffView diff(&controller);
  compare(controller, diff);
  const DiffShown before = diff_shown(diff);
  ProfileView view(&controller);
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setBackends({QStringLiteral("cpu")});  // cancelled, the buffers hold cpu's outputs
  view.setReps(100000);                       // minutes of work unless the cancel lands
  view.run();
  QVERIFY(controller.comparisonOutputsLent());
  QTest::qWait(50);
  view.cancel();
  QVERIFY(view.waitForIdle(20000));
  QVERIFY(view.statusLabel()->text().contains(QStringLiteral("cancelled")));
  QVERIFY(!controller.comparisonOutputsLent());
  QCOMPARE(view.outputBuffer(), before.buffer);
  const DiffShown after = diff_shown(diff);
  QCOMPARE(after.buffer, before.buffer);
  QCOMPARE(after.reference, before.reference);
  QCOMPARE(after.verdict, before.verdict);
  QCOMPARE(after.slice, before.slice);
  // A tolerance edit still re-compares the restored outputs.
  diff.setTolerance(QStringLiteral("x_backprop"), 1e-3, 1e-3);
  QVERIFY(diff.waitForIdle());
  QVERIFY(diff.outcome()->ok());
}

void ProfileViewTest::aToleranceEditWaitsForTheLentOutputs() {
  ProblemController controller;
  DiffView diff(&controller);
  compare(controller, diff);
  const auto compared = diff.outcome();
  const std::vector<double> reference = compared->expected("x_backprop")->tensor.to_doubles();
  ProfileView view(&controller);
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setBackends({QStringLiteral("cpu")});
  view.setReps(3);
  view.run();
  QVERIFY(controller.comparisonOutputsLent());
  diff.setTolerance(QStringLiteral("x_backprop"), 1e-3, 1e-3);
  QVERIFY(!diff.isRunning());  // the re-compare reads the reference: it waits for the buffers
  QCOMPARE(diff.outcome(), compared);
  QVERIFY(view.waitForIdle());
  QVERIFY(diff.waitForIdle());
  QVERIFY(diff.outcome() != compared);
  QVERIFY(diff.outcome()->ok());
  QCOMPARE(diff.outcome()->expected("x_backprop")->tensor.to_doubles(), reference);
  // The re-compared copy holds the same buffers: the next profile borrows them from both and
  // puts them back in both.
  const auto recompared = diff.outcome();
  const void* buffer = std::as_const(recompared->expected("x_backprop")->tensor).raw();
  view.run();
  QVERIFY(controller.comparisonOutputsLent());
  QCOMPARE(recompared->expected("x_backprop")->tensor.numel(), std::int64_t{0});  // lent
  QVERIFY(view.waitForIdle());
  QVERIFY(!controller.comparisonOutputsLent());
  QCOMPARE(view.outputBuffer(), buffer);
  QCOMPARE(recompared->expected("x_backprop")->tensor.to_doubles(), reference);
  QCOMPARE(controller.outcome()->diff->expected("x_backprop")->tensor.to_doubles(), reference);
}

// The roofline is measured at the first profile only, as the best of its probes, and again on
// request; every profile in between is set against the same figure.
void ProfileViewTest::theRooflineIsMeasuredOncePerSession() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  ProfileView view(&controller);
  int calls = 0;
  view.setCopyProbe([&calls](int, std::size_t) { return 10.0 * ++calls; });
  view.setBackends({QStringLiteral("cpu")});
  view.setReps(2);
  QVERIFY(view.rooflineLabel()->text().contains(QStringLiteral("not measured yet")));
  view.run();
  QVERIFY(view.waitForIdle());
  QCOMPARE(calls, CopyRoofline::kProbes);
  const Profile first = view.phaseModel()->profiles().front();
  QCOMPARE(first.roofline_gbps, 10.0 * CopyRoofline::kProbes);  // the best of them
  view.run();
  QVERIFY(view.waitForIdle());
  QCOMPARE(calls, CopyRoofline::kProbes);
  const Profile second = view.phaseModel()->profiles().front();
  QCOMPARE(second.roofline_gbps, first.roofline_gbps);
  QCOMPARE(second.roofline_source, first.roofline_source);
  QVERIFY(QString::fromStdString(first.roofline_source)
              .startsWith(QStringLiteral("copy roofline, best of 5 copy probes of 48 MiB on ")));
  const QString label = view.rooflineLabel()->text();
  QVERIFY2(label.startsWith(QStringLiteral("Copy roofline 50.0 GB/s, best of 5 copy probes of 48 "
                                           "MiB on ")),
           qPrintable(label));
  QVERIFY(label.contains(QStringLiteral("measured at ")));
  // Not repeated in the status: the label says it.
  QVERIFY(!view.statusLabel()->text().contains(QStringLiteral("best of 5")));
  QCOMPARE(view.historyModel()->index(0, ProfileHistoryModel::Roofline).data().toString(),
           QStringLiteral("%1 %").arg(second.achieved_gbps / 50.0 * 100, 0, 'f', 1));

  view.remeasureRoofline();
  QVERIFY(view.waitForIdle());
  QCOMPARE(calls, 2 * CopyRoofline::kProbes);
  QVERIFY(view.rooflineLabel()->text().startsWith(QStringLiteral("Copy roofline 100.0 GB/s")));
  QCOMPARE(view.phaseModel()->profiles().front().roofline_gbps, 50.0);  // measured before
  view.run();
  QVERIFY(view.waitForIdle());
  QCOMPARE(calls, 2 * CopyRoofline::kProbes);
  QCOMPARE(view.phaseModel()->profiles().front().roofline_gbps, 100.0);
}

QTEST_MAIN(ProfileViewTest)
#include "profile_test.moc"
