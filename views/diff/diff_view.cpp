#include "diff/diff_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <utility>

#include "backend_picker.h"
#include "diff/cause_fix.h"
#include "diff/cause_model.h"
#include "diff/cause_panel.h"
#include "diff/channel_error_chart.h"
#include "diff/channel_error_model.h"
#include "diff/diff_runner.h"
#include "diff/element_errors.h"
#include "diff/marked_heatmap.h"
#include "diff/verdict_model.h"
#include "diff/verdict_text.h"
#include "diff/worst_elements_model.h"
#include "io/npz.h"
#include "number_text.h"
#include "ops/problem_io.h"
#include "option_words.h"
#include "problem_controller.h"
#include "process_events.h"
#include "row_table.h"
#include "table_fit.h"

namespace bnscope {

DiffView::DiffView(ProblemController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller), runner_(new DiffRunner(this)) {
  setObjectName(QStringLiteral("diffView"));
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QWidget(this);
  buildControls(bar);
  layout->addWidget(bar);

  verdict_label_ = new QLabel(tr("Not compared yet."), this);
  verdict_label_->setObjectName(QStringLiteral("diffVerdict"));
  verdict_label_->setWordWrap(true);
  verdict_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(verdict_label_);

  auto* split = new QSplitter(Qt::Vertical, this);
  verdict_ = new VerdictModel(this);
  verdict_table_ = make_row_table(verdict_, split);
  verdict_table_->setObjectName(QStringLiteral("diffVerdictTable"));
  verdict_table_->setEditTriggers(QAbstractItemView::DoubleClicked |
                                  QAbstractItemView::EditKeyPressed);
  // On a laptop's screen the comparison's and the output's names give way, never the numbers
  // or the verdict; one line each, so that a file's name is elided in its middle.
  verdict_table_->setWordWrap(false);
  keep_columns_fitted(verdict_table_, {{{VerdictModel::Candidate, 70}, {VerdictModel::Output, 70}},
                                       VerdictModel::Candidate});
  split->addWidget(verdict_table_);

  details_ = new QTabWidget(split);
  // Channels: the table and a chart of one of its columns across channels.
  auto* ch_page = new QSplitter(Qt::Horizontal, details_);
  channels_ = new ChannelErrorModel(this);
  make_row_table(channels_, ch_page)->setSortingEnabled(false);
  chart_ = new ChannelErrorChart(channels_, ch_page);
  ch_page->addWidget(chart_);
  ch_page->setStretchFactor(0, 3);
  ch_page->setStretchFactor(1, 2);
  details_->addTab(ch_page, tr("Channels"));

  // Elements: the worst ones listed, and the error heatmap of a slice with them ringed.
  auto* el_page = new QSplitter(Qt::Horizontal, details_);
  worst_ = new WorstElementsModel(this);
  QTableView* worst_table = make_row_table(worst_, el_page);
  connect(worst_, &QAbstractItemModel::modelReset, worst_table,
          [worst_table] { worst_table->resizeColumnsToContents(); });
  auto* map_box = new QWidget(el_page);
  auto* map_layout = new QVBoxLayout(map_box);
  map_layout->setContentsMargins(0, 0, 0, 0);
  auto* slice_bar = new QHBoxLayout();
  slice_mode_box_ = new QComboBox(map_box);
  slice_mode_box_->addItem(tr("h x w at batch, channel"));
  slice_mode_box_->addItem(tr("batch x channel at h, w"));
  slice_a_ = new QSpinBox(map_box);
  slice_b_ = new QSpinBox(map_box);
  slice_bar->addWidget(new QLabel(tr("Slice"), map_box));
  slice_bar->addWidget(slice_mode_box_);
  slice_bar->addWidget(slice_a_);
  slice_bar->addWidget(slice_b_);
  slice_bar->addStretch(1);
  map_layout->addLayout(slice_bar);
  heatmap_ = new MarkedHeatmap(map_box);
  map_layout->addWidget(heatmap_, 1);
  el_page->addWidget(map_box);
  el_page->setStretchFactor(0, 1);
  el_page->setStretchFactor(1, 1);
  details_->addTab(el_page, tr("Elements"));

  causes_ = new CauseModel(this);
  auto* cause_page = new CausePanel(causes_, details_);
  apply_fix_ = cause_page->applyButton();
  fix_status_ = cause_page->status();
  connect(cause_page, &CausePanel::applyRequested, this, [this](int row) { applyFix(row); });
  details_->addTab(cause_page, tr("Causes"));
  split->addWidget(details_);
  split->setSizes({190, 560});  // the verdict has a handful of rows; the details need room
  layout->addWidget(split, 1);

  connect(controller_, &ProblemController::problemChanged, this, &DiffView::problemChanged);
  connect(controller_, &ProblemController::problemOpened, this, &DiffView::problemOpened);
  // Another problem is being opened: the comparison shown is let go before it is read.
  connect(controller_, &ProblemController::outcomeReleased, this, &DiffView::problemChanged);
  connect(controller_, &ProblemController::outcomeChanged, this, &DiffView::controllerFinished);
  connect(runner_, &DiffRunner::started, this, [this] {
    if (!reading_) controller_->beginComparisonRead();  // it reads the reference's outputs
    reading_ = true;
    status_->setText(tr("Comparing..."));
  });
  connect(runner_, &DiffRunner::finished, this, [this] {
    if (reading_ && !runner_->isRunning()) controller_->endComparisonRead();
    reading_ = reading_ && runner_->isRunning();
    finished();
  });
  // While the profile writes into the reference's outputs the tab keeps what it shows; what
  // was asked of it meanwhile is done once they are back.
  connect(controller_, &ProblemController::comparisonOutputsReturned, this, [this] {
    if (std::exchange(recompare_waiting_, false)) runner_->recompare(options_);
    if (std::exchange(details_waiting_, false) && selected_row_ >= 0) {
      slice_waiting_ = false;
      showDetails();
    }
    if (std::exchange(slice_waiting_, false))
      showSlice(slice_mode_, slice_a_->value(), slice_b_->value());
  });
  connect(verdict_, &VerdictModel::toleranceEdited, this, &DiffView::setTolerance);
  connect(verdict_table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& i) {
            if (i.isValid() && i.row() != selected_row_) selectRow(i.row());
          });
  connect(slice_mode_box_, &QComboBox::activated, this, [this](int i) {
    showSlice(i == 0 ? SliceMode::SpatialAtBatchChannel : SliceMode::BatchChannelAtSpatial, 0, 0);
  });
  auto slice_edited = [this] { showSlice(slice_mode_, slice_a_->value(), slice_b_->value()); };
  connect(slice_a_, &QSpinBox::valueChanged, this, slice_edited);
  connect(slice_b_, &QSpinBox::valueChanged, this, slice_edited);
  connect(worst_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& i) {
            if (!i.isValid()) return;
            const ElementError& e = worst_->elements().at(static_cast<std::size_t>(i.row()));
            const ElementPlace p = element_place(errorShape(), e.coords,
                                                 outcome() ? outcome()->channels_last() : true);
            if (slice_mode_ == SliceMode::SpatialAtBatchChannel)
              showSlice(slice_mode_, p.n, p.c);
            else
              showSlice(slice_mode_, p.h, p.w);
          });
}

