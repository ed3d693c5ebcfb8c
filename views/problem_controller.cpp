#include "problem_controller.h"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <memory>
#include <span>
#include <thread>
#include <utility>

#include "background_priority.h"
#include "engine/engine.h"
#include "engine/output_pool.h"
#include "io/file_stamp.h"
#include "io/npy.h"
#include "io/npz.h"
#include "op_switch.h"
#include "ops/problem_io.h"
#include "ops/reserve_check.h"
#include "option_words.h"
#include "process_events.h"
#include "sample_source.h"
#include "tensor/error.h"
#include "tensor/non_finite.h"

namespace bnscope {

ProblemController::ProblemController(QObject* parent)
    : QObject(parent), job_(this, [this](std::shared_ptr<const RunOutcome> out, bool more) {
        finished(std::move(out), more);
      }) {
  markSaved();  // nothing to lose yet
  spare_timer_ = new QTimer(this);
  spare_timer_->setSingleShot(true);
  spare_timer_->setInterval(kSpareHoldMs);
  connect(spare_timer_, &QTimer::timeout, this, [] { output_pool().clear(); });
}

ProblemController::~ProblemController() = default;

void ProblemController::setProblem(Problem p, bool modified, const QString& path) {
  settle();
  releaseOutcome(p.inputs);
  problem_ = std::move(p);
  saved_.reset();
  if (!modified) markSaved();
  path_ = path;
  stamp_.clear();
  emit problemOpened();
  changed();
}

bool ProblemController::isModified() const {
  return !saved_ || !saved_->matches(problem_);
}

void ProblemController::markSaved() {
  saved_.emplace(problem_);
}

void ProblemController::edited() {
  changed();
}

void ProblemController::changed() {
  ++revision_;
  emit problemChanged();
  rerun();
}

void ProblemController::setOp(const std::string& op) {
  settle();
  if (!find_op(op) || op == problem_.op) return;
  OpSwitch s;
  try {
    s = switch_op(problem_, op, 1);
  } catch (const Error& e) {
    emit editFailed(app_error_text(e));
    return;
  }
  problem_ = std::move(s.problem);
  QStringList parts;
  const auto join = [](const std::vector<std::string>& v) {
    QStringList l;
    for (const std::string& e : v) l << QString::fromStdString(e);
    return l.join(QStringLiteral(", "));
  };
  if (!s.carried.empty()) parts << tr("carried over %1").arg(join(s.carried));
  if (!s.generated.empty()) parts << tr("generated %1").arg(join(s.generated));
  if (!s.defaulted.empty()) parts << tr("set %1").arg(join(s.defaulted));
  switch_note_ = parts.isEmpty()
                     ? QString()
                     : tr("Switched to %1: %2.")
                           .arg(QString::fromStdString(op), parts.join(QStringLiteral("; ")));
  edited();
  if (!switch_note_.isEmpty()) emit notice(switch_note_);
}

void ProblemController::editProblem(Problem p) {
  settle();
  problem_ = std::move(p);
  edited();
}

void ProblemController::setAttr(const std::string& name, AttrValue value) {
  settle();
  auto it = problem_.attrs.find(name);
  if (it != problem_.attrs.end() && it->second == value) return;
  problem_.attrs[name] = std::move(value);
  edited();
}

void ProblemController::setDtype(std::optional<DType> t) {
  settle();
  if (problem_.dtype == t) return;
  problem_.dtype = t;
  edited();
}

void ProblemController::setConvention(ReserveConvention c) {
  settle();
  if (problem_.convention == c) return;
  problem_.convention = c;
  edited();
}

void ProblemController::setBackend(const std::string& name) {
  settle();
  if (backend_ == name) return;
  backend_ = name;
  changed();
}

void ProblemController::setComparison(std::optional<PipelineRequest> comparison, bool rerunNow) {
  settle();
  comparison_ = std::move(comparison);
  if (rerunNow) rerun();
}

void ProblemController::setInput(const std::string& name, Tensor t) {
  settle();
  problem_.inputs[name] = std::move(t);
  edited();
}

void ProblemController::generateInputs(std::uint64_t seed) {
  settle();
  try {
    Problem fresh = generate_problem(spec_like(problem_, seed));
    fresh.attrs = problem_.attrs;  // keep the user's epsilon and friends
    fresh.strict = problem_.strict;
    problem_ = std::move(fresh);
  } catch (const Error& e) {
    emit editFailed(app_error_text(e));
    return;
  }
  edited();
}

void ProblemController::fillReserveFromForward() {
  settle();
  Problem p = problem_;
  try {
    fill_reserve_from_forward(p);
  } catch (const Error& e) {
    emit editFailed(app_error_text(e));
    return;
  }
  problem_ = std::move(p);
  edited();
}

bool ProblemController::openFile(const QString& path, const QString& inputName, QString* error) {
  settle();
  const std::string file = path.toStdString();
  const QString suffix = QFileInfo(path).suffix().toLower();
  try {
    if (path.isEmpty()) fail("no file name given: expected a .npy or .npz file");
    if (suffix == QLatin1String("npz")) {
      if (npz_has_member(file, kProblemMember)) {
        // Opened again unchanged (Open Recent of the open file): the inputs still held are not
        // read a second time beside themselves.
        std::map<std::string, Tensor> known = unchangedFromFile(path);
        if (QFileInfo(path).size() > kLoadInPlaceBytes) {
          loadInBackground(path, std::move(known));
          return true;
        }
        const std::string stamp = file_stamp(file);
        setProblem(load_problem(file, known), false, path);
        stamp_ = stamp;
        return true;
      }
      Problem p = problem_;
      if (add_npz_inputs(p, file).empty())
        fail(file + " has no member named like an input of " + p.op);
      problem_ = std::move(p);
    } else if (suffix == QLatin1String("npy")) {
      const std::string name =
          (inputName.isEmpty() ? QFileInfo(path).completeBaseName() : inputName).toStdString();
      const OpSpec* op = find_op(problem_.op);
      if (!op || op->input_index(name) < 0)
        fail("cannot tell which input " + file + " is: " + problem_.op + " has no input '" + name +
             "'");
      Tensor t = read_npy(file);
      problem_.inputs[name] = std::move(t);
    } else {
      fail(file + " is not a .npy or .npz file");
    }
  } catch (const std::exception& e) {
    if (error) *error = app_error_text(e);
    return false;
  }
  emit problemOpened();
  edited();
  return true;
}

std::map<std::string, Tensor> ProblemController::unchangedFromFile(const QString& path) const {
  if (path != path_ || !saved_ || stamp_.empty() || file_stamp(path.toStdString()) != stamp_)
    return {};
  return saved_->same_buffers(problem_);
}

void ProblemController::loadInBackground(const QString& path, std::map<std::string, Tensor> known) {
  // Reading a real layer's inputs takes longer than a frame; the problem is replaced whole when
  // the read is done, or not at all.
  struct Loaded {
    std::optional<Problem> problem;
    std::string stamp;  // taken before the read: a file changed during it is not vouched for
    QString error;
  };
  loading_ = true;
  const std::uint64_t ticket = ++load_;
  releaseOutcome(known);
  job_.cancel();  // a run of the problem being replaced; its outcome is not taken (finished())
  emit runStarted();
  auto* watcher = new QFutureWatcher<Loaded>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, ticket, path] {
    watcher->deleteLater();
    if (ticket != load_) return;  // cancelled or replaced
    loading_ = false;
    Loaded l = watcher->result();
    if (l.problem) {
      setProblem(std::move(*l.problem), false, path);
      stamp_ = l.stamp;
    } else {
      emit editFailed(l.error);
      rerun();  // the problem stays as it was; its outcome was let go for the read
    }
  });
  watcher->setFuture(QtConcurrent::run([file = path.toStdString(), known = std::move(known)] {
    yield_to_ui_thread();
    Loaded l;
    try {
      l.stamp = file_stamp(file);
      l.problem = load_problem(file, known);
    } catch (const std::exception& e) {
      l.error = app_error_text(e);
    }
    return l;
  }));
}

