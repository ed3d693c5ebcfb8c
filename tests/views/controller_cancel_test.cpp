// Cancelling the controller's run: Esc keeps the last good results, marked stale, and the
// cancel reaches the statistics passes after the backend.
#include <QtTest>
#include <atomic>

#include "analysis/outcome.h"
#include "backends/backend.h"
#include "controller_test_util.h"
#include "engine/engine.h"
#include "ops/sample.h"
#include "problem_controller.h"
#include "process_events.h"
#include "qt_suites.h"
#include "tensor/error.h"
#include "views_test_util.h"

using namespace bnscope;

class ControllerCancelTest : public QObject {
  Q_OBJECT
 private slots:
  void escKeepsTheLastGoodResultsMarkedStale();
  void cancelledComparisonKeepsTheResultsCurrent();
  void cancelReachesTheStatisticsPasses();
};
BNSCOPE_QT_SUITE(ControllerCancelTest);

void ControllerCancelTest::escKeepsTheLastGoodResultsMarkedStale() {
  test::register_holding_backend();
  ProblemController c;
  c.setProblem(test::small_sample());
  QVERIFY(c.waitForIdle());
  const auto good = c.outcome();
  QVERIFY2(good && good->ok(), good ? good->error.c_str() : "no outcome");
  QVERIFY(!c.isStale());

  test::HoldingBackend::started.store(false);
  c.setBackend("holding");
  QVERIFY(process_events_while([] { return !test::HoldingBackend::started.load(); }, 30000));
  QVERIFY(c.isRunning());
  c.cancel();
  QVERIFY(c.waitForIdle());
  // The results shown before stay, the very same runs, and say they are of an earlier problem.
  const auto kept = c.outcome();
  QVERIFY(kept->ok());
  QVERIFY(kept->stale);
  QVERIFY(c.isStale());
  QCOMPARE(kept->result, good->result);
  QCOMPARE(kept->revision, good->revision);
  QVERIFY(kept->revision != c.revision());

  // The next good run is current again.
  c.setBackend("cpu");
  QVERIFY(c.waitForIdle());
  QVERIFY(c.outcome()->ok());
  QVERIFY(!c.isStale());

  // With nothing good to keep, a cancelled run says it was cancelled.
  ProblemController fresh;
  test::HoldingBackend::started.store(false);
  fresh.setBackend("holding");
  fresh.setProblem(test::small_sample());
  QVERIFY(process_events_while([] { return !test::HoldingBackend::started.load(); }, 30000));
  fresh.cancel();
  QVERIFY(fresh.waitForIdle());
  QVERIFY(!fresh.outcome()->ok());
  QVERIFY(fresh.outcome()->cancelled);
  QVERIFY(!fresh.isStale());
}

void ControllerCancelTest::cancelledComparisonKeepsTheResultsCurrent() {
  // Compare runs the same problem again for the comparison alone: cancelled, the results on
  // screen are still this problem's, only the comparison is missing.
  test::register_holding_backend();
  ProblemController c;
  c.setProblem(test::small_sample());
  PipelineRequest first;
  first.reference = kReferenceBackend;
  first.backends = {"cpu"};
  c.setComparison(first, true);
  QVERIFY(c.waitForIdle());
  const auto good = c.outcome();
  QVERIFY(good && good->ok() && good->diff);

  PipelineRequest second;
  second.reference = kReferenceBackend;
  second.backends = {"holding"};
  test::HoldingBackend::started.store(false);
  c.setComparison(second, true);
  QVERIFY(process_events_while([] { return !test::HoldingBackend::started.load(); }, 30000));
  c.cancel();
  QVERIFY(c.waitForIdle());
  const auto kept = c.outcome();
  QVERIFY(kept->ok());
  QVERIFY(!kept->stale);
  QVERIFY(!c.isStale());
  QVERIFY(kept->comparison_cancelled);
  QCOMPARE(kept->result, good->result);
  QCOMPARE(kept->revision, c.revision());
  // The first request's comparison does not pass for the answer to the second.
  QVERIFY(!kept->diff);
  QVERIFY(kept->comparison && same_request(*kept->comparison, second));
}

void ControllerCancelTest::cancelReachesTheStatisticsPasses() {
  // The run's statistics poll the same flag as the backend: a run cancelled after the backend
  // returns still stops, at the next block of its scans.
  SampleSpec spec;
  spec.shape = {2, 64, 64, 32};
  const Problem p = random_problem(spec);
  const Prepared prepared = prepare(p);
  const Result r = run_prepared(prepared, backend_or_throw("cpu"));
  std::atomic<bool> cancel{true};
  std::atomic<std::int64_t> blocks{0};
  ScanControl ctl;
  ctl.cancel = &cancel;
  ctl.blocks_read = &blocks;
  bool cancelled = false;
  try {
    channel_stats(p, prepared, r, ctl);
  } catch (const Error& e) {
    cancelled = e.code() == ErrorCode::Cancelled;
  }
  QVERIFY(cancelled);
  QCOMPARE(blocks.load(), std::int64_t{0});
  cancel.store(false);
  channel_stats(p, prepared, r, ctl);
  QVERIFY(blocks.load() >= 12);  // x, y_backprop and x_backprop: 4 blocks of 64 K values each

  // compute_outcome turns it into a cancelled outcome, like a cancelled backend.
  RunContext ctx;
  cancel.store(true);
  ctx.cancel = &cancel;
  const auto out = compute_outcome(p, "cpu", ctx);
  QVERIFY(!out->ok());
  QVERIFY(out->cancelled);
}

#include "controller_cancel_test.moc"
