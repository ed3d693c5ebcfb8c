// The Profile tab's history offscreen: every run kept with its problem and settings, a pinned
// baseline's deltas in the phase table, runs of another problem marked, and the history kept in a
// file across tabs (an app's starts), set aside when unreadable and said when it cannot be saved.
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "analysis_test_util.h"
#include "ops/prepared.h"
#include "problem_controller.h"
#include "profile_tab/phase_table_model.h"
#include "profile_tab/profile_history_model.h"
#include "profile_tab/profile_view.h"

using namespace bnscope;

class ProfileHistoryTest : public QObject {
  Q_OBJECT
 private slots:
  void runsAreKeptInTheHistory();
  void aPinnedBaselineGivesTheDeltas();
  void aProblemChangeKeepsTheHistoryMarked();
  void theHistoryOutlivesTheTab();
  void anUnreadableHistoryIsSetAsideNotWrittenOver();
  void aHistoryThatCannotBeSavedSaysSo();
};

// Two profiles of the tab are two runs of the history, newest first, each with its problem,
// settings, median and bandwidth.
void ProfileHistoryTest::runsAreKeptInTheHistory() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  ProfileView view(&controller);
  QAbstractItemModelTester tester(view.historyModel(),
                                  QAbstractItemModelTester::FailureReportingMode::QtTest);
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setBackends({QStringLiteral("cpu"), QStringLiteral("cpu-reference")});
  view.setReps(2);
  view.run();
  QVERIFY(view.waitForIdle());
  const std::vector<Profile> first = view.phaseModel()->profiles();
  view.setReps(3);
  view.run();
  QVERIFY(view.waitForIdle());
  ProfileHistoryModel* h = view.historyModel();
  const std::vector<ProfileRun>& runs = h->history().runs();
  QCOMPARE(runs.size(), std::size_t{2});
  QCOMPARE(view.shownRun(), std::optional<std::uint64_t>(runs[1].id));
  QCOMPARE(runs[0].reps, 2);
  QCOMPARE(runs[1].reps, 3);
  QCOMPARE(runs[0].problem, describe_case(controller.problem()));
  QCOMPARE(runs[0].profiles.size(), std::size_t{2});
  QCOMPARE(runs[0].profiles[0].kernel_seconds, first[0].kernel_seconds);
  // One row per backend of each run, the latest run first.
  QCOMPARE(h->rowCount(), 4);
  QCOMPARE(h->index(0, ProfileHistoryModel::Run).data().toString(), QStringLiteral("#2"));
  QCOMPARE(h->index(2, ProfileHistoryModel::Run).data().toString(), QStringLiteral("#1"));
  QCOMPARE(h->index(2, ProfileHistoryModel::Backend).data().toString(),
           QString::fromStdString(first[0].backend));
  QCOMPARE(h->index(3, ProfileHistoryModel::Backend).data().toString(),
           QString::fromStdString(first[1].backend));
  QVERIFY(first[0].backend != first[1].backend);
  QCOMPARE(h->index(2, ProfileHistoryModel::Reps).data().toInt(), 2);
  QCOMPARE(h->index(0, ProfileHistoryModel::Reps).data().toInt(), 3);
  QCOMPARE(h->index(2, ProfileHistoryModel::Threads).data().toString(), QStringLiteral("all"));
  QCOMPARE(h->index(2, ProfileHistoryModel::Median).data().toString(),
           duration_text(first[0].kernel_seconds));
  QCOMPARE(h->index(2, ProfileHistoryModel::Gbps).data().toString(),
           QString::number(first[0].achieved_gbps, 'f', 2));
  QCOMPARE(h->index(2, ProfileHistoryModel::Roofline).data().toString(),
           QStringLiteral("%1 %").arg(first[0].achieved_gbps / 20.0 * 100, 0, 'f', 1));
  QCOMPARE(h->index(2, ProfileHistoryModel::Problem).data().toString(),
           QString::fromStdString(describe_case(controller.problem())));
  QVERIFY(!h->index(2, ProfileHistoryModel::Problem).data(Qt::ForegroundRole).isValid());
}