bool ProblemController::saveProblem(const QString& path, QString* error) {
  settle();
  try {
    save_problem(path.toStdString(), problem_);
  } catch (const std::exception& e) {
    if (error) *error = app_error_text(e);
    return false;
  }
  markSaved();
  path_ = path;
  stamp_ = file_stamp(path.toStdString());
  return true;
}

bool ProblemController::saveOutputs(const QString& path, const QString& output, QString* error) {
  try {
    if (!outcome_ || !outcome_->ok()) fail("there are no outputs: the last run failed");
    const Result& r = *outcome_->result;
    if (QFileInfo(path).suffix().toLower() == QLatin1String("npy")) {
      write_npy(path.toStdString(), r.output(output.toStdString()).tensor);
    } else {
      std::vector<std::pair<std::string, Tensor>> members;
      for (const OutputTensor& o : r.outputs)
        if (o.defined) members.emplace_back(o.name, o.tensor);
      write_npz(path.toStdString(), members);
    }
  } catch (const std::exception& e) {
    if (error) *error = app_error_text(e);
    return false;
  }
  return true;
}

void ProblemController::rerun() {
  settle();
  // The newest request wins: a run in flight is stopped and its outcome dropped.
  job_.request([this]() -> decltype(job_)::Work {
    RunContext ctx;
    QPointer<ProblemController> self(this);
    ctx.progress = [self](double f) {
      QMetaObject::invokeMethod(
          self.data(),
          [self, f] {
            if (self) emit self->progressChanged(f);
          },
          Qt::QueuedConnection);
    };
    emit runStarted();
    std::shared_ptr<const RunOutcome> previous = scan_hint_ ? scan_hint_ : outcome_;
    scan_hint_.reset();
    spare_timer_->stop();
    // The problem is handed over by value: its tensors share their storage with problem_.
    return [problem = problem_, backend = backend_, revision = revision_, ctx,
            comparison = comparison_,
            previous = std::move(previous)](const std::atomic<bool>& cancel) mutable {
      ctx.cancel = &cancel;
      return compute_outcome(problem, backend, ctx, revision, comparison ? &*comparison : nullptr,
                             previous.get(), app_option_words());
    };
  });
}

