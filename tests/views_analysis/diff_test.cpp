// The Diff tab offscreen: cpu against cpu-reference on the sample (verdict and tables equal
// core's own comparison), an injected error read from a file (its coordinates surface in the
// table and on the heatmap), tolerance edits, bad files, and the report export.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <sstream>

#include "analysis_tabs.h"
#include "analysis_test_util.h"
#include "backend_picker.h"
#include "diff/cause_fix.h"
#include "diff/cause_model.h"
#include "diff/channel_error_model.h"
#include "diff/diff_view.h"
#include "diff/marked_heatmap.h"
#include "diff/verdict_model.h"
#include "diff/worst_elements_model.h"
#include "engine/engine.h"
#include "io/npz.h"
#include "ops/bn_math.h"
#include "ops/prepared.h"
#include "ops/problem_io.h"
#include "ops/sample.h"
#include "problem_controller.h"
#include "profile_tab/profile_view.h"
#include "report/writers.h"
#include "report_export.h"

using namespace bnscope;

class DiffViewTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }
  void cpuAgreesWithTheReferenceLikeCoreSays();
  void injectedErrorIsFoundAndMarked();
  void editedToleranceChangesTheVerdict();
  void badReferenceFileIsReportedNotThrown();
  void wrongShapeSaysWhyAndEnterCompares();
  void applyingTheFixMakesTheErrorDrop();
  void epsilonFixUsesCoresMinimum();
  void fittedEpsilonFixMakesTheDiffPass();
  void baselineComparesLaterRuns();
  void problemChangeClearsTheVerdict();
  void referenceChangeComparesAgainOrClears();
  void aProblemFileCarryingOutputsIsComparedWithThem();
  void passSaysWhereBothSidesAreNaN();
  void theMaxUlpElementIsListed();
  void tabsAreAddedAndTheReportIsExported();

 private:
  QString writeShiftedReference(const Problem& p, const char* file, std::int64_t flat,
                                double delta);
  QTemporaryDir dir_;
};

// cpu-reference's outputs with x_backprop[flat] moved by delta, written as an expected-outputs
// file in the test's folder: a candidate compared with it fails at exactly that element.
QString DiffViewTest::writeShiftedReference(const Problem& p, const char* file, std::int64_t flat,
                                            double delta) {
  const Result ref = run_problem(p, "cpu-reference");
  std::vector<std::pair<std::string, Tensor>> members;
  for (const OutputTensor& o : ref.outputs) {
    Tensor t = o.tensor;
    if (o.name == "x_backprop") t.set(flat, t.get(flat) + delta);
    if (o.defined) members.emplace_back(o.name, t);
  }
  const QString path = dir_.filePath(QString::fromLatin1(file));
  write_npz(path.toStdString(), members);
  return path;
}