// Pinned, a run is what the phase table's rows are set against: each backend and phase against
// its own, the columns gone again when the baseline is cleared.
void ProfileHistoryTest::aPinnedBaselineGivesTheDeltas() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  ProfileView view(&controller);
  QAbstractItemModelTester tester(view.phaseModel(),
                                  QAbstractItemModelTester::FailureReportingMode::QtTest);
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setBackends({QStringLiteral("cpu")});
  view.setReps(3);
  view.run();
  QVERIFY(view.waitForIdle());
  PhaseTableModel* m = view.phaseModel();
  QCOMPARE(m->columnCount(), static_cast<int>(PhaseTableModel::DeltaTime));
  auto* pin = view.findChild<QPushButton*>(QStringLiteral("profilePin"));
  auto* unpin = view.findChild<QPushButton*>(QStringLiteral("profileUnpin"));
  QVERIFY(pin && unpin);
  QVERIFY(pin->isEnabled());
  QVERIFY(!unpin->isEnabled());
  // Pinned with the button, no row selected: the latest run.
  pin->click();
  QVERIFY(view.historyModel()->history().baseline());
  const ProfileRun base = *view.historyModel()->history().baseline();  // a copy: runs are added
  QCOMPARE(base.id, std::uint64_t{1});
  QVERIFY(unpin->isEnabled());
  QCOMPARE(m->columnCount(), static_cast<int>(PhaseTableModel::ColumnCount));
  QCOMPARE(m->headerData(PhaseTableModel::DeltaTime, Qt::Horizontal).toString(),
           QString::fromUtf8("\u0394 vs #1"));
  QCOMPARE(m->value(0, PhaseTableModel::DeltaTime), 0.0);  // the run shown is the baseline
  QVERIFY(view.baselineLabel()->text().contains(QStringLiteral("run #1")));
  QCOMPARE(view.historyModel()->index(0, ProfileHistoryModel::Run).data().toString(),
           QString::fromUtf8("\u2605 #1"));

  view.run();
  QVERIFY(view.waitForIdle());
  const Profile& now = m->profiles().front();
  const Profile& then = base.profiles.front();
  QCOMPARE(now.phases.size(), then.phases.size());
  for (int row = 0; row < m->rowCount(); ++row) {
    const auto [pi, ph] = m->rowSource(row);
    QCOMPARE(pi, 0);
    const double a =
        ph < 0 ? now.wall.median : now.phases[static_cast<std::size_t>(ph)].stats.median;
    const double b =
        ph < 0 ? then.wall.median : then.phases[static_cast<std::size_t>(ph)].stats.median;
    QCOMPARE(m->value(row, PhaseTableModel::DeltaTime), a - b);
    QCOMPARE(m->value(row, PhaseTableModel::DeltaPercent), 100 * (a - b) / b);
    const QString text = m->index(row, PhaseTableModel::DeltaPercent).data().toString();
    QCOMPARE(text, QStringLiteral("%1%2 %")
                       .arg(a > b ? QStringLiteral("+") : QString())
                       .arg(100 * (a - b) / b, 0, 'f', 1));
    QVERIFY(m->index(row, PhaseTableModel::DeltaTime)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(duration_text(b)));
  }
  // Another backend has no baseline of its own: its rows stay empty there.
  view.setBackends({QStringLiteral("cpu-reference")});
  view.run();
  QVERIFY(view.waitForIdle());
  QCOMPARE(m->index(0, PhaseTableModel::DeltaTime).data().toString(), QString());
  QVERIFY(std::isnan(m->value(0, PhaseTableModel::DeltaPercent)));

  // Pinned from a selected row: that row's run.
  view.historyTable()->selectRow(view.historyModel()->firstRow(2));
  pin->click();
  QCOMPARE(view.historyModel()->history().baseline()->id, std::uint64_t{2});
  unpin->click();
  QVERIFY(!view.historyModel()->history().baseline());
  QCOMPARE(m->columnCount(), static_cast<int>(PhaseTableModel::DeltaTime));
  QVERIFY(!unpin->isEnabled());
}

