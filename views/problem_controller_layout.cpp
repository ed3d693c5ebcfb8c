// ProblemController's layout change (data_format with the data converted): in place, one batch
// element at a time, when the controller holds every copy of the inputs; else a copying
// conversion off the UI thread.

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <utility>

#include "background_priority.h"
#include "engine/output_pool.h"
#include "option_words.h"
#include "problem_controller.h"
#include "tensor/parallel.h"

namespace bnscope {

void ProblemController::setDataFormat(DataFormat f, bool convertData) {
  settle();
  const OpSpec* spec = find_op(problem_.op);
  if (!spec || !spec->has_attr("data_format")) return;
  const bool was_last = is_channels_last(
      parse_data_format(attr_string(problem_, "data_format")).value_or(DataFormat::NHWC));
  if (!convertData || was_last == is_channels_last(f)) {
    problem_.attrs["data_format"] = std::string(data_format_name(f));
    edited();
    return;
  }
  Converted c;
  c.format = f;
  std::size_t bytes = 0;
  const auto x = problem_.inputs.find("x");
  const Shape x_shape = x != problem_.inputs.end() ? x->second.shape() : Shape{};
  for (const auto& [name, t] : problem_.inputs)
    if (t.rank() >= 2 && t.shape() == x_shape) {
      c.from.emplace_back(name, t);  // shares the storage
      bytes += t.nbytes();
    }
  const bool to_last = is_channels_last(f);
  const auto convert = [to_last](const Tensor& t) {
    return to_last ? to_channels_last(t) : to_channels_first(t);
  };
  ++conversion_;
  if (bytes > kConvertInPlaceBytes && !job_.isBusy() && !loading_ && !converting_ &&
      std::all_of(c.from.begin(), c.from.end(),
                  [this](const auto& named) { return ownsEveryCopy(named.second); })) {
    convertInPlace(f, std::move(c.from));
    return;
  }
  if (bytes <= kConvertInPlaceBytes) {
    for (const auto& [name, t] : c.from) c.to.emplace_back(name, convert(t));
    converted(c);
    return;
  }
  // A real layer's transposition takes longer than a frame: off the UI thread, one tensor after
  // the other on every core, the edit applied when all are done.
  converting_ = true;
  emit runStarted();
  auto* watcher = new QFutureWatcher<Converted>(this);
  const std::uint64_t ticket = conversion_;
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, ticket] {
    watcher->deleteLater();
    if (ticket != conversion_) return;  // cancelled or replaced
    converting_ = false;
    converted(watcher->result());
  });
  watcher->setFuture(QtConcurrent::run([c = std::move(c), convert]() mutable {
    yield_to_ui_thread();
    try {
      for (const auto& [name, t] : c.from) c.to.emplace_back(name, convert(t));
    } catch (const std::exception& e) {
      c.to.clear();
      c.error = app_error_text(e);
    }
    return c;
  }));
}

// Every handle on t's storage is one the controller holds (besides the caller's t): nobody else
// sees its data change when it is rewritten in place.
bool ProblemController::ownsEveryCopy(const Tensor& t) const {
  long known = 1;  // t itself
  const auto count = [&](const Tensor& u) { known += u.shares_storage_with(t) ? 1 : 0; };
  const auto count_problem = [&](const Problem& p) {
    for (const auto& [name, u] : p.inputs) count(u);
  };
  count_problem(problem_);
  for (const auto* o : {outcome_.get(), scan_hint_.get()}) {
    if (!o) continue;
    count_problem(o->problem);
    if (o->prepared) {
      for (const Tensor& u : o->prepared->inputs) count(u);
      for (const Tensor& u : o->prepared->converted_from) count(u);
    }
    for (const InputSummary& in : o->stats.inputs) count(in.tensor);
    if (o->diff) count_problem(o->diff->problem);
  }
  return t.storage_holders() == known;
}

