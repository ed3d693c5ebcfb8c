// The main window on a capture folder, for looking at the Layers view and for the screenshot in
// resources/screenshots: `layers_screens OUT.png [CAPTURE_DIR]` (the sample capture by default,
// folders relative to the source tree).
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>

#include "backends.h"
#include "diff/diff_view.h"
#include "layers/layers_panel.h"
#include "layers/sweep_runner.h"
#include "main_window.h"
#include "problem_controller.h"
#include "theme.h"

using namespace bnscope;

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: layers_screens OUT.png [CAPTURE_DIR]\n");
    return 2;
  }
  QApplication::setOrganizationName(QStringLiteral("bnscope-screens"));
  apply_system_theme(app);
  app::register_all_backends();
  MainWindow w;
  w.resize(1600, 1000);
  w.show();
  const QString out = QFileInfo(QString::fromLocal8Bit(argv[1])).absoluteFilePath();
  // Paths in the picture read as a user in a checkout would type them.
  QDir::setCurrent(QStringLiteral(BNSCOPE_SOURCE_DIR));
  w.openCapture(argc > 2 ? QString::fromLocal8Bit(argv[2])
                         : QStringLiteral("resources/captures/sample"));
  if (!w.layers()->runner()->waitForIdle() || !w.controller()->waitForIdle()) return 1;
  w.analysis().diff->run();
  if (!w.analysis().diff->waitForIdle()) return 1;
  // Let the charts and tables lay themselves out before the grab.
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < 500) QApplication::processEvents();
  return w.grab().save(out, "PNG") ? 0 : 1;
}