void DiffViewTest::cpuAgreesWithTheReferenceLikeCoreSays() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  DiffView view(&controller);
  QAbstractItemModelTester t1(view.verdictModel(),
                              QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester t2(view.channelModel(),
                              QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester t3(view.worstModel(),
                              QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester t4(view.causeModel(),
                              QAbstractItemModelTester::FailureReportingMode::QtTest);
  view.setReferenceBackend(QStringLiteral("cpu-reference"));
  view.setCandidates({QStringLiteral("cpu")});
  view.run();
  QVERIFY(view.isRunning());  // in the background: run() returned before the work is done
  QVERIFY(view.waitForIdle());
  auto out = view.outcome();
  QVERIFY(out);
  QVERIFY2(out->error.empty(), out->error.c_str());

  // What core says for the same problem.
  const Problem& p = controller.problem();
  const Prepared prepared = prepare(p);
  const Result ref = run_problem(p, "cpu-reference");
  const Result cpu = run_problem(p, "cpu");
  const Comparison want =
      compare_results("cpu-reference", ref.outputs, "cpu", cpu.outputs, {}, &prepared.view);
  QVERIFY(want.passed);
  QVERIFY(view.verdictLabel()->text().contains(QStringLiteral("PASS")));
  VerdictModel* vm = view.verdictModel();
  QCOMPARE(vm->rowCount(), static_cast<int>(want.outputs.size()));
  for (int r = 0; r < vm->rowCount(); ++r) {
    const OutputDiff& o = want.outputs[static_cast<std::size_t>(r)];
    QCOMPARE(vm->index(r, VerdictModel::Output).data().toString(), QString::fromStdString(o.name));
    QCOMPARE(vm->index(r, VerdictModel::Verdict).data().toString(),
             o.compared ? QStringLiteral("pass") : QStringLiteral("skipped"));
    if (!o.compared) continue;
    QCOMPARE(vm->index(r, VerdictModel::MaxAbs).data(VerdictModel::SortRole).toDouble(), o.max_abs);
    QCOMPARE(vm->index(r, VerdictModel::Mismatches).data(VerdictModel::SortRole).toLongLong(),
             static_cast<qlonglong>(o.mismatches));
    QCOMPARE(vm->index(r, VerdictModel::Atol).data(VerdictModel::SortRole).toDouble(),
             o.tolerance.atol);
  }
  // The details show the first compared output: x_backprop, one row per channel.
  QCOMPARE(view.selectedRow(), 0);
  const OutputDiff& dx = want.outputs.front();
  ChannelErrorModel* cm = view.channelModel();
  QCOMPARE(cm->rowCount(), static_cast<int>(dx.channels.size()));
  for (int r = 0; r < cm->rowCount(); ++r) {
    QCOMPARE(cm->value(r, ChannelErrorModel::MaxAbs),
             dx.channels[static_cast<std::size_t>(r)].max_abs);
    QCOMPARE(cm->value(r, ChannelErrorModel::MeanAbs),
             dx.channels[static_cast<std::size_t>(r)].mean_abs);
  }
  QCOMPARE(view.causeModel()->rowCount(), 0);
  QVERIFY(view.heatmap()->slice().rows > 0);
}

void DiffViewTest::injectedErrorIsFoundAndMarked() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  const std::int64_t flat = ((1 * 3 + 2) * 4 + 1) * 5 + 3;  // n1 h2 w1 c3 of [2,3,4,5]
  const QString path = writeShiftedReference(controller.problem(), "expected.npz", flat, 0.75);

  DiffView view(&controller);
  view.setReferenceFile(path);
  view.setCandidates({QStringLiteral("cpu")});
  view.setFindCauses(true);
  view.run();
  QVERIFY(view.waitForIdle());
  auto out = view.outcome();
  QVERIFY2(out->error.empty(), out->error.c_str());
  QVERIFY(!out->report().passed());
  QVERIFY(view.verdictLabel()->text().contains(QStringLiteral("FAIL")));
  QVERIFY(view.verdictLabel()->text().contains(QStringLiteral("x_backprop")));
  QCOMPARE(view.verdictModel()->index(0, VerdictModel::Verdict).data().toString(),
           QStringLiteral("FAIL"));
  QCOMPARE(view.selectedRow(), 0);
  // The worst element: its coordinates lead the table, its channel is the only bad one.
  QCOMPARE(view.worstModel()->index(0, WorstElementsModel::Coords).data().toString(),
           QStringLiteral("(1, 2, 1, 3)"));
  QCOMPARE(view.worstModel()->index(0, WorstElementsModel::Channel).data().toString(),
           QStringLiteral("3"));
  QCOMPARE(view.channelModel()->value(3, ChannelErrorModel::Mismatches), 1.0);
  QCOMPARE(view.channelModel()->value(2, ChannelErrorModel::Mismatches), 0.0);
  // The heatmap shows the h x w plane of batch 1, channel 3 with the element ringed.
  const Slice2D& s = view.heatmap()->slice();
  QCOMPARE(s.rows, 3);
  QCOMPARE(s.cols, 4);
  QVERIFY(std::fabs(s.at(2, 1) - 0.75) < 1e-6);
  QVERIFY(!view.heatmap()->marks().isEmpty());
  QCOMPARE(view.heatmap()->marks().front(), QPoint(2, 1));
  view.resize(1200, 800);
  view.show();
  view.details()->setCurrentIndex(1);
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  int r = -1, c = -1;
  const QRectF cell = view.heatmap()->cellRect(2, 1);
  QVERIFY(!cell.isEmpty());
  QVERIFY(view.heatmap()->cellAt(cell.center(), &r, &c));
  QCOMPARE(r, 2);
  QCOMPARE(c, 1);
  // A single changed element is localized: the causes name its channel, never an empty panel.
  QVERIFY(view.causeModel()->rowCount() > 0);
  QCOMPARE(view.causeModel()->causes().front().code, std::string("few-channels"));
  QCOMPARE(view.causeModel()->causes().front().channels, std::vector<std::int64_t>{3});
}

void DiffViewTest::editedToleranceChangesTheVerdict() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  const QString path = writeShiftedReference(controller.problem(), "tol.npz", 0, 0.5);
  DiffView view(&controller);
  view.setReferenceFile(path);
  view.setCandidates({QStringLiteral("cpu")});
  view.setFindCauses(false);
  view.run();
  QVERIFY(view.waitForIdle());
  QVERIFY(!view.outcome()->report().passed());
  VerdictModel* vm = view.verdictModel();
  QVERIFY(vm->setData(vm->index(0, VerdictModel::Atol), QStringLiteral("1")));
  QVERIFY(view.waitForIdle());
  QVERIFY(view.outcome()->report().passed());
  QCOMPARE(vm->index(0, VerdictModel::Atol).data(VerdictModel::SortRole).toDouble(), 1.0);
  QCOMPARE(vm->index(0, VerdictModel::Verdict).data().toString(), QStringLiteral("pass"));
  QVERIFY(view.verdictLabel()->text().contains(QStringLiteral("PASS")));
  QCOMPARE(view.options().output_atol.at("x_backprop"), 1.0);
}

