// The models on their own: QAbstractItemModelTester, values, roles, and the input verdicts.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QSortFilterProxyModel>
#include <QtCharts/QValueAxis>
#include <QtTest>
#include <cfloat>
#include <cmath>

#include "app_wording.h"
#include "channel_table_model.h"
#include "chart_axes.h"
#include "input_table_model.h"
#include "notes_model.h"
#include "ops/prepared.h"
#include "qt_suites.h"
#include "tensor/error.h"
#include "tensor/layout.h"
#include "tensor_slice.h"
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
  const QString m = in_app_terms(std::string(
      "reserve_space_2 looks like 1/sqrt(variance+epsilon); pass --convention variance"));
  QVERIFY2(!m.contains(QStringLiteral("--")), qPrintable(m));
  QVERIFY(m.contains(QStringLiteral("Reserve convention")));
  QVERIFY(!in_app_terms(std::string("x is float64 (--strict)")).contains(QStringLiteral("--")));
  QVERIFY(!in_app_terms(std::string("--against /a/b.npz lacks output y"))
               .contains(QStringLiteral("--")));
  Note n;
  n.kind = NoteKind::Warning;
  n.code = "reserve";
  n.message = "pass --convention inv_std";
  NotesModel notes;
  notes.setNotes({n});
  QVERIFY(!notes.index(0, 0).data().toString().contains(QStringLiteral("--")));
}

void ModelsTest::channelAxisCountsWholeChannels() {
  // Every tick a whole channel, each once, for tiny and large channel counts.
  for (int channels : {1, 2, 3, 7, 12, 64, 1000}) {
    QValueAxis axis;
    set_channel_axis(&axis, channels);
    QCOMPARE(axis.tickType(), QValueAxis::TicksDynamic);
    QCOMPARE(axis.tickAnchor(), 0.0);
    QVERIFY(axis.tickInterval() >= 1);
    QCOMPARE(axis.tickInterval(), std::floor(axis.tickInterval()));
    QVERIFY((axis.max() - axis.min()) / axis.tickInterval() <= 11);
    QVERIFY(axis.min() <= 0 && axis.max() >= channels - 1);
  }
}

// Whether x is a whole multiple of step (to a few ulps of x).
static bool on_step(double x, double step) {
  const double k = std::round(x / step);
  return std::fabs(x - k * step) <= 1e-9 * std::max(std::fabs(x), step);
}

void ModelsTest::valueAxisTicksOnRoundStepsWithLabelsApart() {
  const std::pair<double, double> ranges[] = {
      {-73.81, 84.53},     {0, 1}, {0, 3e-7}, {1.0000001, 1.0000003}, {-2e-30, 5e-30},
      {1.2e10, 1.3e10},    {5, 5}, {0, 0},    {-3e300, -3e300},       {0, 1e308},
      {233.5564, 233.5565}};
  for (const auto& [lo, hi] : ranges) {
    QValueAxis axis;
    set_value_axis(&axis, lo, hi);
    const QString what = QStringLiteral("[%1, %2]").arg(lo).arg(hi);
    QVERIFY2(axis.tickType() == QValueAxis::TicksDynamic, qPrintable(what));
    QVERIFY2(axis.min() <= lo && axis.max() >= hi, qPrintable(what));
    QVERIFY2(axis.min() < axis.max(), qPrintable(what));
    const double step = axis.tickInterval();
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
    QVERIFY2(std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 ||
                 std::fabs(mantissa - 5) < 1e-9,
             qPrintable(what));
    QVERIFY2(on_step(axis.min(), step) && on_step(axis.max(), step), qPrintable(what));
    QCOMPARE(axis.tickAnchor(), axis.min());
    const double intervals = (axis.max() - axis.min()) / step;
    QVERIFY2(intervals >= 2.9 && intervals <= 8.1, qPrintable(what));
    // Every tick's label differs from its neighbours' and has no more than 12 characters.
    QString previous;
    for (int k = 0; k <= static_cast<int>(std::round(intervals)); ++k) {
      const QString label =
          QString::asprintf(qPrintable(axis.labelFormat()), axis.min() + k * step);
      QVERIFY2(label != previous, qPrintable(what + QStringLiteral(": ") + label));
      QVERIFY2(label.size() <= 12, qPrintable(what + QStringLiteral(": ") + label));
      previous = label;
    }
  }
  // Round figures read as such: -100, -50, 0, 50, 100 for the channel chart of the sample.
  QValueAxis axis;
  set_value_axis(&axis, -73.81, 84.53);
  QCOMPARE(QString::asprintf(qPrintable(axis.labelFormat()), -100.0), QStringLiteral("-100"));
  QCOMPARE(QString::asprintf(qPrintable(axis.labelFormat()), 50.0), QStringLiteral("50"));
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
