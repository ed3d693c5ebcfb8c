#include "channel_axis.h"

#include <QValueAxis>

namespace bnscope {

void set_channel_axis(QValueAxis* x, int channels) {
  x->setLabelFormat(QStringLiteral("%d"));
  x->setTickType(QValueAxis::TicksDynamic);
  x->setTickAnchor(0);
  if (channels <= 1) {
    x->setRange(-0.5, 0.5);
    x->setTickInterval(1);
    return;
  }
  x->setRange(0, channels - 1);
  int step = 1;  // 1, 2, 5, 10, 20, 40, ...
  while ((channels - 1) / step > 10) step = step < 5 ? (step == 1 ? 2 : 5) : step * 2;
  x->setTickInterval(step);
}

}  // namespace bnscope
