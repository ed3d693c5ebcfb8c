#pragma once
// The stacks the threads of a block run on as fibers: a pool per host thread for ordinary blocks,
// one slab per block for the resident blocks of a cooperative launch.

#include <cstddef>
#include <vector>

#include "asan.h"

namespace bnscope::emu::detail {

#ifdef BNSCOPE_EMU_ASAN
constexpr std::size_t kStackBytes = 512 * 1024;  // instrumented frames are larger
#else
constexpr std::size_t kStackBytes = 64 * 1024;
#endif

// Fiber stacks of one host thread, reused by every block it runs; a guard page below each
// turns an overflow into a crash instead of silent corruption.
class StackPool {
 public:
  ~StackPool();
  void* get(std::size_t i);

 private:
  std::vector<void*> stacks_;
};

// The fiber stacks of a cooperative block: every block of such a grid is resident at once, and
// a guard page per fiber would cost two memory mappings per thread (hundreds of thousands for a
// full H100 grid, past the kernel's map limit). One mapping per block instead, with a guard page
// below it; the bottom bytes of each stack stay as the fresh mapping gave them (zero, never
// touched: no memory), checked when the block ends. A host thread runs one resident block.
class SlabStacks {
 public:
  ~SlabStacks();
  // Fresh stacks for a block of n threads (zero pages: the canaries hold until written).
  void reset(std::size_t n);
  void* get(std::size_t i) const;

  // The first stack whose canary was overwritten, or -1.
  long long overflowed() const;

 private:
  static constexpr std::size_t kCanaryBytes = 256;
  unsigned char* base_ = nullptr;
  std::size_t bytes_ = 0, count_ = 0;
};

}  // namespace bnscope::emu::detail
