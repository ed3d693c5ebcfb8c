// The models on their own: QAbstractItemModelTester, values, roles, and the input verdicts.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QSortFilterProxyModel>
#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <QtTest>
#include <cfloat>
#include <cmath>

#include "channel_table_model.h"
#include "chart_axes.h"
#include "heatmap_slice.h"
#include "input_table_model.h"
#include "notes_model.h"
#include "ops/prepared.h"
#include "option_words.h"
#include "qt_suites.h"
#include "tensor/error.h"
#include "tensor/layout.h"
#include "views_test_util.h"

using namespace bnscope;

class ModelsTest : public QObject {
  Q_OBJECT
 private slots:
  void channelTableFollowsStats();
  void channelTableSortsByValue();
  void inputTableShowsSummariesAndVerdicts();
  void inputTableReadsBigInputsOnlyFromSummaries();
  void inputTableBlamesTheInputTheErrorNames();
  void notesModelListsErrorThenNotes();
  void inputTableIsHonestAboutTensorFlow();
  void messagesSpeakTheAppsTerms();
  void channelAxisCountsWholeChannels();
  void valueAxisTicksOnRoundStepsWithLabelsApart();
  void valueAxisTakesAnyEnds();
  void axesSetAgainNeverAskForMillionsOfTicks();
  void slicesFollowTheLayout();
};

namespace {
ChannelStats three_channels() {
  ChannelStats s;
  s.channels = 3;
  s.columns.push_back({"scale_backprop", {3.0, -1.0, 2.0}, false});
  s.columns.push_back({"non-finite x_backprop", {0, 4, 0}, true});
  return s;
}
}  // namespace

void ModelsTest::channelTableFollowsStats() {
  ChannelTableModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QCOMPARE(m.rowCount(), 0);
  m.setStats(three_channels());
  QCOMPARE(m.rowCount(), 3);
  QCOMPARE(m.columnCount(), 3);
  QCOMPARE(m.headerData(1, Qt::Horizontal).toString(), QStringLiteral("scale_backprop"));
  QCOMPARE(m.data(m.index(1, 1), ChannelTableModel::SortRole).toDouble(), -1.0);
  QCOMPARE(m.data(m.index(1, 2)).toString(), QStringLiteral("4"));
  QVERIFY(m.data(m.index(1, 2), Qt::ForegroundRole).isValid());  // non-finite count in red
  QVERIFY(!m.data(m.index(0, 2), Qt::ForegroundRole).isValid());
  QCOMPARE(m.columnOf(QStringLiteral("non-finite x_backprop")), 2);
  m.setStats({});
  QCOMPARE(m.rowCount(), 0);
}

void ModelsTest::channelTableSortsByValue() {
  ChannelTableModel m;
  QSortFilterProxyModel proxy;
  proxy.setSourceModel(&m);
  proxy.setSortRole(ChannelTableModel::SortRole);
  QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
  m.setStats(three_channels());
  proxy.sort(1, Qt::AscendingOrder);
  QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("1"));  // -1.0 first
  QCOMPARE(proxy.index(2, 0).data().toString(), QStringLiteral("0"));  // 3.0 last
}

void ModelsTest::inputTableShowsSummariesAndVerdicts() {
  InputTableModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
  Problem p = test::small_sample();
  const double v[] = {1.0, -2.0, std::numeric_limits<double>::infinity()};
  p.inputs["scale"] = Tensor::from_doubles(DType::F32, {3}, v);
  p.inputs.erase("reserve_space_3");
  m.setProblem(p, {});
  QCOMPARE(m.rowCount(), static_cast<int>(find_op(p.op)->inputs.size()));
  const int scale = m.rowOf(QStringLiteral("scale"));
  QVERIFY(scale >= 0);
  QCOMPARE(m.index(scale, InputTableModel::Shape).data().toString(), QStringLiteral("[3]"));
  QCOMPARE(m.index(scale, InputTableModel::Min).data().toString(), QStringLiteral("-2"));
  QCOMPARE(m.index(scale, InputTableModel::Max).data().toString(), QStringLiteral("1"));
  QCOMPARE(m.index(scale, InputTableModel::NonFinite).data().toString(), QStringLiteral("1"));
  const int rs3 = m.rowOf(QStringLiteral("reserve_space_3"));
  QCOMPARE(m.index(rs3, InputTableModel::Shape).data().toString(), QStringLiteral("(missing)"));
  QVERIFY(!m.index(rs3, 0).data(InputTableModel::ProblemRole).toBool());
}

