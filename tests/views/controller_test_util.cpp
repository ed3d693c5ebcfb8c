#include "controller_test_util.h"

#include <QtTest>
#include <memory>

#include "backends/backend.h"
#include "channel_table_model.h"
#include "views_test_util.h"

namespace bnscope::test {

void expect_engine_answer(ProblemController& c) {
  QVERIFY(c.waitForIdle());
  const auto out = c.outcome();
  QVERIFY(out);
  const test::Expected want = test::reference_answer(c.problem());
  const Backend* b = BackendRegistry::instance().find(c.backend());
  if (want.stats && (!b || !b->unavailable_reason().empty())) {
    // A valid problem on a backend that cannot run here: the error names the backend.
    QVERIFY(!out->ok());
    QVERIFY2(QString::fromStdString(out->error).contains(QString::fromStdString(c.backend())),
             out->error.c_str());
    return;
  }
  if (!want.stats) {
    QVERIFY(!out->ok());
    QCOMPARE(out->error, want.error);
    return;
  }
  QVERIFY2(out->ok(), out->error.c_str());
  // The model shows exactly the engine's numbers.
  ChannelTableModel model;
  model.setStats(out->stats);
  QCOMPARE(out->stats.columns.size(), want.stats->columns.size());
  expect_channel_table(model, *want.stats);
}

void register_holding_backend() {
  static const bool done = [] {
    BackendRegistry::instance().add(std::make_unique<HoldingBackend>());
    return true;
  }();
  (void)done;
}

}  // namespace bnscope::test
