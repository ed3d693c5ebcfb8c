// The controller's memory: runs share the tensors they show, output buffers are reused across
// edits, a comparison runs only the reference, and a problem opened is not held beside the one
// before.
#include <QtTest>

#include "controller_test_util.h"
#include "engine/engine.h"
#include "ops/problem_io.h"
#include "ops/sample.h"
#include "problem_controller.h"
#include "qt_suites.h"
#include "views_test_util.h"

using namespace bnscope;

class ControllerBuffersTest : public QObject {
  Q_OBJECT
 private slots:
  void runsShareTheTensorsTheyShow();
  void outputBuffersAreReusedAcrossEdits();
  void aComparisonRunsOnlyTheReference();
  void outputsOfAnotherDtypeAreNotHeldForTheNextRun();
  void aProblemReadInTheBackgroundLetsTheShownOneGoFirst();
};
BNSCOPE_QT_SUITE(ControllerBuffersTest);

void ControllerBuffersTest::runsShareTheTensorsTheyShow() {
  ProblemController c;
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  const auto out = c.outcome();
  QVERIFY(out->ok());
  // One buffer per input from the problem to the run and every summary of it: handed over by
  // reference counting, never copied.
  for (const auto& [name, t] : c.problem().inputs) {
    const Tensor& ran = out->problem.inputs.at(name);
    QVERIFY2(ran.shares_storage_with(t), name.c_str());
    QCOMPARE(static_cast<const Tensor&>(ran).raw(), static_cast<const Tensor&>(t).raw());
    const InputSummary* s = out->stats.input(name);
    QVERIFY2(s && s->tensor.shares_storage_with(t), name.c_str());
  }
  const Tensor& x = c.problem().inputs.at("x");
  QVERIFY(out->prepared->in("x").shares_storage_with(x));
  // An edit of an attr runs the same buffers again.
  c.setAttr("epsilon", 0.01);
  QVERIFY(c.waitForIdle());
  QVERIFY(c.outcome()->problem.inputs.at("x").shares_storage_with(x));
  QVERIFY(c.outcome()->stats.input("x")->tensor.shares_storage_with(x));
}

void ControllerBuffersTest::outputBuffersAreReusedAcrossEdits() {
  ProblemController c;
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  const void* first = nullptr;
  {
    const auto out = c.outcome();
    QVERIFY(out && out->ok());
    first = static_cast<const Tensor&>(out->result->outputs.front().tensor).raw();
  }
  // The first outcome stays until the edit's run has succeeded (Esc returns to it); then nothing
  // reads its outputs any more and they are held for the next run.
  c.setAttr("epsilon", 0.01);
  QVERIFY(c.waitForIdle());
  QCOMPARE(c.spareResults().size(), std::size_t{1});
  QCOMPARE(static_cast<const Tensor&>(c.spareResults().front().outputs.front().tensor).raw(),
           first);
  QVERIFY(static_cast<const Tensor&>(c.outcome()->result->outputs.front().tensor).raw() != first);
  // The next run writes into that buffer and still gives the engine's answer.
  c.setAttr("epsilon", 0.02);
  test::expect_engine_answer(c);
  QCOMPARE(static_cast<const Tensor&>(c.outcome()->result->outputs.front().tensor).raw(), first);
  const Result fresh = run_problem(c.problem(), c.backend());
  for (const OutputTensor& o : fresh.outputs) {
    if (o.defined)
      QVERIFY2(c.outcome()->result->output(o.name).tensor.to_doubles() == o.tensor.to_doubles(),
               o.name.c_str());
  }

  // Outputs something still reads are not handed to a run.
  const auto held = c.outcome();
  c.setAttr("epsilon", 0.03);
  QVERIFY(c.waitForIdle());
  QVERIFY(c.spareResults().empty());
  // The profile takes the spare buffers; unused, they are released after a while.
  c.setAttr("epsilon", 0.04);
  QVERIFY(c.waitForIdle());
  QCOMPARE(c.takeSpareResults().size(), std::size_t{1});
  QVERIFY(c.spareResults().empty());
  c.setAttr("epsilon", 0.05);
  QVERIFY(c.waitForIdle());
  QVERIFY(!c.spareResults().empty());
  QTRY_VERIFY_WITH_TIMEOUT(c.spareResults().empty(), ProblemController::kSpareHoldMs * 10);
}

void ControllerBuffersTest::outputsOfAnotherDtypeAreNotHeldForTheNextRun() {
  ProblemController c;
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  QCOMPARE(c.outcome()->result->outputs.front().tensor.dtype(), DType::F32);
  // No run of the float16 problem could write into the float32 outputs shown before: they are
  // freed when the float16 outcome replaces them, not held beside it until the timer.
  c.setDtype(DType::F16);
  QVERIFY(c.waitForIdle());
  QCOMPARE(c.outcome()->result->outputs.front().tensor.dtype(), DType::F16);
  QVERIFY(c.spareResults().empty());
  // An edit in the same dtype keeps the replaced set for the next run, as before.
  c.setAttr("epsilon", 0.01);
  QVERIFY(c.waitForIdle());
  QCOMPARE(c.spareResults().size(), std::size_t{1});
  QCOMPARE(c.spareResults().front().outputs.front().tensor.dtype(), DType::F16);
  // And back: the float16 set goes as well.
  c.setDtype(DType::F32);
  QVERIFY(c.waitForIdle());
  QVERIFY(c.spareResults().empty());
  test::expect_engine_answer(c);
}

