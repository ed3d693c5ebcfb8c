#pragma once
// How the views print numbers: enough digits to tell float32 values apart, NaN/Inf spelled out.

#include <QString>
#include <cmath>

namespace bnscope {

inline QString number_text(double v) {
  if (std::isnan(v)) return QStringLiteral("NaN");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("Inf") : QStringLiteral("-Inf");
  return QString::number(v, 'g', 7);
}

}  // namespace bnscope
