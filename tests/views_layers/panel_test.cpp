// The Layers panel in the main window (offscreen): `bnscope DIR`, choosing a layer loads it with
// TensorFlow's outputs as the Diff reference, cancel, and broken captures.
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>
#include <memory>

#include "diff/diff_view.h"
#include "launch.h"
#include "layers/layer_banner.h"
#include "layers/layer_table_model.h"
#include "layers/layers_panel.h"
#include "layers/sweep_runner.h"
#include "layers_test_util.h"
#include "main_window.h"
#include "ops/problem_io.h"
#include "problem_controller.h"

using namespace bnscope;

namespace {

bool same_inputs(const Problem& a, const Problem& b) {
  if (a.op != b.op || a.inputs.size() != b.inputs.size()) return false;
  for (const auto& [name, t] : a.inputs) {
    auto it = b.inputs.find(name);
    if (it == b.inputs.end() || it->second.shape() != t.shape() ||
        it->second.dtype() != t.dtype() || it->second.nbytes() != t.nbytes() ||
        std::memcmp(it->second.raw(), t.raw(), t.nbytes()) != 0)
      return false;
  }
  return true;
}

QDockWidget* layers_dock(MainWindow& w) {
  return w.findChild<QDockWidget*>(QStringLiteral("layersDock"));
}

}  // namespace

class LayersPanelTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void sampleCaptureIsFoundLikeTheSample();
  void capturePathOnTheCommandLineShowsTheLayers();
  void choosingALayerLoadsItWithTensorFlowAsTheDiffReference();
  void shownDiffComparesEachChosenLayerWithItsOwnOutputs();
  void cancelStopsTheSweepAndSaysSo();
  void brokenCaptureShowsItsError();
  void brokenLayerRowSaysWhyAndLoadsNothing();
  void closingDuringTheSweepStopsIt();
};

void LayersPanelTest::initTestCase() {
  QCoreApplication::setOrganizationName(QStringLiteral("bnscope-test-layers"));
}

void LayersPanelTest::sampleCaptureIsFoundLikeTheSample() {
  const QString path = sample_capture_path();
  QVERIFY2(is_capture_folder(path.toStdString()), qPrintable(path));
  QCOMPARE(QDir(path).canonicalPath(), QDir(test::sample_capture()).canonicalPath());
}

void LayersPanelTest::capturePathOnTheCommandLineShowsTheLayers() {
  MainWindow w;
  QDockWidget* dock = layers_dock(w);
  QVERIFY(dock);
  QVERIFY(dock->isHidden());  // nothing to show without a capture
  QString error;
  QVERIFY(w.openFromArguments({test::sample_capture()}, &error));
  QVERIFY2(error.isEmpty(), qPrintable(error));
  QVERIFY(!dock->isHidden());
  QCOMPARE(w.viewTabs()->currentWidget(), static_cast<QWidget*>(w.analysis().diff));
  LayersPanel* panel = w.layers();
  QVERIFY(panel->runner()->waitForIdle());
  QCOMPARE(panel->model()->rowCount(), 3);
  QVERIFY2(panel->statusLabel()->text().contains(QStringLiteral("3 agree")),
           qPrintable(panel->statusLabel()->text()));
  QVERIFY(panel->summaryLabel()->text().contains(QStringLiteral("sample_cnn")));
  QVERIFY(panel->progressBar()->isHidden());
  QVERIFY(panel->cancelButton()->isHidden());
  // The worst layer replaces the built-in sample once the sweep is done.
  QCOMPARE(panel->table()->currentIndex().row(), 0);
  const QString worst = panel->model()->index(0, 0).data(LayerTableModel::PathRole).toString();
  QVERIFY(w.controller()->waitForIdle());
  QVERIFY(same_inputs(w.controller()->problem(), load_problem(worst.toStdString())));
  QVERIFY(w.windowTitle().contains(QFileInfo(worst).fileName()));
}

