#pragma once
// The heatmap with some cells ringed: the worst elements of a diff that fall in the slice shown.

#include <QPoint>
#include <QVector>

#include "heatmap_widget.h"

namespace bnscope {

class MarkedHeatmap : public HeatmapWidget {
  Q_OBJECT
 public:
  using HeatmapWidget::HeatmapWidget;
  // Cells as (row, col); the first is the worst and drawn strongest.
  void setMarks(QVector<QPoint> cells);
  const QVector<QPoint>& marks() const { return marks_; }
  // Where a cell is on screen now (empty when not visible), found from cellAt so it follows
  // the base widget's zoom and pan.
  QRectF cellRect(int row, int col) const;

 protected:
  void paintEvent(QPaintEvent* e) override;

 private:
  QVector<QRectF> cellRects(const QVector<QPoint>& cells) const;
  QVector<QPoint> marks_;  // x: row, y: col
};

}  // namespace bnscope
