#include "theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyleFactory>

namespace bnscope {

namespace {

bool wants_dark() {
  const QByteArray forced = qgetenv("BNSCOPE_THEME").toLower();
  if (forced == "dark") return true;
  if (forced == "light") return false;
  if (qgetenv("GTK_THEME").toLower().endsWith(":dark")) return true;
  // A platform theme that already gave a dark palette needs nothing more.
  return false;
}

QPalette dark_palette() {
  QPalette p;
  const QColor window(45, 45, 48), base(30, 30, 32), text(220, 220, 220), accent(42, 130, 218);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, window);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::Highlight, accent);
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, accent);
  p.setColor(QPalette::PlaceholderText, QColor(140, 140, 140));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, QColor(120, 120, 120));
  return p;
}

}  // namespace

bool apply_system_theme(QApplication& app) {
  if (!wants_dark()) return false;
  app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  app.setPalette(dark_palette());
  return true;
}

}  // namespace bnscope
