// The main window's views offscreen: the tensor browser, a rendered screenshot, the dark theme,
// Esc keeping the views marked stale, and a layout change rewritten in place.
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>
#include <cstring>
#include <memory>
#include <set>

#include "backends/backend.h"
#include "channel_panel.h"
#include "channel_table_model.h"
#include "diff/cause_model.h"
#include "diff/diff_view.h"
#include "diff/verdict_model.h"
#include "engine/engine.h"
#include "heatmap_widget.h"
#include "io/npz.h"
#include "main_window.h"
#include "ops/sample.h"
#include "problem_controller.h"
#include "problem_form.h"
#include "process_events.h"
#include "profile_tab/phase_table_model.h"
#include "profile_tab/profile_view.h"
#include "qt_suites.h"
#include "tensor/layout.h"
#include "tensor_browser.h"
#include "theme.h"
#include "views_test_util.h"
#include "window_test_util.h"

using namespace bnscope;

class WindowViewsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void tensorBrowserShowsSlices();
  void rendersANonBlankScreenshot();
  void darkThemeWhenAsked();
  void escapeKeepsTheViewsAndSaysTheyAreStale();
  void escapeStopsAProfileInFlight();
  void runStatusNamesTheComparisonItWaitsFor();
  void layoutChangeInTheWindowRewritesInPlace();
  void chartsStayWhenARunGivesThemTheSameAgain();
  void channelOfNaNSaysSoInsteadOfARange();
  void fitsA1280x800Screen();

 private:
  QTemporaryDir dir_;
};
BNSCOPE_QT_SUITE(WindowViewsTest);

void WindowViewsTest::initTestCase() {
  QVERIFY(dir_.isValid());
  test::isolate_settings();
}

void WindowViewsTest::tensorBrowserShowsSlices() {
  MainWindow w;
  const Problem p = test::small_sample();
  w.controller()->setProblem(p);
  QVERIFY(w.controller()->waitForIdle());
  TensorBrowser* b = w.browser();
  QVERIFY(b->showTensor(QStringLiteral("input x")));
  b->firstIndex()->setValue(1);
  b->secondIndex()->setValue(4);
  const Slice2D& s = b->heatmap()->slice();
  QCOMPARE(s.rows, 3);
  QCOMPARE(s.cols, 4);
  const Tensor& x = p.inputs.at("x");  // NHWC [2,3,4,5]
  QCOMPARE(s.at(2, 3), x.get(((1 * 3 + 2) * 4 + 3) * 5 + 4));
  b->modeBox()->setCurrentIndex(1);
  QCOMPARE(b->heatmap()->slice().rows, 2);
  QCOMPARE(b->heatmap()->slice().cols, 5);
  // The readout follows the mouse.
  b->modeBox()->setCurrentIndex(0);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  w.viewTabs()->setCurrentWidget(b);
  HeatmapWidget* h = b->heatmap();
  int row = -1, col = -1;
  const QPoint centre = h->rect().center();
  QVERIFY(h->cellAt(centre, &row, &col));
  QTest::mouseMove(h, centre);
  QVERIFY(h->readout().contains(QString::number(h->slice().at(row, col), 'g', 7)));
}

void WindowViewsTest::rendersANonBlankScreenshot() {
  MainWindow w;
  QString error;
  QVERIFY2(w.openFromArguments({}, &error), qPrintable(error));
  w.resize(1280, 800);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  QVERIFY(w.controller()->waitForIdle());
  QTest::qWait(50);
  const QImage shot = w.grab().toImage();
  const QString path = dir_.filePath(QStringLiteral("main.png"));
  QVERIFY(shot.save(path));
  QImage back(path);
  QCOMPARE(back.size(), QSize(1280, 800));
  std::set<QRgb> colours;
  for (int y = 0; y < back.height(); y += 4)
    for (int x = 0; x < back.width(); x += 4) colours.insert(back.pixel(x, y));
  QVERIFY2(colours.size() > 50, qPrintable(QString::number(colours.size())));
  QVERIFY(w.saveViewPng(dir_.filePath(QStringLiteral("view.png"))));
  QVERIFY(!QImage(dir_.filePath(QStringLiteral("view.png"))).isNull());
}