void DiffViewTest::badReferenceFileIsReportedNotThrown() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  DiffView view(&controller);
  view.setReferenceFile(dir_.filePath(QStringLiteral("missing.npz")));
  view.setCandidates({QStringLiteral("cpu")});
  view.run();
  QVERIFY(view.waitForIdle());
  QVERIFY(!view.outcome()->error.empty());
  QVERIFY(view.verdictLabel()->text().contains(QStringLiteral("Cannot compare")));
  QCOMPARE(view.verdictModel()->rowCount(), 0);
  QCOMPARE(view.channelModel()->rowCount(), 0);
  view.setReferenceBackend(QStringLiteral("cpu-reference"));
  view.setCandidates({});
  view.run();
  QVERIFY(view.waitForIdle());
  QVERIFY(QString::fromStdString(view.outcome()->error).contains(QStringLiteral("at least one")));
}

void DiffViewTest::wrongShapeSaysWhyAndEnterCompares() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  std::vector<std::pair<std::string, Tensor>> members;
  for (const OutputTensor& o : run_problem(controller.problem(), "cpu-reference").outputs)
    if (o.defined)
      members.emplace_back(o.name, o.name == "x_backprop" ? Tensor(DType::F32, {2, 2}) : o.tensor);
  const QString path = dir_.filePath(QStringLiteral("wrong_shape.npz"));
  write_npz(path.toStdString(), members);
  DiffView view(&controller);
  view.setAutoRun(false);
  view.setCandidates({QStringLiteral("cpu")});
  view.referencePicker()->setCurrent(QStringLiteral("file"));
  QVERIFY(!view.isRunning());
  view.referenceFileEdit()->setText(path);
  QTest::keyClick(view.referenceFileEdit(), Qt::Key_Return);  // Enter compares
  QVERIFY(view.isRunning());
  QVERIFY(view.waitForIdle());
  // Outputs of another size cannot be this problem's: the file is refused, saying which output
  // and both shapes, in the app's terms.
  QVERIFY(view.outcome() && !view.outcome()->error.empty());
  const QString label = view.verdictLabel()->text();
  QVERIFY2(label.contains(QStringLiteral("Cannot compare")), qPrintable(label));
  QVERIFY2(label.contains(QStringLiteral("x_backprop has shape [2,2], expected [2,3,4,5]")),
           qPrintable(label));
  QVERIFY2(!label.contains(QStringLiteral("--")), qPrintable(label));
}

