// The app on a real-size problem: drives the main window offscreen through open, toggling
// is_training, toggling data_format, showing Diff and running Profile, and for each step prints
// the time until every view has been updated (the app's own "done" signals, then the event
// queue drained, paints included), the longest stall of the UI thread, and the peak RSS during
// the step. The cpu kernel's median time is measured in the same process and the CLI's `run` of
// the same saved problem in a child process, so the figures can be read as ratios on a busy host.
//
//   bnscope_ui_bench [--shape N,H,W,C] [--kernel-reps K] [--cli-reps R] [--cli PATH]
//                    [--keep DIR] [--no-profile] [--trial]
//
// --trial drives a newcomer's sequence instead, for its memory: open, float16, Diff against
// saved outputs (cpu-reference's of the float32 problem, as a user's saved TensorFlow outputs
// would be), is_training toggled on the Diff tab, Open Recent of the same file, float32, then
// cpu-reference as the reference and another layer of the same size opened (as the Layers panel
// does from layer to layer).
//
// One line per step, "step NAME seconds=S stall_ms=M peak_rss_mb=P rss_mb=R" (the peak during
// the step and the resident set after it), then the reference figures; scripts/ui_bench.sh runs
// it several times and prints the medians.

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "channel_panel.h"
#include "diff/diff_view.h"
#include "engine/engine.h"
#include "io/npz.h"
#include "main_window.h"
#include "memory_policy.h"
#include "ops/prepared.h"
#include "ops/problem_io.h"
#include "ops/sample.h"
#include "problem_controller.h"
#include "problem_form.h"
#include "process_events.h"
#include "profile_tab/profile_view.h"

namespace {

using namespace bnscope;

// A field of /proc/self/status in MB: VmHWM, the peak resident set since the last reset ("5"
// into clear_refs resets it), or VmRSS, the resident set now.
double status_mb(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == field) {
      double kb = 0;
      in >> kb;
      return kb / 1024.0;
    }
    std::getline(in, key);
  }
  return -1;
}
void reset_peak_rss() {
  std::ofstream("/proc/self/clear_refs") << "5";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The largest gap between ticks of a 5 ms timer on the UI thread: how long it stood still.
class StallMeter : public QObject {
 public:
  StallMeter() {
    timer_.setTimerType(Qt::PreciseTimer);
    timer_.setInterval(5);
    QObject::connect(&timer_, &QTimer::timeout, this, [this] {
      const qint64 now = clock_.nsecsElapsed();
      worst_ = std::max(worst_, now - last_);
      last_ = now;
    });
    clock_.start();
    timer_.start();
  }
  void reset() {
    last_ = clock_.nsecsElapsed();
    worst_ = 0;
  }
  double worstMs() const { return std::max(worst_, clock_.nsecsElapsed() - last_) / 1e6; }

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 last_ = 0, worst_ = 0;
};

struct Options {
  Shape shape = {32, 56, 56, 256};
  int kernel_reps = 7;
  int cli_reps = 3;
  QString cli = QStringLiteral(BNSCOPE_CLI_PATH);
  QString keep;
  bool profile = true;
  bool trial = false;
  QString backend;  // the backend picked before the file is opened (default: the app's)
  int toggles = 1;  // is_training steps in a row: the first ones after a start differ
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--shape" && has) {
      o.shape.clear();
      for (const QString& d : QString::fromLatin1(argv[++i]).split(QLatin1Char(',')))
        o.shape.push_back(d.toLongLong());
      if (o.shape.size() != 4) return false;
    } else if (a == "--kernel-reps" && has) {
      o.kernel_reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--cli-reps" && has) {
      o.cli_reps = std::max(0, std::atoi(argv[++i]));
    } else if (a == "--cli" && has) {
      o.cli = QString::fromLocal8Bit(argv[++i]);
    } else if (a == "--keep" && has) {
      o.keep = QString::fromLocal8Bit(argv[++i]);
    } else if (a == "--no-profile") {
      o.profile = false;
    } else if (a == "--trial") {
      o.trial = true;
    } else if (a == "--backend" && has) {
      o.backend = QString::fromLocal8Bit(argv[++i]);
    } else if (a == "--toggles" && has) {
      o.toggles = std::max(1, std::atoi(argv[++i]));
    } else {
      return false;
    }
  }
  return true;
}

class Bench {
 public:
  Bench(MainWindow& w, StallMeter& stall) : w_(w), stall_(stall) {}

