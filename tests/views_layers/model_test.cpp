// The layer table and the background sweep without a window, on the sample capture and broken
// copies of it.
#include <QBrush>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <limits>

#include "io/capture_folder.h"
#include "layers/layer_table_model.h"
#include "layers/sweep_runner.h"
#include "layers_test_util.h"

using namespace bnscope;

namespace {

std::shared_ptr<const SweepResult> sweep(const QString& dir, const SweepRequest& request = {}) {
  auto out = compute_sweep(dir, request, {}, nullptr);
  if (!out->ok()) qFatal("sweep of %s failed: %s", qPrintable(dir), qPrintable(out->error));
  return std::make_shared<const SweepResult>(*out->result);
}

const Comparison* comparison_of(const SweepRow& row, const std::string& backend) {
  for (const Comparison& c : row.result.diff.comparisons)
    if (c.candidate == backend) return &c;
  return nullptr;
}

double key_at(const LayerTableModel& m, int row, int col) {
  return m.index(row, col).data(LayerTableModel::SortRole).toDouble();
}

}  // namespace

class LayersModelTest : public QObject {
  Q_OBJECT
 private slots:
  void oneRowPerLayerWithAVerdictPerBackend();
  void disagreementsShowAndSortWorstFirst();
  void headerSortsEveryColumnAndKeepsTheSelection();
  void brokenLayerIsItsOwnRowFirst();
  void brokenCaptureIsAnErrorNotACrash();
  void runnerSweepsInTheBackground();
  void cancelStopsTheSweep();
  void newFolderReplacesTheRunningSweep();
};

void LayersModelTest::oneRowPerLayerWithAVerdictPerBackend() {
  const Capture capture = read_capture_folder(test::sample_capture().toStdString());
  QCOMPARE(capture.layers.size(), std::size_t{3});
  LayerTableModel m;
  QCOMPARE(m.rowCount(), 0);
  m.setResult(sweep(test::sample_capture()));
  QCOMPARE(m.rowCount(), 3);
  // Against TensorFlow's recorded outputs every backend is a candidate with its own column.
  QCOMPARE(m.result()->reference, std::string(kAgainstTensorFlow));
  QCOMPARE(m.backends(), (QStringList{QStringLiteral("cpu-reference"), QStringLiteral("cpu")}));
  QCOMPARE(m.columnCount(), LayerTableModel::FirstBackend + 4);
  QCOMPARE(m.headerData(LayerTableModel::FirstBackend + 1, Qt::Horizontal).toString(),
           QStringLiteral("cpu"));
  QStringList names;
  for (int r = 0; r < m.rowCount(); ++r) {
    const SweepRow* row = m.rowAt(r);
    QVERIFY(row);
    names << m.index(r, LayerTableModel::Name).data().toString();
    QCOMPARE(m.index(r, LayerTableModel::Name).data().toString(),
             QString::fromStdString(row->layer.name));
    QCOMPARE(m.index(r, LayerTableModel::Index).data().toInt(), row->layer.index);
    QCOMPARE(m.index(r, LayerTableModel::Op).data().toString(),
             QStringLiteral("FusedBatchNormGradV3"));
    QCOMPARE(
        m.index(r, 0).data(LayerTableModel::PathRole).toString(),
        QString::fromStdString(capture.layers[static_cast<std::size_t>(row->layer.index)].path));
    // TensorFlow's own outputs are reproduced within tolerance by both CPU backends.
    for (int b = 0; b < 2; ++b) {
      const QModelIndex cell = m.index(r, LayerTableModel::FirstBackend + b);
      QCOMPARE(cell.data(LayerTableModel::VerdictRole).toString(), QStringLiteral("agree"));
      QVERIFY2(cell.data().toString().startsWith(QStringLiteral("agree (")),
               qPrintable(cell.data().toString()));
      const Comparison* c = comparison_of(*row, m.backends()[b].toStdString());
      QVERIFY(c);
      QCOMPARE(cell.data(LayerTableModel::SortRole).toDouble(), c->worst_tolerance_ratio());
      QVERIFY(cell.data(Qt::ToolTipRole).toString().contains(QStringLiteral("x_backprop")));
    }
    QCOMPARE(m.index(r, m.worstColumn()).data(LayerTableModel::VerdictRole).toString(),
             QStringLiteral("agree"));
    QVERIFY(m.index(r, m.causeColumn()).data().toString().isEmpty());
  }
  names.sort();
  QCOMPARE(names, (QStringList{QStringLiteral("bn_nchw"), QStringLiteral("bn_nhwc"),
                               QStringLiteral("bn_nhwc_f16")}));
  QCOMPARE(m.index(0, LayerTableModel::Dtype).data().toString().isEmpty(), false);
}