DiffView::~DiffView() = default;

QChartView* DiffView::chartView() const {
  return chart_->chartView();
}

void DiffView::buildControls(QWidget* bar) {
  auto* rows = new QVBoxLayout(bar);
  rows->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout();
  rows->addLayout(row);
  row->addWidget(new QLabel(tr("Reference"), bar));
  reference_ = new BackendPicker(BackendPicker::Mode::One, bar);
  reference_->comboBox()->setObjectName(QStringLiteral("diffReference"));
  reference_->addExtra(tr("Outputs from file..."), QStringLiteral("file"));
  row->addWidget(reference_);
  row->addSpacing(12);
  row->addWidget(new QLabel(tr("Compare"), bar));
  candidate_box_ = new BackendPicker(BackendPicker::Mode::Several, bar);
  row->addWidget(candidate_box_);
  row->addStretch(1);
  // The actions get a row of their own: one row for everything would set the tab's minimum
  // width past what a 1250 px window leaves beside the Problem panel.
  row = new QHBoxLayout();
  rows->addLayout(row);
  find_causes_ = new QCheckBox(tr("find causes"), bar);
  find_causes_->setChecked(true);
  find_causes_->setToolTip(
      tr("When outputs disagree, search the cause catalog: fit each cause, re-run with its fix"));
  row->addWidget(find_causes_);
  pin_ = new QPushButton(tr("Pin baseline..."), bar);
  pin_->setObjectName(QStringLiteral("diffPinBaseline"));
  pin_->setToolTip(
      tr("Keep the outputs of the current run under a name, to compare later runs "
         "(another backend, dtype, epsilon, build) with them"));
  row->addWidget(pin_);
  compare_ = new QPushButton(tr("Compare"), bar);
  compare_->setObjectName(QStringLiteral("diffCompare"));
  row->addWidget(compare_);
  status_ = new QLabel(bar);
  row->addWidget(status_, 1);
  // The file's path gets a row of its own: in the row above it would set the tab's minimum
  // width and squeeze the docks beside it.
  file_row_ = new QWidget(bar);
  auto* file_row = new QHBoxLayout(file_row_);
  file_row->setContentsMargins(0, 0, 0, 0);
  file_row->addWidget(new QLabel(tr("Expected outputs"), file_row_));
  reference_file_ = new QLineEdit(file_row_);
  reference_file_->setObjectName(QStringLiteral("diffReferenceFile"));
  reference_file_->setPlaceholderText(
      tr(".npz, a .npy named after an output, or a folder; Enter compares"));
  browse_ = new QPushButton(tr("Browse..."), file_row_);
  file_row->addWidget(reference_file_, 1);
  file_row->addWidget(browse_);
  rows->addWidget(file_row_);

  setReferenceBackend(QStringLiteral("cpu-reference"));
  setCandidates({QStringLiteral("cpu")});
  connect(reference_, &BackendPicker::changed, this, &DiffView::referenceChanged);
  connect(compare_, &QPushButton::clicked, this, &DiffView::run);
  connect(pin_, &QPushButton::clicked, this, [this] {
    bool ok = false;
    const QString name =
        QInputDialog::getText(this, tr("Pin baseline"), tr("Name of the baseline"),
                              QLineEdit::Normal, tr("baseline %1").arg(baselines_.size() + 1), &ok);
    QString error;
    if (ok && !name.trimmed().isEmpty() && !pinBaseline(name.trimmed(), &error))
      status_->setText(error);
  });
  connect(browse_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Expected outputs"), QString(),
                                                      tr("Outputs (*.npz *.npy)"));
    if (!path.isEmpty()) setReferenceFile(path);
  });
  connect(reference_file_, &QLineEdit::editingFinished, this, [this] { stale_ = true; });
  connect(reference_file_, &QLineEdit::returnPressed, this, &DiffView::run);
}

