#pragma once
// A spin box for attrs such as epsilon that never fights the person typing: any spelling of a
// number is accepted (0.0001, .25, 1e-5), shown in its shortest form, and committed on Enter,
// on leaving the field, on a step, or after a pause in typing; a commit never rewrites the text
// being typed.

#include <QDoubleSpinBox>

class QTimer;

namespace bnscope {

class NumberSpinBox : public QDoubleSpinBox {
  Q_OBJECT
 public:
  explicit NumberSpinBox(QWidget* parent = nullptr);
  // The pause in typing after which the text is committed.
  void setPauseMs(int ms);
  // Sets the value unless the person is typing in the field (the field has focus and its text
  // differs from what it would show for the value).
  void showValue(double v);

  QString textFromValue(double v) const override;
  double valueFromText(const QString& text) const override;
  QValidator::State validate(QString& text, int& pos) const override;

 signals:
  // A value the person committed (or set through setValue).
  void committed(double value);

 private:
  QTimer* pause_;
  double last_ = 0;
};

}  // namespace bnscope
