// The main window offscreen: start-up on the sample, opening problems and files, flags, a
// report export, and closing with unsaved changes.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QListView>
#include <QMessageBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "channel_panel.h"
#include "channel_table_model.h"
#include "diff/diff_view.h"
#include "diff/verdict_model.h"
#include "io/npy.h"
#include "io/npz.h"
#include "main_window.h"
#include "number_spin_box.h"
#include "ops/problem_io.h"
#include "problem_controller.h"
#include "problem_form.h"
#include "profile_tab/phase_table_model.h"
#include "profile_tab/profile_view.h"
#include "qt_suites.h"
#include "views_test_util.h"
#include "window_test_util.h"

using namespace bnscope;

class WindowStartTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void startsWithTheSample();
  void exportsTheReportOfTheCurrentProblem();
  void openingAnotherProblemLeavesNothingStale();
  void opensFilesAndFlags();
  void badFileKeepsThePreviousProblem();
  void commandLineOpensFilesAsFileOpenDoes();
  void asksBeforeClosingWithUnsavedChanges();
  void settingsSetBackAreNoChange();
  void reportNamesItsSourceInTheAppsWords();

 private:
  QTemporaryDir dir_;
};
BNSCOPE_QT_SUITE(WindowStartTest);

void WindowStartTest::initTestCase() {
  QVERIFY(dir_.isValid());
  test::isolate_settings();
}

void WindowStartTest::startsWithTheSample() {
  MainWindow w;
  QString error;
  QVERIFY2(w.openFromArguments({}, &error), qPrintable(error));
  QCOMPARE(w.controller()->problem().op, std::string("FusedBatchNormGradV3"));
  QCOMPARE(attr_string(w.controller()->problem(), "data_format"), std::string("NHWC"));
  QVERIFY(attr_bool(w.controller()->problem(), "is_training"));
  QCOMPARE(w.controller()->backend(), std::string("cpu"));
  test::expect_table_is_engine(w);
  QStringList tabs;
  for (int i = 0; i < w.viewTabs()->count(); ++i) tabs << w.viewTabs()->tabText(i).remove('&');
  QVERIFY2(tabs.contains("Diff") && tabs.contains("Profile"), qPrintable(tabs.join(',')));
}

void WindowStartTest::exportsTheReportOfTheCurrentProblem() {
  MainWindow w;
  QString error;
  QVERIFY2(w.openFromArguments({}, &error), qPrintable(error));
  QTemporaryDir tmp;
  // The folder need not exist yet.
  const QString dir = QDir(tmp.path()).filePath(QStringLiteral("new/report"));
  ExportResult res = w.exportReportTo(dir);
  QVERIFY2(res.ok, qPrintable(res.error));
  for (const char* f : {"report.html", "report.json", "report.csv"})
    QVERIFY2(QFileInfo(QDir(dir).filePath(f)).size() > 0, f);
  // Nothing profiled: no trace.json rather than an empty one, and the result says why.
  QVERIFY(!QFileInfo::exists(QDir(dir).filePath(QStringLiteral("trace.json"))));
  QVERIFY(res.skipped.join(QString()).contains(QStringLiteral("Profile")));
  auto* profile = w.findChild<ProfileView*>();
  QVERIFY(profile);
  profile->setCopyProbe([](int, std::size_t) { return 20.0; });
  profile->setReps(2);
  profile->setBackends({QStringLiteral("cpu")});
  profile->run();
  QVERIFY(profile->waitForIdle());
  res = w.exportReportTo(dir);
  QVERIFY2(res.ok, qPrintable(res.error));
  QVERIFY(QFileInfo(QDir(dir).filePath(QStringLiteral("trace.json"))).size() > 0);
  res = w.exportReportTo(QStringLiteral("/proc/no/such/dir"));
  QVERIFY(!res.ok);
  QVERIFY(!res.error.isEmpty());
}