void LayersPanelTest::choosingALayerLoadsItWithTensorFlowAsTheDiffReference() {
  MainWindow w;
  w.openCapture(test::sample_capture());
  LayersPanel* panel = w.layers();
  QVERIFY(panel->runner()->waitForIdle());
  QSignalSpy activated(panel, &LayersPanel::layerActivated);
  int target = -1;
  for (int r = 0; r < panel->model()->rowCount(); ++r)
    if (panel->model()->index(r, LayerTableModel::Name).data().toString() ==
        QStringLiteral("bn_nchw"))
      target = r;
  QVERIFY(target >= 0);
  panel->selectRow(target);
  QCOMPARE(activated.count(), 1);
  const QString path = activated.first().first().toString();
  QVERIFY(path.endsWith(QStringLiteral("layer_001_bn_nchw.npz")));
  QVERIFY(w.controller()->waitForIdle());
  const Problem expected = load_problem(path.toStdString());
  QVERIFY(same_inputs(w.controller()->problem(), expected));
  QCOMPARE(std::get<std::string>(w.controller()->problem().attrs.at("data_format")),
           std::string("NCHW"));

  // The Diff tab compares with the outputs recorded in that very file.
  DiffView* diff = w.analysis().diff;
  diff->run();
  QVERIFY(diff->waitForIdle());
  const auto out = diff->outcome();
  QVERIFY(out);
  QVERIFY2(out->ok(), out->error.c_str());
  QCOMPARE(QString::fromStdString(out->request.against), path);
  QVERIFY(same_inputs(out->problem, expected));
  QVERIFY(!out->result->expected.empty());
  QVERIFY(out->report().passed());

  // Re-sorting moves the row but does not reload the layer.
  panel->table()->sortByColumn(LayerTableModel::Index, Qt::DescendingOrder);
  QCOMPARE(activated.count(), 1);
  QCOMPARE(panel->model()->rowAt(panel->table()->currentIndex().row())->layer.name,
           std::string("bn_nchw"));
}

void LayersPanelTest::shownDiffComparesEachChosenLayerWithItsOwnOutputs() {
  // With the Diff tab in view no Compare is pressed: the layer's own run answers the comparison,
  // with that layer's file as the reference (not the reference of the run before).
  MainWindow w;
  w.resize(1200, 800);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  DiffView* diff = w.analysis().diff;
  w.viewTabs()->setCurrentWidget(diff);
  w.openCapture(test::sample_capture());
  LayersPanel* panel = w.layers();
  QVERIFY(panel->runner()->waitForIdle());
  QSignalSpy activated(panel, &LayersPanel::layerActivated);
  // Row 0, the worst layer, is loaded when the sweep ends: the others first, then back to it.
  const int rows = panel->model()->rowCount();
  QVERIFY(rows >= 2);
  for (int i = 1; i <= rows; ++i) {
    panel->selectRow(i % rows);
    QCOMPARE(activated.count(), i);
    const QString path = activated.last().first().toString();
    QVERIFY(w.controller()->waitForIdle());
    QVERIFY(diff->waitForIdle());
    const auto out = diff->currentOutcome();
    QVERIFY2(out, qPrintable(path));
    QCOMPARE(QString::fromStdString(out->request.against), path);
    QVERIFY(same_inputs(out->problem, load_problem(path.toStdString())));
    QVERIFY(!out->result->expected.empty());
  }
}

void LayersPanelTest::cancelStopsTheSweepAndSaysSo() {
  LayersPanel panel;
  // Pressed from the sweeping thread as the second layer starts, so the sweep is still running.
  connect(
      panel.runner(), &SweepRunner::layerStarting, this,
      [&](int done, int, const QString&) {
        if (done == 1)
          QMetaObject::invokeMethod(panel.cancelButton(), "click", Qt::BlockingQueuedConnection);
      },
      Qt::DirectConnection);
  QSignalSpy activated(&panel, &LayersPanel::layerActivated);
  panel.openCapture(test::sample_capture());
  QVERIFY(!panel.cancelButton()->isHidden());
  QVERIFY(panel.runner()->waitForIdle());
  QVERIFY(panel.runner()->outcome()->cancelled);
  QCOMPARE(panel.model()->rowCount(), 0);
  QVERIFY2(panel.statusLabel()->text().contains(QStringLiteral("cancelled")),
           qPrintable(panel.statusLabel()->text()));
  QVERIFY(panel.cancelButton()->isHidden());
  QCOMPARE(activated.count(), 0);
}

