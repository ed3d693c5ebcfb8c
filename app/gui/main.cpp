// bnscope: the desktop debugger. `bnscope`, `bnscope FILE.npz`, `bnscope --op OP --input ...`.
#include <QApplication>
#include <QMessageBox>
#include <QStandardPaths>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "backend_picker.h"
#include "backends.h"
#include "conformance/conformance_panel.h"
#include "launch.h"
#include "main_window.h"
#include "memory_policy.h"
#include "option_words.h"
#include "plugins.h"
#include "profile_tab/profile_view.h"
#include "tensor/error.h"
#include "theme.h"

namespace {

// --plugin PATH (repeatable), --plugin-in-process and BNSCOPE_PLUGIN_PATH, as in bnscope-cli,
// taken off the line before Qt sees it (Qt reads -plugin/--plugin as its own option). A plugin
// that does not load is said and the app goes on without it. Returns the other arguments;
// `loaded` gets the backends of the plugins named on the line.
std::vector<std::string> load_plugins(int argc, char** argv, QStringList& errors,
                                      std::vector<std::string>& loaded) {
  std::vector<std::string> raw(argv + 1, argv + argc);
  bnscope::app::PluginFlags flags;
  try {
    flags = bnscope::app::take_plugin_flags(raw);
  } catch (const bnscope::Error& e) {
    errors << app_error_text(e);
    return raw;
  }
  for (const std::string& p : flags.paths) try {
      loaded.push_back(bnscope::app::load_plugin(p, flags.in_process));
    } catch (const bnscope::Error& e) {
      errors << app_error_text(e);
    }
  try {
    std::vector<std::string> warnings;
    bnscope::app::load_plugins({{}, flags.in_process, {}}, warnings);
    for (const std::string& w : warnings) errors << QString::fromStdString(w);
  } catch (const bnscope::Error& e) {
    errors << app_error_text(e);
  }
  for (const QString& e : errors)
    std::fprintf(stderr, "bnscope: %s\n", e.toLocal8Bit().constData());
  return flags.rest;
}

}  // namespace

int main(int argc, char** argv) {
  bnscope::app::register_all_backends();
  QStringList plugin_errors;
  std::vector<std::string> loaded;
  std::vector<std::string> rest = load_plugins(argc, argv, plugin_errors, loaded);
  // Answered before any window or display is needed, so it works on a terminal without one; the
  // backends listed are those this line loads (plugins included).
  for (const std::string& a : rest)
    if (a == "--help" || a == "-h") {
      std::fputs(bnscope::usage_text().toUtf8().constData(), stdout);
      std::fputs(("\n" + bnscope::app::backends_help()).c_str(), stdout);
      return 0;
    }
  bnscope::apply_memory_policy();
  std::vector<char*> qt_argv{argv[0]};
  for (std::string& a : rest) qt_argv.push_back(a.data());
  qt_argv.push_back(nullptr);
  int qt_argc = static_cast<int>(qt_argv.size()) - 1;
  QApplication app(qt_argc, qt_argv.data());
  QApplication::setOrganizationName(QStringLiteral("bnscope"));
  QApplication::setApplicationName(QStringLiteral("bnscope"));
  bnscope::apply_system_theme(app);
  QStringList args = QApplication::arguments();
  args.removeFirst();
  bnscope::MainWindow window;
  // Profile runs and the pinned baseline outlive the app, per user.
  if (const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
      !data.isEmpty())
    window.analysis().profile->keepHistoryIn(data + QStringLiteral("/profile-history.json"));
  // The kernel named on the line is the one to check.
  if (!loaded.empty())
    window.conformance()->backendPicker()->setCurrent(QString::fromStdString(loaded.back()));
  QString error;
  const bool opened = window.openFromArguments(args, &error);
  // A file that cannot be opened leaves the window on the sample, saying why, rather than
  // closing the app on its user.
  if (!opened) {
    std::fprintf(stderr, "bnscope: %s\n", error.toLocal8Bit().constData());
    window.openFromArguments({}, nullptr);
  }
  window.show();
  if (!plugin_errors.isEmpty())
    QMessageBox::warning(&window, QStringLiteral("bnscope"),
                         plugin_errors.join(QStringLiteral("\n")));
  if (!opened)
    QMessageBox::warning(&window, QStringLiteral("bnscope"),
                         QObject::tr("%1\n\nThe built-in sample is shown instead.").arg(error));
  return QApplication::exec();
}
