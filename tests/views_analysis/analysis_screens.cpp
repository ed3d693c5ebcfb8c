// Shows the analysis tabs on a sample problem with a known trap, for looking at them and for
// the screenshots in resources/screenshots: `analysis_screens diff|causes|epsilon|profile
// [seconds [shot.png]]`.
#include <QApplication>
#include <QMainWindow>
#include <QMouseEvent>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>

#include "analysis_tabs.h"
#include "diff/diff_view.h"
#include "engine/engine.h"
#include "io/npz.h"
#include "problem_controller.h"
#include "profile_tab/profile_view.h"
#include "sample_source.h"
#include "timeline/timeline_widget.h"

using namespace bnscope;

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  const QString tab = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("diff");
  const int seconds = argc > 2 ? std::atoi(argv[2]) : 0;
  // A PNG of the window once the diff is shown (the Diff tabs only).
  const QString shot = argc > 3 ? QString::fromLocal8Bit(argv[3]) : QString();
  SampleSpec spec;
  // The profile wants a problem larger than the caches so bandwidth means something.
  const bool profiling = tab == QStringLiteral("profile");
  spec.shape = profiling ? Shape{16, 56, 56, 64} : Shape{4, 12, 16, 8};
  spec.seed = 3;
  Problem problem = generate_problem(spec);

  // Expected outputs as a cuDNN-style run would give them: reserve_space_2 read as inv_std.
  QTemporaryDir dir;
  // `epsilon`: expected outputs made with PyTorch's epsilon 1e-5 instead (the Causes tab).
  const bool epsilon = tab == QStringLiteral("epsilon");
  Problem gpu_like = problem;
  if (epsilon)
    gpu_like.attrs["epsilon"] = 1e-5;
  else
    gpu_like.convention = ReserveConvention::InvStd;
  std::vector<std::pair<std::string, Tensor>> members;
  if (!profiling)
    for (const OutputTensor& o : run_problem(gpu_like, "cpu-reference").outputs)
      if (o.defined) members.emplace_back(o.name, o.tensor);
  const QString expected = dir.filePath(QStringLiteral("expected_from_gpu.npz"));
  write_npz(expected.toStdString(), members);

  QMainWindow window;
  window.setWindowTitle(QStringLiteral("bnscope analysis"));
  auto* tabs = new QTabWidget(&window);
  window.setCentralWidget(tabs);
  ProblemController controller;
  controller.setProblem(problem);
  const AnalysisTabs t = add_analysis_tabs(tabs, &controller);
  t.diff->setAutoRun(false);
  t.diff->setReferenceFile(expected);
  t.diff->setCandidates({QStringLiteral("cpu")});
  window.resize(1400, 900);
  window.move(0, 0);
  window.show();
  if (tab == QStringLiteral("profile")) {
    tabs->setCurrentWidget(t.profile);
    // The cpu backend alone, so its passes are wide enough on the timeline to read.
    t.profile->setBackends({QStringLiteral("cpu")});
    t.profile->setReps(12);
    t.profile->run();
    // Hover a pass in the middle of the runs so the screenshot shows the timeline's tooltip.
    QObject::connect(t.profile, &ProfileView::profileFinished, [&] {
      TimelineWidget* tl = t.profile->timeline();
      const TimelineLayout& l = tl->layout();
      QPointF at(TimelineWidget::kLabelWidth + 330,
                 TimelineWidget::kRulerHeight + TimelineWidget::kLaneHeight / 2);
      if (l.lanes().size() > 1 && !l.lanes()[1].events.empty()) {
        const std::vector<TraceEvent>& passes = l.lanes()[1].events;
        const TraceEvent& e = passes[passes.size() / 2 + 1];
        const double px = l.viewSpan() / (tl->width() - 6 - TimelineWidget::kLabelWidth);
        at = QPointF(TimelineWidget::kLabelWidth + (e.start + e.duration / 2 - l.viewStart()) / px,
                     TimelineWidget::kRulerHeight + 1.5 * TimelineWidget::kLaneHeight);
      }
      QTimer::singleShot(300, tl, [tl, at] {
        QMouseEvent move(QEvent::MouseMove, at, tl->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                         Qt::NoModifier);
        QCoreApplication::sendEvent(tl, &move);
      });
    });
  } else {
    tabs->setCurrentWidget(t.diff);
    t.diff->run();
    QObject::connect(t.diff, &DiffView::diffFinished, [&] {
      t.diff->details()->setCurrentIndex(tab == QStringLiteral("causes") || epsilon ? 2
                                         : tab == QStringLiteral("channels")        ? 0
                                                                                    : 1);
      if (!shot.isEmpty())  // after the tables have laid out
        QTimer::singleShot(800, &window, [&] { window.grab().save(shot); });
    });
  }
  if (seconds > 0) QTimer::singleShot(seconds * 1000, &app, &QApplication::quit);
  return QApplication::exec();
}
