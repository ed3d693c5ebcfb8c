// The Diff tab in the main window offscreen: what it shows goes with the comparison it belongs
// to, an applied fix is said only while it stands, and opening another layer lets what is shown
// go before it is read.
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLabel>
#include <QLineSeries>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "backend_picker.h"
#include "diff/cause_model.h"
#include "diff/channel_error_model.h"
#include "diff/diff_view.h"
#include "diff/marked_heatmap.h"
#include "diff/verdict_model.h"
#include "diff/worst_elements_model.h"
#include "engine/engine.h"
#include "io/npz.h"
#include "main_window.h"
#include "notes_model.h"
#include "ops/problem_io.h"
#include "ops/sample.h"
#include "problem_controller.h"
#include "qt_suites.h"
#include "views_test_util.h"
#include "window_test_util.h"

using namespace bnscope;

class WindowDiffTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void choosingAFileReferenceClearsEveryView();
  void appliedFixIsSaidWhileItStands();
  void warningsDoNotUndoAFixThatPassed();
  void openingAnotherLayerLetsTheShownOneGo();
  void anAppliedLayoutFixAgreesWithTheSavedOutputs();

 private:
  // Outputs as a cuDNN-style run gives them for problem: reserve_space_2 read as inv_std.
  QString gpuLikeOutputs(const Problem& problem);
  QTemporaryDir dir_;
};
BNSCOPE_QT_SUITE(WindowDiffTest);

namespace {

int chart_points(DiffView* diff) {
  int n = 0;
  for (QAbstractSeries* s : diff->chartView()->chart()->series())
    if (auto* xy = qobject_cast<QXYSeries*>(s)) n += xy->count();
  return n;
}

QStringList warning_lines(MainWindow& w) {
  QStringList lines;
  for (int i = 0; i < w.notes()->rowCount(); ++i) lines << w.notes()->index(i, 0).data().toString();
  return lines;
}

DiffView* shown_diff(MainWindow& w) {
  auto* diff = w.findChild<DiffView*>();
  w.viewTabs()->setCurrentWidget(diff);
  diff->setCandidates({QStringLiteral("cpu")});
  return diff;
}

}  // namespace

void WindowDiffTest::initTestCase() {
  QVERIFY(dir_.isValid());
  test::isolate_settings();
}

QString WindowDiffTest::gpuLikeOutputs(const Problem& problem) {
  Problem gpu_like = problem;
  gpu_like.convention = ReserveConvention::InvStd;
  std::vector<std::pair<std::string, Tensor>> members;
  for (const OutputTensor& o : run_problem(gpu_like, "cpu-reference").outputs)
    if (o.defined) members.emplace_back(o.name, o.tensor);
  const QString path = dir_.filePath(QStringLiteral("from_gpu.npz"));
  write_npz(path.toStdString(), members);
  return path;
}

// Outputs from file with no path yet: no comparison, so no sub-view keeps the numbers of the
// one before.
void WindowDiffTest::choosingAFileReferenceClearsEveryView() {
  MainWindow w;
  w.controller()->setProblem(test::small_sample());
  w.show();
  DiffView* diff = shown_diff(w);
  diff->setReferenceBackend(QStringLiteral("cpu-reference"));
  QVERIFY(diff->waitForIdle());
  QVERIFY(diff->verdictModel()->rowCount() > 0);
  QVERIFY(diff->channelModel()->rowCount() > 0);
  QVERIFY(chart_points(diff) > 0);
  QVERIFY(diff->heatmap()->slice().rows > 0);
  QComboBox* reference = diff->referencePicker()->comboBox();
  reference->setCurrentIndex(reference->findData(QStringLiteral("file")));
  QVERIFY(diff->referenceFileEdit()->text().isEmpty());
  QVERIFY(diff->waitForIdle());
  QCOMPARE(diff->verdictModel()->rowCount(), 0);
  QCOMPARE(diff->channelModel()->rowCount(), 0);
  QCOMPARE(chart_points(diff), 0);
  QCOMPARE(diff->worstModel()->rowCount(), 0);
  QCOMPARE(diff->heatmap()->slice().rows, 0);
  QVERIFY(diff->heatmap()->marks().isEmpty());
  QCOMPARE(diff->causeModel()->rowCount(), 0);
  QVERIFY(diff->chartView()->chart()->title().isEmpty());
}

// "Applied: ..." under Causes stays while the fix is what the problem holds and the reference
// is the one it was found against; set back, or compared with another reference, it goes.
void WindowDiffTest::appliedFixIsSaidWhileItStands() {
  const Problem problem = test::small_sample();
  const QString expected = gpuLikeOutputs(problem);
  for (const bool revert : {true, false}) {
    MainWindow w;
    w.controller()->setProblem(problem);
    w.show();
    DiffView* diff = shown_diff(w);
    diff->setReferenceFile(expected);
    QVERIFY(diff->waitForIdle());
    QVERIFY(diff->causeModel()->rowCount() > 0);
    QCOMPARE(diff->causeModel()->causes().front().code, std::string("reserve-convention"));
    QVERIFY(diff->applyFix(0));
    QVERIFY(diff->waitForIdle());
    QCOMPARE(w.controller()->problem().convention, ReserveConvention::InvStd);
    QVERIFY(diff->outcome() && diff->outcome()->report().passed());
    QVERIFY2(diff->fixStatus()->text().startsWith(QStringLiteral("Applied")),
             qPrintable(diff->fixStatus()->text()));
    if (revert)
      w.controller()->setConvention(ReserveConvention::Variance);
    else
      diff->setReferenceBackend(QStringLiteral("cpu-reference"));
    QVERIFY(diff->waitForIdle());
    QVERIFY2(diff->fixStatus()->text().isEmpty(), qPrintable(diff->fixStatus()->text()));
  }
}