void DiffViewTest::applyingTheFixMakesTheErrorDrop() {
  ProblemController controller;
  const Problem problem = test::analysis_sample(3);
  controller.setProblem(problem);
  // Outputs as a cuDNN-style run gives them: reserve_space_2 read as inv_std.
  Problem gpu_like = problem;
  gpu_like.convention = ReserveConvention::InvStd;
  std::vector<std::pair<std::string, Tensor>> members;
  for (const OutputTensor& o : run_problem(gpu_like, "cpu-reference").outputs)
    if (o.defined) members.emplace_back(o.name, o.tensor);
  const QString path = dir_.filePath(QStringLiteral("from_gpu.npz"));
  write_npz(path.toStdString(), members);
  DiffView view(&controller);
  view.setAutoRun(false);
  view.setReferenceFile(path);
  view.setCandidates({QStringLiteral("cpu")});
  view.setFindCauses(true);
  QVERIFY(!view.applyFixButton()->isEnabled());
  view.run();
  QVERIFY(view.waitForIdle());
  QVERIFY(!view.outcome()->report().passed());
  QVERIFY(view.causeModel()->rowCount() > 0);
  QCOMPARE(view.causeModel()->causes().front().code, std::string("reserve-convention"));
  QVERIFY(view.applyFixButton()->isEnabled());
  view.applyFixButton()->click();
  QVERIFY(view.waitForIdle());
  // The problem now says what the data holds, and the comparison passes.
  QCOMPARE(controller.problem().convention, ReserveConvention::InvStd);
  QVERIFY(controller.isModified());
  QVERIFY(view.currentOutcome());
  QVERIFY(view.outcome()->report().passed());
  QVERIFY(view.verdictLabel()->text().contains(QStringLiteral("PASS")));
  QVERIFY(view.fixStatus()->text().contains(QStringLiteral("Applied")));
}

// Apply fix on "epsilon below cuDNN's minimum" sets the epsilon the cause finder re-ran with, the
// one core owns, and the epsilon note is gone from the fixed problem.
void DiffViewTest::epsilonFixUsesCoresMinimum() {
  for (const char* op : {"FusedBatchNormGradV3", "BatchNormWithGlobalNormalizationGrad"}) {
    SampleSpec sample;
    sample.op = op;
    sample.shape = {2, 3, 4, 5};
    Problem p = random_problem(sample);
    const OpSpec& spec = *find_op(p.op);
    p.attrs[std::string(spec.epsilon_attr())] = 1e-8;
    std::string why;
    const std::optional<Problem> fixed =
        problem_with_fix(p, Cause{.code = "epsilon-clamped"}, &why);
    QVERIFY2(fixed.has_value(), why.c_str());
    QCOMPARE(attr_float(*fixed, spec.epsilon_attr()), kCudnnMinEpsilon);
    for (const Note& n : prepare(*fixed).notes)
      QVERIFY2(n.code != "epsilon-below-cudnn-min", n.message.c_str());
  }
}