void DiffView::referenceChanged() {
  if (fix_status_) fix_status_->clear();  // the fix was found against the reference before
  const bool file = reference_->current() == QStringLiteral("file");
  file_row_->setVisible(file);
  stale_ = true;
  const bool ready = referenceReady();
  // Shown, the tab follows its reference as it follows the problem.
  if (auto_run_ && isVisible() && ready && !controller_->problem().inputs.empty()) return run();
  if (controller_->comparison())
    controller_->setComparison(ready ? std::optional(request()) : std::nullopt, false);
  // What is shown was compared with the reference before: never let it pass for this one's.
  if (!runner_->outcome() && !runner_->isRunning()) return;
  runner_->clear();
  finished();
  verdict_label_->setText(ready ? tr("The reference changed: press Compare to compare with it.")
                                : tr("Choose the expected outputs (a .npz, a .npy or a folder)."));
}

void DiffView::setReferenceBackend(const QString& name) {
  reference_->setCurrent(name);
  referenceChanged();
}

void DiffView::setReferenceFile(const QString& path) {
  reference_file_->setText(path);
  reference_->setCurrent(QStringLiteral("file"));
  referenceChanged();
}

void DiffView::problemOpened() {
  // A problem file that carries expected outputs (TensorFlow's, as a capture's layers do) is
  // compared with them; opening another problem never leaves it compared with those.
  const QString path = controller_->path();
  if (!path.isEmpty() && has_expected_outputs(path.toStdString())) {
    if (reference_->current() != QStringLiteral("file") || reference_file_->text() != path)
      setReferenceFile(path);
    carried_reference_ = path;
    return;
  }
  if (carried_reference_.isEmpty()) return;
  const bool still = reference_->current() == QStringLiteral("file") &&
                     reference_file_->text() == std::exchange(carried_reference_, QString());
  if (still) setReferenceBackend(QString::fromLatin1(kReferenceBackend));
}

