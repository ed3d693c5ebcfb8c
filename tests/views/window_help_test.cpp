// The Help menu and the sample's hint, offscreen: the four pages, the shortcuts as the actions
// define them, the conventions from core, About with every backend, and the hint shown on the
// built-in sample only, the window still fitting a 1280x800 screen with it.
#include <QAction>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QToolButton>
#include <QtTest>
#include <cstdlib>

#include "about_dialog.h"
#include "analysis/diff.h"
#include "backends.h"
#include "backends/backend.h"
#include "diff/cause_model.h"
#include "diff/diff_view.h"
#include "diff/verdict_model.h"
#include "help_menu.h"
#include "help_text.h"
#include "main_window.h"
#include "ops/problem_io.h"
#include "problem_controller.h"
#include "profile_tab/profile_view.h"
#include "qt_suites.h"
#include "report/report.h"
#include "sample_hint.h"
#include "text_dialog.h"
#include "views_test_util.h"
#include "window_test_util.h"

using namespace bnscope;

class WindowHelpTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void helpMenuHasItsFourPages();
  void shortcutsAreTheActionsOwn();
  void conventionsReadCoresTolerances();
  void aboutListsEveryBackendAndTheVersions();
  void hintShowsOnTheSampleOnly();
  void hintsAdviceFindsTheCause();
  void fitsA1280x800ScreenWithTheHint();

 private:
  QTemporaryDir dir_;
};
BNSCOPE_QT_SUITE(WindowHelpTest);

namespace {

QMenu* menu_titled(MainWindow& w, const QString& title) {
  for (QAction* a : w.menuBar()->actions())
    if (a->menu() && a->menu()->title().remove(QLatin1Char('&')) == title) return a->menu();
  return nullptr;
}

QAction* action_titled(QMenu* menu, const QString& text) {
  for (QAction* a : menu->actions())
    if (a->text().remove(QLatin1Char('&')) == text) return a;
  return nullptr;
}

// Opens the Help page of that action and returns its window.
template <typename Dialog = TextDialog>
Dialog* open_page(MainWindow& w, const char* name) {
  QAction* a = help_action(&w, QString::fromLatin1(name));
  if (!a) return nullptr;
  a->trigger();
  for (Dialog* d : w.findChildren<Dialog*>(QString::fromLatin1(name) + QStringLiteral("Dialog")))
    if (d->isVisible()) return d;
  return nullptr;
}

}  // namespace

void WindowHelpTest::initTestCase() {
  QVERIFY(dir_.isValid());
  test::isolate_settings();
  ::setenv("BNSCOPE_PLUGIN_HOST", BNSCOPE_PLUGIN_HOST_PATH, 1);
  app::register_all_backends();
}

void WindowHelpTest::helpMenuHasItsFourPages() {
  MainWindow w;
  QMenu* help = w.findChild<QMenu*>(QStringLiteral("helpMenu"));
  QVERIFY(help);
  QCOMPARE(w.menuBar()->actions().back()->menu(), help);  // last, where a desktop puts it
  QStringList names, texts;
  for (QAction* a : help->actions())
    if (!a->isSeparator()) names << a->objectName(), texts << a->text().remove('&');
  QCOMPARE(names, (QStringList{kHelpQuickStart, kHelpShortcuts, kHelpConventions, kHelpAbout}));
  QCOMPARE(texts,
           (QStringList{"Quick start", "Keyboard shortcuts", "Conventions", "About bnscope"}));
  w.show();
  for (const char* name : {kHelpQuickStart, kHelpShortcuts, kHelpConventions, kHelpAbout}) {
    TextDialog* d = open_page(w, name);
    QVERIFY2(d, name);
    QVERIFY(!d->isModal());  // read beside the window, which goes on working
    QVERIFY(d->plainText().size() > 100);
    // Inside a 1280x800 screen, and one of each: asked again, the same window.
    QVERIFY(d->width() <= 1280 && d->height() <= 760);
    QCOMPARE(open_page(w, name), d);
    auto* close = d->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Close);
    QVERIFY(close);
    QPointer<TextDialog> gone(d);
    close->click();
    QTRY_VERIFY(!gone || !gone->isVisible());
  }
  // The quick start names the steps README's app quick start takes.
  const QString quick = quick_start_html();
  for (const char* step :
       {"File &gt; Open", "Diff", "Causes", "Apply fix", "Profile", "Export report", "Esc"})
    QVERIFY2(quick.contains(QLatin1String(step)), step);
}

