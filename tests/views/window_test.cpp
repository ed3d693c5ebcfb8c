// The main window offscreen: start-up, every control of the form, files, notes, closing, and a
// rendered screenshot.
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QMessageBox>
#include <QSlider>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <cstring>
#include <set>
#include <thread>

#include "backends/backend.h"
#include "channel_panel.h"
#include "channel_table_model.h"
#include "diff/diff_view.h"
#include "diff/verdict_model.h"
#include "heatmap_widget.h"
#include "input_panel.h"
#include "input_table_model.h"
#include "io/problem_io.h"
#include "main_window.h"
#include "notes_model.h"
#include "number_spin_box.h"
#include "ops/sample.h"
#include "problem_controller.h"
#include "problem_form.h"
#include "process_events.h"
#include "profile/phase_table_model.h"
#include "profile/profile_view.h"
#include "tensor/layout.h"
#include "tensor_browser.h"
#include "theme.h"
#include "views_test_util.h"

using namespace bnscope;

namespace {

using test::HoldingBackend;

}  // namespace

class WindowTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void startsWithTheSample();
  void exportsTheReportOfTheCurrentProblem();
  void formControlsRerunAndMatchTheEngine();
  void epsilonSliderIsLogarithmic();
  void typingEpsilonKeepsEveryKeystroke();
  void openingAnotherProblemLeavesNothingStale();
  void problemPanelKeepsItsWidth();
  void opensFilesAndFlags();
  void badFileKeepsThePreviousProblem();
  void runErrorsAreShownNotThrown();
  void everyValidationProblemIsShownAtOnce();
  void opSwitchShowsAllProblemsAtOnce();
  void notesJumpToTheirSubject();
  void inputsTabSaysWhatTensorFlowWouldReject();
  void tensorBrowserShowsSlices();
  void asksBeforeClosingWithUnsavedChanges();
  void rendersANonBlankScreenshot();
  void darkThemeWhenAsked();
  void escapeKeepsTheViewsAndSaysTheyAreStale();
  void layoutChangeInTheWindowRewritesInPlace();

 private:
  void expectTableIsEngine(MainWindow& w);
  QTemporaryDir dir_;
};

void WindowTest::initTestCase() {
  QVERIFY(dir_.isValid());
  QCoreApplication::setOrganizationName(QStringLiteral("bnscope-test"));
}

void WindowTest::expectTableIsEngine(MainWindow& w) {
  QVERIFY(w.controller()->waitForIdle());
  const test::Expected want = test::reference_answer(w.controller()->problem());
  ChannelTableModel* m = w.channels()->model();
  if (!want.stats) {
    QCOMPARE(m->rowCount(), 0);
    QVERIFY(w.runStatus()->text().contains(QString::fromStdString(want.error)));
    return;
  }
  QCOMPARE(m->rowCount(), static_cast<int>(want.stats->channels));
  for (const ChannelColumn& col : want.stats->columns) {
    const int mc = m->columnOf(QString::fromStdString(col.name));
    QVERIFY2(mc > 0, col.name.c_str());
    for (int ch = 0; ch < m->rowCount(); ++ch) {
      const double got = m->index(ch, mc).data(ChannelTableModel::SortRole).toDouble();
      const double exp = col.values[static_cast<std::size_t>(ch)];
      QVERIFY2(test::close_to_reference(got, exp, col.is_count),
               qPrintable(QStringLiteral("%1 channel %2: %3 vs %4")
                              .arg(QString::fromStdString(col.name))
                              .arg(ch)
                              .arg(got)
                              .arg(exp)));
    }
  }
}

void WindowTest::startsWithTheSample() {
  MainWindow w;
  QString error;
  QVERIFY2(w.openFromArguments({}, &error), qPrintable(error));
  QCOMPARE(w.controller()->problem().op, std::string("FusedBatchNormGradV3"));
  QCOMPARE(attr_string(w.controller()->problem(), "data_format"), std::string("NHWC"));
  QVERIFY(attr_bool(w.controller()->problem(), "is_training"));
  QCOMPARE(w.controller()->backend(), std::string("cpu"));
  expectTableIsEngine(w);
  QStringList tabs;
  for (int i = 0; i < w.viewTabs()->count(); ++i) tabs << w.viewTabs()->tabText(i).remove('&');
  QVERIFY2(tabs.contains("Diff") && tabs.contains("Profile"), qPrintable(tabs.join(',')));
}