void WindowStartTest::openingAnotherProblemLeavesNothingStale() {
  const QString first = dir_.filePath(QStringLiteral("first.npz"));
  const QString second = dir_.filePath(QStringLiteral("second.npz"));
  save_problem(first.toStdString(), test::small_sample(11));
  Problem other = test::small_sample(12);
  other.attrs["epsilon"] = 0.25;
  save_problem(second.toStdString(), other);
  MainWindow w;
  w.resize(1400, 900);
  QVERIFY(w.openPath(first));
  QVERIFY(w.windowTitle().contains(QStringLiteral("first.npz")));
  w.show();
  auto* diff = w.findChild<DiffView*>();
  auto* profile = w.findChild<ProfileView*>();
  QVERIFY(diff && profile);
  w.viewTabs()->setCurrentWidget(diff);
  QVERIFY(diff->waitForIdle());
  QVERIFY(diff->currentOutcome());
  QVERIFY(diff->verdictModel()->rowCount() > 0);
  profile->setCopyProbe([](int, std::size_t) { return 20.0; });
  profile->setReps(2);
  profile->setBackends({QStringLiteral("cpu")});
  profile->run();
  QVERIFY(profile->waitForIdle());
  QVERIFY(profile->phaseModel()->rowCount() > 0);

  // Unsaved edits: Open asks first, and Cancel keeps them.
  int asked = 0;
  w.setClosePrompt([&] {
    ++asked;
    return int(QMessageBox::Cancel);
  });
  w.controller()->setAttr("epsilon", 0.125);
  QVERIFY(!w.openPath(second));
  QCOMPARE(asked, 1);
  QCOMPARE(attr_float(w.controller()->problem(), "epsilon"), 0.125);
  w.setClosePrompt([&] {
    ++asked;
    return int(QMessageBox::Discard);
  });
  QVERIFY(w.openPath(second));
  QCOMPARE(asked, 2);
  QCOMPARE(attr_float(w.controller()->problem(), "epsilon"), 0.25);
  // Every view belongs to the new problem or is empty.
  QVERIFY(w.windowTitle().contains(QStringLiteral("second.npz")));
  QVERIFY(!w.windowTitle().contains(QStringLiteral("first.npz")));
  QCOMPARE(profile->phaseModel()->rowCount(), 0);
  QVERIFY(!profile->profiledRevision());
  QVERIFY(diff->waitForIdle());
  const auto out = diff->currentOutcome();
  QVERIFY(out);  // the Diff tab is shown: it compared the new problem
  QCOMPARE(attr_float(out->problem, "epsilon"), 0.25);
  test::expect_table_is_engine(w);
  QVERIFY(w.recentFiles().value(0).endsWith(QStringLiteral("second.npz")));

  // Open sample names the window after it, not after the file before.
  QVERIFY(w.controller()->path().endsWith(QStringLiteral("second.npz")));
  w.controller()->setProblem(test::small_sample(13));
  QVERIFY(!w.windowTitle().contains(QStringLiteral("second.npz")));
  QVERIFY(w.controller()->waitForIdle());
}

void WindowStartTest::opensFilesAndFlags() {
  const QString path = dir_.filePath(QStringLiteral("p.npz"));
  Problem p = test::small_sample(5);
  p.attrs["epsilon"] = 0.0625;
  save_problem(path.toStdString(), p);
  MainWindow w;
  QString error;
  QVERIFY2(w.openFromArguments({path}, &error), qPrintable(error));
  QCOMPARE(attr_float(w.controller()->problem(), "epsilon"), 0.0625);
  QVERIFY(w.windowTitle().contains(QStringLiteral("p.npz")));
  test::expect_table_is_engine(w);

  MainWindow v;
  QVERIFY2(v.openFromArguments({QStringLiteral("--op"), QStringLiteral("FusedBatchNormGradV2"),
                                QStringLiteral("--inputs"), path, QStringLiteral("--attr"),
                                QStringLiteral("epsilon=0.5")},
                               &error),
           qPrintable(error));
  QCOMPARE(v.controller()->problem().op, std::string("FusedBatchNormGradV2"));
  QCOMPARE(attr_float(v.controller()->problem(), "epsilon"), 0.5);
  test::expect_table_is_engine(v);

  MainWindow u;
  QVERIFY(!u.openFromArguments({QStringLiteral("--op"), QStringLiteral("NoSuchOp")}, &error));
  QVERIFY(error.contains(QStringLiteral("NoSuchOp")));
}

