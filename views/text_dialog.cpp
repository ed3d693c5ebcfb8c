#include "text_dialog.h"

#include <QDialogButtonBox>
#include <QPushButton>
#include <QScrollBar>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace bnscope {

TextDialog::TextDialog(const QString& title, QWidget* parent) : QDialog(parent) {
  setWindowTitle(title);
  setSizeGripEnabled(true);
  browser_ = new QTextBrowser(this);
  browser_->setOpenLinks(false);
  browser_->setOpenExternalLinks(false);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  auto* column = new QVBoxLayout(this);
  column->addWidget(browser_, 1);
  column->addWidget(buttons);
  // Readable without resizing, and inside a 1280x800 screen with its frame.
  resize(720, 560);
}

void TextDialog::setHtml(const QString& html) {
  // A refill (the About page once checked) keeps the place the reader scrolled to.
  const int at = browser_->verticalScrollBar()->value();
  browser_->setHtml(html);
  browser_->verticalScrollBar()->setValue(at);
}

QString TextDialog::plainText() const {
  return browser_->toPlainText();
}

}  // namespace bnscope