void DiffView::setCandidates(const QStringList& backends) {
  candidate_box_->setSelected(backends);
}

QStringList DiffView::candidates() const {
  return candidate_box_->selected();
}

void DiffView::setFindCauses(bool on) {
  find_causes_->setChecked(on);
}

bool DiffView::pinBaseline(const QString& name, QString* error) {
  const auto out = controller_->outcome();
  if (!out || !out->ok() || out->revision != controller_->revision()) {
    if (error) *error = tr("nothing to pin: the current problem has not run");
    return false;
  }
  if (!baseline_dir_) baseline_dir_ = std::make_unique<QTemporaryDir>();
  // Named after the baseline, so comparisons and reports say which one they used.
  QString file = name;
  file.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.+-]+")), QStringLiteral("_"));
  const QString path = baseline_dir_->filePath(file + QStringLiteral(".npz"));
  try {
    std::vector<std::pair<std::string, Tensor>> members;
    for (const OutputTensor& o : out->result->outputs)
      if (o.defined) members.emplace_back(o.name, o.tensor);
    write_npz(path.toStdString(), members);
  } catch (const std::exception& e) {
    if (error) *error = app_error_text(e);
    return false;
  }
  if (!baselines_.contains(name)) {
    baselines_ << name;
    reference_->addExtra(tr("Baseline: %1").arg(name), QStringLiteral("baseline:") + path);
  }
  status_->setText(tr("pinned %1 (%2 on %3)")
                       .arg(name, QString::fromStdString(out->backend),
                            QString::fromStdString(out->problem.op)));
  return true;
}

void DiffView::setReferenceBaseline(const QString& name) {
  if (!baseline_dir_ || !baselines_.contains(name)) return;
  for (int i = 0; i < reference_->comboBox()->count(); ++i)
    if (reference_->comboBox()->itemText(i) == tr("Baseline: %1").arg(name))
      reference_->comboBox()->setCurrentIndex(i);
  referenceChanged();
}

QStringList DiffView::baselines() const {
  return baselines_;
}

PipelineRequest DiffView::request() const {
  PipelineRequest r;
  const QString current = reference_->current();
  if (current.startsWith(QStringLiteral("baseline:")))
    r.against = current.mid(9).toStdString();
  else if (current == QStringLiteral("file"))
    r.against = reference_file_->text().trimmed().toStdString();
  else
    r.reference = reference_->current().toStdString();
  for (const QString& c : candidates()) r.backends.push_back(c.toStdString());
  r.diff = options_;
  r.find_causes = find_causes_->isChecked();
  return r;
}