void ProblemController::finished(std::shared_ptr<const RunOutcome> out, bool more) {
  if (more) return;
  // What the run did not take is freed with it, as the runs' own buffers would be.
  output_pool().clear();
  // A run of the problem a file being read replaces: not held beside the new problem (after a
  // failed read, the problem runs again).
  if (loading_) return;
  if (out->cancelled && outcome_ && outcome_->ok()) {
    // Esc keeps what was shown: the last good results, marked as not of the current problem.
    auto kept = std::make_shared<RunOutcome>(*outcome_);  // tensors and runs shared, not copied
    kept->stale = outcome_->revision != out->revision || outcome_->backend != out->backend;
    if (!kept->stale) {
      // Compare, or a new reference, ran the problem again: its comparison, made for an
      // earlier request, must not pass for the answer to this one.
      kept->comparison_cancelled = true;
      kept->diff.reset();
      kept->comparison = out->comparison;
    }
    out = std::move(kept);
  }
  std::shared_ptr<const RunOutcome> replaced = std::exchange(outcome_, std::move(out));
  emit outcomeChanged();
  // The views have moved on to the new outcome: the replaced one's output buffers are free for
  // the next run, unless something still reads them (a view holding an older comparison).
  const auto alone = [](const std::shared_ptr<const RunOutcome>& o) {
    if (o.use_count() != 1 || !o->pipeline) return false;
    const bool in_diff = o->diff && o->diff->result == o->pipeline;
    return o->pipeline.use_count() == (in_diff ? 2 : 1) && (!in_diff || o->diff.use_count() == 1);
  };
  if (replaced && alone(replaced) && !outcome_->stale) {
    std::vector<Result> runs = replaced->pipeline->runs;
    replaced.reset();
    output_pool().replace(std::move(runs));
    // Sets the next run of this problem could not write into (the replaced outcome was of
    // another dtype or shape: a float32 layer's outputs after a switch to float16) are freed
    // now, not held beside the problem until the timer.
    if (outcome_->prepared) output_pool().keep_fitting(*outcome_->prepared);
    if (!output_pool().empty()) spare_timer_->start();
  }
}

void ProblemController::releaseOutcome(const std::map<std::string, Tensor>& kept) {
  const std::shared_ptr<const RunOutcome> from = scan_hint_ ? scan_hint_ : outcome_;
  if (!from) return;
  std::vector<Tensor> buffers;
  for (const auto& [name, t] : kept) buffers.push_back(t);
  scan_hint_ = readings_of(*from, buffers);
  outcome_.reset();
  spare_timer_->stop();
  output_pool().clear();
  emit outcomeReleased();
}

std::vector<Result> ProblemController::takeSpareResults() {
  settle();  // a layout change in place may be using them as scratch
  spare_timer_->stop();
  return output_pool().take_all();
}

