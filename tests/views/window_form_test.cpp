// The main window's problem form offscreen: every control re-runs and the table matches the
// engine; the epsilon slider and field; the panel's width.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QSlider>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "diff/diff_view.h"
#include "main_window.h"
#include "number_spin_box.h"
#include "ops/dtype_cost.h"
#include "problem_controller.h"
#include "problem_form.h"
#include "profile/traffic.h"
#include "qt_suites.h"
#include "views_test_util.h"
#include "window_test_util.h"

using namespace bnscope;

class WindowFormTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void formControlsRerunAndMatchTheEngine();
  void epsilonSliderIsLogarithmic();
  void typingEpsilonKeepsEveryKeystroke();
  void problemPanelKeepsItsWidth();

 private:
  QTemporaryDir dir_;
};
BNSCOPE_QT_SUITE(WindowFormTest);

void WindowFormTest::initTestCase() {
  QVERIFY(dir_.isValid());
  test::isolate_settings();
}

void WindowFormTest::formControlsRerunAndMatchTheEngine() {
  MainWindow w;
  w.controller()->setProblem(test::small_sample());
  test::expect_table_is_engine(w);
  ProblemForm* f = w.form();

  auto* training = qobject_cast<QCheckBox*>(f->attrEditor(QStringLiteral("is_training")));
  QVERIFY(training);
  training->click();
  QVERIFY(!attr_bool(w.controller()->problem(), "is_training"));
  test::expect_table_is_engine(w);
  training->click();

  auto* eps = qobject_cast<QDoubleSpinBox*>(f->attrEditor(QStringLiteral("epsilon")));
  QVERIFY(eps);
  eps->setValue(0.02);
  QCOMPARE(attr_float(w.controller()->problem(), "epsilon"), 0.02);
  test::expect_table_is_engine(w);

  auto* format = qobject_cast<QComboBox*>(f->attrEditor(QStringLiteral("data_format")));
  QVERIFY(format);
  f->convertLayoutBox()->setChecked(true);
  format->setCurrentText(QStringLiteral("NCHW"));
  QCOMPARE(w.controller()->problem().inputs.at("x").shape(), (Shape{2, 5, 3, 4}));
  test::expect_table_is_engine(w);
  format->setCurrentText(QStringLiteral("NHWC"));

  f->conventionBox()->setCurrentIndex(1);
  QCOMPARE(w.controller()->problem().convention, ReserveConvention::InvStd);
  test::expect_table_is_engine(w);
  f->conventionBox()->setCurrentIndex(0);

  for (int i = 1; i < f->dtypeBox()->count(); ++i) {
    f->dtypeBox()->setCurrentIndex(i);
    QVERIFY(w.controller()->problem().dtype.has_value());
    test::expect_table_is_engine(w);
  }
  f->dtypeBox()->setCurrentIndex(0);
  // What each dtype would cost is said before it is chosen: float64's memory for this problem,
  // and which dtype the problem has now.
  const QString tip = f->dtypeBox()->toolTip();
  const std::string f64 = bytes_text(run_bytes_at(w.controller()->problem(), DType::F64));
  QVERIFY2(tip.contains(QStringLiteral("float64: ") + QString::fromStdString(f64)),
           qPrintable(tip));
  QVERIFY2(tip.contains(QStringLiteral("float32: ")) && tip.contains(QStringLiteral("(now)")),
           qPrintable(tip));

  // Every backend a user can pick (those that cannot run here are greyed out).
  const auto* backends = qobject_cast<const QStandardItemModel*>(f->backendBox()->model());
  QVERIFY(backends);
  for (int i = 0; i < f->backendBox()->count(); ++i) {
    if (!backends->item(i)->isEnabled()) continue;
    f->backendBox()->setCurrentIndex(i);
    QCOMPARE(w.controller()->backend(), f->backendBox()->itemText(i).toStdString());
    test::expect_table_is_engine(w);
  }
  f->backendBox()->setCurrentText(QStringLiteral("cpu"));

  for (int i = 0; i < f->opBox()->count(); ++i) {
    f->opBox()->setCurrentIndex(i);
    QCOMPARE(w.controller()->problem().op, f->opBox()->itemText(i).toStdString());
    test::expect_table_is_engine(w);
    // The attr editors follow the op.
    const OpSpec* op = find_op(w.controller()->problem().op);
    for (const AttrSpec& a : op->attrs)
      QVERIFY(f->attrEditor(QString::fromUtf8(a.name.data(), a.name.size())));
    // The reserve convention where the op reads or writes a reserve_space_2: the fused ops, those
    // with modes.
    QCOMPARE(f->conventionBox()->isEnabled(), op->has_modes());
  }
}

void WindowFormTest::epsilonSliderIsLogarithmic() {
  MainWindow w;
  w.controller()->setProblem(test::small_sample());
  QSlider* s = w.form()->epsilonSlider();
  QVERIFY(s);
  s->setValue(-30);  // 1e-3
  QVERIFY(std::fabs(attr_float(w.controller()->problem(), "epsilon") - 1e-3) < 1e-12);
  w.controller()->setAttr("epsilon", 1e-5);
  QCOMPARE(s->value(), -50);
  QVERIFY(w.controller()->waitForIdle());
}