void WindowHelpTest::shortcutsAreTheActionsOwn() {
  MainWindow w;
  QMenu* file = menu_titled(w, QStringLiteral("File"));
  QVERIFY(file);
  QAction* open = action_titled(file, QStringLiteral("Open..."));
  QVERIFY(open);
  QVERIFY(!open->shortcut().isEmpty());
  const QList<MenuShortcut> listed = menu_shortcuts(w.menuBar());
  bool found = false;
  for (const MenuShortcut& s : listed)
    if (s.menu == QStringLiteral("File") && s.action == QStringLiteral("Open..."))
      found = s.keys == open->shortcuts();
  QVERIFY(found);
  // Every action with a shortcut, and no action without one.
  int with_keys = 0;
  for (QAction* a : w.menuBar()->findChildren<QAction*>())
    if (!a->shortcuts().isEmpty() && !a->menu()) ++with_keys;
  QCOMPARE(listed.size(), with_keys);
  TextDialog* d = open_page(w, kHelpShortcuts);
  QVERIFY(d);
  QVERIFY(d->plainText().contains(open->shortcut().toString(QKeySequence::NativeText)));
  // Read from the actions: a shortcut given since is on the page the next time it is opened.
  QAction* sample = action_titled(file, QStringLiteral("Open sample"));
  QVERIFY(sample && sample->shortcut().isEmpty());
  sample->setShortcut(QKeySequence(QStringLiteral("Ctrl+Alt+F9")));
  d = open_page(w, kHelpShortcuts);
  QVERIFY(d->plainText().contains(sample->shortcut().toString(QKeySequence::NativeText)));
  QVERIFY(d->plainText().contains(QStringLiteral("Open sample")));
}

void WindowHelpTest::conventionsReadCoresTolerances() {
  const QString page = conventions_html();
  for (const char* word : {"reserve_space_2", "variance", "inv_std", "1/sqrt(variance + epsilon)",
                           "NHWC", "NCHW", "training", "inference", "is_training"})
    QVERIFY2(page.contains(QLatin1String(word)), word);
  // A row per dtype with its default tolerances.
  for (DType t : kAllDTypes) {
    const Tolerance tol = default_tolerance(t);
    const QRegularExpression row(
        QStringLiteral("<tr><td>%1[^<]*</td><td align=\"right\">%2</td><td align=\"right\">%3</td>")
            .arg(QString::fromUtf8(dtype_name(t).data(), dtype_name(t).size()),
                 QRegularExpression::escape(QString::number(tol.atol, 'g', 3)),
                 QRegularExpression::escape(QString::number(tol.rtol, 'g', 3))));
    QVERIFY2(page.contains(row), qPrintable(row.pattern()));
  }
  QVERIFY(page.contains(QStringLiteral("0.002")));  // float16's atol, as TensorFlow's tests take
}