// A change of problem keeps the history, its runs marked as of another problem, and the baseline
// still pinned; the next run is of the current problem.
void ProfileHistoryTest::aProblemChangeKeepsTheHistoryMarked() {
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  QVERIFY(controller.waitForIdle());
  ProfileView view(&controller);
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setBackends({QStringLiteral("cpu")});
  view.setReps(2);
  view.run();
  QVERIFY(view.waitForIdle());
  view.pinBaseline(1);
  const QString before = QString::fromStdString(describe_case(controller.problem()));
  controller.setAttr("is_training", false);
  QVERIFY(controller.waitForIdle());
  ProfileHistoryModel* h = view.historyModel();
  QCOMPARE(h->history().runs().size(), std::size_t{1});
  QCOMPARE(h->index(0, ProfileHistoryModel::Problem).data().toString(),
           QStringLiteral("(other problem) ") + before);
  QVERIFY(h->index(0, ProfileHistoryModel::Backend).data(Qt::ForegroundRole).isValid());
  QVERIFY(h->history().baseline());
  QVERIFY(view.baselineLabel()->text().contains(QStringLiteral("of another problem")));
  QCOMPARE(view.phaseModel()->rowCount(), 0);  // the table holds this problem's figures only
  QVERIFY(view.statusLabel()->text().contains(QStringLiteral("history keeps")));

  view.run();
  QVERIFY(view.waitForIdle());
  QCOMPARE(h->history().runs().size(), std::size_t{2});
  const QString after = QString::fromStdString(describe_case(controller.problem()));
  QVERIFY(after != before);
  QCOMPARE(h->index(0, ProfileHistoryModel::Problem).data().toString(), after);
  QVERIFY(!h->index(0, ProfileHistoryModel::Problem).data(Qt::ForegroundRole).isValid());
  QCOMPARE(h->index(1, ProfileHistoryModel::Problem).data().toString(),
           QStringLiteral("(other problem) ") + before);
  // Set against the other problem's run all the same: the rows both have.
  QVERIFY(view.phaseModel()->hasBaseline());
  QVERIFY(std::isfinite(view.phaseModel()->value(0, PhaseTableModel::DeltaTime)));
}

// Kept in a file, the runs and the baseline of one tab are there in the next one (a later start
// of the app), marked as of an earlier session, with their figures.
void ProfileHistoryTest::theHistoryOutlivesTheTab() {
  QTemporaryDir dir;
  const QString file = dir.filePath(QStringLiteral("data/profile-history.json"));
  std::vector<Profile> measured;
  {
    ProblemController controller;
    controller.setProblem(test::analysis_sample());
    ProfileView view(&controller);
    view.keepHistoryIn(file);
    QVERIFY(!QFileInfo::exists(file));  // nothing to keep yet
    view.setCopyProbe([](int, std::size_t) { return 20.0; });
    view.setBackends({QStringLiteral("cpu")});
    view.setReps(2);
    view.run();
    QVERIFY(view.waitForIdle());
    QVERIFY(QFileInfo::exists(file));
    view.setReps(3);
    view.run();
    QVERIFY(view.waitForIdle());
    view.pinBaseline(1);
    measured = view.historyModel()->history().runs().front().profiles;
  }
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  ProfileView view(&controller);
  view.keepHistoryIn(file);
  ProfileHistoryModel* h = view.historyModel();
  QCOMPARE(h->history().runs().size(), std::size_t{2});
  const ProfileRun* base = h->history().baseline();
  QVERIFY(base);
  QCOMPARE(base->reps, 2);
  QVERIFY(base->earlier_session);
  QCOMPARE(base->profiles.size(), std::size_t{1});
  QCOMPARE(base->profiles[0].kernel_seconds, measured[0].kernel_seconds);
  QCOMPARE(base->profiles[0].phases.size(), measured[0].phases.size());
  QVERIFY(view.baselineLabel()->text().contains(QStringLiteral("of an earlier session")));
  QCOMPARE(h->rowCount(), 2);
  QVERIFY(h->index(0, ProfileHistoryModel::Problem)
              .data()
              .toString()
              .startsWith(QStringLiteral("(earlier session) ")));
  QVERIFY(h->index(0, ProfileHistoryModel::Problem).data(Qt::ForegroundRole).isValid());
  // A run of this session is set against the earlier one, and kept beside it.
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setBackends({QStringLiteral("cpu")});
  view.setReps(2);
  view.run();
  QVERIFY(view.waitForIdle());
  QVERIFY(view.phaseModel()->hasBaseline());
  QVERIFY(std::isfinite(view.phaseModel()->value(0, PhaseTableModel::DeltaTime)));
  QCOMPARE(h->history().runs().size(), std::size_t{3});
  QVERIFY(!h->history().runs().back().earlier_session);
  ProblemController next;
  ProfileView again(&next);
  again.keepHistoryIn(file);
  QCOMPARE(again.historyModel()->history().runs().size(), std::size_t{3});
  QCOMPARE(again.historyModel()->history().baseline()->reps, 2);
}