void WindowViewsTest::darkThemeWhenAsked() {
  auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
  qputenv("BNSCOPE_THEME", "light");
  QVERIFY(!apply_system_theme(*app));
  qputenv("BNSCOPE_THEME", "dark");
  QVERIFY(apply_system_theme(*app));
  MainWindow w;
  QVERIFY(w.palette().color(QPalette::Window).lightness() < 128);
  qunsetenv("BNSCOPE_THEME");
  // Every chart follows, not only the Channels tab's; the verdict cells keep dark text on their
  // light colours.
  w.controller()->setProblem(test::small_sample());
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  w.viewTabs()->setCurrentWidget(w.analysis().diff);
  QVERIFY(w.analysis().diff->waitForIdle());
  w.viewTabs()->setCurrentWidget(w.analysis().profile);
  QCOMPARE(w.analysis().diff->findChild<QChartView*>()->chart()->theme(), QChart::ChartThemeDark);
  QCOMPARE(w.analysis().profile->bandwidthChart()->chart()->theme(), QChart::ChartThemeDark);
  const QAbstractItemModel* verdicts = w.analysis().diff->verdictModel();
  QVERIFY(verdicts->rowCount() > 0);
  QCOMPARE(
      verdicts->index(0, VerdictModel::Verdict).data(Qt::ForegroundRole).value<QBrush>().color(),
      QColor(0, 0, 0));
}

void WindowViewsTest::escapeKeepsTheViewsAndSaysTheyAreStale() {
  BackendRegistry::instance().add(std::make_unique<test::HoldingBackend>());
  MainWindow w;
  w.show();
  w.activateWindow();
  QVERIFY(QTest::qWaitForWindowActive(&w));
  ProblemController* c = w.controller();
  c->setProblem(test::small_sample());
  QVERIFY(c->waitForIdle());
  QVERIFY(c->outcome()->ok());
  const int rows = w.channels()->model()->rowCount();
  QVERIFY(rows > 0);
  const QVariant first = w.channels()->model()->index(0, 1).data();

  test::HoldingBackend::started.store(false);
  c->setBackend("holding");
  QVERIFY(process_events_while([] { return !test::HoldingBackend::started.load(); }, 30000));
  QTest::keyClick(&w, Qt::Key_Escape);
  QVERIFY(c->waitForIdle());
  QVERIFY(c->isStale());
  // The channel table still shows the last good run, and the window says it is stale.
  QCOMPARE(w.channels()->model()->rowCount(), rows);
  QCOMPARE(w.channels()->model()->index(0, 1).data(), first);
  QVERIFY2(w.runStatus()->text().contains(QStringLiteral("stale")),
           qPrintable(w.runStatus()->text()));
}

void WindowViewsTest::runStatusNamesTheComparisonItWaitsFor() {
  MainWindow w;
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  ProblemController* c = w.controller();
  c->setProblem(test::small_sample());
  QVERIFY(c->waitForIdle());
  c->rerun();
  QVERIFY2(!w.runStatus()->text().contains(QStringLiteral("comparing")),
           qPrintable(w.runStatus()->text()));
  QVERIFY(c->waitForIdle());
  w.viewTabs()->setCurrentWidget(w.analysis().diff);  // shown: its comparison joins the runs
  QVERIFY(w.analysis().diff->waitForIdle());
  c->rerun();
  QVERIFY2(w.runStatus()->text().contains(QStringLiteral("comparing cpu with cpu-reference")),
           qPrintable(w.runStatus()->text()));
  QVERIFY(c->waitForIdle());
}