void WindowHelpTest::aboutListsEveryBackendAndTheVersions() {
  MainWindow w;
  // A plugin's backend is listed as the built-in ones are.
  QVERIFY(w.loadPlugin(QStringLiteral(BNSCOPE_TEST_PLUGIN_DIR "/plugin_bug_layout.so")));
  w.show();
  auto* about = open_page<AboutDialog>(w, kHelpAbout);
  QVERIFY(about);
  const QString version = QString::fromLatin1(bnscope_version().data(), bnscope_version().size());
  QVERIFY(!version.isEmpty());
  // At once: the versions known without asking anything, the backends by name.
  QVERIFY(about->isChecking());
  QString text = about->plainText();
  QVERIFY(text.contains(QStringLiteral("bnscope ") + version));
  QVERIFY(text.contains(QString::fromLatin1(qVersion())));
  QVERIFY(text.contains(QStringLiteral("checking...")));
  for (const Backend* b : BackendRegistry::instance().all())
    QVERIFY2(text.contains(QString::fromUtf8(b->name().data(), b->name().size())),
             b->name().data());
  QSignalSpy checked(about, &AboutDialog::checked);
  QVERIFY(checked.wait(60000));
  text = about->plainText();
  QVERIFY(!text.contains(QStringLiteral("checking...")));
  QVERIFY(text.contains(QStringLiteral("CUDA runtime")) && text.contains(QStringLiteral("cuDNN")));
#ifndef BNSCOPE_HAVE_GPU
  QVERIFY(text.contains(QString::fromStdString(app::gpu_not_built_reason())));
#endif
  // Each backend with what it is and whether it runs here, as the registry says.
  QStringList names;
  for (const Backend* b : BackendRegistry::instance().all()) {
    const QString name = QString::fromUtf8(b->name().data(), b->name().size());
    names << name;
    QVERIFY2(text.contains(QString::fromUtf8(b->description().data(), b->description().size())),
             b->name().data());
    const std::string why = b->unavailable_reason();
    if (!why.empty()) QVERIFY2(text.contains(QString::fromStdString(why)), why.c_str());
  }
  for (const char* expected :
       {"cpu-reference", "cpu", "cuda", "cudnn", "cuda-emu", "tf", "torch", "example-c-bug-layout"})
    QVERIFY2(names.contains(QLatin1String(expected)), expected);
  QVERIFY(text.contains(QStringLiteral("runs here")));  // cpu does
  QVERIFY(about->browser()->document()->toHtml().contains(
      QString::fromStdString(BackendRegistry::instance().find("cpu")->code_path())
          .toHtmlEscaped()));
}

void WindowHelpTest::hintShowsOnTheSampleOnly() {
  MainWindow w;
  w.setClosePrompt([] { return int(QMessageBox::Discard); });
  w.show();
  SampleHint* hint = w.sampleHint();
  QVERIFY(hint && !hint->isVisible());
  QString error;
  QVERIFY2(w.openFromArguments({}, &error), qPrintable(error));
  QVERIFY(hint->isVisible());
  QVERIFY(hint->text().contains(QStringLiteral("Built-in sample")));
  QVERIFY(hint->text().contains(QString::fromStdString(w.controller()->problem().op)));
  // Edits of the sample keep it: it suggests some.
  w.controller()->setConvention(ReserveConvention::InvStd);
  QVERIFY(hint->isVisible());
  // Another problem: gone.
  w.controller()->setProblem(test::small_sample());
  QVERIFY(!hint->isVisible());
  // File > Open sample shows it again; dismissed, it stays away.
  QAction* sample = action_titled(menu_titled(w, QStringLiteral("File")), "Open sample");
  QVERIFY(sample);
  sample->trigger();
  QVERIFY(hint->isVisible());
  hint->closeButton()->click();
  QVERIFY(!hint->isVisible());
  w.controller()->setAttr("epsilon", 0.01);
  QVERIFY(!hint->isVisible());
  // A problem file opened over the sample, and a problem from flags: none.
  sample->trigger();
  QVERIFY(hint->isVisible());
  const QString file = dir_.filePath(QStringLiteral("other.npz"));
  save_problem(file.toStdString(), test::small_sample(3));
  QVERIFY2(w.openFile(file, &error), qPrintable(error));
  QVERIFY(!hint->isVisible());
  sample->trigger();
  QVERIFY(hint->isVisible());
  QVERIFY2(w.openFromArguments({"--inputs", file}, &error), qPrintable(error));
  QVERIFY(!hint->isVisible());
  // Its links go where they say.
  sample->trigger();
  emit hint->linkActivated(QStringLiteral("profile"));
  QCOMPARE(w.viewTabs()->currentWidget(), w.analysis().profile);
  emit hint->linkActivated(QStringLiteral("diff"));
  QCOMPARE(w.viewTabs()->currentWidget(), w.analysis().diff);
  emit hint->linkActivated(QString::fromLatin1(kHelpQuickStart));
  auto* quick = w.findChild<TextDialog*>(QString::fromLatin1(kHelpQuickStart) + "Dialog");
  QVERIFY(quick && quick->isVisible());
  QVERIFY2(w.controller()->waitForIdle(), "runs");
}

