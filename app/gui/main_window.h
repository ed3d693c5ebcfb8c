#pragma once
// The main window: wires the controller to the views, the menus, the status bar and settings.

#include <QMainWindow>
#include <functional>

#include "analysis_tabs.h"
#include "report_export.h"

class QDockWidget;
class QMenu;
class QTabWidget;
class QListView;
class QLabel;
class QProgressBar;
class QPushButton;

namespace bnscope {

class ProblemController;
class ProblemForm;
class LayerBanner;
class ChannelPanel;
class InputPanel;
class TensorBrowser;
class NotesModel;
class LayersPanel;
class ConformancePanel;
class SampleHint;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // The command line: no arguments, the sample; one, a file or capture folder opened as
  // openFile opens it (a .npy or inputs-only .npz into the sample); otherwise the CLI's problem
  // flags. False with *error when nothing could be opened.
  bool openFromArguments(const QStringList& args, QString* error);
  // Opens a file as File > Open and a drop do; on failure shows the error and keeps the problem.
  bool openPath(const QString& path);
  // The same without showing the error: false with *error, or with it empty when the person
  // chose to keep the unsaved edits. A file that replaces the problem first asks about them.
  bool openFile(const QString& path, QString* error);
  // Shows the Layers panel of a capture folder and sweeps it in the background.
  void openCapture(const QString& dir);
  LayersPanel* layers() const { return layers_; }
  ConformancePanel* conformance() const { return conformance_; }
  // File > Load kernel plugin without the dialog: loads the library in its helper process and
  // adds its backend to every picker; false with the reason shown when it does not load.
  bool loadPlugin(const QString& path);
  // Opens a conformance case with its backend and cpu-reference in the Diff tab.
  void openConformanceCase(const Problem& problem, const QString& backend);
  const AnalysisTabs& analysis() const { return analysis_; }
  // Asks whether to save unsaved edits before they would be lost; false: keep the problem.
  bool confirmDiscard();
  // File > Open Recent, newest first.
  QStringList recentFiles() const;
  QDockWidget* problemDock() const { return form_dock_; }
  QDockWidget* warningsDock() const { return notes_dock_; }
  QMenu* viewMenu() const { return view_menu_; }

  ProblemController* controller() const { return controller_; }
  ProblemForm* form() const { return form_; }
  ChannelPanel* channels() const { return channels_; }
  InputPanel* inputs() const { return inputs_; }
  TensorBrowser* browser() const { return browser_; }
  NotesModel* notes() const { return notes_; }
  QListView* notesView() const { return notes_view_; }
  // Where later views (diff, profile) add their tabs.
  QTabWidget* viewTabs() const { return tabs_; }
  QString lastError() const { return last_error_; }
  QLabel* runStatus() const { return status_; }
  // The line above the tabs while a chosen layer cannot be shown (hidden otherwise).
  LayerBanner* layerBanner() const { return banner_; }
  // Above the tabs while the built-in sample is open: what to try first.
  SampleHint* sampleHint() const { return sample_hint_; }
  // Replaces the "save changes?" question of Quit and Open (tests); returns a
  // QMessageBox::StandardButton.
  void setClosePrompt(std::function<int()> prompt) { close_prompt_ = std::move(prompt); }
  // Fits the window, frame and all, into `available` (its screen's available geometry, which the
  // window takes by itself when it opens): no larger, and moved onto it. Shown, it fits again
  // once its frame is known.
  void fitInto(const QRect& available);
  // Renders the current tab to a PNG.
  bool saveViewPng(const QString& path);
  // File > Export report without the dialog: report.html/.json/.csv and trace.json into dir.
  ExportResult exportReportTo(const QString& dir);

 protected:
  void closeEvent(QCloseEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;
  void changeEvent(QEvent* e) override;
  void showEvent(QShowEvent* e) override;

 private:
  void buildMenus();
  void cancelWork();
  void showError(const QString& title, const QString& message);
  void runStarted();
  void outcomeChanged();
  void noteActivated(const QModelIndex& index);
  void updateTitle();
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  bool saveProblemAs();
  void exportReport();

  ProblemController* controller_;
  ProblemForm* form_;
  ChannelPanel* channels_;
  InputPanel* inputs_;
  TensorBrowser* browser_;
  NotesModel* notes_;
  QListView* notes_view_;
  QTabWidget* tabs_;
  LayerBanner* banner_;
  AnalysisTabs analysis_;
  LayersPanel* layers_;
  ConformancePanel* conformance_;
  QLabel* status_;
  QProgressBar* progress_;
  QPushButton* cancel_;
  QDockWidget* form_dock_;
  QDockWidget* notes_dock_;
  SampleHint* sample_hint_;
  QMenu* view_menu_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QString last_error_;
  std::function<int()> close_prompt_;
  QRect fit_area_;  // what fitInto was last given; empty: the screen's
  QRect wanted_;    // the geometry made or restored, until fitted once shown
  QRect fitted_;    // the geometry the last fit gave
};

}  // namespace bnscope
