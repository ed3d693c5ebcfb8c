#include "hint_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace bnscope {

HintBar::HintBar(QWidget* parent) : QFrame(parent) {
  // Styled by a property rather than the object name, which the owner may set; the palette's
  // colours, so that the dark theme gets a dark bar.
  setProperty("hintBar", true);
  setStyleSheet(
      QStringLiteral("QFrame[hintBar=\"true\"] { background: palette(alternate-base);"
                     " border: 1px solid palette(mid); border-left: 4px solid palette(highlight);"
                     " border-radius: 3px; }"));
  label_ = new QLabel(this);
  label_->setWordWrap(true);
  label_->setTextFormat(Qt::RichText);
  label_->setTextInteractionFlags(Qt::TextBrowserInteraction);
  label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  close_ = new QToolButton(this);
  close_->setObjectName(QStringLiteral("hintDismiss"));
  close_->setText(QStringLiteral("\u00d7"));
  close_->setAutoRaise(true);
  close_->setToolTip(tr("Dismiss this hint"));
  close_->setAccessibleName(tr("Dismiss"));
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(10, 4, 4, 4);
  row->addWidget(label_, 1);
  row->addWidget(close_, 0, Qt::AlignTop);
  connect(label_, &QLabel::linkActivated, this, &HintBar::linkActivated);
  connect(close_, &QToolButton::clicked, this, [this] {
    hide();
    emit dismissed();
  });
}

void HintBar::setText(const QString& html) {
  label_->setText(html);
}

QString HintBar::text() const {
  return label_->text();
}

}  // namespace bnscope
