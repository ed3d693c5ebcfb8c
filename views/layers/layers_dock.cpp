#include "layers/layers_dock.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QTimer>

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
    // Once laid out: the table is wide (a column per backend), the warnings beside it need less.
    QTimer::singleShot(0, dock, [window, dock] {
      QList<QDockWidget*> row{dock};
      QList<int> widths{window->width() * 2 / 3};
      for (QDockWidget* d : window->findChildren<QDockWidget*>())
        if (d != dock && d->isVisible() && !d->isFloating() &&
            window->dockWidgetArea(d) == Qt::BottomDockWidgetArea) {
          row << d;
          widths << window->width() / 4;
        }
      window->resizeDocks(row, widths, Qt::Horizontal);
      window->resizeDocks({dock}, {240}, Qt::Vertical);
    });
  });
  return panel;
}

}  // namespace bnscope
