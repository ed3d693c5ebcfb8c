#include "engine/output_pool.h"

#include <iterator>
#include <optional>
#include <utility>

#include "ops/outputs.h"

namespace bnscope {

void OutputPool::replace(std::vector<Result> runs) {
  std::vector<Result> keep;
  for (Result& r : runs)
    if (!r.outputs.empty() && r.outputs.front().tensor.sole_owner()) keep.push_back(std::move(r));
  runs.clear();  // the dropped sets' handles go before the lock is taken
  std::vector<Result> old;
  {
    std::lock_guard lock(mutex_);
    old = std::exchange(held_, std::move(keep));
  }
}

Result OutputPool::take() {
  std::lock_guard lock(mutex_);
  // A set one of whose buffers is out as scratch (largest_buffer) stays: a run must not write
  // into a buffer something else is using.
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) {
    bool alone = true;
    for (const OutputTensor& o : it->outputs) alone = alone && (o.tensor.storage_holders() <= 1);
    if (!alone) continue;
    Result r = std::move(*it);
    held_.erase(std::next(it).base());
    return r;
  }
  return {};
}

std::vector<Result> OutputPool::take_all() {
  std::lock_guard lock(mutex_);
  return std::exchange(held_, {});
}

void OutputPool::give(Result run) {
  if (run.outputs.empty() || !run.outputs.front().tensor.sole_owner()) return;
  std::lock_guard lock(mutex_);
  held_.push_back(std::move(run));
}

void OutputPool::keep_fitting(const Prepared& p) {
  if (p.op->outputs.empty()) return;
  std::vector<Result> dropped;  // freed outside the lock
  {
    std::lock_guard lock(mutex_);
    for (auto it = held_.begin(); it != held_.end();) {
      if (fits_outputs(*it, p)) {
        ++it;
      } else {
        dropped.push_back(std::move(*it));
        it = held_.erase(it);
      }
    }
  }
}

void OutputPool::clear() {
  std::vector<Result> old = take_all();  // freed outside the lock
}

bool OutputPool::empty() const {
  std::lock_guard lock(mutex_);
  return held_.empty();
}

std::vector<Result> OutputPool::held() const {
  std::lock_guard lock(mutex_);
  return held_;
}

Tensor OutputPool::largest_buffer() const {
  std::lock_guard lock(mutex_);
  Tensor largest;
  for (const Result& r : held_)
    for (const OutputTensor& o : r.outputs)
      if (o.tensor.sole_owner() && o.tensor.nbytes() > largest.nbytes()) largest = o.tensor;
  return largest;
}

bool fits_outputs(const Result& r, const Prepared& p) {
  if (p.op->outputs.empty() || r.outputs.empty()) return false;
  // The data output, as allocate_outputs makes it (the set's first buffer, the large one).
  const ArgSpec& first = p.op->outputs.front();
  const DType dtype = resolve_arg_type(*p.op, first.type, p.t);
  const std::optional<Shape> shape = output_shape(p, first.name);
  const Tensor& t = r.outputs.front().tensor;
  return t.dtype() == dtype && t.numel() == (shape ? num_elements(*shape) : 0);
}

OutputPool& output_pool() {
  static OutputPool pool;
  return pool;
}

}  // namespace bnscope
