#pragma once
// Internal to the emulator: grid_runner.cpp makes one per cooperative launch, run_block arrives.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include "device.h"  // uint3; before any CUDA header: it defines the CUDA keywords

namespace bnscope::emu::detail {

// The grid-wide barrier of a cooperative launch. Each block (a host thread) arrives once all of
// its live threads have; the last block to arrive releases the others. A block that exits while
// others wait (or waits after one has exited) would hang a device: here it is a fault, and so is
// a fault in any block, which ends the wait of all the others with the same message.
class GridBarrier {
 public:
  explicit GridBarrier(std::uint64_t blocks) : blocks_(blocks) {}

  void arrive(const uint3& block, const char* kernel);
  void exit(const uint3& block, const char* kernel);
  void abort(const std::string& why);

 private:
  void abort_locked(const std::string& why);
  std::mutex mutex_;
  std::condition_variable cv_;
  const std::uint64_t blocks_;
  std::uint64_t arrived_ = 0, exited_ = 0, generation_ = 0;
  uint3 first_exited_{};
  std::string abort_;
};

}  // namespace bnscope::emu::detail
