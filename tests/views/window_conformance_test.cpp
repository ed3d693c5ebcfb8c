// File > Load kernel plugin and the Conformance view offscreen: a loaded plugin appears in the
// pickers, its conformance run lists failing cases first with their cause, and a case opens in
// the Diff tab with the plugin against cpu-reference.
#include <QCheckBox>
#include <QTabWidget>
#include <QtTest>
#include <cstdlib>

#include "backend_picker.h"
#include "conformance/conformance_panel.h"
#include "conformance/conformance_table_model.h"
#include "diff/diff_view.h"
#include "main_window.h"
#include "problem_controller.h"
#include "qt_suites.h"
#include "window_test_util.h"

using namespace bnscope;

class WindowConformanceTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void loadedPluginIsInEveryPicker();
  void conformanceListsFailingCasesFirstAndOpensOneInTheDiffTab();
  void pluginThatDoesNotLoadIsSaid();
};
BNSCOPE_QT_SUITE(WindowConformanceTest);

void WindowConformanceTest::initTestCase() {
  test::isolate_settings();
  ::setenv("BNSCOPE_PLUGIN_HOST", BNSCOPE_PLUGIN_HOST_PATH, 1);
}

void WindowConformanceTest::loadedPluginIsInEveryPicker() {
  MainWindow w;
  QVERIFY(w.loadPlugin(QStringLiteral(BNSCOPE_TEST_PLUGIN_DIR "/plugin_bug_layout.so")));
  QCOMPARE(w.conformance()->backendPicker()->current(), QStringLiteral("example-c-bug-layout"));
  bool in_diff = false;
  for (QCheckBox* c : w.analysis().diff->candidatePicker()->checkBoxes())
    in_diff = in_diff || c->text() == QStringLiteral("example-c-bug-layout");
  QVERIFY(in_diff);
}

void WindowConformanceTest::conformanceListsFailingCasesFirstAndOpensOneInTheDiffTab() {
  MainWindow w;
  QVERIFY(w.loadPlugin(QStringLiteral(BNSCOPE_TEST_PLUGIN_DIR "/plugin_bug_layout.so")));
  QVERIFY(w.controller()->waitForIdle());
  ConformancePanel* panel = w.conformance();
  panel->run(QStringLiteral("example-c-bug-layout"));
  QVERIFY(panel->waitForIdle(120000));
  ConformanceTableModel* m = panel->model();
  QVERIFY(m->rowCount() > 0);
  const ConformanceRow* first = m->rowAt(0);
  QVERIFY(first);
  QCOMPARE(first->verdict, ConformanceVerdict::Fail);
  QCOMPARE(first->c.variant.format, DataFormat::NCHW);  // the bug is in NCHW only
  QVERIFY(m->data(m->index(0, ConformanceTableModel::Cause))
              .toString()
              .contains(QStringLiteral("indexes NCHW buffers as NHWC")));
  // Failing first: no pass above a failure.
  bool seen_pass = false;
  for (int r = 0; r < m->rowCount(); ++r) {
    const ConformanceVerdict v = m->rowAt(r)->verdict;
    if (v == ConformanceVerdict::Pass) seen_pass = true;
    if (v == ConformanceVerdict::Fail) QVERIFY(!seen_pass);
  }
  QVERIFY(seen_pass);  // NHWC passes
  panel->activateRow(0);
  QCOMPARE(w.viewTabs()->currentWidget(), static_cast<QWidget*>(w.analysis().diff));
  QCOMPARE(w.analysis().diff->candidates(), QStringList{QStringLiteral("example-c-bug-layout")});
  QCOMPARE(QString::fromStdString(w.controller()->problem().op),
           QString::fromStdString(std::string(first->c.variant.op->name)));
  QCOMPARE(std::get<std::string>(w.controller()->problem().attrs.at("data_format")),
           std::string("NCHW"));
}

void WindowConformanceTest::pluginThatDoesNotLoadIsSaid() {
  MainWindow w;
  QVERIFY(!w.loadPlugin(QStringLiteral(BNSCOPE_TEST_PLUGIN_DIR "/plugin_no_entry.so")));
  QVERIFY(w.lastError().contains(QStringLiteral("has no bnscope_plugin_init")));
}

#include "window_conformance_test.moc"