// What the hint says to try on the sample does what it says: cpu agrees with cpu-reference; with
// a baseline pinned as the reference, inv_std is named as the cause and Apply fix sets it back.
void WindowHelpTest::hintsAdviceFindsTheCause() {
  MainWindow w;
  QString error;
  QVERIFY2(w.openFromArguments({}, &error), qPrintable(error));
  w.show();
  QVERIFY(w.sampleHint()->isVisible());
  emit w.sampleHint()->linkActivated(QStringLiteral("diff"));
  DiffView* diff = w.analysis().diff;
  QCOMPARE(diff->candidates(), QStringList{QStringLiteral("cpu")});
  QVERIFY(diff->waitForIdle());
  QVERIFY(w.controller()->waitForIdle());
  QVERIFY(diff->outcome() && diff->outcome()->report().passed());
  QVERIFY2(diff->pinBaseline(QStringLiteral("baseline 1"), &error), qPrintable(error));
  diff->setReferenceBaseline(QStringLiteral("baseline 1"));
  w.controller()->setConvention(ReserveConvention::InvStd);
  QVERIFY(w.controller()->waitForIdle());
  QVERIFY(diff->waitForIdle());
  QVERIFY(w.sampleHint()->isVisible());
  QVERIFY(diff->outcome() && !diff->outcome()->report().passed());
  QVERIFY(diff->causeModel()->rowCount() > 0);
  QCOMPARE(diff->causeModel()->causes().front().code, std::string("reserve-convention"));
  QVERIFY(diff->applyFix(0));
  QVERIFY(diff->waitForIdle());
  QCOMPARE(w.controller()->problem().convention, ReserveConvention::Variance);
  QVERIFY(diff->outcome() && diff->outcome()->report().passed());
}

// The hint takes its height from the tabs, not from the Warnings panel or the status bar.
void WindowHelpTest::fitsA1280x800ScreenWithTheHint() {
  const QRect screen(0, 0, 1280, 800);
  QSettings().remove(QStringLiteral("window/geometry"));
  QSettings().remove(QStringLiteral("window/state"));
  MainWindow w;
  QString error;
  QVERIFY2(w.openFromArguments({}, &error), qPrintable(error));
  w.fitInto(screen);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  w.viewTabs()->setCurrentWidget(w.analysis().diff);
  QVERIFY(w.analysis().diff->waitForIdle());
  QTest::qWait(50);
  QVERIFY(w.sampleHint()->isVisible());
  QVERIFY2(
      screen.contains(w.frameGeometry()),
      qPrintable(
          QStringLiteral("%1x%2").arg(w.frameGeometry().width()).arg(w.frameGeometry().height())));
  QVERIFY(w.width() >= 1200 && w.height() >= 740);
  const QRect inside = w.rect();
  const auto in_window = [&w](QWidget* c) { return QRect(c->mapTo(&w, QPoint()), c->size()); };
  QVERIFY(w.statusBar()->isVisible());
  QVERIFY(inside.contains(in_window(w.statusBar())));
  QVERIFY(w.warningsDock()->isVisible());
  QVERIFY(inside.contains(in_window(w.warningsDock())));
  QVERIFY(w.warningsDock()->height() >= 60);
  // The whole hint shows, a few lines high, and the verdict below it.
  const QRect hint = in_window(w.sampleHint());
  QVERIFY(inside.contains(hint));
  QVERIFY2(hint.height() <= 90, qPrintable(QString::number(hint.height())));
  QVERIFY(w.sampleHint()->label()->height() >=
          w.sampleHint()->label()->heightForWidth(w.sampleHint()->label()->width()));
  auto* verdicts = w.analysis().diff->findChild<QTableView*>(QStringLiteral("diffVerdictTable"));
  QVERIFY(verdicts && verdicts->isVisible());
  QVERIFY(w.analysis().diff->verdictModel()->rowCount() > 0);
  const QRect table = in_window(verdicts);
  QVERIFY(inside.contains(table) && table.top() >= hint.bottom());
  QVERIFY(table.height() >= 60);
  if (qEnvironmentVariableIsSet("BNSCOPE_TEST_SHOT"))
    w.grab().save(qEnvironmentVariable("BNSCOPE_TEST_SHOT") + QStringLiteral("hint.png"));
}

#include "window_help_test.moc"