// Saved outputs made with PyTorch's epsilon: the Causes tab shows the fitted epsilon, and Apply
// fix sets it on the problem, after which the comparison passes.
void DiffViewTest::fittedEpsilonFixMakesTheDiffPass() {
  ProblemController controller;
  const Problem problem = test::analysis_sample(3);
  controller.setProblem(problem);
  Problem torch_like = problem;
  torch_like.attrs["epsilon"] = 1e-5;
  std::vector<std::pair<std::string, Tensor>> members;
  for (const OutputTensor& o : run_problem(torch_like, "cpu-reference").outputs)
    if (o.defined) members.emplace_back(o.name, o.tensor);
  const QString path = dir_.filePath(QStringLiteral("from_torch.npz"));
  write_npz(path.toStdString(), members);
  DiffView view(&controller);
  view.setAutoRun(false);
  view.setReferenceFile(path);
  view.setCandidates({QStringLiteral("cpu")});
  view.setFindCauses(true);
  view.run();
  QVERIFY(view.waitForIdle());
  QVERIFY(!view.outcome()->report().passed());
  QVERIFY(view.causeModel()->rowCount() > 0);
  const Cause& first = view.causeModel()->causes().front();
  QCOMPARE(first.code, std::string("epsilon-mismatch"));
  QVERIFY(std::fabs(first.fitted - 1e-5) <= 1e-6);
  QVERIFY(view.causeModel()
              ->index(0, CauseModel::Fitted)
              .data()
              .toString()
              .startsWith(QStringLiteral("epsilon = ")));
  QVERIFY(view.applyFixButton()->isEnabled());
  view.applyFixButton()->click();
  QVERIFY(view.waitForIdle());
  QVERIFY(std::fabs(attr_float(controller.problem(), "epsilon") - 1e-5) <= 1e-6);
  QVERIFY(view.outcome()->report().passed());
}

void DiffViewTest::baselineComparesLaterRuns() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  QVERIFY(controller.waitForIdle());
  const double eps = attr_float(controller.problem(), "epsilon");
  DiffView view(&controller);
  view.setAutoRun(false);
  QVERIFY(view.pinBaseline(QStringLiteral("before")));
  QCOMPARE(view.baselines(), QStringList{QStringLiteral("before")});
  // A later run with another epsilon, compared with the pinned one.
  controller.setAttr("epsilon", eps * 100);
  QVERIFY(controller.waitForIdle());
  view.setReferenceBaseline(QStringLiteral("before"));
  view.setCandidates({QStringLiteral("cpu")});
  view.setFindCauses(false);
  view.run();
  QVERIFY(view.waitForIdle());
  QVERIFY2(view.outcome()->ok(), view.outcome()->error.c_str());
  QVERIFY(!view.outcome()->report().passed());
  QVERIFY(
      QString::fromStdString(view.outcome()->result->reference).contains(QStringLiteral("before")));
  QVERIFY(view.verdictModel()
              ->index(0, VerdictModel::Candidate)
              .data()
              .toString()
              .contains(QStringLiteral("before")));
  // The report says which baseline it compared with.
  std::ostringstream os;
  write_report_json(assemble_report(controller.problem(), view.outcome()->result.get(), {}), os);
  QVERIFY(QString::fromStdString(os.str()).contains(QStringLiteral("before.npz")));
  // Back to the pinned settings: the same outputs.
  controller.setAttr("epsilon", eps);
  view.run();
  QVERIFY(view.waitForIdle());
  QVERIFY(view.outcome()->report().passed());
}

void DiffViewTest::problemChangeClearsTheVerdict() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  DiffView view(&controller);
  view.setAutoRun(false);
  view.setCandidates({QStringLiteral("cpu")});
  view.run();
  QVERIFY(view.waitForIdle());
  QVERIFY(view.verdictModel()->rowCount() > 0);
  QVERIFY(view.currentOutcome());
  // The controller's run answered the comparison: one run of cpu served both.
  QCOMPARE(controller.outcome()->diff, view.outcome());
  QVERIFY(controller.outcome()->result == controller.outcome()->pipeline->run("cpu"));
  view.setCandidates({});
  controller.setComparison(std::nullopt, false);
  controller.generateInputs(5);
  // Rows of the problem before are gone at once, and nothing passes for the new problem.
  QCOMPARE(view.verdictModel()->rowCount(), 0);
  QVERIFY(!view.currentOutcome());
  QVERIFY(view.verdictLabel()->text().contains(QStringLiteral("changed")));
  QVERIFY(controller.waitForIdle());
}

