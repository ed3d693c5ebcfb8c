#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QShowEvent>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "backend_picker.h"
#include "backends/frameworks/python_choice.h"
#include "channel_panel.h"
#include "conformance/conformance_panel.h"
#include "diff/diff_view.h"
#include "help_menu.h"
#include "input_panel.h"
#include "input_table_model.h"
#include "io/npz.h"
#include "launch.h"
#include "layers/layer_banner.h"
#include "layers/layers_dock.h"
#include "layers/layers_panel.h"
#include "layers/sweep_runner.h"
#include "notes_model.h"
#include "ops/problem_io.h"
#include "option_words.h"
#include "outcome_notes.h"
#include "outcome_problems.h"
#include "plugins.h"
#include "problem_controller.h"
#include "problem_form.h"
#include "profile_tab/profile_view.h"
#include "sample_hint.h"
#include "tensor/error.h"
#include "tensor_browser.h"

namespace bnscope {

bool MainWindow::loadPlugin(const QString& path) {
  try {
    const std::string name = app::load_plugin(path.toStdString(), false);
    BackendPicker::refreshAll();
    conformance_->backendPicker()->setCurrent(QString::fromStdString(name));
    statusBar()->showMessage(tr("Kernel plugin %1 loaded: it is a backend in every picker; the "
                                "Conformance tab checks it.")
                                 .arg(QString::fromStdString(name)),
                             20000);
    return true;
  } catch (const Error& e) {
    showError(tr("Cannot load the plugin"), app_error_text(e));
    return false;
  }
}

void MainWindow::openConformanceCase(const Problem& problem, const QString& backend) {
  controller_->setProblem(problem);
  analysis_.diff->setReferenceBackend(QString::fromUtf8(kReferenceBackend));
  analysis_.diff->setCandidates({backend});
  tabs_->setCurrentWidget(analysis_.diff);
  analysis_.diff->run();
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("bnscopeMainWindow"));
  setAcceptDrops(true);
  controller_ = new ProblemController(this);

  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("viewTabs"));
  channels_ = new ChannelPanel(controller_, tabs_);
  inputs_ = new InputPanel(controller_, tabs_);
  browser_ = new TensorBrowser(controller_, tabs_);
  tabs_->addTab(channels_, tr("&Channels"));
  tabs_->addTab(inputs_, tr("&Inputs"));
  tabs_->addTab(browser_, tr("&Tensors"));
  analysis_ = add_analysis_tabs(tabs_, controller_);
  conformance_ = new ConformancePanel(tabs_);
  tabs_->addTab(conformance_, tr("C&onformance"));
  connect(conformance_, &ConformancePanel::caseActivated, this, &MainWindow::openConformanceCase);
  // Above every tab: a layer chosen that cannot be shown says so where the views are, and the
  // built-in sample says what to try first.
  banner_ = new LayerBanner(controller_, this);
  sample_hint_ = new SampleHint(controller_, tabs_, analysis_, this);
  auto* central = new QWidget(this);
  auto* central_layout = new QVBoxLayout(central);
  central_layout->setContentsMargins(0, 0, 0, 0);
  central_layout->setSpacing(2);
  central_layout->addWidget(banner_);
  central_layout->addWidget(sample_hint_);
  central_layout->addWidget(tabs_, 1);
  setCentralWidget(central);

  form_ = new ProblemForm(controller_, this);
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(form_);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // The form never clips: the dock is at least as wide as the form's controls need.
  scroll->setMinimumWidth(form_->minimumSizeHint().width() + 2 * scroll->frameWidth() +
                          scroll->verticalScrollBar()->sizeHint().width());
  auto* form_dock = form_dock_ = new QDockWidget(tr("Problem"), this);
  form_dock->setObjectName(QStringLiteral("problemDock"));
  form_dock->setWidget(scroll);
  addDockWidget(Qt::LeftDockWidgetArea, form_dock);

  notes_ = new NotesModel(this);
  notes_view_ = new QListView(this);
  notes_view_->setObjectName(QStringLiteral("notesView"));
  notes_view_->setModel(notes_);
  notes_view_->setWordWrap(true);
  auto* notes_dock = notes_dock_ = new QDockWidget(tr("Warnings"), this);
  notes_dock->setObjectName(QStringLiteral("warningsDock"));
  notes_dock->setWidget(notes_view_);
  addDockWidget(Qt::BottomDockWidgetArea, notes_dock);

  layers_ = add_layers_dock(this);
  // A layer's file holds TensorFlow's outputs too: the Diff tab takes them as its reference when
  // it is opened. A capture that cannot be read is said where the views are, so that the problem
  // they show is not taken for a layer's.
  connect(layers_, &LayersPanel::captureFailed, this, [this](const QString& why) {
    statusBar()->showMessage(
        tr("%1. No layer is loaded: the views still show the problem open before.").arg(why));
  });
  connect(layers_, &LayersPanel::layerChosen, banner_, &LayerBanner::layerChosen);
  connect(layers_, &LayersPanel::layerActivated, this,
          [this](const QString& path) { openPath(path); });

  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("runStatus"));
  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(160);
  progress_->setRange(0, 0);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->hide();
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);

  buildMenus();
  connect(cancel_, &QPushButton::clicked, controller_, &ProblemController::cancel);
  connect(controller_, &ProblemController::runStarted, this, &MainWindow::runStarted);
  connect(controller_, &ProblemController::progressChanged, this, [this](double f) {
    progress_->setRange(0, 1000);
    progress_->setValue(static_cast<int>(f * 1000));
  });
  connect(controller_, &ProblemController::outcomeChanged, this, &MainWindow::outcomeChanged);
  connect(controller_, &ProblemController::problemChanged, this, &MainWindow::updateTitle);
  connect(controller_, &ProblemController::notice, this,
          [this](const QString& m) { statusBar()->showMessage(m, 20000); });
  connect(controller_, &ProblemController::editFailed, this,
          [this](const QString& m) { showError(tr("Cannot change the problem"), m); });
  connect(inputs_, &InputPanel::loadFailed, this,
          [this](const QString& m) { showError(tr("Cannot load"), m); });
  connect(notes_view_, &QListView::activated, this, &MainWindow::noteActivated);
  connect(notes_view_, &QListView::clicked, this, &MainWindow::noteActivated);

  resize(1360, 860);
  resizeDocks({form_dock}, {400}, Qt::Horizontal);
  resizeDocks({notes_dock}, {110}, Qt::Vertical);
  QSettings settings;
  // The Python the tf* and torch* backends' workers run in (empty: $BNSCOPE_PYTHON or python3).
  set_framework_python(
      settings.value(QStringLiteral("frameworks/python")).toString().toStdString());
  tabs_->setCurrentIndex(settings.value(QStringLiteral("window/tab"), 0).toInt());
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  // 1360x860, or what was saved on a larger screen, would put the Warnings panel and the
  // status bar off a laptop's.
  wanted_ = geometry();
  if (const QScreen* s = screen()) fitInto(s->availableGeometry());
  fit_area_ = QRect();
  updateTitle();
}