void WindowViewsTest::escapeStopsAProfileInFlight() {
  MainWindow w;
  w.show();
  w.activateWindow();
  QVERIFY(QTest::qWaitForWindowActive(&w));
  ProblemController* c = w.controller();
  SampleSpec spec;
  spec.shape = {8, 28, 28, 64};
  c->setProblem(random_problem(spec));
  QVERIFY(c->waitForIdle());
  ProfileView* profile = w.analysis().profile;
  w.viewTabs()->setCurrentWidget(profile);
  profile->setCopyProbe([](int, std::size_t) { return 20.0; });
  profile->setBackends({QStringLiteral("cpu")});
  profile->setReps(10000);  // seconds of work: it is stopped long before
  profile->run();
  QVERIFY(profile->isRunning());
  // The tab counts the repetitions while they run.
  QVERIFY(process_events_while(
      [&] { return !profile->statusLabel()->text().contains(QRegularExpression("[1-9]\\d* %")); },
      30000));
  QTest::keyClick(&w, Qt::Key_Escape);
  QVERIFY(profile->waitForIdle());
  QVERIFY2(profile->statusLabel()->text().contains(QStringLiteral("cancelled")),
           qPrintable(profile->statusLabel()->text()));
  QCOMPARE(profile->phaseModel()->rowCount(), 0);
}

// No view of the window keeps its own handle on the inputs: a big layout change rewrites them in
// their own storage, and every view shows the run in the new layout afterwards.
void WindowViewsTest::layoutChangeInTheWindowRewritesInPlace() {
  MainWindow w;
  w.show();
  ProblemController* c = w.controller();
  SampleSpec spec;
  spec.shape = {4, 64, 64, 160};  // two 10 MB x-shaped inputs: over kConvertInPlaceBytes
  c->setProblem(random_problem(spec));
  QVERIFY(c->waitForIdle(120000));
  QVERIFY(c->outcome()->ok());
  const Tensor& x0 = c->problem().inputs.at("x");
  Tensor original = Tensor::uninitialized(x0.dtype(), x0.shape());
  std::memcpy(original.raw(), x0.raw(), x0.nbytes());
  const void* storage = x0.raw();
  const int rows = w.channels()->model()->rowCount();

  c->setDataFormat(DataFormat::NCHW, /*convertData=*/true);
  QVERIFY(c->inputsInFlux());
  QVERIFY(c->waitForIdle(120000));
  const Tensor& x = c->problem().inputs.at("x");
  QCOMPARE(x.raw(), storage);
  const Tensor want = to_channels_first(original);
  QCOMPARE(x.shape(), want.shape());
  QVERIFY(std::memcmp(x.raw(), want.raw(), want.nbytes()) == 0);
  QVERIFY2(c->outcome()->ok(), c->outcome()->error.c_str());
  QCOMPARE(c->outcome()->revision, c->revision());
  QCOMPARE(w.channels()->model()->rowCount(), rows);
  QVERIFY(!c->isStale());
}

// A run that gives the channel charts the same figures (the same problem again) leaves them as
// they are, the histograms' smaller titles included; other figures are drawn.
void WindowViewsTest::chartsStayWhenARunGivesThemTheSameAgain() {
  MainWindow w;
  ProblemController* c = w.controller();
  c->setProblem(test::small_sample());
  QVERIFY(c->waitForIdle());
  ChannelPanel* ch = w.channels();
  QCOMPARE(ch->columnChart()->series().size(), 1);
  QAbstractSeries* column = ch->columnChart()->series().front();
  const QList<QPointF> points = qobject_cast<QLineSeries*>(column)->points();
  QAbstractSeries* histogram = ch->histogramChart(0)->series().value(0);
  QVERIFY(histogram);
  const QFont font = ch->histogramChart(0)->titleFont();
  QVERIFY(font.pointSizeF() < ch->columnChart()->titleFont().pointSizeF());
  QSignalSpy column_gone(column, &QObject::destroyed);
  QSignalSpy histogram_gone(histogram, &QObject::destroyed);

  c->rerun();
  QVERIFY(c->waitForIdle());
  QCOMPARE(column_gone.count(), 0);
  QCOMPARE(histogram_gone.count(), 0);
  QCOMPARE(ch->columnChart()->series().value(0), column);
  QCOMPARE(ch->histogramChart(0)->series().value(0), histogram);
  QCOMPARE(ch->histogramChart(0)->titleFont(), font);

  c->generateInputs(12345);
  QVERIFY(c->waitForIdle());
  QCOMPARE(column_gone.count(), 1);
  auto* redrawn = qobject_cast<QLineSeries*>(ch->columnChart()->series().value(0));
  QVERIFY(redrawn);
  QVERIFY(redrawn->points() != points);
  QCOMPARE(ch->histogramChart(0)->titleFont(), font);
}

