#include "diff/marked_heatmap.h"

#include <QPainter>
#include <algorithm>

namespace bnscope {

void MarkedHeatmap::setMarks(QVector<QPoint> cells) {
  marks_ = std::move(cells);
  update();
}

QVector<QRectF> MarkedHeatmap::cellRects(const QVector<QPoint>& cells) const {
  // The base widget keeps its geometry private; probing its public cellAt on a 2-px grid finds
  // the cells' pixels in one pass of cheap calls.
  QVector<QRectF> found(cells.size());
  const int step = 2;
  for (int y = 0; y < height(); y += step)
    for (int x = 0; x < width(); x += step) {
      int r = 0, c = 0;
      if (!cellAt(QPointF(x + 0.5, y + 0.5), &r, &c)) continue;
      for (qsizetype i = 0; i < cells.size(); ++i)
        if (cells[i].x() == r && cells[i].y() == c)
          found[i] = found[i].united(QRectF(x, y, step, step));
    }
  return found;
}

QRectF MarkedHeatmap::cellRect(int row, int col) const {
  return cellRects({QPoint(row, col)}).front();
}

void MarkedHeatmap::paintEvent(QPaintEvent* e) {
  HeatmapWidget::paintEvent(e);
  if (marks_.isEmpty()) return;
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QVector<QRectF> rects = cellRects(marks_);
  for (qsizetype i = marks_.size() - 1; i >= 0; --i) {
    const QRectF& r = rects[i];
    if (r.isEmpty()) continue;
    // At least 10 px across, so a mark on a one-pixel cell is still seen.
    const double side = std::max({r.width(), r.height(), 10.0});
    const QRectF ring(r.center() - QPointF(side / 2, side / 2), QSizeF(side, side));
    p.setPen(QPen(Qt::black, i == 0 ? 3.5 : 2.0));
    p.drawEllipse(ring.adjusted(-2, -2, 2, 2));
    p.setPen(QPen(i == 0 ? QColor(0, 230, 255) : QColor(255, 255, 255), i == 0 ? 2.0 : 1.2));
    p.drawEllipse(ring.adjusted(-2, -2, 2, 2));
  }
}

}  // namespace bnscope