// A file that is not a history is named in the status line and kept aside whole; the tab then
// begins a new history in its place.
void ProfileHistoryTest::anUnreadableHistoryIsSetAsideNotWrittenOver() {
  QTemporaryDir dir;
  const QString file = dir.filePath(QStringLiteral("profile-history.json"));
  const QByteArray junk("{\"schema\": \"bnscope-profile-history/1\", \"runs\": [{\"reps\": ");
  {
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(junk);
  }
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  ProfileView view(&controller);
  view.keepHistoryIn(file);
  QVERIFY(view.historyModel()->history().runs().empty());
  const QString status = view.statusLabel()->text();
  QVERIFY2(status.contains(QStringLiteral("could not be read")), qPrintable(status));
  QVERIFY2(status.contains(file + QStringLiteral(".unreadable")), qPrintable(status));
  QVERIFY(!QFileInfo::exists(file));
  QFile aside(file + QStringLiteral(".unreadable"));
  QVERIFY(aside.open(QIODevice::ReadOnly));
  QCOMPARE(aside.readAll(), junk);
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setBackends({QStringLiteral("cpu")});
  view.setReps(2);
  view.run();
  QVERIFY(view.waitForIdle());
  ProblemController next;
  ProfileView again(&next);
  again.keepHistoryIn(file);
  QCOMPARE(again.historyModel()->history().runs().size(), std::size_t{1});
}

// A history whose folder cannot be made keeps the session's runs and says why it is not saved.
void ProfileHistoryTest::aHistoryThatCannotBeSavedSaysSo() {
  QTemporaryDir dir;
  const QString blocker = dir.filePath(QStringLiteral("a-file"));
  {
    QFile f(blocker);
    QVERIFY(f.open(QIODevice::WriteOnly));
  }
  const QString file = blocker + QStringLiteral("/profile-history.json");
  ProblemController controller;
  controller.setProblem(test::analysis_sample());
  ProfileView view(&controller);
  view.keepHistoryIn(file);
  view.setCopyProbe([](int, std::size_t) { return 20.0; });
  view.setBackends({QStringLiteral("cpu")});
  view.setReps(2);
  view.run();
  QVERIFY(view.waitForIdle());
  QCOMPARE(view.historyModel()->history().runs().size(), std::size_t{1});
  const QString status = view.statusLabel()->text();
  QVERIFY2(status.contains(QStringLiteral("could not be saved")), qPrintable(status));
}

QTEST_MAIN(ProfileHistoryTest)
#include "profile_history_test.moc"