void WindowViewsTest::channelOfNaNSaysSoInsteadOfARange() {
  // One NaN in x poisons its channel's statistics: x_backprop is NaN over the whole channel.
  MainWindow w;
  ProblemController* c = w.controller();
  Problem p = test::small_sample();
  p.inputs.at("x").set(0, std::nan(""));  // channel 0 of an NHWC x
  c->setProblem(p);
  QVERIFY(c->waitForIdle());
  ChannelPanel* ch = w.channels();
  ch->selectChannel(0);
  QChart* dx = ch->histogramChart(2);
  QVERIFY2(dx->title().contains(QStringLiteral("no finite value")), qPrintable(dx->title()));
  QVERIFY2(dx->title().contains(QStringLiteral("non-finite")), qPrintable(dx->title()));
  // A count axis of whole numbers: 0 and 1, not 0, 0, 0, 0, 1.
  for (QAbstractAxis* a : dx->axes(Qt::Vertical))
    QCOMPARE(qobject_cast<QValueAxis*>(a)->tickCount(), 2);
  const QString under = ch->heatmap()->nonFiniteText();
  QVERIFY2(
      under.contains(QStringLiteral("every cell")) && under.contains(QStringLiteral("magenta")),
      qPrintable(under));
  ch->selectChannel(1);
  QVERIFY(ch->heatmap()->nonFiniteText().isEmpty());
  QVERIFY(!ch->histogramChart(2)->title().contains(QStringLiteral("no finite value")));
}

namespace {

// The widgets that ask for the most width, for a message when the window does not fit.
QString widest(QWidget* root) {
  QList<QPair<int, QString>> all;
  for (QWidget* c : root->findChildren<QWidget*>())
    if (c->isVisible())
      all.append({c->minimumSizeHint().width(),
                  QStringLiteral("%1 %2").arg(QString::fromUtf8(c->metaObject()->className()),
                                              c->objectName())});
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  QStringList out;
  for (int i = 0; i < std::min<int>(12, static_cast<int>(all.size())); ++i)
    out << QStringLiteral("%1 %2").arg(all[i].first).arg(all[i].second);
  return out.join(QStringLiteral("; "));
}

QString column_widths(QTableView* t) {
  QStringList out;
  for (int c = 0; c < t->model()->columnCount(); ++c)
    out << QStringLiteral("%1=%2")
               .arg(t->model()->headerData(c, Qt::Horizontal).toString())
               .arg(t->columnWidth(c));
  return out.join(QLatin1Char(' '));
}

// A column's text, header and cells, is all in sight: not cut (or, for an elidable one, at
// least `least` px of it) and not scrolled out of the view.
void expect_column_readable(QTableView* t, int col, int least = 1 << 20) {
  const QAbstractItemModel* m = t->model();
  // What the header and the cells take, margins and the header's bold font included.
  const int need =
      std::min(std::max(t->horizontalHeader()->sectionSizeHint(col),
                        static_cast<const QAbstractItemView*>(t)->sizeHintForColumn(col)),
               least);
  const int x = t->columnViewportPosition(col);
  QVERIFY2(t->columnWidth(col) >= need && x >= 0 && x + need <= t->viewport()->width(),
           qPrintable(QStringLiteral("column %1 at %2, %3 px of %4 needed, viewport %5: %6")
                          .arg(m->headerData(col, Qt::Horizontal).toString())
                          .arg(x)
                          .arg(t->columnWidth(col))
                          .arg(need)
                          .arg(t->viewport()->width())
                          .arg(column_widths(t))));
}

}  // namespace