void DiffViewTest::referenceChangeComparesAgainOrClears() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  const QString path = writeShiftedReference(controller.problem(), "moved.npz", 7, 0.5);
  DiffView view(&controller);
  view.resize(1000, 700);
  view.show();  // shown: it compares as soon as it is in view
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QVERIFY(view.waitForIdle());
  QVERIFY(view.currentOutcome());
  QCOMPARE(view.currentOutcome()->result->reference, std::string("cpu-reference"));
  QVERIFY(view.verdictLabel()->text().contains(QStringLiteral("PASS")));

  // In view, a new reference is compared with at once, nothing pressed.
  view.setReferenceFile(path);
  QVERIFY(view.waitForIdle());
  auto out = view.currentOutcome();
  QVERIFY(out);
  QCOMPARE(QString::fromStdString(out->request.against), path);
  QVERIFY(view.verdictLabel()->text().contains(QStringLiteral("FAIL")));
  view.setReferenceBackend(QStringLiteral("cpu"));
  QVERIFY(view.waitForIdle());
  QCOMPARE(view.currentOutcome()->result->reference, std::string("cpu"));

  // "Outputs from file" with no file yet: the last verdict is taken down, not left under it.
  view.setReferenceFile(QString());
  QVERIFY(view.waitForIdle());
  QVERIFY(!view.currentOutcome());
  QCOMPARE(view.verdictModel()->rowCount(), 0);
  QVERIFY(!view.verdictLabel()->text().contains(QStringLiteral("PASS")));
  view.run();  // Compare with no file: asked for one, never a backend instead
  QVERIFY(view.waitForIdle());
  QVERIFY(!view.currentOutcome());
  QVERIFY(view.verdictLabel()->text().contains(QStringLiteral("Choose the expected outputs")));

  // Out of view, the verdict is cleared and the tab says why; showing it compares again.
  view.setReferenceBackend(QStringLiteral("cpu-reference"));
  QVERIFY(view.waitForIdle());
  QVERIFY(view.currentOutcome());
  view.hide();
  view.setReferenceFile(path);
  QVERIFY(!view.currentOutcome());
  QVERIFY(view.verdictLabel()->text().contains(QStringLiteral("reference changed")));
  view.show();
  QVERIFY(view.waitForIdle());
  QVERIFY(view.currentOutcome());
  QCOMPARE(QString::fromStdString(view.currentOutcome()->request.against), path);
  // Hidden and shown again while up to date (another tab visited): edits still compare.
  view.hide();
  view.show();
  controller.generateInputs(9);
  QVERIFY(controller.waitForIdle());
  QVERIFY(view.waitForIdle());
  QVERIFY2(view.currentOutcome(), qPrintable(view.verdictLabel()->text()));
  QVERIFY(controller.waitForIdle());
}

