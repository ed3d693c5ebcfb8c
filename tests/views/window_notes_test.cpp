// The main window's notes offscreen: run errors shown, not thrown; every validation problem at
// once; notes that jump to their subject; what TensorFlow would reject.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QListView>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include "channel_panel.h"
#include "channel_table_model.h"
#include "input_panel.h"
#include "input_table_model.h"
#include "main_window.h"
#include "notes_model.h"
#include "number_spin_box.h"
#include "problem_controller.h"
#include "problem_form.h"
#include "qt_suites.h"
#include "tensor_browser.h"
#include "views_test_util.h"
#include "window_test_util.h"

using namespace bnscope;

namespace {

QStringList note_lines(MainWindow& w) {
  QStringList lines;
  for (int i = 0; i < w.notes()->rowCount(); ++i) lines << w.notes()->index(i, 0).data().toString();
  return lines;
}

}  // namespace

class WindowNotesTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void runErrorsAreShownNotThrown();
  void everyValidationProblemIsShownAtOnce();
  void opSwitchShowsAllProblemsAtOnce();
  void notesJumpToTheirSubject();
  void inputsTabSaysWhatTensorFlowWouldReject();
  void chosenDtypeIsSaidAsChosen();
};
BNSCOPE_QT_SUITE(WindowNotesTest);

void WindowNotesTest::initTestCase() {
  test::isolate_settings();
}

void WindowNotesTest::runErrorsAreShownNotThrown() {
  MainWindow w;
  Problem p = test::small_sample();
  p.inputs["scale"] = Tensor(DType::F32, {2});  // x has 5 channels
  w.controller()->setProblem(p);
  QVERIFY(w.controller()->waitForIdle());
  const auto out = w.controller()->outcome();
  QVERIFY(!out->ok());
  QVERIFY(!out->error.empty());
  QCOMPARE(w.runStatus()->text(), QString::fromStdString(out->error));
  QCOMPARE(w.channels()->model()->rowCount(), 0);
  QVERIFY(w.notes()->index(0, 0).data().toString().contains(QString::fromStdString(out->error)));
  // The input picker puts the message on the row it is about.
  InputPanel* in = w.inputs();
  const int row = in->model()->rowOf(QStringLiteral("scale"));
  QVERIFY(in->model()->index(row, 0).data(InputTableModel::ProblemRole).toBool());
  QVERIFY(
      in->validationLabel()->text().contains(QString::fromStdString(out->error).toHtmlEscaped()));
}

// Three independent mistakes: all three in their rows, in the label and in the warnings, the first
// being the error the engine stops at (the CLI's message).
void WindowNotesTest::everyValidationProblemIsShownAtOnce() {
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
  QCOMPARE(QString::fromStdString(all.front().message), QString::fromStdString(out->error));
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
  QCOMPARE(w.runStatus()->text(), QString::fromStdString(out->error));
  // The Channels tab, which cannot show channels, names the first and points to the rest.
  const QString channels = w.channels()->statusLabel()->text();
  QVERIFY2(channels.contains(QString::fromStdString(out->error).toHtmlEscaped()),
           qPrintable(channels));
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
void WindowNotesTest::opSwitchShowsAllProblemsAtOnce() {
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
  QVERIFY2(label.contains(QString::fromStdString(w.controller()->outcome()->error).toHtmlEscaped()),
           qPrintable(label));
  QVERIFY(w.notes()->index(1, 0).data().toString().startsWith(QStringLiteral("Error: ")));
  w.controller()->markSaved();
}

void WindowNotesTest::notesJumpToTheirSubject() {
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

void WindowNotesTest::inputsTabSaysWhatTensorFlowWouldReject() {
  MainWindow w;
  Problem p = test::small_sample();
  p.inputs["scale"] = p.inputs.at("scale").to(DType::F16);  // V3 takes float statistics
  w.controller()->setProblem(p);
  QVERIFY(w.controller()->waitForIdle());
  QVERIFY2(w.controller()->outcome()->ok(), w.controller()->outcome()->error.c_str());
  InputTableModel* m = w.inputs()->model();
  const QString scale =
      m->index(m->rowOf(QStringLiteral("scale")), InputTableModel::Status).data().toString();
  QVERIFY2(!scale.startsWith(QStringLiteral("ok")), qPrintable(scale));
  QVERIFY2(w.inputs()->validationLabel()->text().contains(QStringLiteral("Runs here")),
           qPrintable(w.inputs()->validationLabel()->text()));
}

// float16 in the dtype box converts the float32 sample: the Warnings panel says the person chose
// it, and blames TensorFlow for nothing.
void WindowNotesTest::chosenDtypeIsSaidAsChosen() {
  MainWindow w;
  w.controller()->setProblem(test::small_sample());
  QComboBox* dtype = w.form()->dtypeBox();
  dtype->setCurrentIndex(dtype->findText(QStringLiteral("float16")));
  QCOMPARE(w.controller()->problem().dtype, std::optional<DType>(DType::F16));
  QVERIFY(w.controller()->waitForIdle());
  const QString all = note_lines(w).join(QLatin1Char('\n'));
  QVERIFY2(all.contains(QStringLiteral("converted x from float32 to float16 as chosen")),
           qPrintable(all));
  QVERIFY2(!all.contains(QStringLiteral("TensorFlow would reject")), qPrintable(all));
}

#include "window_notes_test.moc"