// The fix set the convention to inv_std and the comparison passed: the Warnings panel does not
// tell the person to set it back.
void WindowDiffTest::warningsDoNotUndoAFixThatPassed() {
  const Problem problem = test::small_sample();
  MainWindow w;
  w.controller()->setProblem(problem);
  w.show();
  DiffView* diff = shown_diff(w);
  diff->setReferenceFile(gpuLikeOutputs(problem));
  QVERIFY(diff->waitForIdle());
  QVERIFY(diff->applyFix(0));
  QVERIFY(diff->waitForIdle());
  QVERIFY(w.controller()->waitForIdle());
  QVERIFY(diff->outcome() && diff->outcome()->report().passed());
  const QString notes = warning_lines(w).join(QLatin1Char('\n'));
  QVERIFY2(!notes.contains(QStringLiteral("set Reserve convention to variance")),
           qPrintable(notes));
  QVERIFY2(!notes.contains(QStringLiteral("--convention")), qPrintable(notes));
  // What the data looks like is still said, with why nothing is to be done about it.
  QVERIFY2(notes.contains(QStringLiteral("agree with from_gpu.npz as declared")),
           qPrintable(notes));
  if (qEnvironmentVariableIsSet("BNSCOPE_TEST_SHOT"))  // to look at it
    w.grab().save(qEnvironmentVariable("BNSCOPE_TEST_SHOT") + QStringLiteral("notes.png"));
}

// Every view lets the outcome and comparison shown go when another problem file starts being
// read: the two layers' outputs are never held at once, and the views say what is happening.
void WindowDiffTest::openingAnotherLayerLetsTheShownOneGo() {
  SampleSpec spec;
  spec.shape = {8, 64, 64, 320};  // read in the background
  spec.seed = 3;
  const QString big = dir_.filePath(QStringLiteral("next_layer.npz"));
  save_problem(big.toStdString(), random_problem(spec));
  MainWindow w;
  w.setClosePrompt([] { return 0x00800000; });  // QMessageBox::Discard
  w.controller()->setProblem(test::small_sample());
  w.show();
  DiffView* diff = shown_diff(w);
  diff->setReferenceBackend(QStringLiteral("cpu-reference"));
  QVERIFY(diff->waitForIdle());
  QVERIFY(w.controller()->waitForIdle());
  QVERIFY(diff->verdictModel()->rowCount() > 0);
  QVERIFY(diff->heatmap()->slice().rows > 0);  // the error heatmap reads both outputs
  std::weak_ptr<const RunOutcome> shown = w.controller()->outcome();
  std::weak_ptr<const DiffOutcome> compared = diff->outcome();
  QVERIFY(!shown.expired() && !compared.expired());

  w.openPath(big);
  QVERIFY(w.controller()->isLoading());
  QVERIFY(shown.expired());
  QVERIFY(compared.expired());
  QCOMPARE(diff->verdictModel()->rowCount(), 0);
  QCOMPARE(diff->heatmap()->slice().rows, 0);
  QVERIFY(w.controller()->waitForIdle(120000));
  QVERIFY(diff->waitForIdle());
  QVERIFY(w.controller()->outcome() && w.controller()->outcome()->ok());
  QVERIFY(diff->outcome() && diff->outcome()->ok());
  QVERIFY(diff->verdictModel()->rowCount() > 0);
}

// NCHW bytes declared NHWC, compared with the true problem's saved outputs: the layout cause's
// fix declares the same buffers NCHW, and the problem then agrees with the file.
void WindowDiffTest::anAppliedLayoutFixAgreesWithTheSavedOutputs() {
  SampleSpec spec;
  spec.shape = {4, 6, 6, 8};
  spec.format = DataFormat::NCHW;
  const Problem truth = random_problem(spec);
  std::vector<std::pair<std::string, Tensor>> members;
  for (const OutputTensor& o : run_problem(truth, "cpu-reference").outputs)
    if (o.defined) members.emplace_back(o.name, o.tensor);
  const QString path = dir_.filePath(QStringLiteral("nchw_truth_outputs.npz"));
  write_npz(path.toStdString(), members);
  Problem user = truth;
  user.attrs["data_format"] = std::string("NHWC");
  for (const char* name : {"x", "y_backprop"})
    user.inputs[name] = truth.inputs.at(name).reshaped(spec.shape);  // the same bytes
  MainWindow w;
  w.controller()->setProblem(user);
  w.show();
  DiffView* diff = shown_diff(w);
  diff->setReferenceFile(path);
  QVERIFY(w.controller()->waitForIdle());
  QVERIFY(diff->waitForIdle());
  QVERIFY(diff->outcome() && diff->outcome()->ok());
  QVERIFY(!diff->outcome()->result->passed());
  QVERIFY(!diff->outcome()->causes().empty());
  QCOMPARE(diff->outcome()->causes().front().code, std::string("layout-swapped"));
  const Tensor x = w.controller()->problem().inputs.at("x");
  QVERIFY(diff->applyFix(0));
  QVERIFY(w.controller()->waitForIdle());
  QVERIFY(diff->waitForIdle());
  QCOMPARE(attr_string(w.controller()->problem(), "data_format"), std::string("NCHW"));
  QVERIFY(w.controller()->problem().inputs.at("x").shares_storage_with(x));
  QVERIFY(diff->outcome() && diff->outcome()->ok());
  QVERIFY(diff->outcome()->result->passed());
}

#include "window_diff_test.moc"