void DiffView::run() {
  if (!referenceReady()) {  // never a silent fall-back to a backend
    verdict_label_->setText(tr("Choose the expected outputs (a .npz, a .npy or a folder)."));
    return;
  }
  // The controller's next run answers the comparison too, so each backend runs once per change
  // for the Channels view and this tab together.
  waiting_ = true;
  stale_ = false;
  status_->setText(tr("Comparing..."));
  compare_->setText(tr("Restart"));
  controller_->setComparison(request(), true);
}

bool DiffView::waitForIdle(int timeoutMs) {
  return process_events_while([this] { return isRunning() || controller_->isRunning(); },
                              timeoutMs);
}

bool DiffView::isRunning() const {
  return waiting_ || runner_->isRunning();
}

std::shared_ptr<const DiffOutcome> DiffView::outcome() const {
  return runner_->outcome();
}

void DiffView::setTolerance(const QString& output, double atol, double rtol) {
  options_.output_atol[output.toStdString()] = atol;
  options_.output_rtol[output.toStdString()] = rtol;
  if (auto c = controller_->comparison()) {  // later runs compare with the new tolerances too
    c->diff = options_;
    controller_->setComparison(std::move(c), false);
  }
  if (controller_->comparisonOutputsLent())
    recompare_waiting_ = true;
  else
    runner_->recompare(options_);
}

std::shared_ptr<const DiffOutcome> DiffView::currentOutcome() const {
  auto out = outcome();
  return out && out->revision == controller_->revision() ? out : nullptr;
}

void DiffView::showEvent(QShowEvent* e) {
  QWidget::showEvent(e);
  if (!auto_run_ || controller_->problem().inputs.empty() || !referenceReady()) return;
  if (stale_)
    run();
  else if (!controller_->comparison())
    // Up to date, but hiding dropped the request: later edits compare again.
    controller_->setComparison(request(), false);
}

bool DiffView::referenceReady() const {
  return reference_->current() != QStringLiteral("file") ||
         !reference_file_->text().trimmed().isEmpty();
}

void DiffView::hideEvent(QHideEvent* e) {
  QWidget::hideEvent(e);
  // Hidden, the tab asks for nothing: edits run the app's backend alone.
  if (auto_run_) controller_->setComparison(std::nullopt, false);
}

bool DiffView::applyFix(int row) {
  if (row < 0 || row >= causes_->rowCount()) return false;
  const Cause& cause = causes_->causes().at(static_cast<std::size_t>(row));
  std::string why;
  controller_->settle();
  const auto fixed = problem_with_fix(controller_->problem(), cause, &why);
  if (!fixed) {
    fix_status_->setText(tr("Cannot apply: %1").arg(QString::fromStdString(why)));
    return false;
  }
  // Copied: the edit below clears the causes table, and the reference with it.
  const double before = cause.before;
  const std::string title = cause.title;
  const bool partial = cause.partial_fix;
  // The edit's run answers the comparison: set it first, so the problem runs once.
  controller_->setComparison(request(), false);
  waiting_ = true;
  status_->setText(tr("Comparing..."));
  controller_->editProblem(*fixed);
  // Said after the edit, whose problemChanged clears what an earlier fix said; the next change
  // of the problem (this fix set back, say) clears it too.
  fix_status_->setText(
      (partial ? tr("Applied this problem's part of: %1 (error ratio was %2); the rest is the "
                    "reference's own, which no change here makes.")
               : tr("Applied: %1 (error ratio was %2)."))
          .arg(QString::fromStdString(title), number_text(before)));
  return true;
}

void DiffView::problemChanged() {
  // What is shown belongs to the problem before: clear it rather than let it pass for this one.
  stale_ = true;
  fix_status_->clear();
  if (!runner_->outcome() && !runner_->isRunning()) return;
  runner_->clear();
  finished();
  verdict_label_->setText(controller_->comparison()
                              ? tr("The problem changed: comparing again...")
                              : tr("The problem changed: press Compare to compare it."));
}

