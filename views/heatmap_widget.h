#pragma once
// A zoomable heatmap of a 2-D slice with a colour scale and a readout of the value under the
// mouse. Wheel zooms around the cursor, dragging pans, double-click fits.

#include <QImage>
#include <QWidget>

#include "heatmap_slice.h"

namespace bnscope {

class HeatmapWidget : public QWidget {
  Q_OBJECT
 public:
  explicit HeatmapWidget(QWidget* parent = nullptr);
  void setSlice(Slice2D slice, const QString& title = {});
  const Slice2D& slice() const { return slice_; }
  double zoom() const { return zoom_; }
  void setZoom(double z);
  QString readout() const { return readout_; }
  // How many cells are NaN/Inf (drawn magenta), said under the map; empty when none.
  QString nonFiniteText() const;
  // The cell under a widget position; false outside the map.
  bool cellAt(QPointF pos, int* row, int* col) const;
  QSize sizeHint() const override { return {360, 280}; }

 signals:
  void hovered(int row, int col, double value);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void leaveEvent(QEvent*) override;

 private:
  QRectF mapArea() const;
  QRectF imageRect() const;
  QColor colourFor(double v) const;
  void rebuildImage();

  Slice2D slice_;
  QString title_, readout_;
  QImage image_;
  double lo_ = 0, hi_ = 0;
  std::int64_t non_finite_ = 0;
  bool diverging_ = false;
  double zoom_ = 1.0;
  QPointF pan_;
  QPointF drag_start_;
};

}  // namespace bnscope