std::vector<Result> ProblemController::spareResults() const {
  return output_pool().held();
}

std::optional<ProblemController::Loan> ProblemController::lendComparisonOutputs() {
  settle();
  const std::shared_ptr<const RunOutcome>& o = outcome_;
  if (loan_ || comparison_readers_ > 0 || !o || !o->ok() || o->stale || o->revision != revision_ ||
      !o->diff || !o->diff->ok() || o->diff->result != o->pipeline)
    return std::nullopt;
  // Every handle on these buffers must be one named here: the pipeline is held by the outcome
  // and its comparison only; a re-compared copy the Diff tab shows holds them too.
  if (o->pipeline.use_count() != 2) return std::nullopt;
  std::vector<std::shared_ptr<const PipelineResult>> holders{o->pipeline};
  if (const auto shown = shown_comparison_.lock();
      shown && shown->ok() && shown->result != o->pipeline) {
    if (shown->revision != revision_ || shown->result.use_count() != 1) return std::nullopt;
    holders.push_back(shown->result);
  }
  const Result* ref = nullptr;
  Lent lent;
  for (const auto& h : holders) {
    const Result* r = h->reference_is_backend ? h->run(h->reference) : nullptr;
    if (!r || r->outputs.empty() || (ref && r->outputs.size() != ref->outputs.size()))
      return std::nullopt;
    if (!ref) ref = r;
    lent.held.push_back({h, {}});
  }
  if (ref == o->result) return std::nullopt;
  for (std::size_t i = 0; i < ref->outputs.size(); ++i) {
    const Tensor& t = ref->outputs[i].tensor;
    if (t.storage_holders() == 0) continue;
    long named = 0;
    for (Lent::Held& held : lent.held) {
      const PipelineResult& h = *held.pipeline;
      if (!h.run(h.reference)->outputs[i].tensor.shares_storage_with(t)) return std::nullopt;
      ++named;
      for (std::size_t e = 0; e < h.expected.size(); ++e)
        if (h.expected[e].tensor.shares_storage_with(t)) {
          held.expected.emplace_back(e, i);
          ++named;
        }
    }
    if (t.storage_holders() != named) return std::nullopt;
  }
  // The buffers leave the comparison, so the borrower holds them alone and writes in place.
  Loan loan;
  loan.backend = o->pipeline->reference;
  loan.outputs = *ref;
  for (const Lent::Held& held : lent.held) {
    auto& pipeline = const_cast<PipelineResult&>(*held.pipeline);
    for (OutputTensor& out : const_cast<Result*>(pipeline.run(pipeline.reference))->outputs)
      out.tensor = Tensor();
    for (const auto& [e, i] : held.expected) pipeline.expected[e].tensor = Tensor();
  }
  loan_ = std::move(lent);
  return loan;
}

void ProblemController::returnComparisonOutputs(Result outputs) {
  if (!loan_) return;
  for (const Lent::Held& held : loan_->held) {
    auto& pipeline = const_cast<PipelineResult&>(*held.pipeline);
    Result& run = *const_cast<Result*>(pipeline.run(pipeline.reference));
    for (std::size_t i = 0; i < run.outputs.size() && i < outputs.outputs.size(); ++i)
      run.outputs[i].tensor = outputs.outputs[i].tensor;
    for (const auto& [e, i] : held.expected)
      if (i < outputs.outputs.size()) pipeline.expected[e].tensor = outputs.outputs[i].tensor;
  }
  loan_.reset();
  emit comparisonOutputsReturned();
}

void ProblemController::cancel() {
  bool reload = false;
  if (loading_) {  // the read finishes on its own and is dropped; the problem stays
    ++load_;
    loading_ = false;
    reload = true;
  }
  if (in_place_) {
    // The elements already moved go back; until then the run counts as in flight.
    in_place_->cancel->store(true);
  } else if (converting_) {
    // The transposition finishes on its own; its result is dropped and nothing was changed.
    ++conversion_;
    converting_ = false;
    emit outcomeChanged();
  }
  job_.cancel();
  // The outcome shown before the read was let go for it: the problem, unchanged, runs again.
  if (reload) rerun();
}

bool ProblemController::waitForIdle(int timeoutMs) {
  return process_events_while([this] { return isRunning(); }, timeoutMs);
}

}  // namespace bnscope