void DiffView::controllerFinished() {
  const auto out = controller_->outcome();
  if (out && out->stale && waiting_) {  // cancelled: the kept results are of an earlier problem
    waiting_ = false;
    finished();
    return;
  }
  if (!out || out->revision != controller_->revision()) return;
  if (out->diff) {
    waiting_ = false;
    stale_ = false;
    runner_->adopt(out->diff);  // shows it through finished()
    return;
  }
  if (waiting_) {  // cancelled, or the comparison was dropped before the run
    waiting_ = false;
    finished();
    if (out->comparison_cancelled) {
      stale_ = true;
      status_->setText(tr("cancelled"));
      if (!outcome()) verdict_label_->setText(tr("Cancelled: press Compare to compare."));
    }
  }
}

void DiffView::finished() {
  compare_->setText(tr("Compare"));
  auto out = outcome();
  controller_->setShownComparison(out);
  const int keep = selected_row_;
  verdict_->setReport(out ? out->report() : DiffReport{});
  causes_->setCauses(out ? out->causes() : std::vector<Cause>{});
  details_->setTabText(2, tr("Causes (%1)").arg(causes_->rowCount()));
  const auto& found = causes_->causes();
  apply_fix_->setEnabled(
      std::any_of(found.begin(), found.end(), [](const Cause& c) { return !c.fix.empty(); }));
  if (!out) {
    // No comparison: none of its sub-views (channels, chart, elements, heatmap) keeps its figures.
    selectRow(-1);
    status_->clear();
    verdict_label_->setText(tr("Not compared yet."));
    return;
  }
  const bool dark = palette_is_dark(this);
  if (out->cancelled) {
    status_->setText(tr("cancelled"));
  } else if (!out->error.empty()) {
    status_->setText(tr("failed"));
    verdict_label_->setText(cannot_compare_text(*out, dark));
  } else {
    int compared = 0;
    for (const Comparison& c : out->report().comparisons)
      for (const OutputDiff& o : c.outputs) compared += o.compared;
    status_->setText(tr("%1 output(s) compared").arg(compared));
    verdict_label_->setText(verdict_text(*out, dark));
  }
  // Keep the row after a tolerance edit; otherwise show the first failing output.
  int row = keep >= 0 && keep < verdict_->rowCount() ? keep : -1;
  for (int r = 0; row < 0 && r < verdict_->rowCount(); ++r)
    if (!verdict_->output(r).passed) row = r;
  for (int r = 0; row < 0 && r < verdict_->rowCount(); ++r)
    if (verdict_->output(r).compared) row = r;
  selected_row_ = -1;
  selectRow(row);
  emit diffFinished();
}

void DiffView::selectRow(int row) {
  if (row < 0 || row >= verdict_->rowCount()) {
    selected_row_ = -1;
    channels_->setChannels({});
    worst_->setElements({});
    error_owner_.reset();
    error_ref_ = error_cand_ = nullptr;
    error_shape_.clear();
    heatmap_->setSlice({});
    heatmap_->setMarks({});
    chart_->update({});
    return;
  }
  selected_row_ = row;
  verdict_table_->selectRow(row);
  showDetails();
}

