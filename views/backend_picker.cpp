#include "backend_picker.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QStandardItemModel>
#include <algorithm>
#include <vector>

#include "backends/backend.h"
#include "flow_layout.h"
#include "qt_text.h"

namespace bnscope {

namespace {
std::vector<BackendPicker*>& live_pickers() {
  static std::vector<BackendPicker*> pickers;
  return pickers;
}

// What the backend is, and what it runs on this machine where it says.
QString tooltip(const Backend& b) {
  const std::string path = b.code_path();
  return path.empty() ? qs(b.description()) : qs(b.description()) + "\n" + qs(path);
}

}  // namespace

BackendPicker::BackendPicker(Mode mode, QWidget* parent) : QWidget(parent) {
  if (mode == Mode::Several) {
    // A box per backend, wrapped onto rows: side by side they would set the minimum width of
    // whatever holds them past a laptop's screen once the framework backends are registered.
    new FlowLayout(this);
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
  } else {
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    combo_ = new QComboBox(this);
    // Long names must not widen a dock; the full name is in the popup.
    combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo_->setMinimumContentsLength(10);
    combo_->setModel(new QStandardItemModel(combo_));
    row->addWidget(combo_, 1);
    connect(combo_, &QComboBox::currentIndexChanged, this, &BackendPicker::changed);
  }
  addMissing();
  live_pickers().push_back(this);
}

BackendPicker::~BackendPicker() {
  auto& all = live_pickers();
  all.erase(std::remove(all.begin(), all.end(), this), all.end());
}

void BackendPicker::refreshAll() {
  for (BackendPicker* p : live_pickers()) p->addMissing();
}

void BackendPicker::addMissing() {
  QStringList missing;  // mode Several: "name: why" of the backends that cannot run here
  for (Backend* b : BackendRegistry::instance().all()) {
    const QString name = qs(b->name());
    const std::string why = b->unavailable_reason();
    const QString tip = why.empty() ? tooltip(*b) : QString::fromStdString(why);
    if (combo_) {
      auto* model = static_cast<QStandardItemModel*>(combo_->model());
      if (combo_->findData(name, Qt::UserRole) >= 0) continue;
      auto* item = new QStandardItem(name);
      item->setToolTip(tip);
      item->setData(name, Qt::UserRole);
      if (!why.empty()) item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
      // Before any extra (outputs from a file), which is not a backend.
      int at = 0;
      while (at < model->rowCount() && !model->item(at)->data(Qt::UserRole).toString().isEmpty() &&
             BackendRegistry::instance().find(
                 model->item(at)->data(Qt::UserRole).toString().toStdString()))
        ++at;
      model->insertRow(at, item);
      continue;
    }
    if (std::any_of(checks_.begin(), checks_.end(),
                    [&](QCheckBox* c) { return c->text() == name; }))
      continue;
    if (!why.empty()) {
      missing << name + QStringLiteral(": ") + tip;
      continue;
    }
    auto* c = new QCheckBox(name, this);
    c->setToolTip(tip);
    // Before the unavailable label, which stays last.
    if (unavailable_) layout()->removeWidget(unavailable_);
    layout()->addWidget(c);
    if (unavailable_) layout()->addWidget(unavailable_);
    checks_ << c;
    connect(c, &QCheckBox::toggled, this, &BackendPicker::changed);
  }
  if (combo_) return;
  if (!unavailable_) {
    unavailable_ = new QLabel(this);
    unavailable_->setEnabled(false);
    layout()->addWidget(unavailable_);
  }
  unavailable_->setVisible(!missing.isEmpty());
  unavailable_->setText(tr("%n unavailable", nullptr, static_cast<int>(missing.size())));
  unavailable_->setToolTip(tr("Not available here:\n") + missing.join(QLatin1Char('\n')));
}

void BackendPicker::addExtra(const QString& text, const QString& key) {
  if (!combo_) return;
  auto* item = new QStandardItem(text);
  item->setData(key, Qt::UserRole);
  static_cast<QStandardItemModel*>(combo_->model())->appendRow(item);
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
