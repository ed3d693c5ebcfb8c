#pragma once
// Vectors whose data starts on a cache line, for the per-lane tables the vector sweeps load beside
// their streams (coefficients, centres, running sums). The heap promises 16 bytes, so a table in
// a plain std::vector made most 64-byte loads of it straddle two lines, at offsets that changed
// with the heap's state from run to run (docs/measurements/cpu-kernel-notes.md).

#include <cstddef>
#include <new>
#include <vector>

namespace bnscope::cpu {

template <class T>
struct LineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};

  LineAllocator() = default;
  template <class U>
  LineAllocator(const LineAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, kAlign); }

  template <class U>
  bool operator==(const LineAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using LineVector = std::vector<T, LineAllocator<T>>;

}  // namespace bnscope::cpu
