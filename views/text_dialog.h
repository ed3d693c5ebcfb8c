#pragma once
// A resizable window of rich text with a Close button: the Help menu's pages. Its links are
// answered in the app (no browser, no network).

#include <QDialog>

class QTextBrowser;

namespace bnscope {

class TextDialog : public QDialog {
  Q_OBJECT
 public:
  TextDialog(const QString& title, QWidget* parent = nullptr);
  void setHtml(const QString& html);
  // The text as shown, without markup.
  QString plainText() const;
  QTextBrowser* browser() const { return browser_; }

 private:
  QTextBrowser* browser_;
};

}  // namespace bnscope
