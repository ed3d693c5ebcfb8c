// Every model of the analysis views under QAbstractItemModelTester, filled from real core
// results, plus the timeline's layout arithmetic (culling, zoom, hit testing) without GL.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

#include "analysis_test_util.h"
#include "backends/backend.h"
#include "diff/cause_model.h"
#include "diff/channel_error_model.h"
#include "diff/element_errors.h"
#include "diff/verdict_model.h"
#include "diff/worst_elements_model.h"
#include "engine/engine.h"
#include "ops/prepared.h"
#include "ops/sample.h"
#include "profile_tab/phase_table_model.h"
#include "timeline/timeline_layout.h"

using namespace bnscope;

namespace {

// cpu-reference against itself with one element of x_backprop pushed far off.
Comparison perturbed_comparison(std::int64_t index, double delta) {
  const Problem p = test::analysis_sample();
  const Prepared prepared = prepare(p);
  const Result ref = run_problem(p, "cpu-reference");
  Result cand = ref;
  Tensor& dx = cand.output("x_backprop").tensor;
  dx.set(index, dx.get(index) + delta);
  return compare_results("cpu-reference", ref.outputs, "edited", cand.outputs, {}, &prepared.view);
}

void check_all_cells(QAbstractItemModel& m) {
  for (int r = 0; r < m.rowCount(); ++r)
    for (int c = 0; c < m.columnCount(); ++c)
      for (int role : {int(Qt::DisplayRole), int(Qt::UserRole + 1), int(Qt::ToolTipRole)})
        (void)m.data(m.index(r, c), role);
}

}  // namespace

class ModelsTest : public QObject {
  Q_OBJECT
 private slots:
  void channelErrorModelMatchesTheDiff();
  void verdictModelShowsEveryOutputAndEditsTolerances();
  void worstElementsModelListsCoordinates();
  void causeModelShowsBeforeAndAfter();
  void phaseTableModelMatchesTheProfile();
  void errorTensorAndPlacesAgreeWithSlices();
  void timelineCullsLikeBruteForce();
  void timelineZoomKeepsTheAnchorAndPans();
  void rulerTicksAreRoundAndInside();
  void timelineTooltipSaysWhichRepetitionAndTheBandwidth();
};

void ModelsTest::channelErrorModelMatchesTheDiff() {
  const Comparison c = perturbed_comparison(7, 3.0);
  const OutputDiff& dx = c.outputs.front();
  QCOMPARE(dx.name, std::string("x_backprop"));
  QCOMPARE(dx.channels.size(), std::size_t{5});
  ChannelErrorModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
  m.setChannels(dx.channels);
  QCOMPARE(m.rowCount(), 5);
  QCOMPARE(m.columnCount(), int(ChannelErrorModel::ColumnCount));
  for (int r = 0; r < m.rowCount(); ++r) {
    const ChannelError& ch = dx.channels[static_cast<std::size_t>(r)];
    QCOMPARE(m.index(r, ChannelErrorModel::MaxAbs).data(ChannelErrorModel::SortRole).toDouble(),
             ch.max_abs);
    QCOMPARE(m.index(r, ChannelErrorModel::Mismatches).data().toString(),
             QString::number(ch.mismatches));
  }
  // Flat index 7 in NHWC [2,4,5... C=5]: channel 7 % 5 = 2 holds the only mismatch.
  QCOMPARE(m.value(2, ChannelErrorModel::Mismatches), 1.0);
  QCOMPARE(m.value(1, ChannelErrorModel::Mismatches), 0.0);
  check_all_cells(m);
  m.setChannels({});
  QCOMPARE(m.rowCount(), 0);
}

