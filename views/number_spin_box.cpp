#include "number_spin_box.h"

#include <QLineEdit>
#include <QRegularExpression>
#include <QTimer>
#include <cfloat>

namespace bnscope {

NumberSpinBox::NumberSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
  // Values are kept to double precision; the display uses textFromValue, not the decimals.
  setDecimals(DBL_MAX_10_EXP + DBL_DIG);
  setKeyboardTracking(false);
  pause_ = new QTimer(this);
  pause_->setSingleShot(true);
  pause_->setInterval(800);
  connect(lineEdit(), &QLineEdit::textEdited, pause_, qOverload<>(&QTimer::start));
  connect(pause_, &QTimer::timeout, this, [this] {
    // Committed as typed: the text stays as it is until the field is left.
    QString text = cleanText();
    int pos = 0;
    if (validate(text, pos) != QValidator::Acceptable) return;
    const double v = valueFromText(text);
    if (v == last_) return;
    last_ = v;
    emit committed(v);
  });
  connect(this, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    pause_->stop();
    if (v == last_) return;
    last_ = v;
    emit committed(v);
  });
}

void NumberSpinBox::setPauseMs(int ms) {
  pause_->setInterval(ms);
}

void NumberSpinBox::showValue(double v) {
  const bool typing = hasFocus() && cleanText() != textFromValue(value());
  if (typing) {
    last_ = v;
    return;
  }
  last_ = v;
  if (v != value()) setValue(v);
}

QString NumberSpinBox::textFromValue(double v) const {
  return QString::number(v, 'g', 12);
}

double NumberSpinBox::valueFromText(const QString& text) const {
  return text.trimmed().toDouble();
}

QValidator::State NumberSpinBox::validate(QString& text, int&) const {
  const QString t = text.trimmed();
  static const QRegularExpression partial(
      QStringLiteral("^[+-]?[0-9]*\\.?[0-9]*([eE][+-]?[0-9]*)?$"));
  if (!partial.match(t).hasMatch()) return QValidator::Invalid;
  bool ok = false;
  const double v = t.toDouble(&ok);
  if (!ok) return QValidator::Intermediate;
  return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
}

}  // namespace bnscope
