#pragma once
// A dismissable line of advice above a view: rich text whose links the owner answers, and a
// close button. It wraps rather than widening the window.

#include <QFrame>

class QLabel;
class QToolButton;

namespace bnscope {

class HintBar : public QFrame {
  Q_OBJECT
 public:
  explicit HintBar(QWidget* parent = nullptr);

  void setText(const QString& html);
  QString text() const;
  QLabel* label() const { return label_; }
  QToolButton* closeButton() const { return close_; }

 signals:
  void linkActivated(const QString& link);
  void dismissed();  // by its close button

 private:
  QLabel* label_;
  QToolButton* close_;
};

}  // namespace bnscope