void ModelsTest::inputTableReadsBigInputsOnlyFromSummaries() {
  // An input beyond the inline limit is never walked on the UI thread: its figures come from a
  // summary of that very buffer, or show as pending.
  InputTableModel m;
  Problem p = test::small_sample();
  const std::int64_t n = InputTableModel::kInlineSummaryLimit + 1;
  Tensor big(DType::F32, {n});
  big.set(0, 7.0);
  big.set(1, -3.0);
  p.inputs["reserve_space_3"] = big;
  m.setProblem(p, {});
  const int row = m.rowOf(QStringLiteral("reserve_space_3"));
  const QString pending = m.index(row, InputTableModel::Min).data().toString();
  QCOMPARE(pending, QStringLiteral("\u2026"));

  std::vector<InputSummary> known(1);
  known[0].name = "reserve_space_3";
  known[0].tensor = big;  // the same storage
  known[0].summary = summarize(big);
  m.setProblem(p, {}, {}, &known);
  QCOMPARE(m.index(row, InputTableModel::Min).data().toString(), QStringLiteral("-3"));
  QCOMPARE(m.index(row, InputTableModel::Max).data().toString(), QStringLiteral("7"));
  QCOMPARE(m.index(row, InputTableModel::NonFinite).data().toString(), QStringLiteral("0"));

  // A summary of another buffer with the same values is not this input's.
  known[0].tensor = Tensor(big.dtype(), big.shape());
  m.setProblem(p, {}, {}, &known);
  QCOMPARE(m.index(row, InputTableModel::Min).data().toString(), pending);
}

void ModelsTest::inputTableIsHonestAboutTensorFlow() {
  const Problem p = test::small_sample();
  Note reject;
  reject.kind = NoteKind::TfWouldReject;
  reject.code = "test";
  reject.message = "scale has 5 channels but is float16";
  reject.subject = "scale";
  Note warn;
  warn.kind = NoteKind::Warning;
  warn.code = "test";
  warn.message = "x holds a constant channel";
  warn.subject = "x";
  InputTableModel m;
  m.setProblem(p, {}, {reject, warn});
  const QString scale =
      m.index(m.rowOf(QStringLiteral("scale")), InputTableModel::Status).data().toString();
  QVERIFY2(!scale.startsWith(QStringLiteral("ok")), qPrintable(scale));
  QVERIFY(scale.contains(QStringLiteral("TensorFlow would reject")));
  const QString x =
      m.index(m.rowOf(QStringLiteral("x")), InputTableModel::Status).data().toString();
  QVERIFY2(x.contains(QStringLiteral("constant channel")), qPrintable(x));
  QCOMPARE(
      m.index(m.rowOf(QStringLiteral("y_backprop")), InputTableModel::Status).data().toString(),
      QStringLiteral("ok"));
}

