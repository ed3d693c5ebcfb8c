#include "heatmap_widget.h"

#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "number_text.h"

namespace bnscope {

namespace {
constexpr int kBarWidth = 92;
constexpr int kReadoutHeight = 20;
constexpr int kTitleHeight = 18;

QColor lerp(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

// Viridis-like ramp for one-signed data.
QColor ramp(double t) {
  static const QColor stops[] = {QColor(68, 1, 84), QColor(59, 82, 139), QColor(33, 145, 140),
                                 QColor(94, 201, 98), QColor(253, 231, 37)};
  t = std::clamp(t, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(t));
  return lerp(stops[i], stops[i + 1], t - i);
}
}  // namespace

HeatmapWidget::HeatmapWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(200, 150);
}

void HeatmapWidget::setSlice(Slice2D slice, const QString& title) {
  slice_ = std::move(slice);
  title_ = title;
  rebuildImage();
  update();
}

void HeatmapWidget::setZoom(double z) {
  zoom_ = std::clamp(z, 0.25, 64.0);
  update();
}

QColor HeatmapWidget::colourFor(double v) const {
  if (!std::isfinite(v)) return QColor(255, 0, 255);  // NaN/Inf stand out
  if (hi_ <= lo_) return ramp(0.5);
  if (diverging_) {  // blue - white - red, white at zero
    const double m = std::max(std::fabs(lo_), std::fabs(hi_));
    const double t = v / m;
    return t < 0 ? lerp(Qt::white, QColor(33, 102, 172), -t)
                 : lerp(Qt::white, QColor(178, 24, 43), t);
  }
  return ramp((v - lo_) / (hi_ - lo_));
}

void HeatmapWidget::rebuildImage() {
  bool any = false;
  non_finite_ = 0;
  for (double v : slice_.values) {
    if (!std::isfinite(v)) {
      ++non_finite_;
      continue;
    }
    lo_ = any ? std::min(lo_, v) : v;
    hi_ = any ? std::max(hi_, v) : v;
    any = true;
  }
  if (!any) lo_ = hi_ = 0;
  diverging_ = lo_ < 0 && hi_ > 0;
  image_ = QImage(std::max(slice_.cols, 1), std::max(slice_.rows, 1), QImage::Format_RGB32);
  image_.fill(palette().color(QPalette::Base));
  for (int r = 0; r < slice_.rows; ++r)
    for (int c = 0; c < slice_.cols; ++c) image_.setPixelColor(c, r, colourFor(slice_.at(r, c)));
}

QRectF HeatmapWidget::mapArea() const {
  return QRectF(4, kTitleHeight, width() - kBarWidth - 8, height() - kTitleHeight - kReadoutHeight);
}

QRectF HeatmapWidget::imageRect() const {
  const QRectF area = mapArea();
  if (slice_.rows == 0 || slice_.cols == 0) return {};
  const double fit = std::min(area.width() / slice_.cols, area.height() / slice_.rows);
  const double cell = fit * zoom_;
  const QSizeF size(cell * slice_.cols, cell * slice_.rows);
  const QPointF origin = area.center() - QPointF(size.width() / 2, size.height() / 2) + pan_;
  return QRectF(origin, size);
}

bool HeatmapWidget::cellAt(QPointF pos, int* row, int* col) const {
  const QRectF r = imageRect();
  if (r.isEmpty() || !r.contains(pos) || !mapArea().contains(pos)) return false;
  *col =
      std::min(slice_.cols - 1, static_cast<int>((pos.x() - r.left()) / r.width() * slice_.cols));
  *row =
      std::min(slice_.rows - 1, static_cast<int>((pos.y() - r.top()) / r.height() * slice_.rows));
  return true;
}

void HeatmapWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Window));
  p.setPen(palette().color(QPalette::WindowText));
  p.drawText(QRectF(4, 0, width() - 8, kTitleHeight), Qt::AlignLeft | Qt::AlignVCenter, title_);
  const QRectF area = mapArea();
  if (slice_.values.empty()) {
    p.drawText(area, Qt::AlignCenter, tr("nothing to show"));
    return;
  }
  p.save();
  p.setClipRect(area);
  p.drawImage(imageRect(), image_);
  p.restore();
  p.drawText(QRectF(4, height() - kReadoutHeight, width() - 8, kReadoutHeight),
             Qt::AlignLeft | Qt::AlignVCenter,
             readout_.isEmpty()
                 ? tr("%1 x %2 (%3 x %4)%5   wheel: zoom, drag: pan, double-click: fit")
                       .arg(slice_.rows)
                       .arg(slice_.cols)
                       .arg(slice_.row_label, slice_.col_label)
                       .arg(nonFiniteText())
                 : readout_);
  if (non_finite_ == static_cast<std::int64_t>(slice_.values.size())) return;  // no scale to show
  // Colour scale.
  const QRectF bar(width() - kBarWidth + 4, area.top() + 8, 14, area.height() - 16);
  for (int y = 0; y < static_cast<int>(bar.height()); ++y) {
    const double t = 1.0 - y / std::max(1.0, bar.height() - 1);
    p.setPen(colourFor(lo_ + (hi_ - lo_) * t));
    p.drawLine(QPointF(bar.left(), bar.top() + y), QPointF(bar.right(), bar.top() + y));
  }
  p.setPen(palette().color(QPalette::WindowText));
  p.drawRect(bar);
  const QRectF labels(bar.right() + 3, bar.top() - 8, kBarWidth - 22, bar.height() + 16);
  QFont f = font();
  f.setPointSizeF(f.pointSizeF() * 0.85);
  p.setFont(f);
  p.drawText(labels, Qt::AlignTop | Qt::AlignLeft, number_text(hi_));
  p.drawText(labels, Qt::AlignBottom | Qt::AlignLeft, number_text(lo_));
}

QString HeatmapWidget::nonFiniteText() const {
  if (non_finite_ == 0) return {};
  // The colour says "not a number", not a value of the scale.
  return non_finite_ == static_cast<std::int64_t>(slice_.values.size())
             ? tr(", every cell NaN/Inf (magenta)")
             : tr(", %1 NaN/Inf (magenta)").arg(non_finite_);
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* e) {
  if (e->buttons() & Qt::LeftButton) {
    pan_ += e->position() - drag_start_;
    drag_start_ = e->position();
  }
  int r = 0, c = 0;
  if (cellAt(e->position(), &r, &c)) {
    const double v = slice_.at(r, c);
    readout_ = QStringLiteral("%1=%2  %3=%4   value %5")
                   .arg(slice_.row_label)
                   .arg(r)
                   .arg(slice_.col_label)
                   .arg(c)
                   .arg(number_text(v));
    emit hovered(r, c, v);
  } else {
    readout_.clear();
  }
  update();
}

void HeatmapWidget::mousePressEvent(QMouseEvent* e) {
  drag_start_ = e->position();
}

void HeatmapWidget::mouseDoubleClickEvent(QMouseEvent*) {
  zoom_ = 1.0;
  pan_ = {};
  update();
}

void HeatmapWidget::wheelEvent(QWheelEvent* e) {
  // Zoom around the cursor: keep the point under it fixed.
  const double old = zoom_;
  setZoom(zoom_ * std::pow(1.0015, e->angleDelta().y()));
  const QPointF c = mapArea().center() + pan_;
  pan_ += (e->position() - c) * (1.0 - zoom_ / old);
  update();
}

void HeatmapWidget::leaveEvent(QEvent*) {
  readout_.clear();
  update();
}

}  // namespace bnscope