// On a 1280x800 screen the whole window is on it, fresh or restored from a larger one: the
// status bar and the Warnings panel inside, and the Diff tab's verdicts and likely causes
// readable, the long name of the expected outputs' file elided rather than them.
void WindowViewsTest::fitsA1280x800Screen() {
  const QRect screen(0, 0, 1280, 800);
  const Problem problem = test::small_sample();
  Problem gpu_like = problem;
  gpu_like.convention = ReserveConvention::InvStd;
  std::vector<std::pair<std::string, Tensor>> members;
  for (const OutputTensor& o : run_problem(gpu_like, "cpu-reference").outputs)
    if (o.defined) members.emplace_back(o.name, o.tensor);
  const QString expected =
      dir_.filePath(QStringLiteral("expected_outputs_of_the_gpu_run_of_layer_17_block_3.npz"));
  write_npz(expected.toStdString(), members);
  for (const bool restored : {false, true}) {
    // Fresh: nothing an earlier window saved.
    QSettings().remove(QStringLiteral("window/geometry"));
    QSettings().remove(QStringLiteral("window/state"));
    if (restored) {
      MainWindow big;  // saved on a larger screen, away from its top left corner
      big.setGeometry(300, 200, 1600, 1000);
      QSettings().setValue(QStringLiteral("window/geometry"), big.saveGeometry());
    }
    MainWindow w;
    QSettings().remove(QStringLiteral("window/geometry"));
    w.controller()->setProblem(problem);
    w.fitInto(screen);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* diff = w.findChild<DiffView*>();
    w.viewTabs()->setCurrentWidget(diff);
    diff->setCandidates({QStringLiteral("cpu")});
    diff->setReferenceFile(expected);
    QVERIFY(diff->waitForIdle());
    QTest::qWait(50);
    QVERIFY2(screen.contains(w.frameGeometry()), qPrintable(QStringLiteral("%1x%2+%3+%4; %5")
                                                                .arg(w.frameGeometry().width())
                                                                .arg(w.frameGeometry().height())
                                                                .arg(w.frameGeometry().x())
                                                                .arg(w.frameGeometry().y())
                                                                .arg(widest(&w))));
    QVERIFY(w.width() >= 1200 && w.height() >= 740);  // the screen is used, not a corner of it
    const QRect inside = w.rect();
    QVERIFY(w.statusBar()->isVisible());
    QVERIFY(inside.contains(QRect(w.statusBar()->mapTo(&w, QPoint()), w.statusBar()->size())));
    QVERIFY(w.warningsDock()->isVisible());
    const QRect notes(w.warningsDock()->mapTo(&w, QPoint()), w.warningsDock()->size());
    QVERIFY(inside.contains(notes));
    QVERIFY(notes.height() >= 60);

    QVERIFY(diff->verdictModel()->rowCount() > 0);
    QVERIFY(!diff->verdictModel()->report().passed());
    auto* verdicts = diff->findChild<QTableView*>(QStringLiteral("diffVerdictTable"));
    QVERIFY(verdicts);
    for (int col = VerdictModel::Atol; col <= VerdictModel::Verdict; ++col)
      expect_column_readable(verdicts, col);
    QVERIFY(diff->causeModel()->rowCount() > 0);
    QTableView* causes = nullptr;
    for (QTableView* t : diff->findChildren<QTableView*>())
      if (t->model() == diff->causeModel()) causes = t;
    QVERIFY(causes);
    diff->details()->setCurrentIndex(2);
    QTest::qWait(20);
    if (qEnvironmentVariableIsSet("BNSCOPE_TEST_SHOT"))  // to look at it: a PNG per window
      w.grab().save(qEnvironmentVariable("BNSCOPE_TEST_SHOT") + QString::number(restored) +
                    QStringLiteral(".png"));
    expect_column_readable(causes, CauseModel::Title, 180);
    for (int col = CauseModel::Confidence; col <= CauseModel::Resolves; ++col)
      expect_column_readable(causes, col);
  }
}

#include "window_views_test.moc"
