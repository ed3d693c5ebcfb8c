#include "chart_axes.h"

#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace bnscope {

void set_channel_axis(QValueAxis* x, int channels) {
  int step = 1;  // 1, 2, 5, 10, 20, 40, ...
  while ((channels - 1) / step > 10) step = step < 5 ? (step == 1 ? 2 : 5) : step * 2;
  // Fixed ticks while the range and the interval change: a dynamic axis lays out its ticks at
  // each change, and the old interval over the new range can be millions of them.
  x->setTickType(QValueAxis::TicksFixed);
  x->setLabelFormat(QStringLiteral("%d"));
  x->setRange(-0.5, std::max(channels, 1) - 0.5);
  x->setTickAnchor(0);
  x->setTickInterval(step);
  x->setTickType(QValueAxis::TicksDynamic);
}

namespace {

// The 1-2-5 step at least `raw` (> 0).
double round_step(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * power >= raw) return m * power;
  return 10 * power;
}

// A plain range where no round one fits (ends not finite, or past the largest double).
void set_plain_axis(QValueAxis* y, double lo, double hi) {
  y->setTickType(QValueAxis::TicksFixed);
  y->setTickCount(5);
  y->setLabelFormat(QStringLiteral("%.4g"));
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo <= hi))
    y->setRange(0, 1);
  else
    y->setRange(lo < hi ? lo : std::nextafter(lo, -HUGE_VAL), hi);
}

// The low end that makes tick `zero` of `intervals` come out as exactly 0 where the axis
// computes it (min + i * (max - min) / intervals): -zero * step computed plainly is a few ulps
// off as often as not, and the tick then reads 1.7e-18.
double low_end_with_exact_zero(double first, double last, int intervals, int zero) {
  double lo = first;
  for (int round = 0; round < 8; ++round) {
    const double offset = zero * (last - lo) / intervals;
    if (lo + offset == 0) break;
    lo = -offset;
  }
  return lo;
}

}  // namespace

void set_value_axis(QValueAxis* y, double lo, double hi) {
  if (!(std::isfinite(lo) && std::isfinite(hi) && lo <= hi && std::isfinite(hi - lo)))
    return set_plain_axis(y, lo, hi);
  // A flat line sits mid-chart, 5% of its value either way (at zero, half a unit).
  double a = lo, b = hi;
  if (a == b) {
    const double half = a == 0 ? 0.5 : std::fabs(a) * 0.05;
    a -= half;
    b += half;
  }
  const double step = round_step((b - a) / 6);
  double first = std::floor(a / step) * step;
  const double last = std::ceil(b / step) * step;
  if (!(step > 0 && std::isfinite(step) && std::isfinite(first) && std::isfinite(last)))
    return set_plain_axis(y, lo, hi);
  // A fixed count of ticks, not an interval: the axis adds an interval up from the low end, so
  // a zero in between carries the sum's rounding (0.2 + 0.2 + ... reads 5.6e-17).
  const int intervals = static_cast<int>(std::lround((last - first) / step));
  if (first < 0 && last > 0)
    first = low_end_with_exact_zero(first, last, intervals,
                                    static_cast<int>(std::lround(-first / step)));
  y->setTickType(QValueAxis::TicksFixed);
  y->setRange(first, last);
  y->setTickCount(intervals + 1);
  if (!std::isfinite(intervals * (last - first))) {
    // The fixed ticks' products overflow near the largest double; an interval does not.
    y->setTickAnchor(first);
    y->setTickInterval(step);
    y->setTickType(QValueAxis::TicksDynamic);
  }
  // Digits down to the step's, at least the integer digits of the largest label up to six (past
  // that %g turns to an exponent anyway), at most seventeen.
  const double largest = std::max(std::fabs(first), std::fabs(last));
  const int down_to_step = static_cast<int>(std::ceil(std::log10(largest / step) + 1e-9)) + 1;
  const int integer_digits =
      largest >= 1 ? static_cast<int>(std::floor(std::log10(largest))) + 1 : 1;
  const int digits = std::clamp(std::max(down_to_step, std::min(integer_digits, 6)), 1, 17);
  y->setLabelFormat(QStringLiteral("%.") + QString::number(digits) + QStringLiteral("g"));
}

}  // namespace bnscope
