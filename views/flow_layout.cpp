#include "flow_layout.h"

#include <QWidget>
#include <algorithm>

namespace bnscope {

FlowLayout::FlowLayout(QWidget* parent, int spacing) : QLayout(parent), gap_(spacing) {
  setContentsMargins(0, 0, 0, 0);
}

FlowLayout::~FlowLayout() {
  while (QLayoutItem* item = takeAt(0)) delete item;
}

void FlowLayout::addItem(QLayoutItem* item) {
  items_.append(item);
}

QLayoutItem* FlowLayout::itemAt(int index) const {
  return index >= 0 && index < items_.size() ? items_.at(index) : nullptr;
}

QLayoutItem* FlowLayout::takeAt(int index) {
  return index >= 0 && index < items_.size() ? items_.takeAt(index) : nullptr;
}

int FlowLayout::heightForWidth(int width) const {
  return place(QRect(0, 0, width, 0), false);
}

QSize FlowLayout::minimumSize() const {
  // The widest item alone on its row, and the height of one row: the height a given width
  // takes comes from heightForWidth.
  QSize size;
  for (const QLayoutItem* item : items_) size = size.expandedTo(item->minimumSize());
  const QMargins m = contentsMargins();
  return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const {
  // Everything on one row, when there is room for it.
  int width = 0, height = 0;
  for (const QLayoutItem* item : items_) {
    const QSize s = item->sizeHint();
    width += (width ? gap_ : 0) + s.width();
    height = std::max(height, s.height());
  }
  const QMargins m = contentsMargins();
  return {width + m.left() + m.right(), height + m.top() + m.bottom()};
}

void FlowLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  place(rect, true);
}

int FlowLayout::place(const QRect& rect, bool apply) const {
  const QRect area = rect.marginsRemoved(contentsMargins());
  int x = area.x(), y = area.y(), row_height = 0;
  for (QLayoutItem* item : items_) {
    if (item->isEmpty()) continue;
    const QSize s = item->sizeHint().boundedTo(QSize(area.width(), item->sizeHint().height()));
    if (x > area.x() && x + s.width() > area.right() + 1) {  // wrap onto the next row
      x = area.x();
      y += row_height + gap_;
      row_height = 0;
    }
    if (apply) item->setGeometry(QRect(QPoint(x, y), s));
    x += s.width() + gap_;
    row_height = std::max(row_height, s.height());
  }
  const QMargins m = contentsMargins();
  return y + row_height - rect.y() + m.bottom();
}

}  // namespace bnscope
