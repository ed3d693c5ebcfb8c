#pragma once
// The main window's Help menu: Quick start, Keyboard shortcuts, Conventions and About bnscope,
// each a window of its own beside the main one (one of each; asked again, it comes to the front
// with its text made again).

class QAction;
class QMainWindow;
class QMenu;
class QString;
class QWidget;

namespace bnscope {

// The actions' object names.
inline constexpr const char* kHelpQuickStart = "helpQuickStart";
inline constexpr const char* kHelpShortcuts = "helpShortcuts";
inline constexpr const char* kHelpConventions = "helpConventions";
inline constexpr const char* kHelpAbout = "helpAbout";

// Adds the Help menu (object name "helpMenu") last in the window's menu bar; the shortcuts page
// lists what the menu bar holds when it is opened.
QMenu* add_help_menu(QMainWindow* window);

// The Help menu's action of that object name in window, or null.
QAction* help_action(QWidget* window, const QString& name);

}  // namespace bnscope