  // Runs act(), then waits for done() with the event loop turning, then drains the queue.
  bool step(const char* name, const std::function<void()>& act, const std::function<bool()>& done) {
    QApplication::processEvents();
    reset_peak_rss();
    stall_.reset();
    QElapsedTimer t;
    t.start();
    act();
    const bool ok = process_events_while([&] { return !done(); }, 600000);
    QApplication::processEvents();
    const double s = t.nsecsElapsed() / 1e9;
    const double stall = stall_.worstMs();
    const double peak = status_mb("VmHWM:");
    worst_peak_ = std::max(worst_peak_, peak);
    std::printf("step %-16s seconds=%.3f stall_ms=%.1f peak_rss_mb=%.1f rss_mb=%.1f%s\n", name, s,
                stall, peak, status_mb("VmRSS:"), ok ? "" : " TIMED_OUT");
    std::fflush(stdout);
    return ok;
  }
  // The controller's latest run is of the current problem and finished.
  bool current() const {
    auto* c = w_.controller();
    const auto out = c->outcome();
    return !c->isRunning() && out && out->revision == c->revision();
  }
  double worstPeak() const { return worst_peak_; }

 private:
  MainWindow& w_;
  StallMeter& stall_;
  double worst_peak_ = 0;
};

// A layer's float32 training grad, NHWC, as the benchmark opens it.
Problem layer(const Shape& shape, std::uint64_t seed) {
  SampleSpec spec;
  spec.op = "FusedBatchNormGradV3";
  spec.shape = shape;
  spec.format = DataFormat::NHWC;
  spec.is_training = true;
  spec.dtype = DType::F32;
  spec.seed = seed;
  return random_problem(spec);
}

double kernel_median_ms(const Problem& problem, int reps) {
  const Prepared p = prepare(problem);
  Backend& cpu = backend_or_throw("cpu");
  Result r;
  run_backend_into(p, cpu, r);  // warm: allocations and first touch
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    QElapsedTimer t;
    t.start();
    run_backend_into(p, cpu, r);
    ms.push_back(t.nsecsElapsed() / 1e6);
  }
  return median(ms);
}

double cli_median_s(const Options& o, const QString& problem, const QString& out, int reps) {
  std::vector<double> s;
  for (int i = 0; i < reps; ++i) {
    QDir(out).removeRecursively();
    QProcess cli;
    QElapsedTimer t;
    t.start();
    cli.start(o.cli, {QStringLiteral("run"), QStringLiteral("--problem"), problem,
                      QStringLiteral("--out"), out, QStringLiteral("--quiet")});
    if (!cli.waitForFinished(600000) || cli.exitCode() != 0) {
      std::fprintf(stderr, "cli run failed: %s\n", cli.readAllStandardError().constData());
      return -1;
    }
    s.push_back(t.nsecsElapsed() / 1e9);
  }
  return median(s);
}

}  // namespace

