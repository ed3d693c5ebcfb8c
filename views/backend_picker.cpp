#include "backend_picker.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QStandardItemModel>

#include "backends/backend.h"
#include "qt_text.h"

namespace bnscope {

namespace {

// What the backend is, and what it runs on this machine where it says.
QString tooltip(const Backend& b) {
  const std::string path = b.code_path();
  return path.empty() ? qs(b.description()) : qs(b.description()) + "\n" + qs(path);
}

}  // namespace

BackendPicker::BackendPicker(Mode mode, QWidget* parent) : QWidget(parent) {
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  if (mode == Mode::One) {
    combo_ = new QComboBox(this);
    // Long names must not widen a dock; the full name is in the popup.
    combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo_->setMinimumContentsLength(10);
    auto* model = new QStandardItemModel(combo_);
    for (Backend* b : BackendRegistry::instance().all()) {
      auto* item = new QStandardItem(qs(b->name()));
      const std::string why = b->unavailable_reason();
      item->setToolTip(why.empty() ? tooltip(*b) : QString::fromStdString(why));
      item->setData(qs(b->name()), Qt::UserRole);
      if (!why.empty()) item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
      model->appendRow(item);
    }
    combo_->setModel(model);
    row->addWidget(combo_, 1);
    connect(combo_, &QComboBox::currentIndexChanged, this, &BackendPicker::changed);
    return;
  }
  for (Backend* b : BackendRegistry::instance().all()) {
    auto* c = new QCheckBox(qs(b->name()), this);
    const std::string why = b->unavailable_reason();
    c->setEnabled(why.empty());
    c->setToolTip(why.empty() ? tooltip(*b) : QString::fromStdString(why));
    row->addWidget(c);
    checks_ << c;
    connect(c, &QCheckBox::toggled, this, &BackendPicker::changed);
  }
}

void BackendPicker::addExtra(const QString& text, const QString& key) {
  if (combo_) combo_->addItem(text, key);
}

QString BackendPicker::current() const {
  return combo_ ? combo_->currentData(Qt::UserRole).toString() : QString();
}

void BackendPicker::setCurrent(const QString& nameOrKey) {
  if (!combo_) return;
  const int i = combo_->findData(nameOrKey, Qt::UserRole);
  if (i >= 0) combo_->setCurrentIndex(i);
}

QStringList BackendPicker::selected() const {
  if (combo_) return {current()};
  QStringList out;
  for (QCheckBox* c : checks_)
    if (c->isChecked() && c->isEnabled()) out << c->text();
  return out;
}

void BackendPicker::setSelected(const QStringList& names) {
  if (combo_) {
    if (!names.isEmpty()) setCurrent(names.front());
    return;
  }
  for (QCheckBox* c : checks_) c->setChecked(names.contains(c->text()));
}

namespace {

// The names of the backends that can run here, those that measure speed only if asked.
QStringList runnable(bool timed_only) {
  QStringList out;
  for (Backend* b : BackendRegistry::instance().all())
    if (b->unavailable_reason().empty() && (!timed_only || b->measures_speed()))
      out << qs(b->name());
  return out;
}

}  // namespace

QStringList BackendPicker::available() {
  return runnable(false);
}

QStringList BackendPicker::timed() {
  return runnable(true);
}

}  // namespace bnscope
