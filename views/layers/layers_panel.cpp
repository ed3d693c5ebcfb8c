#include "layers/layers_panel.h"

#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "layers/layer_table_model.h"
#include "layers/sweep_runner.h"
#include "qt_text.h"

namespace bnscope {

namespace {

QString capture_summary(const SweepResult& r) {
  const Capture& c = r.capture;
  QStringList parts;
  parts << QObject::tr("<b>%1</b>")
               .arg(qs(c.model.empty() ? QDir(qs(c.dir)).dirName().toStdString() : c.model)
                        .toHtmlEscaped());
  if (!c.tensorflow.empty())
    parts << QObject::tr("TensorFlow %1").arg(qs(c.tensorflow).toHtmlEscaped());
  if (!c.keras.empty()) parts << QObject::tr("Keras %1").arg(qs(c.keras).toHtmlEscaped());
  if (!c.device.empty()) parts << qs(c.device).toHtmlEscaped();
  if (!c.dtype_policy.empty())
    parts << QObject::tr("policy %1").arg(qs(c.dtype_policy).toHtmlEscaped());
  parts << QObject::tr("against %1")
               .arg(r.reference == kAgainstTensorFlow ? QObject::tr("TensorFlow's outputs")
                                                      : qs(r.reference).toHtmlEscaped());
  return parts.join(QStringLiteral(" &middot; "));
}

}  // namespace

LayersPanel::LayersPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("layersPanel"));
  model_ = new LayerTableModel(this);
  runner_ = new SweepRunner(this);

  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("layersSummary"));
  summary_->setTextFormat(Qt::RichText);
  resweep_ = new QPushButton(tr("Sweep again"), this);
  resweep_->setEnabled(false);
  auto* top = new QHBoxLayout;
  top->addWidget(summary_, 1);
  top->addWidget(resweep_);

  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("layersTable"));
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setSortingEnabled(true);
  table_->setAlternatingRowColors(true);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setSortIndicatorShown(true);

  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("layersStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(200);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setObjectName(QStringLiteral("layersCancel"));
  cancel_->hide();
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(status_, 1);
  bottom->addWidget(progress_);
  bottom->addWidget(cancel_);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(top);
  layout->addWidget(table_, 1);
  layout->addLayout(bottom);

  connect(cancel_, &QPushButton::clicked, runner_, &SweepRunner::cancel);
  connect(resweep_, &QPushButton::clicked, this, [this] {
    if (!dir_.isEmpty()) openCapture(dir_);
  });
  connect(runner_, &SweepRunner::started, this, &LayersPanel::started);
  connect(runner_, &SweepRunner::layerStarting, this, &LayersPanel::progressed);
  connect(runner_, &SweepRunner::finished, this, &LayersPanel::finished);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &LayersPanel::currentRowChanged);
}

LayersPanel::~LayersPanel() {
  // Stop and wait for the sweep while the panel its reports go to is still whole.
  delete runner_;
}

void LayersPanel::openCapture(const QString& dir, SweepRequest request) {
  dir_ = dir;
  announced_.clear();
  emit captureOpened(dir);
  runner_->start(dir, std::move(request));
}

void LayersPanel::selectRow(int row) {
  table_->selectRow(row);
  table_->setCurrentIndex(model_->index(row, 0));
}

void LayersPanel::started() {
  model_->setResult(nullptr);
  summary_->setText(tr("<b>%1</b>").arg(QDir::toNativeSeparators(dir_).toHtmlEscaped()));
  resweep_->setEnabled(false);
  progress_->setRange(0, 0);  // busy until the first layer starts
  progress_->show();
  cancel_->show();
  setStatus(tr("Reading the capture..."), false);
}

void LayersPanel::progressed(int done, int total, const QString& layer) {
  if (!runner_->isRunning()) return;  // a late progress of a sweep already finished
  progress_->setRange(0, total);
  progress_->setValue(done);
  if (!layer.isEmpty())
    setStatus(tr("Sweeping layer %1 of %2: %3...").arg(done + 1).arg(total).arg(layer), false);
}

void LayersPanel::finished() {
  progress_->hide();
  cancel_->hide();
  resweep_->setEnabled(true);
  const auto out = runner_->outcome();
  if (!out) return;
  if (!out->ok()) {
    model_->setResult(nullptr);
    if (out->cancelled)
      setStatus(tr("Sweep cancelled; press Sweep again to run it."), true);
    else {
      const QString why =
          tr("Cannot sweep %1: %2").arg(QDir::toNativeSeparators(out->dir), out->error);
      setStatus(why, true);
      emit captureFailed(why);
    }
    return;
  }
  auto result = std::make_shared<const SweepResult>(*out->result);
  summary_->setText(capture_summary(*result));
  model_->setResult(result);
  table_->horizontalHeader()->setSortIndicator(model_->worstColumn(), Qt::DescendingOrder);
  table_->resizeColumnsToContents();
  const int n = static_cast<int>(result->rows.size());
  QString text =
      (n == 1 ? tr("1 layer: ") : tr("%1 layers: ").arg(n)) + tr("%1 agree, %2 disagree, %3 broken")
                                                                  .arg(result->agreeing())
                                                                  .arg(result->disagreeing())
                                                                  .arg(result->broken());
  if (const auto skipped = result->capture.skipped.size())
    text += tr("; %1 skipped at capture").arg(skipped);
  setStatus(text, result->broken() > 0);
  // The worst layer that can be opened is what the user came for.
  for (int r = 0; r < model_->rowCount(); ++r)
    if (!model_->rowAt(r)->broken()) {
      selectRow(r);
      break;
    }
}

void LayersPanel::currentRowChanged() {
  const QModelIndex current = table_->currentIndex();
  const SweepRow* row = model_->rowAt(current.row());
  if (!row) return;
  const QString name = QString::fromStdString(row->layer.name);
  if (row->broken()) {
    const QString why = QString::fromStdString(row->error);
    setStatus(tr("%1: %2").arg(name, why), true);
    emit layerChosen(name, why);
    return;
  }
  emit layerChosen(name, QString());
  const QString path = QString::fromStdString(row->layer.path);
  if (path == announced_) return;
  announced_ = path;
  emit layerActivated(path);
}

void LayersPanel::setStatus(const QString& text, bool error) {
  status_->setStyleSheet(error ? QStringLiteral("color: #dc322f") : QString());
  status_->setText(text);
}

}  // namespace bnscope