void ControllerBuffersTest::aComparisonRunsOnlyTheReference() {
  ProblemController c;
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  const auto shown = c.outcome();
  QVERIFY(shown && shown->ok());
  PipelineRequest request;
  request.reference = kReferenceBackend;
  request.backends = {"cpu"};
  c.setComparison(request, /*rerunNow=*/true);
  QVERIFY(c.waitForIdle());
  const auto out = c.outcome();
  QVERIFY2(out->ok() && out->diff && out->diff->ok(), out->error.c_str());
  QCOMPARE(out->revision, shown->revision);
  // The run already shown stands as the candidate's run: its outputs, not a second run's.
  const Result* cpu = out->pipeline->run("cpu");
  QVERIFY(cpu && cpu == out->result);
  for (std::size_t i = 0; i < cpu->outputs.size(); ++i) {
    if (cpu->outputs[i].tensor.numel() > 0)  // an empty tensor has no storage to share
      QVERIFY2(cpu->outputs[i].tensor.shares_storage_with(shown->result->outputs[i].tensor),
               cpu->outputs[i].name.c_str());
  }
  QVERIFY(out->pipeline->run("cpu-reference"));
  QVERIFY(out->pipeline->passed());
  // After an edit the comparison runs both backends on the new problem.
  c.setAttr("epsilon", 0.01);
  QVERIFY(c.waitForIdle());
  QVERIFY(!c.outcome()->result->outputs.front().tensor.shares_storage_with(
      shown->result->outputs.front().tensor));
  QVERIFY(c.outcome()->pipeline->passed());
}

// Opening a real layer after another: the outcome shown (outputs, comparison) is let go before the
// next file is read, so two layers' data never sit side by side; a read that fails runs the
// problem, which stays as it was, again.
void ControllerBuffersTest::aProblemReadInTheBackgroundLetsTheShownOneGoFirst() {
  QTemporaryDir dir;
  SampleSpec spec;
  spec.shape = {8, 64, 64, 320};  // two 42 MB tensors: read off the UI thread
  spec.seed = 11;
  const QString big = dir.filePath(QStringLiteral("big.npz"));
  save_problem(big.toStdString(), random_problem(spec));
  QVERIFY(QFileInfo(big).size() > ProblemController::kLoadInPlaceBytes);
  // The same file with one byte of x's data flipped: its directory reads, its data does not.
  const QString corrupt = dir.filePath(QStringLiteral("corrupt.npz"));
  QVERIFY(QFile::copy(big, corrupt));
  {
    QFile f(corrupt);
    QVERIFY(f.open(QIODevice::ReadWrite));
    const qint64 middle = f.size() / 2;
    QVERIFY(f.seek(middle));
    const QByteArray b = f.read(1);
    QVERIFY(f.seek(middle));
    f.write(QByteArray(1, static_cast<char>(b[0] ^ 0x5a)));
  }

  ProblemController c;
  c.setProblem(test::small_sample());
  PipelineRequest request;
  request.reference = kReferenceBackend;
  request.backends = {"cpu"};
  c.setComparison(request, /*rerunNow=*/true);
  QVERIFY(c.waitForIdle());
  QVERIFY(c.outcome() && c.outcome()->diff && c.outcome()->diff->ok());
  std::weak_ptr<const RunOutcome> shown = c.outcome();
  const std::weak_ptr<const void> dx =
      c.outcome()->result->output("x_backprop").tensor.storage_handle();
  const std::weak_ptr<const void> ref =
      c.outcome()->pipeline->run(kReferenceBackend)->output("x_backprop").tensor.storage_handle();
  QSignalSpy released(&c, &ProblemController::outcomeReleased);
  QSignalSpy failed(&c, &ProblemController::editFailed);
  QString error;

  // A read that fails: the problem stays and runs again.
  const std::uint64_t revision = c.revision();
  QVERIFY2(c.openFile(corrupt, {}, &error), qPrintable(error));
  QVERIFY(c.isLoading());
  QCOMPARE(released.count(), 1);
  QVERIFY(!c.outcome());
  QVERIFY(shown.expired());
  QVERIFY(dx.expired());
  QVERIFY(ref.expired());
  QVERIFY(c.waitForIdle(120000));
  QCOMPARE(failed.count(), 1);
  QVERIFY2(failed.front().front().toString().contains(QStringLiteral("CRC")),
           qPrintable(failed.front().front().toString()));
  QCOMPARE(c.revision(), revision);
  QCOMPARE(c.problem().inputs.at("x").shape(), test::small_sample().inputs.at("x").shape());
  QVERIFY(c.outcome() && c.outcome()->ok() && c.outcome()->revision == revision);
  QVERIFY(c.outcome()->diff && c.outcome()->diff->ok());

  // A read that succeeds: the same release, then the new problem's run and comparison.
  shown = c.outcome();
  const std::weak_ptr<const void> old_x = c.problem().inputs.at("x").storage_handle();
  QVERIFY2(c.openFile(big, {}, &error), qPrintable(error));
  QCOMPARE(released.count(), 2);
  QVERIFY(!c.outcome());
  QVERIFY(shown.expired());
  QVERIFY(!old_x.expired());  // the problem itself stays until the new one is read
  QVERIFY(c.waitForIdle(120000));
  QCOMPARE(failed.count(), 1);
  QVERIFY(old_x.expired());
  QCOMPARE(c.problem().inputs.at("x").shape(), (Shape{8, 64, 64, 320}));
  QVERIFY(c.outcome() && c.outcome()->ok() && c.outcome()->revision == c.revision());
  QVERIFY(c.outcome()->diff && c.outcome()->diff->ok());

  // Cancelled while reading: the problem stays and is shown again.
  const std::uint64_t before = c.revision();
  QVERIFY(c.openFile(corrupt, {}, &error));
  c.cancel();
  QVERIFY(c.waitForIdle(120000));
  QCOMPARE(c.revision(), before);
  QVERIFY(c.outcome() && c.outcome()->ok() && c.outcome()->revision == before);
}

#include "controller_buffers_test.moc"
