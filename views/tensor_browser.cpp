#include "tensor_browser.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <algorithm>

#include "heatmap_widget.h"
#include "problem_controller.h"
#include "tensor/layout.h"

namespace bnscope {

namespace {

struct Found {
  const Tensor* tensor = nullptr;
  bool channels_last = true;
};

bool problem_channels_last(const Problem& p) {
  const OpSpec* op = find_op(p.op);
  if (!op || !op->has_attr("data_format")) return true;
  return is_channels_last(
      parse_data_format(attr_string(p, "data_format")).value_or(DataFormat::NHWC));
}

}  // namespace

TensorBrowser::TensorBrowser(ProblemController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  tensor_ = new QComboBox(this);
  tensor_->setObjectName(QStringLiteral("tensorBox"));
  tensor_->setMinimumContentsLength(24);
  mode_ = new QComboBox(this);
  mode_->addItem(tr("H x W at (n, c)"));
  mode_->addItem(tr("N x C at (h, w)"));
  a_ = new QSpinBox(this);
  b_ = new QSpinBox(this);
  a_label_ = new QLabel(this);
  b_label_ = new QLabel(this);
  info_ = new QLabel(this);
  heatmap_ = new HeatmapWidget(this);
  heatmap_->setObjectName(QStringLiteral("browserHeatmap"));

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Tensor"), this));
  bar->addWidget(tensor_);
  bar->addWidget(mode_);
  bar->addWidget(a_label_);
  bar->addWidget(a_);
  bar->addWidget(b_label_);
  bar->addWidget(b_);
  bar->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(info_);
  layout->addWidget(heatmap_, 1);

  connect(controller_, &ProblemController::problemChanged, this, &TensorBrowser::refreshList);
  connect(controller_, &ProblemController::outcomeChanged, this, &TensorBrowser::refreshList);
  connect(tensor_, &QComboBox::currentIndexChanged, this, &TensorBrowser::updateView);
  connect(mode_, &QComboBox::currentIndexChanged, this, &TensorBrowser::updateView);
  connect(a_, &QSpinBox::valueChanged, this, &TensorBrowser::updateView);
  connect(b_, &QSpinBox::valueChanged, this, &TensorBrowser::updateView);
  refreshList();
}

bool TensorBrowser::showTensor(const QString& name) {
  for (int i = 0; i < tensor_->count(); ++i)
    if (tensor_->itemText(i) == name || tensor_->itemData(i).toString() == name) {
      tensor_->setCurrentIndex(i);
      return true;
    }
  return false;
}

void TensorBrowser::refreshList() {
  const QString keep = tensor_->currentText();
  QSignalBlocker block(tensor_);
  tensor_->clear();
  for (const auto& [name, t] : controller_->problem().inputs)
    tensor_->addItem(tr("input %1").arg(QString::fromStdString(name)),
                     QString::fromStdString(name));
  if (auto out = controller_->outcome(); out && out->ok())
    for (const OutputTensor& o : out->result->outputs)
      if (o.defined)
        tensor_->addItem(tr("output %1").arg(QString::fromStdString(o.name)),
                         QString::fromStdString(o.name));
  // Start on the data gradient, or x: the tensors with an H x W plane worth looking at.
  const bool first_outputs = keep.startsWith(tr("input ")) && !had_outputs_;
  had_outputs_ =
      tensor_->findText(tr("output x_backprop")) >= 0 || tensor_->findText(tr("output dx")) >= 0;
  int at = first_outputs ? -1 : tensor_->findText(keep);
  for (const QString& fallback :
       {tr("output x_backprop"), tr("output dx"), tr("input x"), tr("input t")})
    if (at < 0) at = tensor_->findText(fallback);
  tensor_->setCurrentIndex(std::max(at, 0));
  updateView();
}

void TensorBrowser::updateView() {
  const QString text = tensor_->currentText();
  const std::string name = tensor_->currentData().toString().toStdString();
  Found f;
  const bool is_output = text.startsWith(tr("output "));
  auto out = controller_->outcome();
  if (is_output && out && out->ok()) {
    for (const OutputTensor& o : out->result->outputs)
      if (o.name == name) f.tensor = &o.tensor;
    f.channels_last = problem_channels_last(out->problem);
  } else if (!is_output) {
    if (controller_->inputsInFlux()) return;  // being rewritten in place: the slice shown stays
    const auto& in = controller_->problem().inputs;
    if (auto it = in.find(name); it != in.end()) f.tensor = &it->second;
    f.channels_last = problem_channels_last(controller_->problem());
  }
  if (!f.tensor) {
    info_->clear();
    heatmap_->setSlice({}, QString());
    return;
  }
  const TensorDims d = tensor_dims(*f.tensor, f.channels_last);
  if (f.tensor->rank() <= 2 && mode_->currentIndex() == 0) {
    mode_->setCurrentIndex(1);  // a vector or matrix has no H x W plane: show it whole
    return;
  }
  const bool spatial = mode_->currentIndex() == 0;
  a_label_->setText(spatial ? tr("n") : tr("h"));
  b_label_->setText(spatial ? tr("c") : tr("w"));
  {
    QSignalBlocker ba(a_), bb(b_);
    a_->setRange(0, static_cast<int>(std::max<std::int64_t>((spatial ? d.n : d.h) - 1, 0)));
    b_->setRange(0, static_cast<int>(std::max<std::int64_t>((spatial ? d.c : d.w) - 1, 0)));
  }
  info_->setText(tr("%1 %2, N=%3 C=%4 H=%5 W=%6 (%7)")
                     .arg(QString::fromStdString(shape_str(f.tensor->shape())),
                          QString::fromUtf8(dtype_name(f.tensor->dtype()).data()))
                     .arg(d.n)
                     .arg(d.c)
                     .arg(d.h)
                     .arg(d.w)
                     .arg(f.channels_last ? tr("channels last") : tr("channels first")));
  heatmap_->setSlice(
      slice_tensor(*f.tensor, f.channels_last,
                   spatial ? SliceMode::SpatialAtBatchChannel : SliceMode::BatchChannelAtSpatial,
                   a_->value(), b_->value()),
      spatial ? tr("%1 at n=%2, c=%3").arg(text).arg(a_->value()).arg(b_->value())
              : tr("%1 at h=%2, w=%3").arg(text).arg(a_->value()).arg(b_->value()));
}

}  // namespace bnscope