void ModelsTest::verdictModelShowsEveryOutputAndEditsTolerances() {
  DiffReport report;
  report.comparisons.push_back(perturbed_comparison(3, 1.0));
  report.comparisons.push_back(perturbed_comparison(4, 0.0));
  VerdictModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
  m.setReport(report);
  const int per = static_cast<int>(report.comparisons[0].outputs.size());
  QCOMPARE(m.rowCount(), 2 * per);
  QCOMPARE(m.index(0, VerdictModel::Output).data().toString(), QStringLiteral("x_backprop"));
  QCOMPARE(m.index(0, VerdictModel::Verdict).data().toString(), QStringLiteral("FAIL"));
  QCOMPARE(m.index(per, VerdictModel::Verdict).data().toString(), QStringLiteral("pass"));
  QCOMPARE(m.index(0, VerdictModel::MaxAbs).data(VerdictModel::SortRole).toDouble(),
           report.comparisons[0].outputs[0].max_abs);
  check_all_cells(m);

  QVERIFY(m.flags(m.index(0, VerdictModel::Atol)) & Qt::ItemIsEditable);
  QVERIFY(!(m.flags(m.index(0, VerdictModel::MaxAbs)) & Qt::ItemIsEditable));
  QSignalSpy spy(&m, &VerdictModel::toleranceEdited);
  QVERIFY(m.setData(m.index(0, VerdictModel::Atol), QStringLiteral("2.5")));
  QCOMPARE(spy.count(), 1);
  QCOMPARE(spy[0][0].toString(), QStringLiteral("x_backprop"));
  QCOMPARE(spy[0][1].toDouble(), 2.5);
  QCOMPARE(spy[0][2].toDouble(), report.comparisons[0].outputs[0].tolerance.rtol);
  QVERIFY(!m.setData(m.index(0, VerdictModel::Rtol), QStringLiteral("-1")));
  QVERIFY(!m.setData(m.index(0, VerdictModel::Rtol), QStringLiteral("abc")));
  QCOMPARE(spy.count(), 1);
  // Outputs TensorFlow leaves undefined are skipped and cannot be edited.
  for (int r = 0; r < m.rowCount(); ++r)
    if (!m.output(r).compared) {
      QCOMPARE(m.index(r, VerdictModel::Verdict).data().toString(), QStringLiteral("skipped"));
      QVERIFY(!(m.flags(m.index(r, VerdictModel::Atol)) & Qt::ItemIsEditable));
    }
}

void ModelsTest::worstElementsModelListsCoordinates() {
  const Comparison c = perturbed_comparison(2 * 4 * 5 + 3 * 5 + 1, 5.0);  // n0 h2 w3 c1
  WorstElementsModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
  m.setElements(c.outputs.front().worst);
  QVERIFY(m.rowCount() >= 1);
  QCOMPARE(m.index(0, WorstElementsModel::Coords).data().toString(),
           QStringLiteral("(0, 2, 3, 1)"));
  QCOMPARE(m.index(0, WorstElementsModel::Channel).data().toString(), QStringLiteral("1"));
  QCOMPARE(m.index(0, WorstElementsModel::Outside).data().toString(), QStringLiteral("yes"));
  check_all_cells(m);
}

void ModelsTest::causeModelShowsBeforeAndAfter() {
  Cause a;
  a.code = "reserve-convention";
  a.title = "reserve_space_2 holds 1/sqrt(var + eps)";
  a.explanation = "re-ran with the inv_std convention";
  a.before = 350;
  a.after = 0.2;
  a.max_abs_before = 1.5;
  a.max_abs_after = 1e-6;
  a.resolves = true;
  a.candidate = "cpu";
  Cause b = a;
  b.code = "layout-swapped";
  b.resolves = false;
  b.after = 3;
  CauseModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
  m.setCauses({a, b});
  QCOMPARE(m.rowCount(), 2);
  QCOMPARE(m.index(0, CauseModel::Title).data().toString(), QString::fromStdString(a.title));
  QCOMPARE(m.index(0, CauseModel::Before).data(CauseModel::SortRole).toDouble(), 350.0);
  QCOMPARE(m.index(0, CauseModel::After).data(CauseModel::SortRole).toDouble(), 0.2);
  QCOMPARE(m.index(0, CauseModel::Resolves).data().toString(), QStringLiteral("yes"));
  QCOMPARE(m.index(1, CauseModel::Resolves).data().toString(), QStringLiteral("partly"));
  QVERIFY(m.index(0, CauseModel::Title)
              .data(Qt::ToolTipRole)
              .toString()
              .contains(QStringLiteral("inv_std")));
  check_all_cells(m);

  // A fitted cause shows its value and fix; the pattern-only entry what to check next.
  Cause eps = a;
  eps.code = "epsilon-mismatch";
  eps.fitted_name = "epsilon";
  eps.fitted = 1e-5;
  eps.confidence = Confidence::High;
  eps.suggestion = "set epsilon=1e-05";
  eps.fix = {FixStep{"epsilon-mismatch", 1e-5}};
  Cause none;
  none.code = "unexplained";
  none.pattern_only = true;
  none.suggestion = "compare the inputs";
  m.setCauses({eps, none});
  QVERIFY(
      m.index(0, CauseModel::Fitted).data().toString().startsWith(QStringLiteral("epsilon = ")));
  QCOMPARE(m.index(0, CauseModel::Fitted).data(CauseModel::SortRole).toDouble(), 1e-5);
  QCOMPARE(m.index(0, CauseModel::Confidence).data().toString(), QStringLiteral("high"));
  QCOMPARE(m.index(0, CauseModel::Fix).data().toString(), QStringLiteral("set epsilon=1e-05"));
  QCOMPARE(m.index(1, CauseModel::Resolves).data().toString(), QStringLiteral("no cause fits"));
  QVERIFY(
      m.index(1, CauseModel::Fix).data().toString().contains(QStringLiteral("compare the inputs")));
  check_all_cells(m);
}

