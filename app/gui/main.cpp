// bnscope: the desktop debugger. `bnscope`, `bnscope FILE.npz`, `bnscope --op OP --input ...`.
#include <QApplication>
#include <QMessageBox>
#include <cstdio>
#include <cstring>

#include "backends.h"
#include "launch.h"
#include "main_window.h"
#include "memory_policy.h"
#include "plugins.h"
#include "tensor/error.h"
#include "theme.h"

int main(int argc, char** argv) {
  // Answered before any window or display is needed, so it works on a terminal without one.
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::fputs(bnscope::usage_text().toUtf8().constData(), stdout);
      return 0;
    }
  bnscope::apply_memory_policy();
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("bnscope"));
  QApplication::setApplicationName(QStringLiteral("bnscope"));
  bnscope::apply_system_theme(app);
  bnscope::app::register_all_backends();
  QStringList args = QApplication::arguments();
  args.removeFirst();
  // --plugin PATH (repeatable), --plugin-in-process and BNSCOPE_PLUGIN_PATH, as in bnscope-cli; a
  // plugin that does not load is said and the app goes on without it.
  QStringList plugin_errors;
  {
    std::vector<std::string> raw;
    for (const QString& a : args) raw.push_back(a.toStdString());
    try {
      const bnscope::app::PluginFlags flags = bnscope::app::take_plugin_flags(raw);
      args.clear();
      for (const std::string& a : flags.rest) args << QString::fromStdString(a);
      for (const std::string& p : flags.paths) try {
          bnscope::app::load_plugin(p, flags.in_process);
        } catch (const bnscope::Error& e) {
          plugin_errors << QString::fromStdString(e.what());
        }
      std::vector<std::string> warnings;
      bnscope::app::load_plugins({{}, flags.in_process, {}}, warnings);
      for (const std::string& w : warnings) plugin_errors << QString::fromStdString(w);
    } catch (const bnscope::Error& e) {
      plugin_errors << QString::fromStdString(e.what());
    }
    for (const QString& e : plugin_errors)
      std::fprintf(stderr, "bnscope: %s\n", e.toLocal8Bit().constData());
  }
  bnscope::MainWindow window;
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
