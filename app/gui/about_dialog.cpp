#include "about_dialog.h"

#include <QtConcurrent>
#include <QtGlobal>

#include "backends/backend.h"
#include "backends/frameworks/python_choice.h"
#include "qt_text.h"
#include "report/report.h"

namespace bnscope {

namespace {

QString esc(const std::string& s) {
  return qs(s).toHtmlEscaped();
}

QString row(const QString& what, const QString& value) {
  return QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(what, value);
}

}  // namespace

AboutDialog::AboutDialog(QWidget* parent) : TextDialog(tr("About bnscope"), parent) {
  resize(860, 600);
  refresh();
}

void AboutDialog::refresh() {
  app::register_all_backends();
  known_.clear();
  // Names and descriptions are the registry's own strings: nothing is asked of a backend. The
  // list is taken here, on the thread that adds plugins to the registry.
  std::vector<const Backend*> backends;
  for (const Backend* b : BackendRegistry::instance().all()) {
    backends.push_back(b);
    known_.push_back({std::string(b->name()), std::string(b->description()), {}, {}});
  }
  found_.reset();
  render();
  // A newer question replaces an older one still out; that one's answer is dropped.
  watcher_ = new QFutureWatcher<Found>(this);
  QFutureWatcher<Found>* watcher = watcher_;
  connect(watcher, &QFutureWatcher<Found>::finished, this, [this, watcher] {
    watcher->deleteLater();
    if (watcher != watcher_) return;
    watcher_ = nullptr;
    found_ = watcher->result();
    render();
    emit checked();
  });
  watcher->setFuture(QtConcurrent::run([backends] {
    Found f;
    for (const Backend* b : backends) f.backends.push_back(app::describe_backend(*b));
    f.gpu = app::gpu_versions();
    return f;
  }));
}

void AboutDialog::render() {
  const QString checking = QStringLiteral("<i>%1</i>").arg(tr("checking..."));
  QString versions;
  versions +=
      row(tr("Qt"), tr("%1 (built with %2)")
                        .arg(QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)));
  versions += row(tr("CUDA runtime"), found_ ? esc(found_->gpu.cuda_runtime) : checking);
  versions += row(tr("cuDNN"), found_ ? esc(found_->gpu.cudnn) : checking);
  versions += row(tr("GPU"), found_ ? esc(found_->gpu.device) : checking);
  const std::string python = framework_python();
  versions += row(tr("Framework Python"), esc(python.empty() ? "python3" : python));

  const std::vector<app::BackendState>& backends = found_ ? found_->backends : known_;
  QString rows;
  for (const app::BackendState& b : backends) {
    QString here = checking, path;
    if (found_) {
      here = b.unavailable.empty() ? tr("runs here")
                                   : QStringLiteral("<span style=\"color:#cb4b16\">%1</span>")
                                         .arg(tr("unavailable: %1").arg(esc(b.unavailable)));
      path = esc(b.code_path);
    }
    rows +=
        QStringLiteral(
            "<tr><td valign=\"top\"><b>%1</b></td><td valign=\"top\">%2<br/>%3%4</td></tr>")
            .arg(esc(b.name), esc(b.description), here,
                 path.isEmpty() ? QString() : QStringLiteral("<br/><small>%1</small>").arg(path));
  }
  setHtml(tr("<h3>bnscope %1</h3>"
             "<p>The debugger and profiler of TensorFlow's batch-norm gradient ops.</p>"
             "<table cellspacing=\"0\" cellpadding=\"3\">%2</table>"
             "<h4>Backends</h4>"
             "<table cellspacing=\"0\" cellpadding=\"3\">%3</table>")
              .arg(esc(std::string(bnscope_version())), versions, rows));
}

}  // namespace bnscope
