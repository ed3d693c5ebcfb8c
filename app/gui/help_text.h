#pragma once
// The pages of the Help menu, as HTML: the quick start, the keyboard shortcuts the menus'
// actions define, and the conventions, their numbers read from core.

#include <QKeySequence>
#include <QList>
#include <QString>

class QMenuBar;

namespace bnscope {

// Text of the Help pages and menu, in their one translation context.
QString help_tr(const char* text);

// What README.md's "Quick start: the app" says, in short.
QString quick_start_html();

// One action of the menus with a shortcut.
struct MenuShortcut {
  QString menu;    // "File", "File > Open recent"
  QString action;  // its text without the mnemonic's '&'
  QList<QKeySequence> keys;
};
// Every action with a shortcut in the menus of bar and their submenus, in menu order.
QList<MenuShortcut> menu_shortcuts(const QMenuBar* bar);
// Those, and Alt with each menu's underlined letter.
QString shortcuts_html(const QMenuBar* bar);

// The reserve_space_2 conventions, the layouts, the modes and the tolerance per dtype.
QString conventions_html();

}  // namespace bnscope
