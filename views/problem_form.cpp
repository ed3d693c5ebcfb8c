#include "problem_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSlider>
#include <QStringList>
#include <cmath>

#include "backend_picker.h"
#include "number_spin_box.h"
#include "ops/dtype_cost.h"
#include "problem_controller.h"
#include "profile/traffic.h"
#include "qt_text.h"
#include "tensor/layout.h"

namespace bnscope {

namespace {
// The log slider spans 1e-10 .. 1 in steps of a tenth of a decade.
constexpr int kSliderMin = -100, kSliderMax = 0;
int slider_pos(double eps) {
  return eps <= 0 ? kSliderMin
                  : std::clamp(static_cast<int>(std::lround(std::log10(eps) * 10)), kSliderMin,
                               kSliderMax);
}
// Long op names must not widen the dock; the full name is in the popup.
void compact(QComboBox* box) {
  box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  box->setMinimumContentsLength(10);
}
}  // namespace

ProblemForm::ProblemForm(ProblemController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  layout_ = new QFormLayout(this);
  op_ = new QComboBox(this);
  op_->setObjectName(QStringLiteral("opBox"));
  for (const OpSpec& op : op_catalog()) {
    op_->addItem(qs(op.name));
    op_->setItemData(op_->count() - 1, qs(op.summary), Qt::ToolTipRole);
  }
  layout_->addRow(tr("&Op"), op_);

  backend_ = new BackendPicker(BackendPicker::Mode::One, this);
  backend_->comboBox()->setObjectName(QStringLiteral("backendBox"));
  layout_->addRow(tr("&Backend"), backend_);

  dtype_ = new QComboBox(this);
  dtype_->setObjectName(QStringLiteral("dtypeBox"));
  dtype_->addItem(tr("as x"), QString());
  for (DType t : kAllDTypes) dtype_->addItem(qs(dtype_name(t)), qs(dtype_name(t)));
  layout_->addRow(tr("&dtype (T)"), dtype_);

  convention_ = new QComboBox(this);
  convention_->setObjectName(QStringLiteral("conventionBox"));
  convention_->addItem(tr("variance (CPU)"), QStringLiteral("variance"));
  convention_->addItem(tr("inv_std (cuDNN)"), QStringLiteral("inv_std"));
  convention_->setToolTip(tr("What reserve_space_2 holds in training mode"));
  layout_->addRow(tr("&Reserve convention"), convention_);

  convert_ = new QCheckBox(tr("convert the data on a layout change"), this);
  convert_->setObjectName(QStringLiteral("convertLayout"));
  convert_->setChecked(true);
  convert_->setToolTip(
      tr("Checked: the loaded tensors are converted to the new layout.\n"
         "Unchecked: the tensors are read as already being in the new layout."));

  layout_->addRow(QString(), convert_);

  connect(op_, &QComboBox::currentTextChanged, this, [this](const QString& t) {
    if (!syncing_) controller_->setOp(t.toStdString());
  });
  connect(backend_, &BackendPicker::changed, this, [this] {
    if (!syncing_) controller_->setBackend(backend_->current().toStdString());
  });
  connect(dtype_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (syncing_) return;
    controller_->setDtype(parse_dtype(dtype_->itemData(i).toString().toStdString()));
  });
  connect(convention_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (syncing_) return;
    controller_->setConvention(
        *parse_convention(convention_->itemData(i).toString().toStdString()));
  });
  for (QComboBox* box : {op_, dtype_, convention_}) compact(box);
  connect(controller_, &ProblemController::problemChanged, this, &ProblemForm::syncFromProblem);
  syncFromProblem();
}

QComboBox* ProblemForm::backendBox() const {
  return backend_->comboBox();
}

QWidget* ProblemForm::attrEditor(const QString& name) const {
  auto it = attr_editors_.find(name);
  return it == attr_editors_.end() ? nullptr : it->second;
}