void ModelsTest::phaseTableModelMatchesTheProfile() {
  const Profile p = profile_problem(test::analysis_sample(), "cpu", test::quick_profile_options());
  QVERIFY(!p.phases.empty());
  PhaseTableModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
  m.setProfiles({p, p});
  const int per = static_cast<int>(p.phases.size()) + 1;  // phases and the whole run
  QCOMPARE(m.rowCount(), 2 * per);
  QCOMPARE(m.index(0, PhaseTableModel::Phase).data().toString(),
           QString::fromStdString(p.phases[0].phase));
  QCOMPARE(m.value(0, PhaseTableModel::Median), p.phases[0].stats.median);
  QCOMPARE(m.value(0, PhaseTableModel::Min), p.phases[0].stats.min);
  QCOMPARE(m.value(0, PhaseTableModel::Reps), 3.0);
  QCOMPARE(p.phases[0].phase, std::string("kernel:cpu"));
  QCOMPARE(m.value(0, PhaseTableModel::Bytes), static_cast<double>(p.traffic.total()));
  QCOMPARE(m.value(0, PhaseTableModel::Gbps),
           static_cast<double>(p.traffic.total()) / p.phases[0].stats.median / 1e9);
  QCOMPARE(m.value(0, PhaseTableModel::Roofline), m.value(0, PhaseTableModel::Gbps) / 20.0);
  // The whole-run row has timings but no traffic.
  QCOMPARE(m.value(per - 1, PhaseTableModel::Median), p.wall.median);
  QVERIFY(std::isnan(m.value(per - 1, PhaseTableModel::Gbps)));
  QCOMPARE(m.index(per - 1, PhaseTableModel::Gbps).data().toString(), QString());
  check_all_cells(m);
}

void ModelsTest::errorTensorAndPlacesAgreeWithSlices() {
  const Problem p = test::analysis_sample();
  const Result ref = run_problem(p, "cpu-reference");
  OutputTensor base = ref.output("x_backprop");
  QCOMPARE(base.tensor.shape(), (Shape{2, 3, 4, 5}));
  const std::int64_t flat = ((1 * 3 + 2) * 4 + 3) * 5 + 4;  // n1 h2 w3 c4
  // 1 and 3: an error of exactly 2 in float32, whatever value the seed put there.
  base.tensor.set(flat, 1.0);
  OutputTensor cand = base;
  cand.tensor.set(flat, 3.0);
  const Tensor e = error_tensor(base, cand);
  QCOMPARE(e.shape(), cand.tensor.shape());
  QCOMPARE(e.get(flat), 2.0);
  const ElementPlace place = element_place(e.shape(), {1, 2, 3, 4}, true);
  QCOMPARE(place.n, 1);
  QCOMPARE(place.c, 4);
  QCOMPARE(place.h, 2);
  QCOMPARE(place.w, 3);
  // Channels-first rank 5 folds D and H into the heatmap's rows.
  const ElementPlace p5 = element_place({2, 3, 4, 5, 6}, {1, 2, 3, 4, 5}, false);
  QCOMPARE(p5.c, 2);
  QCOMPARE(p5.h, 3 * 5 + 4);
  QCOMPARE(p5.w, 5);
  QCOMPARE(error_tensor(ref.output("x_backprop"), ref.output("scale_backprop")).numel(), 0);
  // The heatmap's error of one slice is that slice of the whole error tensor, NaN rules included.
  cand.tensor.set(0, std::numeric_limits<double>::quiet_NaN());
  const Tensor whole = error_tensor(ref.output("x_backprop"), cand);
  for (const SliceMode mode : {SliceMode::SpatialAtBatchChannel, SliceMode::BatchChannelAtSpatial})
    for (const auto& [a, b] : {std::pair<int, int>{1, 4}, {0, 0}, {2, 3}}) {
      const Slice2D got = error_slice(ref.output("x_backprop"), cand, true, mode, a, b);
      const Slice2D want = slice_tensor(whole, true, mode, a, b);
      QCOMPARE(got.rows, want.rows);
      QCOMPARE(got.cols, want.cols);
      QCOMPARE(got.values.size(), want.values.size());
      for (std::size_t i = 0; i < want.values.size(); ++i)
        QVERIFY(got.values[i] == want.values[i] ||
                (std::isnan(got.values[i]) && std::isnan(want.values[i])));
    }
  QVERIFY(error_slice(ref.output("x_backprop"), ref.output("scale_backprop"), true,
                      SliceMode::SpatialAtBatchChannel, 0, 0)
              .values.empty());
}