void WindowStartTest::badFileKeepsThePreviousProblem() {
  MainWindow w;
  w.controller()->setProblem(test::small_sample());
  QVERIFY(w.controller()->waitForIdle());
  const auto x = w.controller()->problem().inputs.at("x").to_doubles();
  const int rows = w.channels()->model()->rowCount();
  QFile bad(dir_.filePath(QStringLiteral("broken.npz")));
  QVERIFY(bad.open(QIODevice::WriteOnly));
  bad.write("this is not a zip archive");
  bad.close();
  QVERIFY(!w.openPath(bad.fileName()));
  QVERIFY(!w.lastError().isEmpty());
  QVERIFY(w.findChild<QMessageBox*>());  // the error is shown, not swallowed
  QVERIFY(!w.controller()->isRunning());
  QCOMPARE(w.controller()->problem().inputs.at("x").to_doubles(), x);
  QCOMPARE(w.channels()->model()->rowCount(), rows);
}

namespace {

// The first `keep` bytes of path, written to `to`.
void write_cut(const QString& path, qint64 keep, const QString& to) {
  QFile in(path), out(to);
  QVERIFY(in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly));
  out.write(in.read(keep));
}

}  // namespace

// `bnscope FILE` opens FILE as File > Open does: a .npy is the input it is named after, and a
// file cut short says so, whichever way it was opened.
void WindowStartTest::commandLineOpensFilesAsFileOpenDoes() {
  const Problem sample = test::small_sample(21);
  const Tensor x = sample.inputs.at("x");
  const QString npy = dir_.filePath(QStringLiteral("x.npy"));
  write_npy(npy.toStdString(), x);
  MainWindow w;
  QString error;
  QVERIFY2(w.openFromArguments({npy}, &error), qPrintable(error));
  QCOMPARE(w.controller()->problem().op, std::string("FusedBatchNormGradV3"));
  QCOMPARE(w.controller()->problem().inputs.at("x").to_doubles(), x.to_doubles());
  QVERIFY(w.controller()->waitForIdle());

  const QString cut_npy = dir_.filePath(QStringLiteral("trunc/x.npy"));
  QVERIFY(QDir().mkpath(dir_.filePath(QStringLiteral("trunc"))));
  write_cut(npy, QFileInfo(npy).size() - 16, cut_npy);
  MainWindow v;
  QVERIFY(!v.openFromArguments({cut_npy}, &error));
  QVERIFY2(error.contains(QStringLiteral("truncated .npy")), qPrintable(error));
  QVERIFY2(!error.contains(QStringLiteral("zip")), qPrintable(error));
  // File > Open says the same of it.
  MainWindow u;
  QVERIFY(u.openFromArguments({}, nullptr));
  QVERIFY(!u.openPath(cut_npy));
  QVERIFY2(error.endsWith(u.lastError()), qPrintable(error + " / " + u.lastError()));

  const QString npz = dir_.filePath(QStringLiteral("whole.npz"));
  write_npz(npz.toStdString(), {{"x", x}});
  const QString big = dir_.filePath(QStringLiteral("big.npz"));
  write_cut(npz, QFileInfo(npz).size() / 2, big);
  MainWindow t;
  QVERIFY(!t.openFromArguments({big}, &error));
  QVERIFY2(error.contains(QStringLiteral("big.npz: truncated (ends inside the zip's data")),
           qPrintable(error));
  QVERIFY2(!error.contains(QStringLiteral("not a zip archive")), qPrintable(error));

  // An empty argument (a script's unset variable) is said to be an empty name, not a file
  // named "" of the wrong kind.
  MainWindow e;
  QVERIFY(!e.openFromArguments({QString()}, &error));
  QCOMPARE(error, QStringLiteral("Cannot open: no file name given: expected a .npy or .npz file"));
  // A name of spaces is a legal file name on Linux: it is named, not called missing.
  QVERIFY(!e.openFromArguments({QStringLiteral("  ")}, &error));
  QVERIFY2(!error.contains(QStringLiteral("no file name given")), qPrintable(error));
  QVERIFY2(error.contains(QStringLiteral("  ")), qPrintable(error));
}

void WindowStartTest::asksBeforeClosingWithUnsavedChanges() {
  MainWindow w;
  w.controller()->setProblem(test::small_sample());
  w.show();
  int asked = 0;
  w.setClosePrompt([&] {
    ++asked;
    return int(QMessageBox::Cancel);
  });
  QVERIFY(w.close());  // nothing changed: no question
  QCOMPARE(asked, 0);
  w.show();
  w.controller()->setAttr("epsilon", 0.3);
  QVERIFY(w.isWindowModified());
  QVERIFY(!w.close());
  QCOMPARE(asked, 1);
  QVERIFY(w.isVisible());
  w.setClosePrompt([] { return int(QMessageBox::Discard); });
  QVERIFY(w.close());
}