// The trial's sequence (--trial): every step waits for the views it changes, the Diff tab's
// comparison included once it is shown.
void run_trial(Bench& b, MainWindow& w, const QString& file, const QString& saved,
               const QString& other) {
  ProblemController* c = w.controller();
  DiffView* diff = w.analysis().diff;
  const auto compared = [&] {
    const auto d = diff->outcome();
    return b.current() && !diff->isRunning() && d && d->revision == c->revision();
  };
  b.step(
      "float16", [&] { c->setDtype(DType::F16); }, [&] { return b.current(); });
  b.step(
      "diff_saved",
      [&] {
        diff->setReferenceFile(saved);
        w.viewTabs()->setCurrentWidget(diff);
      },
      compared);
  auto* training = qobject_cast<QCheckBox*>(w.form()->attrEditor(QStringLiteral("is_training")));
  b.step(
      "is_training",
      [&] {
        training->setCheckState(training->checkState() == Qt::Checked ? Qt::Unchecked
                                                                      : Qt::Checked);
      },
      compared);
  b.step(
      "open_recent", [&] { w.openPath(file); }, compared);
  b.step(
      "float32", [&] { c->setDtype(DType::F32); }, compared);
  b.step(
      "reference_cpu", [&] { diff->setReferenceBackend(QString::fromLatin1(kReferenceBackend)); },
      compared);
  b.step(
      "open_other", [&] { w.openPath(other); }, compared);
}

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  apply_memory_policy();  // as the app's main() does
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("bnscope-ui-bench"));
  QCoreApplication::setApplicationName(QStringLiteral("bnscope-ui-bench"));
  QSettings().clear();  // the window opens as a new user's would
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: bnscope_ui_bench [--shape N,H,W,C] [--kernel-reps K] [--cli-reps R] "
                 "[--cli PATH] [--keep DIR] [--no-profile] [--trial] [--backend NAME] "
                 "[--toggles N]\n");
    return 2;
  }
  QTemporaryDir tmp;
  const QString dir = o.keep.isEmpty() ? tmp.path() : o.keep;
  QDir().mkpath(dir);
  const QString file = dir + QStringLiteral("/problem.npz");
  std::int64_t in_bytes = 0, out_bytes = 0;
  {
    const Problem p = layer(o.shape, 1);
    for (const auto& [name, t] : p.inputs) in_bytes += static_cast<std::int64_t>(t.nbytes());
    save_problem(file.toStdString(), p);
  }
  std::printf("shape %lldx%lldx%lldx%lld float32 FusedBatchNormGradV3 NHWC training\n",
              static_cast<long long>(o.shape[0]), static_cast<long long>(o.shape[1]),
              static_cast<long long>(o.shape[2]), static_cast<long long>(o.shape[3]));

  StallMeter stall;
  MainWindow w;
  w.setClosePrompt([] { return 0x00800000; });  // QMessageBox::Discard
  w.show();
  QApplication::processEvents();
  Bench b(w, stall);
  ProblemController* c = w.controller();

  if (!o.backend.isEmpty()) c->setBackend(o.backend.toStdString());
  b.step(
      "open", [&] { w.openPath(file); }, [&] { return b.current(); });
  if (auto out = c->outcome(); !out || !out->ok()) {
    std::fprintf(stderr, "the run failed: %s\n", out ? out->error.c_str() : "no outcome");
    return 1;
  }
  for (const OutputTensor& t : c->outcome()->result->outputs)
    if (t.defined) out_bytes += static_cast<std::int64_t>(t.tensor.nbytes());

  if (o.trial) {
    const QString saved = dir + QStringLiteral("/saved_outputs.npz");
    std::vector<std::pair<std::string, Tensor>> members;
    for (const OutputTensor& t :
         run_problem(load_problem(file.toStdString()), "cpu-reference").outputs)
      if (t.defined) members.emplace_back(t.name, t.tensor);
    write_npz(saved.toStdString(), members);
    members.clear();
    const QString other = dir + QStringLiteral("/other_layer.npz");
    save_problem(other.toStdString(), layer(o.shape, 2));
    run_trial(b, w, file, saved, other);
  } else {
    auto* training = qobject_cast<QCheckBox*>(w.form()->attrEditor(QStringLiteral("is_training")));
    auto* format = qobject_cast<QComboBox*>(w.form()->attrEditor(QStringLiteral("data_format")));
    if (!training || !format) {
      std::fprintf(stderr, "the form has no is_training or data_format editor\n");
      return 1;
    }
    // Checked and unchecked only: a click could land on "not set".
    const auto toggle = [training] {
      training->setCheckState(training->checkState() == Qt::Checked ? Qt::Unchecked : Qt::Checked);
    };
    for (int i = 0; i < o.toggles; ++i) b.step("is_training", toggle, [&] { return b.current(); });
    b.step(
        "data_format", [&] { format->setCurrentIndex(format->findText(QStringLiteral("NCHW"))); },
        [&] { return b.current(); });
    // Esc while a run is in flight: from the key to the controller idle again.
    {
      QApplication::processEvents();
      stall.reset();
      toggle();
      process_events_while([&] { return !c->isRunning(); }, 1000);
      QTest::qWait(20);
      QElapsedTimer t;
      t.start();
      QTest::keyClick(&w, Qt::Key_Escape);
      process_events_while([&] { return c->isRunning(); }, 60000);
      const auto out = c->outcome();
      std::printf("step %-16s seconds=%.3f stall_ms=%.1f kept_results=%s stale=%s\n", "esc",
                  t.nsecsElapsed() / 1e9, stall.worstMs(), out && out->ok() ? "yes" : "no",
                  c->isStale() ? "yes" : "no");
      toggle();  // back to training; this run is the Diff step's start
      process_events_while([&] { return !b.current(); }, 600000);
    }
    DiffView* diff = w.analysis().diff;
    b.step(
        "diff", [&] { w.viewTabs()->setCurrentWidget(diff); },
        [&] {
          const auto d = diff->outcome();
          return b.current() && !diff->isRunning() && d && d->revision == c->revision();
        });
    if (o.profile) {
      ProfileView* profile = w.analysis().profile;
      bool finished = false;
      QObject::connect(profile, &ProfileView::profileFinished, [&] { finished = true; });
      b.step(
          "profile",
          [&] {
            w.viewTabs()->setCurrentWidget(profile);
            profile->run();
          },
          [&] { return finished && !profile->isRunning(); });
    }
  }
  const double data_mb = static_cast<double>(in_bytes + out_bytes) / (1 << 20);
  std::printf("data_mb %.1f (inputs %.1f, outputs %.1f)\n", data_mb,
              static_cast<double>(in_bytes) / (1 << 20),
              static_cast<double>(out_bytes) / (1 << 20));
  std::printf("worst_peak_rss_mb %.1f (%.2fx the data)\n", b.worstPeak(), b.worstPeak() / data_mb);
  w.viewTabs()->setCurrentIndex(0);
  const Problem original = load_problem(file.toStdString());
  std::printf("kernel_ms %.2f (cpu backend, median of %d)\n",
              kernel_median_ms(original, o.kernel_reps), o.kernel_reps);
  if (o.cli_reps > 0)
    std::printf("cli_run_s %.3f (bnscope-cli run, median of %d)\n",
                cli_median_s(o, file, dir + QStringLiteral("/cli-out"), o.cli_reps), o.cli_reps);
  std::fflush(stdout);
  return 0;
}
