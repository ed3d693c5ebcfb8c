#include "help_menu.h"

#include <QAction>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPointer>
#include <functional>
#include <memory>

#include "about_dialog.h"
#include "help_text.h"
#include "text_dialog.h"

namespace bnscope {

namespace {

// Shows the page, made by make the first time; filled by fill each time it is asked for.
void show_page(QPointer<TextDialog>& page, const std::function<TextDialog*()>& make,
               const std::function<void(TextDialog*)>& fill) {
  if (!page) {
    page = make();
    page->setAttribute(Qt::WA_DeleteOnClose);
  }
  fill(page);
  page->show();
  page->raise();
  page->activateWindow();
}

QAction* add_page(QMainWindow* window, QMenu* menu, const QString& text, const char* name,
                  const QString& title, std::function<QString()> html,
                  const QKeySequence& keys = {}) {
  auto page = std::make_shared<QPointer<TextDialog>>();
  QAction* a = menu->addAction(text, window, [window, page, title, html, name] {
    show_page(
        *page,
        [window, title, name] {
          auto* d = new TextDialog(title, window);
          d->setObjectName(QString::fromLatin1(name) + QStringLiteral("Dialog"));
          return d;
        },
        [html](TextDialog* d) { d->setHtml(html()); });
  });
  a->setObjectName(QString::fromLatin1(name));
  if (!keys.isEmpty()) a->setShortcut(keys);
  return a;
}

}  // namespace

QMenu* add_help_menu(QMainWindow* window) {
  QMenu* help = window->menuBar()->addMenu(help_tr("&Help"));
  help->setObjectName(QStringLiteral("helpMenu"));
  add_page(window, help, help_tr("&Quick start"), kHelpQuickStart, help_tr("Quick start"),
           quick_start_html, QKeySequence::HelpContents);
  add_page(window, help, help_tr("&Keyboard shortcuts"), kHelpShortcuts,
           help_tr("Keyboard shortcuts"), [window] { return shortcuts_html(window->menuBar()); });
  add_page(window, help, help_tr("&Conventions"), kHelpConventions, help_tr("Conventions"),
           conventions_html);
  help->addSeparator();
  auto about = std::make_shared<QPointer<TextDialog>>();
  QAction* a = help->addAction(help_tr("&About bnscope"), window, [window, about] {
    const bool fresh = !*about;
    show_page(
        *about,
        [window] {
          auto* d = new AboutDialog(window);
          d->setObjectName(QString::fromLatin1(kHelpAbout) + QStringLiteral("Dialog"));
          return d;
        },
        [fresh](TextDialog* d) {
          if (!fresh) static_cast<AboutDialog*>(d)->refresh();
        });
  });
  a->setObjectName(QString::fromLatin1(kHelpAbout));
  return help;
}

QAction* help_action(QWidget* window, const QString& name) {
  return window ? window->findChild<QAction*>(name) : nullptr;
}

}  // namespace bnscope
