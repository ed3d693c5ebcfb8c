#include "grid_barrier.h"

#include "fault_report.h"

namespace bnscope::emu::detail {

void GridBarrier::arrive(const uint3& block, const char* kernel) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!abort_.empty()) throw Fault(abort_);
  if (exited_ > 0) {
    abort_locked("grid barrier: block " + xyz(block) + " of kernel " + kernel +
                 " waits at the grid barrier, but block " + xyz(first_exited_) +
                 " has exited and never arrives");
    throw Fault(abort_);
  }
  const std::uint64_t generation = generation_;
  if (++arrived_ == blocks_) {
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
    return;
  }
  cv_.wait(lock, [&] { return generation_ != generation || !abort_.empty(); });
  if (generation_ == generation) throw Fault(abort_);
}

void GridBarrier::exit(const uint3& block, const char* kernel) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (exited_++ == 0) first_exited_ = block;
  if (arrived_ > 0)
    abort_locked("grid barrier: block " + xyz(block) + " of kernel " + kernel + " exited while " +
                 std::to_string(arrived_) + " block(s) wait at the grid barrier");
}

void GridBarrier::abort(const std::string& why) {
  const std::lock_guard<std::mutex> lock(mutex_);
  abort_locked(why);
}

void GridBarrier::abort_locked(const std::string& why) {
  if (abort_.empty()) abort_ = why;
  cv_.notify_all();
}

}  // namespace bnscope::emu::detail