void LayersPanelTest::brokenCaptureShowsItsError() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  MainWindow w;
  const Problem before = w.controller()->problem();
  QSignalSpy failed(w.layers(), &LayersPanel::captureFailed);
  QVERIFY(w.openPath(tmp.path()));  // a folder, as dropped: opened as a capture
  LayersPanel* panel = w.layers();
  QVERIFY(panel->runner()->waitForIdle());
  // The window says that what it shows is no layer of it.
  QCOMPARE(failed.count(), 1);
  QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("No layer is loaded")),
           qPrintable(w.statusBar()->currentMessage()));
  QCOMPARE(panel->model()->rowCount(), 0);
  const QString status = panel->statusLabel()->text();
  QVERIFY2(status.startsWith(QStringLiteral("Cannot sweep")), qPrintable(status));
  QVERIFY2(status.contains(QStringLiteral("manifest")), qPrintable(status));
  QVERIFY(same_inputs(w.controller()->problem(), before));
}

void LayersPanelTest::brokenLayerRowSaysWhyAndLoadsNothing() {
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  test::copy_sample_capture(tmp.path());
  test::corrupt_file(tmp.path(), QStringLiteral("layer_000_bn_nhwc.npz"));
  MainWindow w;
  QSignalSpy activated(w.layers(), &LayersPanel::layerActivated);
  w.openCapture(tmp.path());
  LayersPanel* panel = w.layers();
  QVERIFY(panel->runner()->waitForIdle());
  QCOMPARE(panel->model()->rowCount(), 3);
  QVERIFY(panel->model()->rowAt(0)->broken());
  QVERIFY(panel->statusLabel()->text().contains(QStringLiteral("1 broken")));
  // The worst layer that can be opened was loaded, not the broken one.
  QCOMPARE(activated.count(), 1);
  QVERIFY(!activated.first().first().toString().endsWith(QStringLiteral("layer_000_bn_nhwc.npz")));
  panel->selectRow(0);
  QCOMPARE(activated.count(), 1);
  const QString status = panel->statusLabel()->text();
  QVERIFY2(status.startsWith(QStringLiteral("bn_nhwc: ")) &&
               status.contains(QStringLiteral("layer_000_bn_nhwc.npz")),
           qPrintable(status));
  // Said above the views too, whatever tab is open: which layer, and what they still show.
  const QString shown = QFileInfo(w.controller()->path()).fileName();
  QVERIFY(w.layerBanner()->isVisibleTo(&w));
  const QString banner = w.layerBanner()->text();
  QVERIFY2(banner.contains(QStringLiteral("bn_nhwc")) &&
               banner.contains(QStringLiteral("broken")) && banner.contains(shown),
           qPrintable(banner));
  // Choosing a layer that can be shown again clears it; so does opening another problem.
  panel->selectRow(1);
  QVERIFY(!w.layerBanner()->isVisibleTo(&w));
  panel->selectRow(0);
  QVERIFY(w.layerBanner()->isVisibleTo(&w));
  w.controller()->setProblem(builtin_sample());
  QVERIFY(!w.layerBanner()->isVisibleTo(&w));
}

void LayersPanelTest::closingDuringTheSweepStopsIt() {
  for (int i = 0; i < 3; ++i) {
    auto w = std::make_unique<MainWindow>();
    w->openCapture(test::sample_capture());
    QVERIFY(w->layers()->runner()->isRunning());
    w.reset();  // waits for the sweep it cancelled; no report reaches a destroyed panel
    QCoreApplication::processEvents();
  }
}

QTEST_MAIN(LayersPanelTest)
#include "panel_test.moc"