void LayersModelTest::disagreementsShowAndSortWorstFirst() {
  // A tolerance no float computation meets: every layer disagrees, each by its own margin.
  SweepRequest request;
  request.diff.atol = 1e-15;
  request.diff.rtol = 0;
  request.find_causes = false;
  LayerTableModel m;
  m.setResult(sweep(test::sample_capture(), request));
  QCOMPARE(m.rowCount(), 3);
  double previous = std::numeric_limits<double>::infinity();
  double largest = 0;
  for (const SweepRow& row : m.result()->rows) largest = std::max(largest, row.worst_ratio);
  for (int r = 0; r < m.rowCount(); ++r) {
    const SweepRow* row = m.rowAt(r);
    QVERIFY(!row->passed());
    QCOMPARE(m.index(r, m.worstColumn()).data(LayerTableModel::VerdictRole).toString(),
             QStringLiteral("disagree"));
    bool some_backend_disagrees = false;
    for (int b = 0; b < m.backends().size(); ++b) {
      const QModelIndex cell = m.index(r, LayerTableModel::FirstBackend + b);
      const Comparison* c = comparison_of(*row, m.backends()[b].toStdString());
      QVERIFY(c);
      QCOMPARE(cell.data(LayerTableModel::VerdictRole).toString(),
               c->passed ? QStringLiteral("agree") : QStringLiteral("disagree"));
      if (!c->passed) {
        some_backend_disagrees = true;
        QVERIFY(cell.data().toString().startsWith(QStringLiteral("DISAGREE")));
        QCOMPARE(cell.data(Qt::BackgroundRole).value<QBrush>().color(), QColor(255, 205, 205));
      }
    }
    QVERIFY(some_backend_disagrees);
    // Worst first: the largest tolerance ratio on top, never increasing downwards.
    const double ratio = key_at(m, r, m.worstColumn());
    QCOMPARE(ratio, row->worst_ratio);
    QVERIFY2(ratio <= previous, qPrintable(QStringLiteral("row %1").arg(r)));
    previous = ratio;
  }
  QCOMPARE(key_at(m, 0, m.worstColumn()), largest);
}

void LayersModelTest::headerSortsEveryColumnAndKeepsTheSelection() {
  LayerTableModel m;
  m.setResult(sweep(test::sample_capture()));
  m.sort(LayerTableModel::Index, Qt::AscendingOrder);
  for (int r = 0; r < 3; ++r) QCOMPARE(m.index(r, LayerTableModel::Index).data().toInt(), r);
  const QPersistentModelIndex kept = m.index(2, LayerTableModel::Name);
  const QString kept_name = kept.data().toString();
  m.sort(LayerTableModel::Index, Qt::DescendingOrder);
  for (int r = 0; r < 3; ++r) QCOMPARE(m.index(r, LayerTableModel::Index).data().toInt(), 2 - r);
  QCOMPARE(kept.row(), 0);
  QCOMPARE(kept.data().toString(), kept_name);
  m.sort(LayerTableModel::Name, Qt::AscendingOrder);
  QCOMPARE(m.index(0, LayerTableModel::Name).data().toString(), QStringLiteral("bn_nchw"));
  QCOMPARE(m.index(2, LayerTableModel::Name).data().toString(), QStringLiteral("bn_nhwc_f16"));
  m.sort(LayerTableModel::Dtype, Qt::DescendingOrder);
  QCOMPARE(m.index(0, LayerTableModel::Dtype).data().toString(), QStringLiteral("float32"));
  QCOMPARE(m.index(2, LayerTableModel::Dtype).data().toString(), QStringLiteral("float16"));
  for (int col = LayerTableModel::FirstBackend; col <= m.worstColumn(); ++col) {
    m.sort(col, Qt::DescendingOrder);
    for (int r = 1; r < 3; ++r) QVERIFY(key_at(m, r - 1, col) >= key_at(m, r, col));
    m.sort(col, Qt::AscendingOrder);
    for (int r = 1; r < 3; ++r) QVERIFY(key_at(m, r - 1, col) <= key_at(m, r, col));
  }
}