void MainWindow::fitInto(const QRect& available) {
  fit_area_ = available;
  if (isMaximized() || isFullScreen() || available.isEmpty()) return;
  // The frame is the window manager's, known once shown; until then the window alone fits.
  QMargins frame;
  if (isVisible()) {
    const QRect f = frameGeometry(), g = geometry();
    frame = QMargins(g.left() - f.left(), g.top() - f.top(), f.right() - g.right(),
                     f.bottom() - g.bottom());
  }
  const QRect area = available.marginsRemoved(frame);
  // Until first shown, from the size the window was made or saved with, not one an earlier
  // fit to another screen left.
  const QRect from = wanted_.isEmpty() ? geometry() : wanted_;
  const QSize size = from.size().boundedTo(area.size());
  QPoint at = from.topLeft();
  at.setX(std::clamp(at.x(), area.left(), area.right() + 1 - size.width()));
  at.setY(std::clamp(at.y(), area.top(), area.bottom() + 1 - size.height()));
  if (QRect(at, size) != geometry()) setGeometry(QRect(at, size));
  fitted_ = geometry();
}

void MainWindow::showEvent(QShowEvent* e) {
  QMainWindow::showEvent(e);
  if (wanted_.isEmpty() || e->spontaneous()) return;
  // A size or place given since the fit stands (a test's, a caller's).
  if (geometry() != fitted_) {
    wanted_ = QRect();
    return;
  }
  // Now the frame is known: the window with it inside the area, once; later the person's
  // resizing stands.
  QTimer::singleShot(0, this, [this] {
    const QScreen* s = screen();
    fitInto(!fit_area_.isEmpty() ? fit_area_ : s ? s->availableGeometry() : QRect());
    wanted_ = QRect();
  });
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open..."), QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open problem or tensors"), QString(), tr("Problems and tensors (*.npz *.npy)"));
    if (!path.isEmpty()) openPath(path);
  });
  recent_menu_ = file->addMenu(tr("Open &recent"));
  recent_menu_->setObjectName(QStringLiteral("recentMenu"));
  rebuildRecentMenu();
  file->addAction(tr("Open &sample"), this, [this] {
    if (!confirmDiscard()) return;
    try {
      controller_->setProblem(builtin_sample());
      sample_hint_->sampleOpened();
    } catch (const Error& e) {
      showError(tr("Cannot open the sample"), app_error_text(e));
    }
  });
  file->addAction(tr("Open &capture..."), this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open capture folder"));
    if (!dir.isEmpty()) openCapture(dir);
  });
  file->addAction(tr("Open sample c&apture"), this, [this] { openCapture(sample_capture_path()); });
  file->addSeparator();
  file->addAction(tr("&Save problem"), QKeySequence::Save, this, [this] {
    if (controller_->path().isEmpty()) {
      saveProblemAs();
      return;
    }
    QString error;
    if (!controller_->saveProblem(controller_->path(), &error)) showError(tr("Cannot save"), error);
    updateTitle();
  });
  file->addAction(tr("Save problem &as..."), QKeySequence::SaveAs, this,
                  [this] { saveProblemAs(); });
  file->addAction(tr("Save &outputs..."), QKeySequence(tr("Ctrl+E")), this, [this] {
    QString selected;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save outputs"), QStringLiteral("outputs.npz"),
        tr("All outputs (*.npz);;One output, named after it (*.npy)"), &selected);
    if (path.isEmpty()) return;
    // A .npy holds one output: the one the file is named after, else the data-shaped first one.
    QString error, output;
    if (auto out = controller_->outcome(); out && out->ok() && !out->result->outputs.empty()) {
      output = QString::fromStdString(out->result->outputs.front().name);
      const QString stem = QFileInfo(path).completeBaseName();
      for (const OutputTensor& o : out->result->outputs)
        if (QString::fromStdString(o.name) == stem) output = stem;
    }
    if (!controller_->saveOutputs(path, output, &error)) showError(tr("Cannot save"), error);
  });
  file->addAction(tr("Save view as &PNG..."), QKeySequence(tr("Ctrl+P")), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save view"), QStringLiteral("view.png"), tr("PNG (*.png)"));
    if (!path.isEmpty() && !saveViewPng(path))
      showError(tr("Cannot save"), tr("could not write %1").arg(path));
  });
  file->addAction(tr("Export &report..."), QKeySequence(tr("Ctrl+Shift+E")), this,
                  [this] { exportReport(); });
  file->addSeparator();
  file->addAction(tr("Load kernel &plugin..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load kernel plugin"), {},
                                                      tr("Kernel plugins (*.so);;All files (*)"));
    if (!path.isEmpty()) loadPlugin(path);
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(tr("&Re-run"), QKeySequence::Refresh, controller_, &ProblemController::rerun);
  run->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancelWork);
  run->addAction(tr("Framework &Python..."), this, [this] {
    bool ok = false;
    const QString path = QInputDialog::getText(
        this, tr("Framework Python"),
        tr("The Python whose TensorFlow and PyTorch the tf* and torch* backends run\n"
           "(empty: $BNSCOPE_PYTHON, else python3). Takes effect on the next run."),
        QLineEdit::Normal, QSettings().value(QStringLiteral("frameworks/python")).toString(), &ok);
    if (!ok) return;
    QSettings().setValue(QStringLiteral("frameworks/python"), path.trimmed());
    set_framework_python(path.trimmed().toStdString());
  });

  QMenu* view = view_menu_ = menuBar()->addMenu(tr("&View"));
  for (int i = 0; i < tabs_->count(); ++i)
    view->addAction(tabs_->tabText(i).remove(QLatin1Char('&')),
                    QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)), this,
                    [this, i] { tabs_->setCurrentIndex(i); });
  view->addSeparator();
  for (QDockWidget* dock : {form_dock_, notes_dock_}) {
    QAction* toggle = dock->toggleViewAction();
    toggle->setText(tr("%1 panel").arg(dock->windowTitle()));
    view->addAction(toggle);
  }
  add_help_menu(this);
}