void DiffViewTest::aProblemFileCarryingOutputsIsComparedWithThem() {
  // A captured layer holds TensorFlow's outputs beside its inputs: opened, it is compared with
  // them; a problem opened after it without any is compared with cpu-reference again.
  const QString layer =
      QStringLiteral(BNSCOPE_SOURCE_DIR "/resources/captures/sample/layer_000_bn_nhwc.npz");
  const QString plain = dir_.filePath(QStringLiteral("plain.npz"));
  save_problem(plain.toStdString(), test::analysis_sample());
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  DiffView view(&controller);
  view.resize(1000, 700);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QVERIFY(view.waitForIdle());
  QCOMPARE(view.currentOutcome()->result->reference, std::string("cpu-reference"));

  QString error;
  QVERIFY2(controller.openFile(layer, {}, &error), qPrintable(error));
  QVERIFY(controller.waitForIdle());
  QVERIFY(view.waitForIdle());
  auto out = view.currentOutcome();
  QVERIFY(out && out->ok());
  QCOMPARE(QString::fromStdString(out->request.against), layer);
  QVERIFY(!out->result->reference_is_backend);

  QVERIFY2(controller.openFile(plain, {}, &error), qPrintable(error));
  QVERIFY(controller.waitForIdle());
  QVERIFY(view.waitForIdle());
  out = view.currentOutcome();
  QVERIFY(out && out->ok());
  QVERIFY(out->request.against.empty());
  QCOMPARE(out->result->reference, std::string("cpu-reference"));

  // A reference the person chose is theirs: opening a plain problem leaves it.
  QVERIFY(controller.openFile(layer, {}, &error));
  QVERIFY(controller.waitForIdle());
  view.setReferenceBackend(QStringLiteral("cpu"));
  QVERIFY(view.waitForIdle());
  QVERIFY(controller.openFile(plain, {}, &error));
  QVERIFY(controller.waitForIdle());
  QVERIFY(view.waitForIdle());
  QCOMPARE(view.currentOutcome()->result->reference, std::string("cpu"));
}

void DiffViewTest::passSaysWhereBothSidesAreNaN() {
  ProblemController controller;
  Problem p = test::analysis_sample();
  p.inputs.at("x").set(0, std::nan(""));
  controller.setProblem(p);
  DiffView view(&controller);
  view.setCandidates({QStringLiteral("cpu")});
  view.run();
  QVERIFY(view.waitForIdle());
  const QString label = view.verdictLabel()->text();
  QVERIFY2(label.contains(QStringLiteral("PASS")), qPrintable(label));
  QVERIFY2(label.contains(QStringLiteral("NaN in both cpu and cpu-reference")), qPrintable(label));
}

void DiffViewTest::tabsAreAddedAndTheReportIsExported() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  QTabWidget tabs;
  const AnalysisTabs t = add_analysis_tabs(&tabs, &controller);
  QCOMPARE(tabs.count(), 2);
  QVERIFY(tabs.tabText(0).contains(QStringLiteral("Diff")));
  QVERIFY(t.diff && t.profile);
  t.profile->setCopyProbe([](int, std::size_t) { return 20.0; });
  t.profile->setReps(2);
  t.profile->setBackends({QStringLiteral("cpu")});
  t.profile->run();
  QVERIFY(t.profile->waitForIdle());
  const QString out = dir_.filePath(QStringLiteral("report"));
  ExportResult res = export_report(t, controller, out);
  QVERIFY2(res.ok, qPrintable(res.error));
  for (const char* f : {"report.html", "report.json", "report.csv", "trace.json"})
    QVERIFY2(QFile::exists(QDir(out).filePath(QString::fromLatin1(f))), f);
  QFile json(QDir(out).filePath(QStringLiteral("report.json")));
  QVERIFY(json.open(QIODevice::ReadOnly));
  const QByteArray text = json.readAll();
  QVERIFY(text.contains("\"cpu-reference\""));  // the diff computed for the export
  QVERIFY(text.contains("kernel:cpu"));         // the profile measured in the tab
  QVERIFY(QJsonDocument::fromJson(text).object().value(QStringLiteral("baseline")).isNull());
  // The pinned baseline goes along, said to be of this problem, then of another.
  t.profile->pinBaseline(1);
  const auto baseline = [&out] {
    QFile f(QDir(out).filePath(QStringLiteral("report.json")));
    return f.open(QIODevice::ReadOnly)
               ? QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("baseline"))
               : QJsonValue();
  };
  res = export_report(t, controller, out);
  QVERIFY(res.ok);
  QVERIFY(baseline().isObject());
  QVERIFY(baseline()[QStringLiteral("same_problem")].toBool());
  QCOMPARE(baseline()[QStringLiteral("comparisons")].toArray().size(), 1);
  // A changed problem drops the stale profile from the export.
  controller.generateInputs(99);
  QVERIFY(controller.waitForIdle());
  res = export_report(t, controller, out);
  QVERIFY(res.ok);
  QVERIFY(baseline().isObject());
  QVERIFY(!baseline()[QStringLiteral("same_problem")].toBool(true));
  QCOMPARE(baseline()[QStringLiteral("profiles")].toArray().size(), 1);
  // Nothing was profiled for this problem: no trace.json, rather than an empty one.
  QVERIFY(!QFile::exists(QDir(out).filePath(QStringLiteral("trace.json"))));
  QVERIFY(res.skipped.join(QString()).contains(QStringLiteral("trace.json")));
  QFile json2(QDir(out).filePath(QStringLiteral("report.json")));
  QVERIFY(json2.open(QIODevice::ReadOnly));
  // The stale profile is only the baseline's now, not one of the report's.
  QVERIFY(QJsonDocument::fromJson(json2.readAll())
              .object()
              .value(QStringLiteral("profiles"))
              .toArray()
              .isEmpty());
  res = export_report(t, controller, QStringLiteral("/proc/forbidden/report"));
  QVERIFY(!res.ok);
  QVERIFY(!res.error.isEmpty());
}