// Quit and Open Recent ask to save only when the problem differs from its file: settings
// changed and set back to what the file holds are no unsaved change.
void WindowStartTest::settingsSetBackAreNoChange() {
  const QString path = dir_.filePath(QStringLiteral("held.npz"));
  const QString other = dir_.filePath(QStringLiteral("other.npz"));
  Problem held = test::small_sample(31);
  held.attrs.erase("epsilon");  // the file leaves it at TensorFlow's default
  save_problem(path.toStdString(), held);
  save_problem(other.toStdString(), test::small_sample(32));
  MainWindow w;
  QVERIFY(w.openPath(path));
  w.show();
  int asked = 0;
  w.setClosePrompt([&] {
    ++asked;
    return int(QMessageBox::Cancel);
  });
  auto* eps = qobject_cast<QDoubleSpinBox*>(w.form()->attrEditor(QStringLiteral("epsilon")));
  QVERIFY(eps);
  const double eps0 = eps->value();
  eps->setValue(0.3);
  QVERIFY(w.controller()->isModified());
  QVERIFY(w.isWindowModified());
  eps->setValue(eps0);
  QVERIFY(!w.controller()->isModified());
  QVERIFY(!w.isWindowModified());
  w.controller()->setDtype(DType::F64);
  w.controller()->setConvention(ReserveConvention::InvStd);
  QVERIFY(w.controller()->isModified());
  w.controller()->setDtype(std::nullopt);
  w.controller()->setConvention(ReserveConvention::Variance);
  QVERIFY(!w.controller()->isModified());
  // An input replaced by the same values is the file's input still; other values are not.
  const Tensor x = w.controller()->problem().inputs.at("x");
  w.controller()->setInput("x", Tensor::from_doubles(x.dtype(), x.shape(), x.to_doubles()));
  QVERIFY(!w.controller()->isModified());
  QVERIFY(w.close());
  QCOMPARE(asked, 0);
  w.show();
  Tensor changed = x;
  changed.set(0, x.get(0) + 1);
  w.controller()->setInput("x", changed);
  QVERIFY(w.controller()->isModified());
  QVERIFY(!w.openPath(other));  // Open Recent asks, and Cancel keeps the edit
  QCOMPARE(asked, 1);
  w.controller()->setInput("x", x);
  QVERIFY(w.openPath(other));
  QCOMPARE(asked, 1);
  QVERIFY(w.controller()->waitForIdle());
}

// The exported report names the file the problem came from, and calls the smallest passing
// atol what the Diff tab calls it.
void WindowStartTest::reportNamesItsSourceInTheAppsWords() {
  const QString path = dir_.filePath(QStringLiteral("big.npz"));
  save_problem(path.toStdString(), test::small_sample(33));
  MainWindow w;
  QVERIFY(w.openPath(path));
  QTemporaryDir tmp;
  const ExportResult res = w.exportReportTo(tmp.path());
  QVERIFY2(res.ok, qPrintable(res.error));
  QFile html(QDir(tmp.path()).filePath(QStringLiteral("report.html")));
  QVERIFY(html.open(QIODevice::ReadOnly));
  const QString text = QString::fromUtf8(html.readAll());
  QVERIFY(text.contains(QStringLiteral("<th>Source</th><td><code>big.npz</code>")));
  const QString words = w.analysis()
                            .diff->verdictModel()
                            ->headerData(VerdictModel::RequiredAtol, Qt::Horizontal)
                            .toString();
  QVERIFY(!words.isEmpty());
  QVERIFY2(text.contains(QStringLiteral(">%1</th>").arg(words)), qPrintable(words));
  QVERIFY(!text.contains(QStringLiteral("needs atol")));
  QFile json(QDir(tmp.path()).filePath(QStringLiteral("report.json")));
  QVERIFY(json.open(QIODevice::ReadOnly));
  QVERIFY(json.readAll().contains("\"source\": \"big.npz\""));
}

#include "window_start_test.moc"