QStringList MainWindow::recentFiles() const {
  return QSettings().value(QStringLiteral("recent/files")).toStringList();
}

void MainWindow::addRecent(const QString& path) {
  QStringList files = recentFiles();
  const QString full = QFileInfo(path).absoluteFilePath();
  files.removeAll(full);
  files.prepend(full);
  while (files.size() > 8) files.removeLast();
  QSettings().setValue(QStringLiteral("recent/files"), files);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  if (!recent_menu_) return;
  recent_menu_->clear();
  const QStringList files = recentFiles();
  for (int i = 0; i < files.size(); ++i) {
    const QString path = files[i];
    QAction* a =
        recent_menu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()),
                                this, [this, path] { openPath(path); });
    a->setToolTip(path);
    a->setStatusTip(path);
  }
  recent_menu_->setEnabled(!files.isEmpty());
}

bool MainWindow::confirmDiscard() {
  if (!controller_->isModified()) return true;
  const int answer =
      close_prompt_
          ? close_prompt_()
          : QMessageBox::question(this, tr("Unsaved changes"),
                                  tr("The problem has unsaved changes. Save them?"),
                                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Cancel) return false;
  return answer != QMessageBox::Save || saveProblemAs();
}

namespace {

// A .npz holding a problem.json: it replaces the problem rather than adding inputs to it.
bool is_problem_file(const QString& path) {
  try {
    return path.endsWith(QLatin1String(".npz"), Qt::CaseInsensitive) &&
           npz_has_member(path.toStdString(), kProblemMember);
  } catch (const std::exception&) {
    return false;  // not a readable .npz: opening it says why
  }
}

}  // namespace

