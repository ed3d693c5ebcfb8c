// The ImGui timeline in a real GL context (run under xvfb-run): a frame renders without GL
// errors and is not blank, the wheel zooms around the cursor, a drag pans, hovering finds the
// event, and two widgets keep separate ImGui contexts. Thousands of events are culled.
#include <imgui.h>

#include <QImage>
#include <QMouseEvent>
#include <QWheelEvent>
#include <QtTest>

#include "ops/sample.h"
#include "profile/profiler.h"
#include "timeline/timeline_widget.h"

using namespace bnscope;

namespace {

EventStore sample_events(int n) {
  EventStore s;
  for (int i = 0; i < n; ++i) {
    const double t = i * 1e-3;
    s.add("kernel:cpu", "cpu", 0, t, 0.8e-3);
    if (i % 4 == 0) s.add("upload", "cuda", 1, t, 0.3e-3);
  }
  return s;
}

// Distinct colours in a coarse grid of the image: a blank (cleared) frame has one.
int distinct_colours(const QImage& img) {
  QSet<QRgb> seen;
  for (int y = 0; y < img.height(); y += 3)
    for (int x = 0; x < img.width(); x += 3) seen.insert(img.pixel(x, y));
  return static_cast<int>(seen.size());
}

void wheel(QWidget* w, QPointF at, int delta) {
  QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                Qt::NoScrollPhase, false);
  QCoreApplication::sendEvent(w, &e);
}

void mouse(QWidget* w, QEvent::Type type, QPointF at, Qt::MouseButton b, Qt::MouseButtons held) {
  QMouseEvent e(type, at, w->mapToGlobal(at), b, held, Qt::NoModifier);
  QCoreApplication::sendEvent(w, &e);
}

}  // namespace

class TimelineGlTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void rendersAFrameWithoutGlErrors();
  void wheelZoomsAroundTheCursor();
  void dragPansAndHoverFindsTheEvent();
  void doubleClickOnALaneFits();
  void widgetsKeepTheirOwnContexts();
  void cpuPassesHaveTheirOwnLane();

 private:
  void showAndRender(TimelineWidget& w);
};

void TimelineGlTest::initTestCase() {
  if (QGuiApplication::platformName() != QStringLiteral("xcb"))
    QSKIP("needs a display with OpenGL (run under xvfb-run)");
}

void TimelineGlTest::showAndRender(TimelineWidget& w) {
  w.resize(900, 260);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  (void)w.grabFramebuffer();  // initializes GL and runs one frame
  if (!w.rendererReady()) QSKIP("no OpenGL 3 context here");
}

void TimelineGlTest::rendersAFrameWithoutGlErrors() {
  TimelineWidget w;
  w.setEvents(sample_events(5000));
  showAndRender(w);
  const QImage img = w.grabFramebuffer();
  QCOMPARE(w.takeGlError(), 0u);
  QVERIFY(w.framesRendered() >= 2);
  QVERIFY(!img.isNull());
  QVERIFY2(distinct_colours(img) > 8, "the frame looks blank");
  // The kernel colour appears: boxes were drawn, not just the background.
  const QColor kernel(70, 130, 200);
  bool found = false;
  for (int y = 0; y < img.height() && !found; ++y)
    for (int x = 0; x < img.width() && !found; ++x) found = QColor(img.pixel(x, y)) == kernel;
  QVERIFY(found);
  // 6250 events, but sub-pixel ones merge: far fewer boxes than events.
  QVERIFY(w.boxesDrawn() > 0);
  QVERIFY(w.boxesDrawn() < 2000);
  img.save(QStringLiteral("timeline_frame.png"));
}

void TimelineGlTest::wheelZoomsAroundTheCursor() {
  TimelineWidget w;
  w.setEvents(sample_events(200));
  showAndRender(w);
  const double span = w.layout().viewSpan();
  const QPointF at(TimelineWidget::kLabelWidth + 300, 60);
  (void)w.grabFramebuffer();
  const double frac = (at.x() - TimelineWidget::kLabelWidth);
  const double before = w.layout().viewStart() + frac * w.layout().viewSpan() /
                                                     (w.width() - 6 - TimelineWidget::kLabelWidth);
  wheel(&w, at, 240);  // two notches in
  (void)w.grabFramebuffer();
  QVERIFY2(w.layout().viewSpan() < span * 0.7, "the wheel did not zoom in");
  const double after = w.layout().viewStart() +
                       frac * w.layout().viewSpan() / (w.width() - 6 - TimelineWidget::kLabelWidth);
  QVERIFY(std::fabs(after - before) < span * 1e-3);  // the time under the cursor stayed put
  const int boxes_zoomed = w.boxesDrawn();
  wheel(&w, at, -480);
  (void)w.grabFramebuffer();
  QVERIFY(w.layout().viewSpan() > span);
  QVERIFY(w.boxesDrawn() >= boxes_zoomed);
  QCOMPARE(w.takeGlError(), 0u);
}