void WindowFormTest::typingEpsilonKeepsEveryKeystroke() {
  MainWindow w;
  w.controller()->setProblem(test::small_sample());
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  QApplication::setActiveWindow(&w);
  auto* eps = qobject_cast<NumberSpinBox*>(w.form()->attrEditor(QStringLiteral("epsilon")));
  QVERIFY(eps);
  eps->setPauseMs(30);
  const std::vector<std::pair<QString, double>> cases{{QStringLiteral("0.0001"), 1e-4},
                                                      {QStringLiteral(".25"), 0.25},
                                                      {QStringLiteral("0.5"), 0.5},
                                                      {QStringLiteral("1e-5"), 1e-5},
                                                      {QStringLiteral("0.001"), 1e-3}};
  for (const auto& [typed, want] : cases) {
    eps->setFocus();
    QTRY_VERIFY(eps->hasFocus());
    eps->selectAll();
    // Slowly: every pause commits what is typed so far, and the runs it starts finish.
    for (const QChar ch : typed) {
      QTest::keyClick(eps, ch.toLatin1());
      QTest::qWait(60);
      QVERIFY(w.controller()->waitForIdle());
    }
    // The field still holds exactly what was typed, and the problem has that value.
    QCOMPARE(eps->cleanText(), typed);
    // The last pause's commit comes from the event loop: on a loaded machine, after the wait.
    QTRY_COMPARE(attr_float(w.controller()->problem(), "epsilon"), want);
    QTest::keyClick(eps, Qt::Key_Return);
    QVERIFY(w.controller()->waitForIdle());
    QCOMPARE(attr_float(w.controller()->problem(), "epsilon"), want);
    QCOMPARE(eps->valueFromText(eps->cleanText()), want);
    QCOMPARE(attr_float(w.controller()->outcome()->problem, "epsilon"), want);
  }
  // Typed fast, with no pause: Enter commits the whole value.
  eps->selectAll();
  QTest::keyClicks(eps, QStringLiteral("0.0002"));
  QTest::keyClick(eps, Qt::Key_Return);
  QCOMPARE(attr_float(w.controller()->problem(), "epsilon"), 2e-4);
  QVERIFY(w.controller()->waitForIdle());
}

void WindowFormTest::problemPanelKeepsItsWidth() {
  MainWindow w;
  w.controller()->setProblem(test::small_sample());
  w.resize(1250, 850);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  auto* diff = w.findChild<DiffView*>();
  w.viewTabs()->setCurrentWidget(diff);
  diff->setReferenceFile(
      dir_.filePath(QStringLiteral("some/expected_outputs_with_a_long_name.npz")));
  QTest::qWait(50);
  // The form's controls fit: the dock is at least as wide as they need, and usable.
  QVERIFY2(w.problemDock()->width() >= w.form()->minimumSizeHint().width(),
           qPrintable(QStringLiteral("%1 < %2")
                          .arg(w.problemDock()->width())
                          .arg(w.form()->minimumSizeHint().width())));
  QVERIFY(w.problemDock()->width() >= 250);
  QVERIFY(w.problemDock()->isVisible());
  QVERIFY(w.form()->opBox()->width() >= 100);
  QVERIFY(diff->referenceFileEdit()->isVisible());
  // No tab asks for more than the window has.
  for (int i = 0; i < w.viewTabs()->count(); ++i) {
    w.viewTabs()->setCurrentIndex(i);
    QTest::qWait(20);
    QVERIFY2(w.width() <= 1250 && w.minimumSizeHint().width() <= 1250,
             qPrintable(QStringLiteral("tab %1: %2 px, at least %3 px")
                            .arg(w.viewTabs()->tabText(i))
                            .arg(w.width())
                            .arg(w.minimumSizeHint().width())));
  }
  w.viewTabs()->setCurrentWidget(diff);
  // A problem without a required attr shows it as not set, not as 0 or unchecked.
  Problem g = w.controller()->problem();
  g.op = "BatchNormWithGlobalNormalizationGrad";
  g.attrs.clear();
  w.controller()->setProblem(g);
  auto* scale_after =
      qobject_cast<QCheckBox*>(w.form()->attrEditor(QStringLiteral("scale_after_normalization")));
  QVERIFY(scale_after);
  QCOMPARE(scale_after->checkState(), Qt::PartiallyChecked);
  auto* veps =
      qobject_cast<QDoubleSpinBox*>(w.form()->attrEditor(QStringLiteral("variance_epsilon")));
  QVERIFY(veps);
  QCOMPARE(veps->text(), QStringLiteral("not set"));
  scale_after->click();
  QVERIFY(attr_bool(w.controller()->problem(), "scale_after_normalization"));
  QCOMPARE(scale_after->checkState(), Qt::Checked);
  // The panels can be toggled from the View menu.
  QStringList toggles;
  for (QAction* a : w.viewMenu()->actions())
    if (a->isCheckable()) toggles << a->text();
  QVERIFY2(toggles.size() >= 2, qPrintable(toggles.join(',')));
  QAction* problem_toggle = w.problemDock()->toggleViewAction();
  QVERIFY(w.viewMenu()->actions().contains(problem_toggle));
  problem_toggle->trigger();
  QVERIFY(!w.problemDock()->isVisible());
  problem_toggle->trigger();
  QVERIFY(w.problemDock()->isVisible());
  QVERIFY(w.controller()->waitForIdle());
}

#include "window_form_test.moc"