void DiffView::showDetails() {
  if (controller_->comparisonOutputsLent()) {
    details_waiting_ = true;
    return;
  }
  const OutputDiff& o = verdict_->output(selected_row_);
  channels_->setChannels(o.channels);
  chart_->update(QString::fromStdString(o.name));
  error_owner_.reset();
  error_ref_ = error_cand_ = nullptr;
  error_shape_.clear();
  auto out = outcome();
  const Comparison& c = verdict_->comparison(selected_row_);
  if (out) {
    const OutputTensor* ref = out->expected(o.name);
    const OutputTensor* cand = out->candidate(c.candidate, o.name);
    if (ref && cand && o.compared && ref->tensor.shape() == cand->tensor.shape()) {
      error_owner_ = out;
      error_ref_ = ref;
      error_cand_ = cand;
      // Kept apart: while the profile borrows the reference's buffers they read as empty.
      error_shape_ = ref->tensor.shape();
    }
  }
  // The max ULP the verdict table shows is one of the listed elements, added when |a-b| does
  // not rank it among the worst (a small value far off in ULP).
  std::vector<ElementError> listed = o.worst;
  int max_ulp_row = -1;
  if (o.max_ulp_element) {
    listed.push_back(*o.max_ulp_element);
    max_ulp_row = static_cast<int>(listed.size()) - 1;
  }
  worst_->setElements(std::move(listed), max_ulp_row);
  const bool channels_last = out ? out->channels_last() : true;
  const TensorDims d = tensor_dims(errorShape(), channels_last);
  // Start on the slice through the worst element.
  ElementPlace p;
  if (!o.worst.empty()) p = element_place(errorShape(), o.worst.front().coords, channels_last);
  if (d.h * d.w > 1)
    showSlice(SliceMode::SpatialAtBatchChannel, p.n, p.c);
  else
    showSlice(SliceMode::BatchChannelAtSpatial, p.h, p.w);
}

const Shape& DiffView::errorShape() const {
  return error_shape_;
}

void DiffView::showSlice(SliceMode mode, std::int64_t a, std::int64_t b) {
  slice_mode_ = mode;
  const bool channels_last = outcome() ? outcome()->channels_last() : true;
  const TensorDims d = tensor_dims(errorShape(), channels_last);
  const bool spatial = mode == SliceMode::SpatialAtBatchChannel;
  const std::int64_t max_a = (spatial ? d.n : d.h) - 1, max_b = (spatial ? d.c : d.w) - 1;
  a = std::clamp<std::int64_t>(a, 0, std::max<std::int64_t>(0, max_a));
  b = std::clamp<std::int64_t>(b, 0, std::max<std::int64_t>(0, max_b));
  {
    const QSignalBlocker b1(slice_a_), b2(slice_b_), b3(slice_mode_box_);
    slice_mode_box_->setCurrentIndex(spatial ? 0 : 1);
    slice_a_->setRange(0, static_cast<int>(std::max<std::int64_t>(0, max_a)));
    slice_b_->setRange(0, static_cast<int>(std::max<std::int64_t>(0, max_b)));
    slice_a_->setPrefix(spatial ? tr("batch ") : tr("h "));
    slice_b_->setPrefix(spatial ? tr("channel ") : tr("w "));
    slice_a_->setValue(static_cast<int>(a));
    slice_b_->setValue(static_cast<int>(b));
  }
  if (error_ref_ && controller_->comparisonOutputsLent()) {
    slice_waiting_ = true;  // the reference's buffers are the profile's meanwhile
    return;
  }
  if (!error_ref_ || num_elements(errorShape()) == 0) {
    heatmap_->setSlice({});
    heatmap_->setMarks({});
    return;
  }
  const OutputDiff& o = verdict_->output(selected_row_);
  heatmap_->setSlice(error_slice(*error_ref_, *error_cand_, channels_last, mode, a, b),
                     tr("|a-b| of %1").arg(QString::fromStdString(o.name)));
  QVector<QPoint> marks;
  for (const ElementError& e : o.worst) {
    const ElementPlace p = element_place(errorShape(), e.coords, channels_last);
    if (spatial && p.n == a && p.c == b)
      marks << QPoint(static_cast<int>(p.h), static_cast<int>(p.w));
    else if (!spatial && p.h == a && p.w == b)
      marks << QPoint(static_cast<int>(p.n), static_cast<int>(p.c));
  }
  heatmap_->setMarks(marks);
}

}  // namespace bnscope