void LayersModelTest::brokenLayerIsItsOwnRowFirst() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  test::copy_sample_capture(tmp.path());
  test::corrupt_file(tmp.path(), QStringLiteral("layer_002_bn_nhwc_f16.npz"));
  LayerTableModel m;
  m.setResult(sweep(tmp.path()));
  QCOMPARE(m.rowCount(), 3);
  // The broken layer tops the worst-first order; the other two still ran and agree.
  QCOMPARE(m.index(0, LayerTableModel::Name).data().toString(), QStringLiteral("bn_nhwc_f16"));
  QVERIFY(m.rowAt(0)->broken());
  QCOMPARE(m.index(0, m.worstColumn()).data().toString(), QStringLiteral("BROKEN"));
  QCOMPARE(m.index(0, LayerTableModel::FirstBackend).data(LayerTableModel::VerdictRole).toString(),
           QStringLiteral("broken"));
  const QString why = m.index(0, m.causeColumn()).data().toString();
  QVERIFY2(why.contains(QStringLiteral("layer_002_bn_nhwc_f16.npz")), qPrintable(why));
  for (int r = 1; r < 3; ++r) QVERIFY(m.rowAt(r)->passed());
  QCOMPARE(m.result()->broken(), 1);
  QCOMPARE(m.result()->agreeing(), 2);
}

void LayersModelTest::brokenCaptureIsAnErrorNotACrash() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  // No manifest at all.
  auto out = compute_sweep(tmp.path(), {}, {}, nullptr);
  QVERIFY(!out->ok());
  QVERIFY(!out->cancelled);
  QVERIFY2(out->error.contains(QStringLiteral("manifest")), qPrintable(out->error));
  // A manifest listing a file that is not there.
  test::copy_sample_capture(tmp.path());
  QVERIFY(QFile::remove(QDir(tmp.path()).filePath(QStringLiteral("layer_001_bn_nchw.npz"))));
  out = compute_sweep(tmp.path(), {}, {}, nullptr);
  QVERIFY(!out->ok());
  QVERIFY2(out->error.contains(QStringLiteral("layer_001_bn_nchw.npz")), qPrintable(out->error));
  // An unknown backend is bad input too, caught before any layer runs.
  SweepRequest request;
  request.backends = {"no-such-backend"};
  out = compute_sweep(test::sample_capture(), request, {}, nullptr);
  QVERIFY(!out->ok());
  QVERIFY2(out->error.contains(QStringLiteral("no-such-backend")), qPrintable(out->error));
  LayerTableModel m;
  m.setResult(nullptr);
  QCOMPARE(m.rowCount(), 0);
  QVERIFY(!m.index(0, 0).data().isValid());
}

void LayersModelTest::runnerSweepsInTheBackground() {
  SweepRunner runner;
  QSignalSpy started(&runner, &SweepRunner::started);
  QSignalSpy progress(&runner, &SweepRunner::layerStarting);
  QSignalSpy finished(&runner, &SweepRunner::finished);
  runner.start(test::sample_capture());
  QVERIFY(runner.isRunning());
  QVERIFY(runner.waitForIdle());
  QCOMPARE(started.count(), 1);
  QCOMPARE(finished.count(), 1);
  QVERIFY(runner.outcome() && runner.outcome()->ok());
  QCOMPARE(runner.outcome()->result->rows.size(), std::size_t{3});
  // One report before each layer and one at the end.
  QCOMPARE(progress.count(), 4);
  QCOMPARE(progress.at(1).at(0).toInt(), 1);
  QCOMPARE(progress.at(1).at(1).toInt(), 3);
  QCOMPARE(progress.last().at(0).toInt(), 3);
}

void LayersModelTest::cancelStopsTheSweep() {
  SweepRunner runner;
  QStringList swept;
  // Directly connected: the flag is raised from the sweeping thread as the second layer starts,
  // so the sweep cannot have finished before it.
  connect(
      &runner, &SweepRunner::layerStarting, this,
      [&](int done, int, const QString& layer) {
        if (!layer.isEmpty()) swept << layer;
        if (done == 1) runner.cancel();
      },
      Qt::DirectConnection);
  runner.start(test::sample_capture());
  QVERIFY(runner.waitForIdle());
  QVERIFY(runner.outcome());
  QVERIFY(runner.outcome()->cancelled);
  QVERIFY(!runner.outcome()->ok());
  QCOMPARE(swept.size(), 2);  // the third layer never started
}

void LayersModelTest::newFolderReplacesTheRunningSweep() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  SweepRunner runner;
  QSignalSpy finished(&runner, &SweepRunner::finished);
  runner.start(tmp.path());  // not a capture
  runner.start(test::sample_capture());
  QVERIFY(runner.waitForIdle());
  QCOMPARE(finished.count(), 1);
  QVERIFY(runner.outcome()->ok());
  QCOMPARE(runner.outcome()->dir, test::sample_capture());
}

QTEST_MAIN(LayersModelTest)
#include "model_test.moc"
