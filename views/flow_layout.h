#pragma once
// A layout that places its widgets in a row and wraps them onto further rows when the width runs
// out, so that a list of check boxes (one per backend) asks for the width of its widest box, not
// of all of them side by side.

#include <QLayout>
#include <QList>

namespace bnscope {

class FlowLayout : public QLayout {
 public:
  explicit FlowLayout(QWidget* parent = nullptr, int spacing = 6);
  ~FlowLayout() override;

  void addItem(QLayoutItem* item) override;
  int count() const override { return static_cast<int>(items_.size()); }
  QLayoutItem* itemAt(int index) const override;
  QLayoutItem* takeAt(int index) override;
  Qt::Orientations expandingDirections() const override { return {}; }
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize minimumSize() const override;
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;

 private:
  // Lays the items out in rect (only measures when !apply); the height used.
  int place(const QRect& rect, bool apply) const;

  QList<QLayoutItem*> items_;
  int gap_;
};

}  // namespace bnscope