void ModelsTest::timelineCullsLikeBruteForce() {
  EventStore s;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> start(0, 1.0), dur(1e-6, 2e-3);
  for (int i = 0; i < 6000; ++i)
    s.add(i % 3 ? "kernel:cpu" : "upload", i % 2 ? "cpu" : "cuda",
          static_cast<std::uint32_t>(i % 3 == 0), start(rng), dur(rng));
  TimelineLayout l;
  l.setEvents(s);
  QCOMPARE(l.lanes().size(), std::size_t{4});
  QCOMPARE(l.eventCount(), std::size_t{6000});
  for (const TimelineLane& lane : l.lanes())
    QVERIFY(
        std::is_sorted(lane.events.begin(), lane.events.end(),
                       [](const TraceEvent& a, const TraceEvent& b) { return a.start < b.start; }));
  for (int trial = 0; trial < 50; ++trial) {
    const double t0 = start(rng), t1 = t0 + dur(rng) * 10;
    for (std::size_t k = 0; k < l.lanes().size(); ++k) {
      const auto [first, last] = l.visible(k, t0, t1);
      std::size_t expected = 0;
      for (const TraceEvent& e : l.lanes()[k].events)
        expected += e.start <= t1 && e.start + e.duration >= t0;
      std::size_t got = 0;
      for (std::size_t i = first; i < last; ++i) {
        const TraceEvent& e = l.lanes()[k].events[i];
        got += e.start <= t1 && e.start + e.duration >= t0;
      }
      QCOMPARE(got, expected);
      QVERIFY(last - first <= expected + 64);  // only a few non-overlapping ones scanned
    }
  }
  const TraceEvent& e = l.lanes()[0].events[10];
  const TraceEvent* hit = l.eventAt(0, e.start + e.duration / 2);
  QVERIFY(hit);
  QVERIFY(hit->start <= e.start + e.duration / 2 &&
          hit->start + hit->duration >= e.start + e.duration / 2);
  QVERIFY(l.eventAt(0, 5.0) == nullptr);
  QVERIFY(l.lanes()[0].label.find("cuda") != std::string::npos);
}