bool MainWindow::openFromArguments(const QStringList& args, QString* error) {
  if (args.size() == 1 && QFileInfo(args.front()).isDir()) {
    openCapture(args.front());  // its worst layer replaces the sample once swept
    return openFromArguments({}, error);
  }
  // A file is opened as File > Open opens it, by the same function: a .npy is an input by its
  // name, a .npz a problem or inputs, and what goes wrong is said the same way.
  if (args.size() == 1 && !args.front().startsWith(QLatin1String("--"))) {
    // A .npy or a .npz of inputs goes into a problem: the sample, as a start without any file.
    if (!is_problem_file(args.front()) && controller_->problem().inputs.empty() &&
        !openFromArguments({}, error))
      return false;
    QString why;
    if (openFile(args.front(), &why)) return true;
    // An empty argument has no name to put in the sentence; the reason says what was missing.
    const QString name = QFileInfo(args.front()).fileName();
    if (error)
      *error =
          name.isEmpty() ? tr("Cannot open: %1").arg(why) : tr("Cannot open %1: %2").arg(name, why);
    return false;
  }
  try {
    controller_->setProblem(problem_from_arguments(args));
    if (args.isEmpty()) sample_hint_->sampleOpened();
  } catch (const std::exception& e) {
    if (error) *error = app_error_text(e);
    return false;
  }
  updateTitle();
  return true;
}