// The max ULP in the verdict table is an element the list shows: here a small value whose sign
// flips (a tiny |a-b|, the largest ULP distance) below twelve larger |a-b| that fill the worst ten.
void DiffViewTest::theMaxUlpElementIsListed() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  const Result cpu = run_problem(controller.problem(), "cpu");
  const Tensor& dx = cpu.output("x_backprop").tensor;
  std::int64_t smallest = 0;
  for (std::int64_t i = 1; i < dx.numel(); ++i)
    if (dx.get(i) != 0 &&
        (dx.get(smallest) == 0 || std::fabs(dx.get(i)) < std::fabs(dx.get(smallest))))
      smallest = i;
  std::vector<std::pair<std::string, Tensor>> members;
  for (const OutputTensor& o : cpu.outputs) {
    Tensor t = o.tensor;
    if (o.name == "x_backprop") {
      t.set(smallest, -t.get(smallest));
      // Half as large again on twelve elements of |v| > 0.1: |a-b| over 0.05, no sign crossed.
      for (std::int64_t k = 0, i = 0; k < 12; ++i)
        if (std::fabs(t.get(i)) > 0.1) t.set(i, t.get(i) * 1.5), ++k;
    }
    if (o.defined) members.emplace_back(o.name, t);
  }
  const QString path = dir_.filePath(QStringLiteral("ulp.npz"));
  write_npz(path.toStdString(), members);

  DiffView view(&controller);
  view.setReferenceFile(path);
  view.setCandidates({QStringLiteral("cpu")});
  view.run();
  QVERIFY(view.waitForIdle());
  QCOMPARE(view.selectedRow(), 0);
  const std::uint64_t max_ulp = view.verdictModel()->output(0).max_ulp;
  WorstElementsModel* w = view.worstModel();
  QCOMPARE(w->rowCount(), 11);
  QCOMPARE(w->maxUlpRow(), 10);
  QCOMPARE(w->elements().back().index, smallest);
  QCOMPARE(w->elements().back().ulp, max_ulp);
  QVERIFY(w->index(10, WorstElementsModel::Coords)
              .data()
              .toString()
              .endsWith(QStringLiteral("(max ULP)")));
  for (int r = 0; r < 10; ++r) QVERIFY(w->elements()[static_cast<std::size_t>(r)].ulp < max_ulp);
}

QTEST_MAIN(DiffViewTest)
#include "diff_test.moc"
