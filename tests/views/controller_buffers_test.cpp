// The controller's output buffers on a real-size problem: after the first run of a loaded problem
// a spare output set is made ready on another thread, and the next edit's run writes into it.
#include <QtTest>

#include "engine/engine.h"
#include "ops/sample.h"
#include "problem_controller.h"
#include "views_test_util.h"

using namespace bnscope;

namespace {

// x_backprop of 16 MiB: as big as the controller makes a spare set for.
Problem big_problem() {
  SampleSpec spec;
  spec.shape = {4, 64, 64, 256};
  return random_problem(spec);
}

const void* storage(const Tensor& t) {
  return t.raw();
}

void expectTheEngineOutputs(const ProblemController& c) {
  const auto out = c.outcome();
  QVERIFY(out && out->ok());
  const Result fresh = run_problem(c.problem(), c.backend());
  for (const OutputTensor& o : fresh.outputs)
    if (o.defined)
      QVERIFY2(out->result->output(o.name).tensor.to_doubles() == o.tensor.to_doubles(),
               o.name.c_str());
}

}  // namespace

class ControllerBuffersTest : public QObject {
  Q_OBJECT
 private slots:
  void firstRunMakesASpareSetTheNextRunWritesInto();
  void editBeforeTheSpareIsReadyStillUsesIt();
  void smallProblemsMakeNone();
  void editsWhoseOldOutputsAreStillReadMakeNone();
};

void ControllerBuffersTest::firstRunMakesASpareSetTheNextRunWritesInto() {
  ProblemController c;
  c.setProblem(big_problem());
  QVERIFY(c.waitForIdle(120000));
  QTRY_VERIFY_WITH_TIMEOUT(!c.spareResults().empty(), 30000);
  const Result& spare = c.spareResults().front();
  const Result& shown = *c.outcome()->result;
  QCOMPARE(spare.outputs.size(), shown.outputs.size());
  for (std::size_t i = 0; i < shown.outputs.size(); ++i) {
    QCOMPARE(spare.outputs[i].tensor.shape(), shown.outputs[i].tensor.shape());
    QVERIFY(!spare.outputs[i].tensor.shares_storage_with(shown.outputs[i].tensor));
  }
  const void* buffer = storage(spare.outputs.front().tensor);
  const void* first = storage(shown.outputs.front().tensor);
  c.setAttr("epsilon", 0.01);
  QVERIFY(c.waitForIdle(120000));
  QCOMPARE(storage(c.outcome()->result->outputs.front().tensor), buffer);
  expectTheEngineOutputs(c);
  // The first run's outputs are the spare set now, as after every edit.
  QCOMPARE(c.spareResults().size(), std::size_t{1});
  QCOMPARE(storage(c.spareResults().front().outputs.front().tensor), first);
}

void ControllerBuffersTest::editBeforeTheSpareIsReadyStillUsesIt() {
  ProblemController c;
  c.setProblem(big_problem());
  QVERIFY(c.waitForIdle(120000));
  const void* first = storage(c.outcome()->result->outputs.front().tensor);
  c.setAttr("is_training", false);  // at once: the run waits for the spare set if need be
  QVERIFY(c.waitForIdle(120000));
  expectTheEngineOutputs(c);
  QVERIFY(storage(c.outcome()->result->outputs.front().tensor) != first);
  QCOMPARE(c.spareResults().size(), std::size_t{1});  // the first run's, not a third set
  QCOMPARE(storage(c.spareResults().front().outputs.front().tensor), first);
}

void ControllerBuffersTest::smallProblemsMakeNone() {
  ProblemController c;
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  QTest::qWait(50);
  QVERIFY(c.spareResults().empty());
}

// The Diff tab holds the shown run's outputs: its runs find no spare set and must not add a
// third one.
void ControllerBuffersTest::editsWhoseOldOutputsAreStillReadMakeNone() {
  ProblemController c;
  c.setProblem(big_problem());
  QVERIFY(c.waitForIdle(120000));
  QTRY_VERIFY_WITH_TIMEOUT(!c.spareResults().empty(), 30000);
  const auto held = c.outcome();
  c.setAttr("epsilon", 0.01);  // writes into the spare set
  QVERIFY(c.waitForIdle(120000));
  QVERIFY(c.spareResults().empty());
  QTest::qWait(200);
  QVERIFY(c.spareResults().empty());
}

QTEST_MAIN(ControllerBuffersTest)
#include "controller_buffers_test.moc"
