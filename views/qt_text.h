#pragma once
// The engine's UTF-8 strings as Qt text.

#include <QString>
#include <string_view>

namespace bnscope {

inline QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

}  // namespace bnscope
