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
    QVERIFY2(out->error.contains(QString::fromStdString(c.backend())), qPrintable(out->error));
    return;
  }
  if (!want.stats) {
    QVERIFY(!out->ok());
    QCOMPARE(out->error.toStdString(), want.error);
    return;
  }
  QVERIFY2(out->ok(), qPrintable(out->error));
  // The model shows exactly the engine's numbers.
  ChannelTableModel model;
  model.setStats(out->stats);
  QCOMPARE(model.rowCount(), static_cast<int>(want.stats->channels));
  QCOMPARE(out->stats.columns.size(), want.stats->columns.size());
  for (std::size_t k = 0; k < want.stats->columns.size(); ++k) {
    const ChannelColumn& col = want.stats->columns[k];
    const int mc = model.columnOf(QString::fromStdString(col.name));
    QVERIFY2(mc > 0, col.name.c_str());
    for (int ch = 0; ch < model.rowCount(); ++ch) {
      const double got = model.data(model.index(ch, mc), ChannelTableModel::SortRole).toDouble();
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

void register_holding_backend() {
  static const bool done = [] {
    BackendRegistry::instance().add(std::make_unique<HoldingBackend>());
    return true;
  }();
  (void)done;
}

}  // namespace bnscope::test