void ModelsTest::timelineZoomKeepsTheAnchorAndPans() {
  EventStore s;
  s.add("kernel:cpu", "cpu", 0, 0.0, 1.0);
  s.add("kernel:cpu", "cpu", 0, 2.0, 1.0);
  TimelineLayout l;
  l.setEvents(s);
  QVERIFY(l.viewStart() < 0 && l.viewEnd() > 3.0);
  const double anchor = 1.0;
  const double frac = (anchor - l.viewStart()) / l.viewSpan();
  const double span = l.viewSpan();
  l.zoomAround(anchor, 4.0);
  QVERIFY(std::fabs(l.viewSpan() - span / 4) < 1e-12);
  QVERIFY(std::fabs((anchor - l.viewStart()) / l.viewSpan() - frac) < 1e-12);
  const double s0 = l.viewStart();
  l.panBy(0.25);
  QVERIFY(std::fabs(l.viewStart() - s0 - 0.25) < 1e-12);
  l.zoomAround(1.0, 1e30);  // never collapses to an empty range
  QVERIFY(l.viewSpan() > 0);
  l.fit();
  QVERIFY(l.viewStart() < 0 && l.viewEnd() > 3.0);
  QCOMPARE(phase_family("kernel:cpu"), std::string("kernel"));
  QVERIFY(phase_colour("kernel") != phase_colour("upload"));
  QCOMPARE(phase_colour("mystery"), phase_colour("mystery"));
  // Neighbouring cpu passes differ as the cpu backend describes them; the reducing ones share
  // the pass colour.
  const Backend& cpu = *BackendRegistry::instance().find("cpu");
  std::vector<PhaseInfo> plan;
  for (const char* op : {"FusedBatchNormGradV3", "FusedBatchNormV3"})
    for (bool training : {true, false}) {
      SampleSpec spec;
      spec.op = op;
      spec.is_training = training;
      for (int threads : {1, 64})
        for (const PhaseInfo& info : cpu.phase_plan(prepare(random_problem(spec)), threads))
          if (!find_phase(plan, info.name)) plan.push_back(info);
    }
  for (const char* name : {"pass:reduce", "pass:mean", "pass:variance", "pass:write", "pass:fused"})
    QVERIFY2(find_phase(plan, name), name);
  l.setEvents(s, plan);
  QCOMPARE(l.colour("pass:reduce"), phase_colour("pass"));
  QCOMPARE(l.colour("pass:mean"), phase_colour("pass"));
  QVERIFY(l.colour("pass:write") != l.colour("pass:reduce"));
  QVERIFY(l.colour("pass:variance") != l.colour("pass:write"));
  QVERIFY(l.colour("pass:fused") != phase_colour("kernel"));
  QVERIFY(l.colour("pass:fused") != l.colour("pass:reduce"));
  QCOMPARE(l.colour("kernel:cpu"), phase_colour("kernel"));
}

void ModelsTest::rulerTicksAreRoundAndInside() {
  double step = 0;
  const std::vector<double> t = ruler_ticks(0.00123, 0.00987, 8, &step);
  QVERIFY(!t.empty() && t.size() <= 9);
  QCOMPARE(step, 2e-3);  // 8.64 ms over 8 ticks rounds up to 2 ms
  for (double v : t) QVERIFY(v >= 0.00123 && v <= 0.00987);
  QCOMPARE(time_text(0.002, step), std::string("2 ms"));
  QCOMPARE(time_text(2.5e-6), std::string("2.50 us"));
  QCOMPARE(time_text(1.5), std::string("1.50 s"));
  QVERIFY(ruler_ticks(1, 1, 5, &step).empty());
}

// Every timed repetition's events carry its index; the tooltip says which of how many, and the
// bandwidth of what the traffic model says the phase moved in that event's time.
void ModelsTest::timelineTooltipSaysWhichRepetitionAndTheBandwidth() {
  const Profile p = profile_problem(test::analysis_sample(), "cpu", test::quick_profile_options());
  std::vector<std::uint32_t> host_reps;
  for (const TraceEvent& e : p.events.events())
    if (e.track == kHostTrack) host_reps.push_back(e.rep);
  std::vector<std::uint32_t> expected(static_cast<std::size_t>(p.reps));
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<std::uint32_t>(i);
  QCOMPARE(host_reps, expected);

  TimelineLayout l;
  l.setEvents(p.events, p.phase_plan, combined_phase_bytes({p}));
  const TimelineLane& host = l.lanes().front();
  QCOMPARE(host.track, kHostTrack);
  const TraceEvent& last = host.events.back();
  const std::vector<std::string> lines = l.describe(last, 0);
  const auto has = [&lines](const std::string& want) {
    return std::find(lines.begin(), lines.end(), want) != lines.end();
  };
  QVERIFY(has("repetition " + std::to_string(p.reps) + " of " + std::to_string(p.reps)));
  char rate[64];
  std::snprintf(rate, sizeof rate, " at %.1f GB/s",
                static_cast<double>(p.traffic.total()) / last.duration / 1e9);
  const std::string moved =
      "moved     " + bytes_text(static_cast<double>(p.traffic.total())) + rate;
  QVERIFY2(has(moved), lines.back().c_str());
  // A phase the model says nothing of gets no bandwidth line.
  TimelineLayout bare;
  bare.setEvents(p.events, p.phase_plan);
  const std::vector<std::string> plain = bare.describe(last, 0);
  QVERIFY(std::none_of(plain.begin(), plain.end(),
                       [](const std::string& s) { return s.rfind("moved", 0) == 0; }));
}

QTEST_MAIN(ModelsTest)
#include "models_test.moc"