void ProblemController::convertInPlace(DataFormat f,
                                       std::vector<std::pair<std::string, Tensor>> tensors) {
  converting_ = true;
  InPlace ip;
  ip.ticket = conversion_;
  ip.format = f;
  ip.tensors = std::move(tensors);
  ip.cancel = std::make_shared<std::atomic<bool>>(false);
  ip.watcher = new QFutureWatcher<bool>(this);
  const std::uint64_t ticket = ip.ticket;
  connect(ip.watcher, &QFutureWatcherBase::finished, this, [this, ticket] {
    if (!in_place_ || in_place_->ticket != ticket) return;  // applied by settle()
    convertedInPlace(in_place_->watcher->result());
  });
  const bool to_first = !is_channels_last(f);
  std::vector<Tensor> work;
  for (const auto& [name, t] : ip.tensors) work.push_back(t);
  // The scratch is the spare output set's largest buffer when there is one: pages already
  // faulted in that the next run overwrites anyway, so the change costs no memory at all.
  Tensor aside = output_pool().largest_buffer();
  in_place_ = std::move(ip);
  emit runStarted();
  // Every thread takes the next batch element as it finishes one, polling the cancel flag in
  // between, so a cancel lands within a few milliseconds; cancelled (or failed), the elements
  // already moved (always the first ones) are moved back and nothing has changed.
  in_place_->watcher->setFuture(
      QtConcurrent::run([work = std::move(work), to_first, cancel = in_place_->cancel,
                         aside = std::move(aside)]() mutable {
        yield_to_ui_thread();
        std::span<std::byte> scratch(
            const_cast<std::byte*>(static_cast<const std::byte*>(std::as_const(aside).raw())),
            aside.nbytes());
        const int threads = usable_cpus();
        // Without a spare big enough, one batch element per thread is allocated here, before
        // anything moves: a move that cannot allocate cannot stop halfway.
        std::size_t need = 0;
        for (const Tensor& t : work)
          if (t.dim(0) > 0) need = std::max(need, t.nbytes() / static_cast<std::size_t>(t.dim(0)));
        need *= static_cast<std::size_t>(threads);
        std::unique_ptr<std::byte[]> own;
        if (scratch.size() < need) {
          try {
            own.reset(new std::byte[need]);
          } catch (const std::bad_alloc&) {
            aside = Tensor();
            work.clear();
            return false;
          }
          scratch = std::span<std::byte>(own.get(), need);
        }
        std::vector<std::int64_t> done(work.size(), 0);
        bool completed = true;
        try {
          for (std::size_t i = 0; i < work.size() && completed; ++i) {
            done[i] = move_channel_axis_in_place_until(work[i], to_first, 0, work[i].dim(0),
                                                       cancel.get(), threads, scratch);
            completed = done[i] == work[i].dim(0);
          }
        } catch (const std::exception&) {
          completed = false;
        }
        if (!completed)
          for (std::size_t i = 0; i < work.size(); ++i)
            if (done[i] > 0)
              move_channel_axis_in_place(
                  work[i].reshaped(channel_axis_moved(work[i].shape(), to_first)), !to_first, 0,
                  done[i], threads, scratch);
        // Nothing of this task may keep a handle once it is done: the spare is the next run's
        // again (sole owner), and the inputs may be rewritten in place again.
        aside = Tensor();
        work.clear();
        return completed;
      }));
}

void ProblemController::settle() {
  if (!in_place_) return;
  in_place_->watcher->waitForFinished();
  convertedInPlace(in_place_->watcher->result());
}

void ProblemController::convertedInPlace(bool completed) {
  InPlace ip = std::move(*in_place_);
  in_place_.reset();
  ip.watcher->deleteLater();
  converting_ = false;
  if (completed && ip.cancel->load()) {
    // Cancelled after the last element moved but before it landed: moved back here.
    const bool to_first = !is_channels_last(ip.format);
    for (const auto& [name, t] : ip.tensors)
      move_channel_axis_in_place(t.reshaped(channel_axis_moved(t.shape(), to_first)), !to_first, 0,
                                 t.dim(0));
    completed = false;
  }
  if (!completed) {  // cancelled: every element is back where it was
    emit outcomeChanged();
    return;
  }
  const bool last = is_channels_last(ip.format);
  Converted c;
  c.format = ip.format;
  for (const auto& [name, t] : ip.tensors)
    c.to.emplace_back(name, t.reshaped(channel_axis_moved(t.shape(), !last)));
  if (outcome_) {
    // The shown outcome's inputs now hold the new layout: what the views read of them (and the
    // next run reuses) goes through the converted shapes; its figures stay those of the data,
    // so the views only swap it in (same revision, same pipeline) when the problem changes.
    auto moved = std::make_shared<RunOutcome>(*outcome_);  // tensors shared, not copied
    for (InputSummary& in : moved->stats.inputs)
      for (const auto& [name, t] : c.to)
        if (in.tensor.shares_storage_with(t)) {
          in.tensor = t;
          if (!in.scan.finite.empty()) in.scan.view = channel_view(t.shape(), last);
        }
    outcome_ = std::move(moved);
  }
  scan_hint_.reset();
  for (const auto& [name, t] : c.to) problem_.inputs[name] = t;
  problem_.attrs["data_format"] = std::string(data_format_name(c.format));
  edited();
}

void ProblemController::converted(const Converted& c) {
  if (!c.error.isEmpty()) {
    emit editFailed(c.error);
    emit outcomeChanged();  // nothing changed: the views show what they showed
    return;
  }
  for (const auto& [name, t] : c.from) {
    const auto it = problem_.inputs.find(name);
    if (it == problem_.inputs.end() || !it->second.shares_storage_with(t)) {
      emit editFailed(tr("%1 changed while it was converted to %2; set data_format again.")
                          .arg(QString::fromStdString(name),
                               QString::fromLatin1(data_format_name(c.format).data())));
      emit outcomeChanged();
      return;
    }
  }
  for (const auto& [name, t] : c.to) problem_.inputs[name] = t;
  problem_.attrs["data_format"] = std::string(data_format_name(c.format));
  if (outcome_) {
    auto hint = std::make_shared<RunOutcome>(*outcome_);  // tensors shared, not copied
    const bool last = is_channels_last(c.format);
    for (std::size_t i = 0; i < c.from.size() && i < c.to.size(); ++i)
      for (const InputSummary& in : outcome_->stats.inputs) {
        if (!in.tensor.shares_storage_with(c.from[i].second) || in.scan.finite.empty()) continue;
        InputSummary moved = in;
        moved.tensor = c.to[i].second;
        moved.scan.view = channel_view(moved.tensor.shape(), last);
        hint->stats.inputs.push_back(std::move(moved));
      }
    scan_hint_ = std::move(hint);
  }
  edited();
}

}  // namespace bnscope