void ProblemForm::rebuildAttrs() {
  const OpSpec* op = find_op(controller_->problem().op);
  if (attrs_box_) layout_->removeRow(attrs_box_);  // deletes the old editors
  attr_editors_.clear();
  eps_slider_ = nullptr;
  attrs_box_ = new QWidget(this);
  auto* form = new QFormLayout(attrs_box_);
  form->setContentsMargins(0, 0, 0, 0);
  built_for_ = controller_->problem().op;
  const int attrs_row = layout_->rowCount() - 1;  // above the layout-conversion box
  convert_->setVisible(op && op->has_attr("data_format"));
  if (!op) {
    layout_->insertRow(attrs_row, attrs_box_);
    return;
  }
  for (const AttrSpec& a : op->attrs) {
    const QString name = qs(a.name);
    const std::string key(a.name);
    QWidget* editor = nullptr;
    if (a.type == AttrType::Bool) {
      auto* box = new QCheckBox(attrs_box_);
      // stateChanged, not toggled: leaving "not set" (partly checked) for checked is no toggle.
      connect(box, &QCheckBox::stateChanged, this, [this, key](int state) {
        if (!syncing_ && state != Qt::PartiallyChecked)
          controller_->setAttr(key, state == Qt::Checked);
      });
      editor = box;
    } else if (a.type == AttrType::String) {
      auto* box = new QComboBox(attrs_box_);
      compact(box);
      for (std::string_view v : a.allowed) box->addItem(qs(v));
      connect(box, &QComboBox::currentTextChanged, this, [this, key](const QString& t) {
        if (syncing_) return;
        if (key == "data_format")
          controller_->setDataFormat(*parse_data_format(t.toStdString()), convert_->isChecked());
        else
          controller_->setAttr(key, t.toStdString());
      });
      editor = box;
    } else {
      auto* spin = new NumberSpinBox(attrs_box_);
      spin->setRange(0.0, 10.0);
      spin->setSingleStep(key.find("epsilon") != std::string::npos ? 1e-5 : 0.1);
      connect(spin, &NumberSpinBox::committed, this, [this, key](double v) {
        if (!syncing_) controller_->setAttr(key, v);
      });
      editor = spin;
      if (key.find("epsilon") != std::string::npos) {
        auto* row = new QWidget(attrs_box_);
        auto* h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        eps_slider_ = new QSlider(Qt::Horizontal, row);
        eps_slider_->setObjectName(QStringLiteral("epsilonSlider"));
        eps_slider_->setRange(kSliderMin, kSliderMax);
        eps_slider_->setMinimumWidth(60);
        spin->setMinimumWidth(120);
        eps_slider_->setToolTip(tr("log10(epsilon), 1e-10 .. 1"));
        connect(eps_slider_, &QSlider::valueChanged, this, [this, spin](int pos) {
          if (syncing_) return;
          spin->setValue(std::pow(10.0, pos / 10.0));  // forwards to the controller
        });
        h->addWidget(spin, 1);
        h->addWidget(eps_slider_, 2);
        editor->setObjectName(QStringLiteral("attr_") + name);
        editor->setToolTip(qs(a.doc));
        attr_editors_[name] = editor;
        form->addRow(name, row);
        continue;
      }
    }
    editor->setObjectName(QStringLiteral("attr_") + name);
    editor->setToolTip(qs(a.doc));
    attr_editors_[name] = editor;
    form->addRow(name, editor);
  }
  layout_->insertRow(attrs_row, attrs_box_);
}

QString ProblemForm::dtypeCostText(const Problem& p) {
  // What each choice would hold, before it is made: on a real layer float64 doubles the memory.
  std::optional<DType> now = p.dtype;
  if (const OpSpec* op = find_op(p.op); !now && op)
    if (auto x = p.inputs.find(std::string(op->data_input())); x != p.inputs.end())
      now = x->second.dtype();
  QStringList lines;
  for (DType t : kAllDTypes) {
    QString line =
        tr("%1: %2").arg(qs(dtype_name(t)), QString::fromStdString(bytes_text(run_bytes_at(p, t))));
    if (now && t == *now) line += tr(" (now)");
    lines << line;
  }
  return tr("The dtype the op runs in. Memory for a run of this problem:\n") +
         lines.join(QStringLiteral("\n"));
}

void ProblemForm::syncFromProblem() {
  const Problem& p = controller_->problem();
  if (built_for_ != p.op || !attrs_box_) rebuildAttrs();
  syncing_ = true;
  op_->setCurrentText(QString::fromStdString(p.op));
  backend_->setCurrent(QString::fromStdString(controller_->backend()));
  dtype_->setCurrentIndex(p.dtype ? dtype_->findData(qs(dtype_name(*p.dtype))) : 0);
  dtype_->setToolTip(dtypeCostText(p));
  convention_->setCurrentIndex(p.convention == ReserveConvention::Variance ? 0 : 1);
  // The fused grad ops read a reserve_space_2 and the fused forward ops write one in training
  // mode (the global-normalization ops have none): elsewhere the choice would change nothing.
  const OpSpec* spec = find_op(p.op);
  const bool has_reserve = spec && (spec->input_index("reserve_space_2") >= 0 ||
                                    spec->output_index("reserve_space_2") >= 0);
  convention_->setEnabled(has_reserve);
  convention_->setToolTip(!has_reserve
                              ? tr("%1 has no reserve_space_2: the fused ops do").arg(qs(p.op))
                          : spec->is_grad ? tr("What reserve_space_2 holds in training mode")
                                          : tr("What a training run writes into reserve_space_2"));
  if (const OpSpec* op = spec) {
    for (const AttrSpec& a : op->attrs) {
      QWidget* w = attrEditor(qs(a.name));
      const bool set = p.attrs.count(std::string(a.name)) > 0;
      if (!set && a.required()) {
        // Required and not set: say so rather than show a value the problem does not have.
        if (auto* box = qobject_cast<QCheckBox*>(w)) {
          box->setTristate(true);
          box->setCheckState(Qt::PartiallyChecked);
        } else if (auto* spin = qobject_cast<NumberSpinBox*>(w)) {
          spin->setSpecialValueText(tr("not set"));
          spin->showValue(spin->minimum());
        }
        continue;
      }
      if (auto* box = qobject_cast<QCheckBox*>(w)) {
        box->setTristate(false);
        box->setChecked(attr_bool(p, a.name));
      } else if (auto* combo = qobject_cast<QComboBox*>(w)) {
        combo->setCurrentText(QString::fromStdString(attr_string(p, a.name)));
      } else if (auto* spin = qobject_cast<NumberSpinBox*>(w)) {
        // Only when it changes: setting it rewrites the field, even under the cursor.
        if (!spin->specialValueText().isEmpty()) spin->setSpecialValueText(QString());
        spin->showValue(attr_float(p, a.name));
        if (eps_slider_ && a.name.find("epsilon") != std::string_view::npos)
          eps_slider_->setValue(slider_pos(attr_float(p, a.name)));
      }
    }
  }
  syncing_ = false;
}

}  // namespace bnscope
