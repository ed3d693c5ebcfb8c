#pragma once
// The Layers panel as a dock of the main window: hidden until a capture is opened, then shown
// below the views.

class QMainWindow;

namespace bnscope {

class LayersPanel;

LayersPanel* add_layers_dock(QMainWindow* window);

}  // namespace bnscope