void ModelsTest::messagesSpeakTheAppsTerms() {
  // Every option core's errors can be about has a name in the app's words, never a flag.
  for (Option o : all_options()) {
    const QString name = QString::fromUtf8(app_option_words().name(o).data());
    QVERIFY(!name.isEmpty());
    QVERIFY2(!name.contains(QStringLiteral("--")), qPrintable(name));
  }
  // A strict-mode rejection from prepare() itself, as the Notes panel shows it.
  Problem p = test::small_sample();
  p.dtype = DType::F64;
  for (auto& [name, t] : p.inputs) t = t.to(DType::F64);
  p.strict = true;
  const std::vector<ValidationProblem> problems = validation_problems(p);
  QVERIFY(!problems.empty());
  NotesModel notes;
  notes.setNotes({}, problems);
  const QString shown = notes.index(0, 0).data().toString();
  QVERIFY2(shown.endsWith(QStringLiteral("(strict mode)")), qPrintable(shown));
  QVERIFY2(!shown.contains(QStringLiteral("--")), qPrintable(shown));
  // Saved outputs that lack one: the Diff tab's control by name, and what the tab does.
  const Error missing(
      ErrorCode::InvalidArgument,
      ErrorParts{Option::Against, "/a/b.npz", "output y is missing", {}, Option::AllowMissing});
  QCOMPARE(app_error_text(missing),
           QStringLiteral("expected outputs /a/b.npz: output y is missing (the Diff tab compares "
                          "every output the op writes)"));
  // The reserve-convention warning core makes names the convention, not a flag.
  const Note n{NoteKind::Warning, "reserve-convention",
               "reserve_space_2 looks like the batch variance; declare the variance convention "
               "(CPU)",
               "reserve_space_2", -1};
  notes.setNotes({n});
  QVERIFY(!notes.index(0, 0).data().toString().contains(QStringLiteral("--")));
}

void ModelsTest::channelAxisCountsWholeChannels() {
  // Every tick a whole channel, each once, for tiny and large channel counts; half a channel of
  // margin so that the end points are drawn whole.
  for (int channels : {1, 2, 3, 7, 12, 64, 1000}) {
    QValueAxis axis;
    set_channel_axis(&axis, channels);
    QCOMPARE(axis.tickType(), QValueAxis::TicksDynamic);
    QCOMPARE(axis.tickAnchor(), 0.0);
    QVERIFY(axis.tickInterval() >= 1);
    QCOMPARE(axis.tickInterval(), std::floor(axis.tickInterval()));
    QVERIFY((axis.max() - axis.min()) / axis.tickInterval() <= 11);
    QCOMPARE(axis.min(), -0.5);
    QCOMPARE(axis.max(), channels - 0.5);
  }
}

// Whether x is a whole multiple of step (to a few ulps of x).
static bool on_step(double x, double step) {
  const double k = std::round(x / step);
  return std::fabs(x - k * step) <= 1e-9 * std::max(std::fabs(x), step);
}

// The labels the axis draws, computed the way it computes them.
static QStringList tick_labels(const QValueAxis& axis) {
  QStringList labels;
  const auto label = [&axis](double v) {
    return QString::asprintf(qPrintable(axis.labelFormat()), v);
  };
  if (axis.tickType() == QValueAxis::TicksDynamic) {
    for (double v = axis.tickAnchor(); v <= axis.max(); v += axis.tickInterval())
      labels << label(v);
    return labels;
  }
  const int n = axis.tickCount() - 1;
  for (int i = 0; i <= n; ++i) labels << label(axis.min() + (i * (axis.max() - axis.min()) / n));
  return labels;
}

