#include "conformance/conformance_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "backend_picker.h"
#include "background_job.h"
#include "conformance/conformance_table_model.h"
#include "option_words.h"
#include "tensor/error.h"

namespace bnscope {

ConformancePanel::ConformancePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Backend:"), this));
  picker_ = new BackendPicker(BackendPicker::Mode::One, this);
  picker_->setObjectName(QStringLiteral("conformanceBackend"));
  // cpu-reference is what every case is compared with: cpu is the first backend worth checking.
  picker_->setCurrent(QStringLiteral("cpu"));
  bar->addWidget(picker_, 1);
  run_ = new QPushButton(tr("Run conformance"), this);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  bar->addWidget(run_);
  bar->addWidget(cancel_);
  layout->addLayout(bar);
  summary_ = new QLabel(
      tr("Every variant the backend takes, on C=1, M=1, odd, 5-D, empty, NaN/Inf and small-epsilon "
         "shapes, against cpu-reference. Load your kernel with File > Load kernel plugin."),
      this);
  summary_->setWordWrap(true);
  layout->addWidget(summary_);
  model_ = new ConformanceTableModel(this);
  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("conformanceTable"));
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  // The verdict and the likely cause stay in view: long case labels are elided in the middle
  // (their tooltip has them whole) and the cause takes the room that is left.
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->setWordWrap(false);
  QHeaderView* header = table_->horizontalHeader();
  header->setSectionResizeMode(QHeaderView::Interactive);
  header->setSectionResizeMode(ConformanceTableModel::Verdict, QHeaderView::ResizeToContents);
  header->setSectionResizeMode(ConformanceTableModel::Case, QHeaderView::Stretch);
  header->setSectionResizeMode(ConformanceTableModel::Cause, QHeaderView::Stretch);
  header->setMinimumSectionSize(60);
  table_->verticalHeader()->hide();
  layout->addWidget(table_, 1);

  job_ = std::make_unique<BackgroundJob<ConformanceOutcome>>(
      this, [this](ConformanceOutcome o, bool more) {
        if (!more) finished(std::move(o));
      });
  connect(run_, &QPushButton::clicked, this, [this] { run(); });
  connect(cancel_, &QPushButton::clicked, this, &ConformancePanel::cancel);
  connect(table_, &QTableView::doubleClicked, this,
          [this](const QModelIndex& i) { activateRow(i.row()); });
}

ConformancePanel::~ConformancePanel() = default;

void ConformancePanel::run(const QString& backend) {
  if (!backend.isEmpty()) picker_->setCurrent(backend);
  ConformanceRequest request;
  request.backend = picker_->current().toStdString();
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  summary_->setText(tr("Running the conformance of %1...").arg(picker_->current()));
  job_->request([request] {
    return [request](const std::atomic<bool>& cancelled) {
      ConformanceOutcome o;
      try {
        RunContext ctx;
        ctx.cancel = &cancelled;
        o.result = std::make_shared<const ConformanceResult>(run_conformance(request, {}, ctx));
      } catch (const std::exception& e) {
        o.error = app_error_text(e);
      }
      return o;
    };
  });
}

void ConformancePanel::cancel() {
  job_->cancel();
}

bool ConformancePanel::waitForIdle(int timeoutMs) {
  return job_->waitForIdle(timeoutMs);
}

void ConformancePanel::finished(ConformanceOutcome o) {
  run_->setEnabled(true);
  cancel_->setEnabled(false);
  if (!o.result) {
    summary_->setText(tr("Conformance not run: %1").arg(o.error));
    return;
  }
  const ConformanceResult& r = *o.result;
  summary_->setText(tr("%1 %2 against %3: %4 passed, %5 failed, %6 errors, %7 unsupported. "
                       "Double-click a case to open it in the Diff tab.")
                        .arg(r.passed() ? tr("PASS") : tr("FAIL"),
                             QString::fromStdString(r.backend), QString::fromStdString(r.reference))
                        .arg(r.count(ConformanceVerdict::Pass))
                        .arg(r.count(ConformanceVerdict::Fail))
                        .arg(r.count(ConformanceVerdict::Error))
                        .arg(r.count(ConformanceVerdict::Unsupported)));
  model_->setResult(o.result);
  table_->resizeColumnsToContents();
}

void ConformancePanel::activateRow(int row) {
  const ConformanceRow* r = model_->rowAt(row);
  if (!r || !model_->result()) return;
  try {
    emit caseActivated(r->c.build(), QString::fromStdString(model_->result()->backend));
  } catch (const Error& e) {
    summary_->setText(tr("Cannot open the case: %1").arg(app_error_text(e)));
  }
}

}  // namespace bnscope
