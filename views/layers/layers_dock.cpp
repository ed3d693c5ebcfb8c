#include "layers/layers_dock.h"

#include <QDockWidget>
#include <QMainWindow>

#include "layers/layers_panel.h"

namespace bnscope {

LayersPanel* add_layers_dock(QMainWindow* window) {
  auto* dock = new QDockWidget(QObject::tr("Layers"), window);
  dock->setObjectName(QStringLiteral("layersDock"));
  auto* panel = new LayersPanel(dock);
  dock->setWidget(panel);
  window->addDockWidget(Qt::BottomDockWidgetArea, dock);
  dock->hide();
  QObject::connect(panel, &LayersPanel::captureOpened, dock, [window, dock] {
    dock->show();
    dock->raise();
    window->resizeDocks({dock}, {230}, Qt::Vertical);
  });
  return panel;
}

}  // namespace bnscope