void ModelsTest::valueAxisTicksOnRoundStepsWithLabelsApart() {
  const std::pair<double, double> ranges[] = {{-73.81, 84.53},
                                              {0, 1},
                                              {0, 3e-7},
                                              {1.0000001, 1.0000003},
                                              {-2e-30, 5e-30},
                                              {1.2e10, 1.3e10},
                                              {5, 5},
                                              {0, 0},
                                              {-3e300, -3e300},
                                              {0, 1e308},
                                              {233.5564, 233.5565},
                                              {-0.55, 0.61},
                                              {-1.3e-9, 7.1e-9},
                                              {-0.07, 0.3}};
  for (const auto& [lo, hi] : ranges) {
    QValueAxis axis;
    set_value_axis(&axis, lo, hi);
    const QString what = QStringLiteral("[%1, %2]").arg(lo).arg(hi);
    QVERIFY2(axis.min() <= lo && axis.max() >= hi, qPrintable(what));
    QVERIFY2(axis.min() < axis.max(), qPrintable(what));
    // Fixed ticks, but near the largest double, where their products would overflow.
    const bool fixed = axis.tickType() == QValueAxis::TicksFixed;
    QVERIFY2(fixed || hi >= 1e307, qPrintable(what));
    const double step =
        fixed ? (axis.max() - axis.min()) / (axis.tickCount() - 1) : axis.tickInterval();
    const double intervals = std::round((axis.max() - axis.min()) / step);
    QVERIFY2(intervals >= 3 && intervals <= 8, qPrintable(what));
    QVERIFY2(fixed || axis.tickAnchor() == axis.min(), qPrintable(what));
    const double exponent = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const double mantissa = step / exponent;
    // (max - min) / intervals carries the ends' rounding: relative 1e-9 at 1.0000001 .. 3.
    QVERIFY2(std::fabs(mantissa - 1) < 1e-6 || std::fabs(mantissa - 2) < 1e-6 ||
                 std::fabs(mantissa - 5) < 1e-6,
             qPrintable(what));
    QVERIFY2(on_step(axis.min(), step) && on_step(axis.max(), step), qPrintable(what));
    // Every tick's label differs from its neighbours' and has no more than 12 characters; a
    // range over zero has a tick that reads 0, not a rounding residue such as 1.7e-18.
    const QStringList labels = tick_labels(axis);
    for (int k = 0; k < labels.size(); ++k) {
      QVERIFY2(k == 0 || labels[k] != labels[k - 1],
               qPrintable(what + QStringLiteral(": ") + labels.join(QLatin1Char(' '))));
      QVERIFY2(labels[k].size() <= 12, qPrintable(what + QStringLiteral(": ") + labels[k]));
    }
    if (axis.min() < 0 && axis.max() > 0)
      QVERIFY2(labels.contains(QStringLiteral("0")),
               qPrintable(what + QStringLiteral(": ") + labels.join(QLatin1Char(' '))));
  }
  // Round figures read as such: -100, -50, 0, 50, 100 for the channel chart of the sample.
  QValueAxis axis;
  set_value_axis(&axis, -73.81, 84.53);
  QCOMPARE(tick_labels(axis).join(QLatin1Char(' ')), QStringLiteral("-100 -50 0 50 100"));
}

void ModelsTest::axesSetAgainNeverAskForMillionsOfTicks() {
  // The Diff tab sets the same shown axes for every comparison: a range thousands of times
  // wider than the last one must never be laid out with the last one's tick interval.
  QChart chart;
  auto* series = new QLineSeries;
  chart.addSeries(series);
  auto* x = new QValueAxis;
  auto* y = new QValueAxis;
  chart.addAxis(x, Qt::AlignBottom);
  chart.addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  double most_ticks = 0;
  const auto watch = [&most_ticks](QValueAxis* axis) {
    QObject::connect(axis, &QValueAxis::rangeChanged, axis,
                     [axis, &most_ticks](qreal lo, qreal hi) {
                       if (axis->tickType() == QValueAxis::TicksDynamic)
                         most_ticks = std::max(most_ticks, (hi - lo) / axis->tickInterval());
                       else
                         most_ticks = std::max(most_ticks, double(axis->tickCount()));
                     });
  };
  watch(x);
  watch(y);
  for (const std::pair<double, double>& r :
       {std::pair<double, double>{0, 1e-9}, {0, 0}, {0, 5e6}, {-1e-12, 1e-12}, {0, 1}})
    set_value_axis(y, r.first, r.second);
  for (int channels : {2, 100000, 3, 1000000}) set_channel_axis(x, channels);
  QVERIFY2(most_ticks <= 20, qPrintable(QString::number(most_ticks)));
}

void ModelsTest::valueAxisTakesAnyEnds() {
  // Ends a round axis cannot hold get a plain finite range, never a crash or an infinite one.
  const double inf = HUGE_VAL, nan = std::nan("");
  const std::pair<double, double> ranges[] = {
      {-DBL_MAX, DBL_MAX},         {DBL_MAX, DBL_MAX}, {0, 1.7e308}, {nan, 1}, {0, inf}, {2, 1},
      {DBL_TRUE_MIN, DBL_TRUE_MIN}};
  for (const auto& [lo, hi] : ranges) {
    QValueAxis axis;
    set_value_axis(&axis, lo, hi);
    QVERIFY(std::isfinite(axis.min()) && std::isfinite(axis.max()));
    QVERIFY(axis.min() < axis.max());
  }
}