bool MainWindow::openPath(const QString& path) {
  QString error;
  if (openFile(path, &error)) return true;
  if (!error.isEmpty()) showError(tr("Cannot open %1").arg(QFileInfo(path).fileName()), error);
  return false;
}

bool MainWindow::openFile(const QString& path, QString* error) {
  if (QFileInfo(path).isDir()) {
    openCapture(path);
    return true;
  }
  const bool replaces = is_problem_file(path);
  if (replaces && !confirmDiscard()) return false;
  if (!controller_->openFile(path, inputs_->selectedInput(), error)) return false;
  if (replaces) addRecent(path);
  updateTitle();
  return true;
}

void MainWindow::openCapture(const QString& dir) {
  layers_->openCapture(dir);
  tabs_->setCurrentWidget(analysis_.diff);
}

bool MainWindow::saveProblemAs() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save problem"), QStringLiteral("problem.npz"), tr("Problem (*.npz)"));
  if (path.isEmpty()) return false;
  QString error;
  if (!controller_->saveProblem(path, &error)) {
    showError(tr("Cannot save"), error);
    return false;
  }
  addRecent(path);
  updateTitle();
  return true;
}

bool MainWindow::saveViewPng(const QString& path) {
  QWidget* w = tabs_->currentWidget();
  return w && w->grab().save(path, "PNG");
}