void WindowTest::exportsTheReportOfTheCurrentProblem() {
  MainWindow w;
  QString error;
  QVERIFY2(w.openFromArguments({}, &error), qPrintable(error));
  QTemporaryDir tmp;
  // The folder need not exist yet.
  const QString dir = QDir(tmp.path()).filePath(QStringLiteral("new/report"));
  ExportResult res = w.exportReportTo(dir);
  QVERIFY2(res.ok, qPrintable(res.error));
  for (const char* f : {"report.html", "report.json", "report.csv"})
    QVERIFY2(QFileInfo(QDir(dir).filePath(f)).size() > 0, f);
  // Nothing profiled: no trace.json rather than an empty one, and the result says why.
  QVERIFY(!QFileInfo::exists(QDir(dir).filePath(QStringLiteral("trace.json"))));
  QVERIFY(res.skipped.join(QString()).contains(QStringLiteral("Profile")));
  auto* profile = w.findChild<ProfileView*>();
  QVERIFY(profile);
  profile->setCopyProbe([](int, std::size_t) { return 20.0; });
  profile->setReps(2);
  profile->setBackends({QStringLiteral("cpu")});
  profile->run();
  QVERIFY(profile->waitForIdle());
  res = w.exportReportTo(dir);
  QVERIFY2(res.ok, qPrintable(res.error));
  QVERIFY(QFileInfo(QDir(dir).filePath(QStringLiteral("trace.json"))).size() > 0);
  res = w.exportReportTo(QStringLiteral("/proc/no/such/dir"));
  QVERIFY(!res.ok);
  QVERIFY(!res.error.isEmpty());
}

void WindowTest::formControlsRerunAndMatchTheEngine() {
  MainWindow w;
  w.controller()->setProblem(test::small_sample());
  expectTableIsEngine(w);
  ProblemForm* f = w.form();

  auto* training = qobject_cast<QCheckBox*>(f->attrEditor(QStringLiteral("is_training")));
  QVERIFY(training);
  training->click();
  QVERIFY(!attr_bool(w.controller()->problem(), "is_training"));
  expectTableIsEngine(w);
  training->click();

  auto* eps = qobject_cast<QDoubleSpinBox*>(f->attrEditor(QStringLiteral("epsilon")));
  QVERIFY(eps);
  eps->setValue(0.02);
  QCOMPARE(attr_float(w.controller()->problem(), "epsilon"), 0.02);
  expectTableIsEngine(w);

  auto* format = qobject_cast<QComboBox*>(f->attrEditor(QStringLiteral("data_format")));
  QVERIFY(format);
  f->convertLayoutBox()->setChecked(true);
  format->setCurrentText(QStringLiteral("NCHW"));
  QCOMPARE(w.controller()->problem().inputs.at("x").shape(), (Shape{2, 5, 3, 4}));
  expectTableIsEngine(w);
  format->setCurrentText(QStringLiteral("NHWC"));

  f->conventionBox()->setCurrentIndex(1);
  QCOMPARE(w.controller()->problem().convention, ReserveConvention::InvStd);
  expectTableIsEngine(w);
  f->conventionBox()->setCurrentIndex(0);

  for (int i = 1; i < f->dtypeBox()->count(); ++i) {
    f->dtypeBox()->setCurrentIndex(i);
    QVERIFY(w.controller()->problem().dtype.has_value());
    expectTableIsEngine(w);
  }
  f->dtypeBox()->setCurrentIndex(0);

  for (int i = 0; i < f->backendBox()->count(); ++i) {
    f->backendBox()->setCurrentIndex(i);
    QCOMPARE(w.controller()->backend(), f->backendBox()->itemText(i).toStdString());
    expectTableIsEngine(w);
  }
  f->backendBox()->setCurrentText(QStringLiteral("cpu"));

  for (int i = 0; i < f->opBox()->count(); ++i) {
    f->opBox()->setCurrentIndex(i);
    QCOMPARE(w.controller()->problem().op, f->opBox()->itemText(i).toStdString());
    expectTableIsEngine(w);
    // The attr editors follow the op.
    for (const AttrSpec& a : find_op(w.controller()->problem().op)->attrs)
      QVERIFY(f->attrEditor(QString::fromUtf8(a.name.data(), a.name.size())));
  }
}

