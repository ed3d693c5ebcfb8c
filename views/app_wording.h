#pragma once
// The engine's messages name the CLI's flags (pass --convention variance, (--strict),
// --against FILE); the app says the same in terms of its own controls.

#include <QString>
#include <string>

namespace bnscope {

QString in_app_terms(const QString& message);
inline QString in_app_terms(const std::string& message) {
  return in_app_terms(QString::fromStdString(message));
}

}  // namespace bnscope