void TimelineGlTest::dragPansAndHoverFindsTheEvent() {
  TimelineWidget w;
  w.setEvents(sample_events(20));
  showAndRender(w);
  const double start = w.layout().viewStart();
  const QPointF a(TimelineWidget::kLabelWidth + 400, 40);
  mouse(&w, QEvent::MouseMove, a, Qt::NoButton, Qt::NoButton);
  (void)w.grabFramebuffer();
  mouse(&w, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton);
  (void)w.grabFramebuffer();
  mouse(&w, QEvent::MouseMove, a + QPointF(-200, 0), Qt::NoButton, Qt::LeftButton);
  (void)w.grabFramebuffer();
  mouse(&w, QEvent::MouseButtonRelease, a + QPointF(-200, 0), Qt::LeftButton, Qt::NoButton);
  (void)w.grabFramebuffer();
  const double px = w.layout().viewSpan() / (w.width() - 6 - TimelineWidget::kLabelWidth);
  QVERIFY2(std::fabs((w.layout().viewStart() - start) - 200 * px) < 2 * px,
           "dragging left by 200 px should move the view 200 px later");
  // Hover over the middle of the first lane: some kernel event is under the cursor.
  const QPointF lane(TimelineWidget::kLabelWidth + 300,
                     TimelineWidget::kRulerHeight + TimelineWidget::kLaneHeight / 2);
  mouse(&w, QEvent::MouseMove, lane, Qt::NoButton, Qt::NoButton);
  (void)w.grabFramebuffer();
  (void)w.grabFramebuffer();
  QCOMPARE(w.hoveredLane(), 0);
  const double t = w.layout().viewStart() + (lane.x() - TimelineWidget::kLabelWidth) * px;
  const TraceEvent& e = w.hoveredEvent();
  QVERIFY(e.start - 3 * px <= t && t <= e.start + e.duration + 3 * px);
  QCOMPARE(w.layout().store().name(e.name), std::string("kernel:cpu"));
  QCOMPARE(w.takeGlError(), 0u);
}

// A double click whose four events arrive before the next frame, as they do on a busy lane,
// still fits the view: every press and release reaches ImGui in a frame of its own.
void TimelineGlTest::doubleClickOnALaneFits() {
  TimelineWidget w;
  w.setEvents(sample_events(200));
  showAndRender(w);
  const double fitted = w.layout().viewSpan();
  const QPointF lane(TimelineWidget::kLabelWidth + 300,
                     TimelineWidget::kRulerHeight + TimelineWidget::kLaneHeight / 2);
  mouse(&w, QEvent::MouseMove, lane, Qt::NoButton, Qt::NoButton);
  wheel(&w, lane, 360);
  (void)w.grabFramebuffer();
  QVERIFY(w.layout().viewSpan() < fitted * 0.7);
  mouse(&w, QEvent::MouseButtonPress, lane, Qt::LeftButton, Qt::LeftButton);
  mouse(&w, QEvent::MouseButtonRelease, lane, Qt::LeftButton, Qt::NoButton);
  mouse(&w, QEvent::MouseButtonDblClick, lane, Qt::LeftButton, Qt::LeftButton);
  mouse(&w, QEvent::MouseButtonRelease, lane, Qt::LeftButton, Qt::NoButton);
  for (int i = 0; i < 6; ++i) (void)w.grabFramebuffer();
  QVERIFY2(std::fabs(w.layout().viewSpan() - fitted) <= fitted * 1e-9,
           "a double click on a lane should fit the view");
}

void TimelineGlTest::widgetsKeepTheirOwnContexts() {
  TimelineWidget a, b;
  a.setEvents(sample_events(50));
  b.setEvents(sample_events(10));
  QVERIFY(a.imguiContext() != b.imguiContext());
  showAndRender(a);
  showAndRender(b);
  wheel(&a, QPointF(TimelineWidget::kLabelWidth + 100, 60), 120);
  const double span_b = b.layout().viewSpan();
  (void)b.grabFramebuffer();
  (void)a.grabFramebuffer();
  QCOMPARE(b.layout().viewSpan(), span_b);  // a's wheel went to a's context only
  QVERIFY(ImGui::GetCurrentContext() != a.imguiContext());
  QCOMPARE(a.takeGlError(), 0u);
  QCOMPARE(b.takeGlError(), 0u);
}

// A real cpu profile: its passes are drawn in their own lane in the pass colour, and hovering one
// finds it by name.
void TimelineGlTest::cpuPassesHaveTheirOwnLane() {
  SampleSpec spec;
  spec.shape = {4, 32, 32, 16};
  ProfileOptions o;
  o.warmup = 1;
  o.reps = 3;
  o.measure_copy = false;
  const Profile prof = profile_problem(random_problem(spec), "cpu", o);
  TimelineWidget w;
  w.setEvents(prof.events, prof.phase_plan);
  showAndRender(w);
  QCOMPARE(w.layout().lanes().size(), std::size_t{2});
  QCOMPARE(w.layout().lanes()[1].label, std::string("cpu passes"));
  const QImage img = w.grabFramebuffer();
  QCOMPARE(w.takeGlError(), 0u);
  const QColor pass(95, 170, 110);
  bool found = false;
  const int lane_y =
      static_cast<int>(TimelineWidget::kRulerHeight + 1.5 * TimelineWidget::kLaneHeight);
  for (int x = 0; x < img.width() && !found; ++x) found = QColor(img.pixel(x, lane_y)) == pass;
  QVERIFY2(found, "no pass box in the passes lane");
  // Hover the middle of the first pass.
  const TraceEvent first = w.layout().lanes()[1].events.front();
  const double px = w.layout().viewSpan() / (w.width() - 6 - TimelineWidget::kLabelWidth);
  const double mid = first.start + first.duration / 2;
  const QPointF at(TimelineWidget::kLabelWidth + (mid - w.layout().viewStart()) / px, lane_y);
  mouse(&w, QEvent::MouseMove, at, Qt::NoButton, Qt::NoButton);
  (void)w.grabFramebuffer();
  (void)w.grabFramebuffer();
  QCOMPARE(w.hoveredLane(), 1);
  QCOMPARE(w.layout().store().name(w.hoveredEvent().name), prof.phases.at(1).phase);
  QCOMPARE(w.takeGlError(), 0u);
}

QTEST_MAIN(TimelineGlTest)
#include "timeline_gl_test.moc"