void ModelsTest::inputTableBlamesTheInputTheErrorNames() {
  Problem p = test::small_sample();
  p.inputs["scale"] = Tensor(DType::F32, {2});  // x has 5 channels
  QString error;
  try {
    prepare(p);
  } catch (const Error& e) {
    error = QString::fromUtf8(e.what());
  }
  QVERIFY2(!error.isEmpty(), "a scale of the wrong size must fail validation");
  InputTableModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
  m.setProblem(p, {{"", error.toStdString()}});  // no subject: the input its message names
  const int scale = m.rowOf(QStringLiteral("scale"));
  QVERIFY(m.index(scale, 0).data(InputTableModel::ProblemRole).toBool());
  QCOMPARE(m.index(scale, InputTableModel::Status).data().toString(), error);
  QVERIFY(m.index(scale, InputTableModel::Status).data(Qt::ForegroundRole).isValid());
  QVERIFY(!m.index(m.rowOf(QStringLiteral("y_backprop")), 0)
               .data(InputTableModel::ProblemRole)
               .toBool());
  // An input the op does not take is flagged too.
  p.inputs["bogus"] = Tensor(DType::F32, {1});
  m.setProblem(p, {});
  QVERIFY(m.index(m.rowOf(QStringLiteral("bogus")), 0).data(InputTableModel::ProblemRole).toBool());
}

void ModelsTest::notesModelListsErrorThenNotes() {
  NotesModel m;
  QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
  std::vector<Note> notes{{NoteKind::Warning, "nan-input", "x holds NaN", "x", 2},
                          {NoteKind::TfWouldReject, "tf-reject-format", "NCHW", "", -1}};
  m.setNotes(notes, QStringLiteral("boom"));
  QCOMPARE(m.rowCount(), 3);
  QVERIFY(m.index(0, 0).data().toString().contains(QStringLiteral("boom")));
  QCOMPARE(m.index(1, 0).data(NotesModel::SubjectRole).toString(), QStringLiteral("x"));
  QCOMPARE(m.index(1, 0).data(NotesModel::ChannelRole).toLongLong(), 2);
  QVERIFY(m.index(2, 0).data().toString().startsWith(QStringLiteral("TensorFlow would reject")));
  m.setNotes({});
  QCOMPARE(m.rowCount(), 0);
}

void ModelsTest::slicesFollowTheLayout() {
  std::vector<double> v(2 * 3 * 2 * 4);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  // NHWC [2,3,2,4]: element (n,h,w,c) = ((n*3+h)*2+w)*4+c
  const Tensor nhwc = Tensor::from_doubles(DType::F32, {2, 3, 2, 4}, v);
  Slice2D s = slice_tensor(nhwc, true, SliceMode::SpatialAtBatchChannel, 1, 2);
  QCOMPARE(s.rows, 3);
  QCOMPARE(s.cols, 2);
  QCOMPARE(s.at(2, 1), ((1 * 3 + 2) * 2 + 1) * 4 + 2.0);
  s = slice_tensor(nhwc, true, SliceMode::BatchChannelAtSpatial, 1, 0);
  QCOMPARE(s.rows, 2);
  QCOMPARE(s.cols, 4);
  QCOMPARE(s.at(1, 3), ((1 * 3 + 1) * 2 + 0) * 4 + 3.0);
  // The same data moved to NCHW gives the same slices.
  const Tensor nchw = to_channels_first(nhwc);
  const Slice2D t = slice_tensor(nchw, false, SliceMode::SpatialAtBatchChannel, 1, 2);
  QCOMPARE(t.values, slice_tensor(nhwc, true, SliceMode::SpatialAtBatchChannel, 1, 2).values);
}

BNSCOPE_QT_SUITE(ModelsTest);
#include "models_test.moc"
