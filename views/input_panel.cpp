#include "input_panel.h"

#include <QDragEnterEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMimeData>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>

#include "input_table_model.h"
#include "option_words.h"
#include "outcome_problems.h"
#include "problem_controller.h"

namespace bnscope {

InputPanel::InputPanel(ProblemController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  setAcceptDrops(true);
  model_ = new InputTableModel(this);
  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("inputTable"));
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  validation_ = new QLabel(this);
  validation_->setObjectName(QStringLiteral("validationLabel"));
  validation_->setWordWrap(true);
  validation_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* load = new QPushButton(tr("Load into selected input..."), this);
  seed_ = new QSpinBox(this);
  seed_->setRange(0, 1'000'000);
  seed_->setValue(1);
  seed_->setPrefix(tr("seed "));
  auto* generate = new QPushButton(tr("Generate random inputs"), this);
  generate->setObjectName(QStringLiteral("generateButton"));
  auto* forward = new QPushButton(tr("Reserve spaces from forward op"), this);
  forward->setToolTip(tr("Run the forward op on x and scale to make consistent reserve spaces"));

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(load);
  buttons->addStretch();
  buttons->addWidget(seed_);
  buttons->addWidget(generate);
  buttons->addWidget(forward);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(table_);
  layout->addWidget(validation_);
  layout->addLayout(buttons);
  auto* hint = new QLabel(tr("Drop .npy/.npz files here; a .npy goes to the selected input, or to "
                             "the input named like the file."),
                          this);
  hint->setEnabled(false);
  layout->addWidget(hint);

  connect(load, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load tensor"), QString(),
                                                      tr("Tensors (*.npy *.npz)"));
    if (!path.isEmpty()) loadInto(path, selectedInput());
  });
  connect(generate, &QPushButton::clicked, this,
          [this] { controller_->generateInputs(static_cast<std::uint64_t>(seed_->value())); });
  connect(forward, &QPushButton::clicked, controller_, &ProblemController::fillReserveFromForward);
  connect(controller_, &ProblemController::problemChanged, this, &InputPanel::refresh);
  connect(controller_, &ProblemController::outcomeChanged, this, &InputPanel::refresh);
  refresh();
}

QString InputPanel::selectedInput() const {
  const QModelIndex i = table_->currentIndex();
  return i.isValid() ? model_->inputName(i.row()) : QString();
}

void InputPanel::selectInput(const QString& name) {
  const int row = model_->rowOf(name);
  if (row >= 0) table_->selectRow(row);
}

void InputPanel::refresh() {
  const QString keep = selectedInput();
  // Validation is judged on the problem as it is now; a stale outcome's error would mislead.
  const auto out = controller_->outcome();
  // Every problem at once, each in its row: fixing one does not hide the next until a re-run.
  std::vector<ValidationProblem> problems;
  const bool current = out && !controller_->isRunning();
  if (current && !out->prepared) problems = outcome_problems(*out);
  std::vector<Note> notes;
  if (current && out->revision == controller_->revision())
    notes = out->pipeline ? out->pipeline->notes : out->prepared ? out->prepared->notes : notes;
  model_->setProblem(controller_->problem(), problems, notes, out ? &out->stats.inputs : nullptr);
  // What TensorFlow would reject is said here too: the problem runs, but is not "ok".
  QStringList rejected, errors;
  for (const Note& n : notes)
    if (n.kind == NoteKind::TfWouldReject)
      rejected << QString::fromStdString(note_text(n)).toHtmlEscaped();
  for (const ValidationProblem& q : problems) errors << app_error_text(q).toHtmlEscaped();
  const QString listed = errors.size() > 1 ? tr("%1 problems:").arg(errors.size()) +
                                                 QStringLiteral("<br>&bull; ") +
                                                 errors.join(QStringLiteral("<br>&bull; "))
                                           : errors.join(QString());
  validation_->setText(
      !errors.isEmpty() ? QStringLiteral("<span style='color:#dc322f'>%1</span>").arg(listed)
      : rejected.isEmpty()
          ? QString()
          : QStringLiteral("<span style='color:#cb4b16'>%1</span>")
                .arg(tr("Runs here, but: %1").arg(rejected.join(QStringLiteral("<br>")))));
  if (!keep.isEmpty()) selectInput(keep);
}

void InputPanel::loadInto(const QString& path, const QString& input) {
  QString error;
  if (!controller_->openFile(
          path, path.endsWith(QLatin1String(".npy"), Qt::CaseInsensitive) ? input : QString(),
          &error))
    emit loadFailed(error);
}

void InputPanel::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void InputPanel::dropEvent(QDropEvent* e) {
  for (const QUrl& url : e->mimeData()->urls()) {
    // A dropped .npy goes to the row under the cursor when there is one.
    const QModelIndex at =
        table_->indexAt(table_->viewport()->mapFrom(this, e->position().toPoint()));
    const QString stem = QFileInfo(url.toLocalFile()).completeBaseName();
    const QString target = at.isValid() ? model_->inputName(at.row())
                                        : (model_->rowOf(stem) >= 0 ? stem : selectedInput());
    loadInto(url.toLocalFile(), target);
  }
  e->acceptProposedAction();
}

}  // namespace bnscope