void WindowTest::epsilonSliderIsLogarithmic() {
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

void WindowTest::typingEpsilonKeepsEveryKeystroke() {
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
    QCOMPARE(attr_float(w.controller()->problem(), "epsilon"), want);
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

void WindowTest::openingAnotherProblemLeavesNothingStale() {
  const QString first = dir_.filePath(QStringLiteral("first.npz"));
  const QString second = dir_.filePath(QStringLiteral("second.npz"));
  save_problem(first.toStdString(), test::small_sample(11));
  Problem other = test::small_sample(12);
  other.attrs["epsilon"] = 0.25;
  save_problem(second.toStdString(), other);
  MainWindow w;
  w.resize(1400, 900);
  QVERIFY(w.openPath(first));
  QVERIFY(w.windowTitle().contains(QStringLiteral("first.npz")));
  w.show();
  auto* diff = w.findChild<DiffView*>();
  auto* profile = w.findChild<ProfileView*>();
  QVERIFY(diff && profile);
  w.viewTabs()->setCurrentWidget(diff);
  QVERIFY(diff->waitForIdle());
  QVERIFY(diff->currentOutcome());
  QVERIFY(diff->verdictModel()->rowCount() > 0);
  profile->setCopyProbe([](int, std::size_t) { return 20.0; });
  profile->setReps(2);
  profile->setBackends({QStringLiteral("cpu")});
  profile->run();
  QVERIFY(profile->waitForIdle());
  QVERIFY(profile->phaseModel()->rowCount() > 0);

  // Unsaved edits: Open asks first, and Cancel keeps them.
  int asked = 0;
  w.setClosePrompt([&] {
    ++asked;
    return int(QMessageBox::Cancel);
  });
  w.controller()->setAttr("epsilon", 0.125);
  QVERIFY(!w.openPath(second));
  QCOMPARE(asked, 1);
  QCOMPARE(attr_float(w.controller()->problem(), "epsilon"), 0.125);
  w.setClosePrompt([&] {
    ++asked;
    return int(QMessageBox::Discard);
  });
  QVERIFY(w.openPath(second));
  QCOMPARE(asked, 2);
  QCOMPARE(attr_float(w.controller()->problem(), "epsilon"), 0.25);
  // Every view belongs to the new problem or is empty.
  QVERIFY(w.windowTitle().contains(QStringLiteral("second.npz")));
  QVERIFY(!w.windowTitle().contains(QStringLiteral("first.npz")));
  QCOMPARE(profile->phaseModel()->rowCount(), 0);
  QVERIFY(!profile->profiledRevision());
  QVERIFY(diff->waitForIdle());
  const auto out = diff->currentOutcome();
  QVERIFY(out);  // the Diff tab is shown: it compared the new problem
  QCOMPARE(attr_float(out->problem, "epsilon"), 0.25);
  expectTableIsEngine(w);
  QVERIFY(w.recentFiles().value(0).endsWith(QStringLiteral("second.npz")));

  // Open sample names the window after it, not after the file before.
  QVERIFY(w.controller()->path().endsWith(QStringLiteral("second.npz")));
  w.controller()->setProblem(test::small_sample(13));
  QVERIFY(!w.windowTitle().contains(QStringLiteral("second.npz")));
  QVERIFY(w.controller()->waitForIdle());
}

void WindowTest::problemPanelKeepsItsWidth() {
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

void WindowTest::opensFilesAndFlags() {
  const QString path = dir_.filePath(QStringLiteral("p.npz"));
  Problem p = test::small_sample(5);
  p.attrs["epsilon"] = 0.0625;
  save_problem(path.toStdString(), p);
  MainWindow w;
  QString error;
  QVERIFY2(w.openFromArguments({path}, &error), qPrintable(error));
  QCOMPARE(attr_float(w.controller()->problem(), "epsilon"), 0.0625);
  QVERIFY(w.windowTitle().contains(QStringLiteral("p.npz")));
  expectTableIsEngine(w);

  MainWindow v;
  QVERIFY2(v.openFromArguments({QStringLiteral("--op"), QStringLiteral("FusedBatchNormGradV2"),
                                QStringLiteral("--inputs"), path, QStringLiteral("--attr"),
                                QStringLiteral("epsilon=0.5")},
                               &error),
           qPrintable(error));
  QCOMPARE(v.controller()->problem().op, std::string("FusedBatchNormGradV2"));
  QCOMPARE(attr_float(v.controller()->problem(), "epsilon"), 0.5);
  expectTableIsEngine(v);

  MainWindow u;
  QVERIFY(!u.openFromArguments({QStringLiteral("--op"), QStringLiteral("NoSuchOp")}, &error));
  QVERIFY(error.contains(QStringLiteral("NoSuchOp")));
}

void WindowTest::badFileKeepsThePreviousProblem() {
  MainWindow w;
  w.controller()->setProblem(test::small_sample());
  QVERIFY(w.controller()->waitForIdle());
  const auto x = w.controller()->problem().inputs.at("x").to_doubles();
  const int rows = w.channels()->model()->rowCount();
  QFile bad(dir_.filePath(QStringLiteral("broken.npz")));
  QVERIFY(bad.open(QIODevice::WriteOnly));
  bad.write("this is not a zip archive");
  bad.close();
  QVERIFY(!w.openPath(bad.fileName()));
  QVERIFY(!w.lastError().isEmpty());
  QVERIFY(w.findChild<QMessageBox*>());  // the error is shown, not swallowed
  QVERIFY(!w.controller()->isRunning());
  QCOMPARE(w.controller()->problem().inputs.at("x").to_doubles(), x);
  QCOMPARE(w.channels()->model()->rowCount(), rows);
}

void WindowTest::runErrorsAreShownNotThrown() {
  MainWindow w;
  Problem p = test::small_sample();
  p.inputs["scale"] = Tensor(DType::F32, {2});  // x has 5 channels
  w.controller()->setProblem(p);
  QVERIFY(w.controller()->waitForIdle());
  const auto out = w.controller()->outcome();
  QVERIFY(!out->ok());
  QVERIFY(!out->error.isEmpty());
  QCOMPARE(w.runStatus()->text(), out->error);
  QCOMPARE(w.channels()->model()->rowCount(), 0);
  QVERIFY(w.notes()->index(0, 0).data().toString().contains(out->error));
  // The input picker puts the message on the row it is about.
  InputPanel* in = w.inputs();
  const int row = in->model()->rowOf(QStringLiteral("scale"));
  QVERIFY(in->model()->index(row, 0).data(InputTableModel::ProblemRole).toBool());
  QVERIFY(in->validationLabel()->text().contains(out->error.toHtmlEscaped()));
}

// Three independent mistakes: all three in their rows, in the label and in the warnings, the first
// being the error the engine stops at (the CLI's message).
void WindowTest::everyValidationProblemIsShownAtOnce() {
  MainWindow w;
  Problem p = test::small_sample();                          // x has 5 channels
  p.inputs["scale"] = Tensor(DType::F32, {2});               // wrong count
  p.inputs["reserve_space_1"] = Tensor(DType::F32, {5, 1});  // wrong rank
  p.inputs["reserve_space_2"] = Tensor(DType::F32, {3});     // wrong count
  w.controller()->setProblem(p);
  QVERIFY(w.controller()->waitForIdle());
  const auto out = w.controller()->outcome();
  QVERIFY(!out->ok());
  const std::vector<ValidationProblem> all = validation_problems(p);
  QCOMPARE(all.size(), std::size_t{3});
  QCOMPARE(QString::fromStdString(all.front().message), out->error);
  InputTableModel* m = w.inputs()->model();
  for (const ValidationProblem& q : all) {
    const int row = m->rowOf(QString::fromStdString(q.subject));
    QVERIFY2(row >= 0, q.subject.c_str());
    QVERIFY2(m->index(row, 0).data(InputTableModel::ProblemRole).toBool(), q.subject.c_str());
    QCOMPARE(m->index(row, InputTableModel::Status).data().toString(),
             QString::fromStdString(q.message));
    QVERIFY2(w.inputs()->validationLabel()->text().contains(
                 QString::fromStdString(q.message).toHtmlEscaped()),
             qPrintable(w.inputs()->validationLabel()->text()));
  }
  QVERIFY(w.inputs()->validationLabel()->text().contains(QStringLiteral("3 problems")));
  QVERIFY(!m->index(m->rowOf(QStringLiteral("x")), 0).data(InputTableModel::ProblemRole).toBool());
  // The warnings list them first, each pointing at its input; the status bar keeps the first.
  for (int i = 0; i < 3; ++i) {
    const QModelIndex row = w.notes()->index(i, 0);
    QVERIFY(row.data().toString().contains(QString::fromStdString(all[i].message)));
    QCOMPARE(row.data(NotesModel::SubjectRole).toString(), QString::fromStdString(all[i].subject));
  }
  QCOMPARE(w.runStatus()->text(), out->error);
  // The Channels tab, which cannot show channels, names the first and points to the rest.
  const QString channels = w.channels()->statusLabel()->text();
  QVERIFY2(channels.contains(out->error.toHtmlEscaped()), qPrintable(channels));
  QVERIFY2(channels.contains(QStringLiteral("2 more problems")), qPrintable(channels));
  // Fixing one leaves the other two, still all shown.
  Problem fixed = p;
  fixed.inputs["scale"] = Tensor(DType::F32, {5});
  w.controller()->editProblem(fixed);
  QVERIFY(w.controller()->waitForIdle());
  QVERIFY(w.inputs()->validationLabel()->text().contains(QStringLiteral("2 problems")));
  QVERIFY(
      !m->index(m->rowOf(QStringLiteral("scale")), 0).data(InputTableModel::ProblemRole).toBool());
  w.controller()->markSaved();
}

// After an op switch the carried inputs that do not fit are all named at once, not one per run.
void WindowTest::opSwitchShowsAllProblemsAtOnce() {
  MainWindow w;
  Problem p = test::small_sample();  // x has 5 channels
  p.inputs["scale"] = Tensor(DType::F32, {2});
  p.inputs["reserve_space_2"] = Tensor(DType::F32, {3});
  w.controller()->setProblem(p);
  QVERIFY(w.controller()->waitForIdle());
  const int global =
      w.form()->opBox()->findText(QStringLiteral("BatchNormWithGlobalNormalizationGrad"));
  QVERIFY(global >= 0);
  w.form()->opBox()->setCurrentIndex(global);
  QVERIFY(w.controller()->waitForIdle());
  QCOMPARE(w.controller()->problem().op, std::string("BatchNormWithGlobalNormalizationGrad"));
  InputTableModel* m = w.inputs()->model();
  // scale went to gamma and reserve_space_2 to v: both wrong, both shown.
  for (const char* name : {"gamma", "v"})
    QVERIFY2(m->index(m->rowOf(QString::fromLatin1(name)), 0)
                 .data(InputTableModel::ProblemRole)
                 .toBool(),
             name);
  for (const char* name : {"t", "backprop", "m"})
    QVERIFY2(!m->index(m->rowOf(QString::fromLatin1(name)), 0)
                  .data(InputTableModel::ProblemRole)
                  .toBool(),
             name);
  const QString label = w.inputs()->validationLabel()->text();
  QVERIFY2(label.contains(QStringLiteral("2 problems")), qPrintable(label));
  QVERIFY2(label.contains(w.controller()->outcome()->error.toHtmlEscaped()), qPrintable(label));
  QVERIFY(w.notes()->index(1, 0).data().toString().startsWith(QStringLiteral("Error: ")));
  w.controller()->markSaved();
}

void WindowTest::notesJumpToTheirSubject() {
  MainWindow w;
  w.controller()->setProblem(test::small_sample());
  QVERIFY(w.controller()->waitForIdle());
  w.notes()->setNotes({{NoteKind::Warning, "c", "channel note", "", 3},
                       {NoteKind::Warning, "s", "about scale", "scale", -1},
                       {NoteKind::Warning, "o", "about dx", "x_backprop", -1},
                       {NoteKind::TfWouldReject, "r", "y_backprop has dtype half", "", -1},
                       {NoteKind::Info, "e", "epsilon is tiny", "epsilon", -1}});
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  QListView* v = w.notesView();
  auto click = [&](int row) {
    QTest::mouseClick(v->viewport(), Qt::LeftButton, {},
                      v->visualRect(w.notes()->index(row, 0)).center());
  };
  click(0);
  QCOMPARE(w.viewTabs()->currentWidget(), static_cast<QWidget*>(w.channels()));
  QCOMPARE(w.channels()->currentChannel(), 3);
  click(1);
  QCOMPARE(w.viewTabs()->currentWidget(), static_cast<QWidget*>(w.inputs()));
  QCOMPARE(w.inputs()->selectedInput(), QStringLiteral("scale"));
  if (w.controller()->outcome()->ok()) {
    click(2);
    QCOMPARE(w.viewTabs()->currentWidget(), static_cast<QWidget*>(w.browser()));
    QCOMPARE(w.browser()->tensorBox()->currentText(), QStringLiteral("output x_backprop"));
  }
  // A note without a subject selects the input its message names; one about an attr focuses
  // the attr's editor.
  click(3);
  QCOMPARE(w.viewTabs()->currentWidget(), static_cast<QWidget*>(w.inputs()));
  QCOMPARE(w.inputs()->selectedInput(), QStringLiteral("y_backprop"));
  click(4);
  QTRY_VERIFY(w.form()->attrEditor(QStringLiteral("epsilon"))->hasFocus());
  w.controller()->markSaved();
}

void WindowTest::inputsTabSaysWhatTensorFlowWouldReject() {
  MainWindow w;
  Problem p = test::small_sample();
  p.inputs["scale"] = p.inputs.at("scale").to(DType::F16);  // V3 takes float statistics
  w.controller()->setProblem(p);
  QVERIFY(w.controller()->waitForIdle());
  QVERIFY2(w.controller()->outcome()->ok(), qPrintable(w.controller()->outcome()->error));
  InputTableModel* m = w.inputs()->model();
  const QString scale =
      m->index(m->rowOf(QStringLiteral("scale")), InputTableModel::Status).data().toString();
  QVERIFY2(!scale.startsWith(QStringLiteral("ok")), qPrintable(scale));
  QVERIFY2(w.inputs()->validationLabel()->text().contains(QStringLiteral("Runs here")),
           qPrintable(w.inputs()->validationLabel()->text()));
}

void WindowTest::tensorBrowserShowsSlices() {
  MainWindow w;
  const Problem p = test::small_sample();
  w.controller()->setProblem(p);
  QVERIFY(w.controller()->waitForIdle());
  TensorBrowser* b = w.browser();
  QVERIFY(b->showTensor(QStringLiteral("input x")));
  b->firstIndex()->setValue(1);
  b->secondIndex()->setValue(4);
  const Slice2D& s = b->heatmap()->slice();
  QCOMPARE(s.rows, 3);
  QCOMPARE(s.cols, 4);
  const Tensor& x = p.inputs.at("x");  // NHWC [2,3,4,5]
  QCOMPARE(s.at(2, 3), x.get(((1 * 3 + 2) * 4 + 3) * 5 + 4));
  b->modeBox()->setCurrentIndex(1);
  QCOMPARE(b->heatmap()->slice().rows, 2);
  QCOMPARE(b->heatmap()->slice().cols, 5);
  // The readout follows the mouse.
  b->modeBox()->setCurrentIndex(0);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  w.viewTabs()->setCurrentWidget(b);
  HeatmapWidget* h = b->heatmap();
  int row = -1, col = -1;
  const QPoint centre = h->rect().center();
  QVERIFY(h->cellAt(centre, &row, &col));
  QTest::mouseMove(h, centre);
  QVERIFY(h->readout().contains(QString::number(h->slice().at(row, col), 'g', 7)));
}

void WindowTest::asksBeforeClosingWithUnsavedChanges() {
  MainWindow w;
  w.controller()->setProblem(test::small_sample());
  w.show();
  int asked = 0;
  w.setClosePrompt([&] {
    ++asked;
    return int(QMessageBox::Cancel);
  });
  QVERIFY(w.close());  // nothing changed: no question
  QCOMPARE(asked, 0);
  w.show();
  w.controller()->setAttr("epsilon", 0.3);
  QVERIFY(w.isWindowModified());
  QVERIFY(!w.close());
  QCOMPARE(asked, 1);
  QVERIFY(w.isVisible());
  w.setClosePrompt([] { return int(QMessageBox::Discard); });
  QVERIFY(w.close());
}

void WindowTest::rendersANonBlankScreenshot() {
  MainWindow w;
  QString error;
  QVERIFY2(w.openFromArguments({}, &error), qPrintable(error));
  w.resize(1280, 800);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  QVERIFY(w.controller()->waitForIdle());
  QTest::qWait(50);
  const QImage shot = w.grab().toImage();
  const QString path = dir_.filePath(QStringLiteral("main.png"));
  QVERIFY(shot.save(path));
  QImage back(path);
  QCOMPARE(back.size(), QSize(1280, 800));
  std::set<QRgb> colours;
  for (int y = 0; y < back.height(); y += 4)
    for (int x = 0; x < back.width(); x += 4) colours.insert(back.pixel(x, y));
  QVERIFY2(colours.size() > 50, qPrintable(QString::number(colours.size())));
  QVERIFY(w.saveViewPng(dir_.filePath(QStringLiteral("view.png"))));
  QVERIFY(!QImage(dir_.filePath(QStringLiteral("view.png"))).isNull());
}

void WindowTest::darkThemeWhenAsked() {
  auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
  qputenv("BNSCOPE_THEME", "light");
  QVERIFY(!apply_system_theme(*app));
  qputenv("BNSCOPE_THEME", "dark");
  QVERIFY(apply_system_theme(*app));
  MainWindow w;
  QVERIFY(w.palette().color(QPalette::Window).lightness() < 128);
  qunsetenv("BNSCOPE_THEME");
}

void WindowTest::escapeKeepsTheViewsAndSaysTheyAreStale() {
  BackendRegistry::instance().add(std::make_unique<HoldingBackend>());
  MainWindow w;
  w.show();
  w.activateWindow();
  QVERIFY(QTest::qWaitForWindowActive(&w));
  ProblemController* c = w.controller();
  c->setProblem(test::small_sample());
  QVERIFY(c->waitForIdle());
  QVERIFY(c->outcome()->ok());
  const int rows = w.channels()->model()->rowCount();
  QVERIFY(rows > 0);
  const QVariant first = w.channels()->model()->index(0, 1).data();

  HoldingBackend::started.store(false);
  c->setBackend("holding");
  QVERIFY(process_events_while([] { return !HoldingBackend::started.load(); }, 30000));
  QTest::keyClick(&w, Qt::Key_Escape);
  QVERIFY(c->waitForIdle());
  QVERIFY(c->isStale());
  // The channel table still shows the last good run, and the window says it is stale.
  QCOMPARE(w.channels()->model()->rowCount(), rows);
  QCOMPARE(w.channels()->model()->index(0, 1).data(), first);
  QVERIFY2(w.runStatus()->text().contains(QStringLiteral("stale")),
           qPrintable(w.runStatus()->text()));
}

QTEST_MAIN(WindowTest)
// No view of the window keeps its own handle on the inputs: a big layout change rewrites them in
// their own storage, and every view shows the run in the new layout afterwards.
void WindowTest::layoutChangeInTheWindowRewritesInPlace() {
  MainWindow w;
  w.show();
  ProblemController* c = w.controller();
  SampleSpec spec;
  spec.shape = {4, 64, 64, 160};  // two 10 MB x-shaped inputs: over kConvertInPlaceBytes
  c->setProblem(random_problem(spec));
  QVERIFY(c->waitForIdle(120000));
  QVERIFY(c->outcome()->ok());
  const Tensor& x0 = c->problem().inputs.at("x");
  Tensor original = Tensor::uninitialized(x0.dtype(), x0.shape());
  std::memcpy(original.raw(), x0.raw(), x0.nbytes());
  const void* storage = x0.raw();
  const int rows = w.channels()->model()->rowCount();

  c->setDataFormat(DataFormat::NCHW, /*convertData=*/true);
  QVERIFY(c->inputsInFlux());
  QVERIFY(c->waitForIdle(120000));
  const Tensor& x = c->problem().inputs.at("x");
  QCOMPARE(x.raw(), storage);
  const Tensor want = to_channels_first(original);
  QCOMPARE(x.shape(), want.shape());
  QVERIFY(std::memcmp(x.raw(), want.raw(), want.nbytes()) == 0);
  QVERIFY2(c->outcome()->ok(), qPrintable(c->outcome()->error));
  QCOMPARE(c->outcome()->revision, c->revision());
  QCOMPARE(w.channels()->model()->rowCount(), rows);
  QVERIFY(!c->isStale());
}

#include "window_test.moc"