void MainWindow::showError(const QString& title, const QString& message) {
  last_error_ = message;
  statusBar()->showMessage(message, 10000);
  // Not exec(): a modal loop would stall the runs and the tests.
  auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainWindow::runStarted() {
  progress_->setRange(0, 0);  // busy until the backend reports progress
  progress_->show();
  cancel_->show();
  QString text = tr("Running %1 on %2")
                     .arg(QString::fromStdString(controller_->problem().op),
                          QString::fromStdString(controller_->backend()));
  // The Diff tab's comparison rides on the same run: its backends are part of the wait.
  if (const auto c = controller_->comparison()) {
    QStringList with;
    for (const std::string& b : c->backends) with << QString::fromStdString(b);
    text += tr(", comparing %1 with %2")
                .arg(with.join(QStringLiteral(", ")),
                     c->against.empty() ? QString::fromStdString(c->reference)
                                        : QFileInfo(QString::fromStdString(c->against)).fileName());
  }
  status_->setText(text + QStringLiteral("..."));
}

void MainWindow::outcomeChanged() {
  progress_->hide();
  cancel_->hide();
  const auto out = controller_->outcome();
  if (!out) return;
  // The pipeline's notes: the prepared problem's (TF-compat, input health, reserve spaces) and
  // what the runs added, as the CLI and the report show them.
  notes_->setNotes(outcome_notes(*out), outcome_problems(*out));
  if (out->stale) {
    // Esc: the previous results stay on screen, said to be so.
    status_->setStyleSheet(QStringLiteral("color: #cb4b16"));
    status_->setText(tr("Cancelled: the views show the previous results (stale)"));
  } else if (out->comparison_cancelled) {
    status_->setStyleSheet(QStringLiteral("color: #cb4b16"));
    status_->setText(tr("Comparison cancelled: the views show this problem's results"));
  } else if (out->ok()) {
    status_->setStyleSheet(QString());
    const auto count = static_cast<int>(notes_->rowCount());
    status_->setText(tr("%1 on %2: %3")
                         .arg(QString::fromStdString(out->problem.op),
                              QString::fromStdString(out->backend),
                              count == 1 ? tr("1 note") : tr("%1 notes").arg(count)));
  } else {
    status_->setStyleSheet(QStringLiteral("color: #dc322f"));
    status_->setText(out->cancelled ? tr("Cancelled") : QString::fromStdString(out->error));
  }
}

void MainWindow::noteActivated(const QModelIndex& index) {
  const QString subject = index.data(NotesModel::SubjectRole).toString();
  const qlonglong channel = index.data(NotesModel::ChannelRole).toLongLong();
  if (channel >= 0) {
    tabs_->setCurrentWidget(channels_);
    channels_->selectChannel(static_cast<int>(channel));
    return;
  }
  if (subject.isEmpty()) {
    // Errors and most TensorFlow rejections are about an input they name, or about the whole
    // problem.
    tabs_->setCurrentWidget(inputs_);
    const int row = inputs_->model()->rowNamedIn(index.data(Qt::DisplayRole).toString());
    if (row >= 0) inputs_->selectInput(inputs_->model()->inputName(row));
    return;
  }
  if (QWidget* editor = form_->attrEditor(subject)) {  // about an attr: its editor
    form_dock_->show();
    editor->setFocus(Qt::OtherFocusReason);
    return;
  }
  const auto& inputs = controller_->problem().inputs;
  if (inputs.count(subject.toStdString())) {
    tabs_->setCurrentWidget(inputs_);
    inputs_->selectInput(subject);
  } else {
    tabs_->setCurrentWidget(browser_);
    browser_->showTensor(tr("output %1").arg(subject));
  }
}

void MainWindow::updateTitle() {
  const QString name =
      controller_->path().isEmpty() ? tr("untitled") : QFileInfo(controller_->path()).fileName();
  setWindowTitle(
      tr("%1[*] - %2 - bnscope").arg(name, QString::fromStdString(controller_->problem().op)));
  setWindowModified(controller_->isModified());
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (!confirmDiscard()) {
    e->ignore();
    return;
  }
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  settings.setValue(QStringLiteral("window/tab"), tabs_->currentIndex());
  controller_->cancel();
  e->accept();
}

void MainWindow::cancelWork() {
  // Whatever runs in the background: the problem's run, a profile, a capture's sweep.
  controller_->cancel();
  analysis_.profile->cancel();
  layers_->runner()->cancel();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  for (const QUrl& url : e->mimeData()->urls()) openPath(url.toLocalFile());
  e->acceptProposedAction();
}

void MainWindow::changeEvent(QEvent* e) {
  // The charts pick their theme from the palette when they redraw.
  if (e->type() == QEvent::PaletteChange) emit controller_->outcomeChanged();
  QMainWindow::changeEvent(e);
}

ExportResult MainWindow::exportReportTo(const QString& dir) {
  status_->setText(tr("Writing the report..."));
  controller_->settle();  // the export reads the inputs off the UI thread
  return export_report(analysis_, *controller_, dir);
}

void MainWindow::exportReport() {
  // A folder name, new or existing: the export creates it.
  const QString dir = QFileDialog::getSaveFileName(this, tr("Export report into the folder"),
                                                   QStringLiteral("bnscope-report"));
  if (dir.isEmpty()) return;
  const ExportResult res = exportReportTo(dir);
  if (!res.ok) {
    showError(tr("Cannot export the report"), res.error);
    return;
  }
  QString text = tr("Wrote %1 to %2").arg(res.written.join(QStringLiteral(", ")), dir);
  if (!res.skipped.isEmpty())
    text += tr("; left out %1").arg(res.skipped.join(QStringLiteral(", ")));
  status_->setText(text);
}

}  // namespace bnscope
