#include "app_wording.h"

#include <QRegularExpression>

namespace bnscope {

QString in_app_terms(const QString& message) {
  QString m = message;
  m.replace(QStringLiteral("pass --convention variance"),
            QStringLiteral("set Reserve convention to variance (CPU)"));
  m.replace(QStringLiteral("pass --convention inv_std"),
            QStringLiteral("set Reserve convention to inv_std (cuDNN)"));
  m.replace(QStringLiteral("re-ran with --convention "),
            QStringLiteral("re-ran with Reserve convention "));
  m.replace(QStringLiteral(" (--strict)"), QStringLiteral(" (strict mode)"));
  m.replace(QStringLiteral(" (give --allow-missing to compare only the outputs it holds)"),
            QStringLiteral(" (the Diff tab compares every output the op writes)"));
  m.replace(QRegularExpression(QStringLiteral("--against (\\S+)")),
            QStringLiteral("expected outputs \\1"));
  m.replace(QStringLiteral("--convention"), QStringLiteral("Reserve convention"));
  return m;
}

}  // namespace bnscope
