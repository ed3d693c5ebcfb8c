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
  expect_channel_table(*m, *want.stats);
}

void isolate_settings() {
  QCoreApplication::setOrganizationName(QStringLiteral("bnscope-test"));
}

}  // namespace bnscope::test
