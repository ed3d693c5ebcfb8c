#include "fiber_stacks.h"

#include <sys/mman.h>
#include <unistd.h>

#include "emulator.h"

namespace bnscope::emu::detail {

namespace {

std::size_t page_bytes() {
  return static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

StackPool::~StackPool() {
  for (void* s : stacks_) munmap(s, kStackBytes + page_bytes());
}

void* StackPool::get(std::size_t i) {
  while (stacks_.size() <= i) {
    void* m = mmap(nullptr, kStackBytes + page_bytes(), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) throw Fault("emulator: cannot map a fiber stack");
    mprotect(m, page_bytes(), PROT_NONE);
    stacks_.push_back(m);
  }
  return static_cast<unsigned char*>(stacks_[i]) + page_bytes();
}

SlabStacks::~SlabStacks() {
  if (base_) munmap(base_, bytes_);
}

void SlabStacks::reset(std::size_t n) {
  if (base_) munmap(base_, bytes_);
  base_ = nullptr;
  bytes_ = n * kStackBytes + page_bytes();
  void* m = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) throw Fault("emulator: cannot map the fiber stacks of a resident block");
  mprotect(m, page_bytes(), PROT_NONE);
  base_ = static_cast<unsigned char*>(m);
  count_ = n;
}

void* SlabStacks::get(std::size_t i) const {
  return base_ + page_bytes() + i * kStackBytes;
}

long long SlabStacks::overflowed() const {
  for (std::size_t i = 0; i < count_; ++i) {
    const unsigned char* stack = base_ + page_bytes() + i * kStackBytes;
    for (std::size_t b = 0; b < kCanaryBytes; ++b)
      if (stack[b] != 0) return static_cast<long long>(i);
  }
  return -1;
}

}  // namespace bnscope::emu::detail
