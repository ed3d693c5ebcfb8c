#include "window_test_util.h"

#include <QCoreApplication>
#include <QLabel>
#include <QtTest>

#include "channel_panel.h"
#include "channel_table_model.h"
#include "problem_controller.h"
#include "views_test_util.h"

namespace bnscope::test {

void expect_table_is_engine(MainWindow& w) {
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

void isolate_settings() {
  QCoreApplication::setOrganizationName(QStringLiteral("bnscope-test"));
}

}  // namespace bnscope::test
