// bnscope: the desktop debugger. `bnscope`, `bnscope FILE.npz`, `bnscope --op OP --input ...`.
#include <QApplication>
#include <QMessageBox>
#include <cstdio>
#include <cstring>

#include "backends.h"
#include "launch.h"
#include "main_window.h"
#include "memory_policy.h"
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
  bnscope::MainWindow window;
  QStringList args = QApplication::arguments();
  args.removeFirst();
  QString error;
  const bool opened = window.openFromArguments(args, &error);
  // A file that cannot be opened leaves the window on the sample, saying why, rather than
  // closing the app on its user.
  if (!opened) {
    std::fprintf(stderr, "bnscope: %s\n", error.toLocal8Bit().constData());
    window.openFromArguments({}, nullptr);
  }
  window.show();
  if (!opened)
    QMessageBox::warning(&window, QStringLiteral("bnscope"),
                         QObject::tr("%1\n\nThe built-in sample is shown instead.").arg(error));
  return QApplication::exec();
}
