#pragma once
// What device code sees when it is compiled as host C++ for the emulator (BNSCOPE_EMULATED):
// the CUDA keywords, threadIdx/blockIdx/blockDim/gridDim, __syncthreads, __syncwarp, warp
// shuffles and votes, atomics, and instrumented shared memory. Included before any CUDA header,
// so cuda_fp16.h/cuda_bf16.h keep these definitions and provide their host implementations.
// A device feature not defined here does not compile (or, for __constant__ and __managed__,
// names an undeclared type): nothing the kernels use is silently ignored.

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
// Blocks run one at a time per host thread, and all threads of a block share that host thread
// (they are fibers), so per-host-thread storage is per-block storage.
#define __shared__ static thread_local
#define __constant__ bnscope_emulator_has_no_constant_memory
#define __managed__ bnscope_emulator_has_no_managed_memory

// CUDA's own 16-bit float types and dim3, with their host implementations; they must see the
// keywords above and not yet the builtin variables below.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector_types.h>

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "emulator.h"

namespace bnscope::emu {

const uint3& thread_idx();
const uint3& block_idx();
const dim3& block_dim();
const dim3& grid_dim();
void sync_threads();

enum class WarpOp : int { Sync, Shfl, ShflUp, ShflDown, ShflXor, Ballot, Any, All };
// Arrives at a warp-level operation; returns when every lane named in mask has arrived.
std::uint64_t warp_op(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width);

// A block's shared memory (the dynamic extern __shared__ buffer, or one static array) with the
// race check's record of who touched each byte since the last barrier.
class SharedRegion {
 public:
  explicit SharedRegion(const char* what) : what_(what) {}
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;
  void bind(unsigned char* base, std::size_t bytes);
  unsigned char* base() const { return base_; }
  std::size_t bytes() const { return bytes_; }
  void read(std::size_t offset, std::size_t n);
  void write(std::size_t offset, std::size_t n);
  // Faults unless [offset, offset + n) lies in the region; index is what the code wrote.
  void check(long long index, std::ptrdiff_t offset, std::size_t n) const;

 private:
  struct Cell {
    std::uint64_t w_epoch = 0, w_stamp = 0, r_epoch = 0, r_stamp = 0;
    int writer = -1, reader = -1, other_reader = -1;
    bool many_readers = false;
  };
  const char* what_;
  unsigned char* base_ = nullptr;
  std::size_t bytes_ = 0;
  std::vector<Cell> cells_;
  void race(const char* what, std::size_t offset, int other) const;
};

// A shared-memory element: reading converts to T, assigning writes; both are recorded.
template <class T>
class SharedRef {
 public:
  SharedRef(SharedRegion* r, std::size_t off) : r_(r), off_(off) {}
  operator T() const {
    r_->read(off_, sizeof(T));
    T v;
    std::memcpy(&v, r_->base() + off_, sizeof(T));
    return v;
  }
  SharedRef& operator=(const T& v) {
    r_->write(off_, sizeof(T));
    std::memcpy(r_->base() + off_, &v, sizeof(T));
    return *this;
  }
  SharedRef& operator=(const SharedRef& o) { return *this = static_cast<T>(o); }
  SharedRef& operator+=(const T& v) { return *this = static_cast<T>(*this) + v; }
  SharedRef& operator-=(const T& v) { return *this = static_cast<T>(*this) - v; }
  SharedRef& operator*=(const T& v) { return *this = static_cast<T>(*this) * v; }
  SharedRef& operator/=(const T& v) { return *this = static_cast<T>(*this) / v; }
  // &shared[i] for atomics and pointer arithmetic.
  auto operator&() const;
  SharedRegion* region() const { return r_; }
  std::size_t offset() const { return off_; }

 private:
  SharedRegion* r_;
  std::size_t off_;
};

// A pointer into shared memory; indexing is bounds-checked against the region.
template <class T>
class SharedPtr {
 public:
  SharedPtr() = default;
  SharedPtr(SharedRegion* r, std::ptrdiff_t off) : r_(r), off_(off) {}
  SharedRef<T> operator[](long long i) const {
    const std::ptrdiff_t at = off_ + static_cast<std::ptrdiff_t>(i) * std::ptrdiff_t{sizeof(T)};
    r_->check(i, at, sizeof(T));
    return {r_, static_cast<std::size_t>(at)};
  }
  SharedRef<T> operator*() const { return (*this)[0]; }
  template <class I, class = std::enable_if_t<std::is_integral_v<I>>>
  SharedPtr operator+(I n) const {
    return {r_, off_ + static_cast<std::ptrdiff_t>(n) * std::ptrdiff_t{sizeof(T)}};
  }
  template <class I, class = std::enable_if_t<std::is_integral_v<I>>>
  SharedPtr operator-(I n) const {
    return {r_, off_ - static_cast<std::ptrdiff_t>(n) * std::ptrdiff_t{sizeof(T)}};
  }
  SharedRegion* region() const { return r_; }
  std::ptrdiff_t offset() const { return off_; }

 private:
  SharedRegion* r_ = nullptr;
  std::ptrdiff_t off_ = 0;
};

template <class T>
auto SharedRef<T>::operator&() const {
  return SharedPtr<T>(r_, static_cast<std::ptrdiff_t>(off_));
}

// __shared__ SharedArray<T, N> name;  a static shared array (plain T[N] on a device).
template <class T, unsigned N>
class SharedArray {
 public:
  SharedArray() { region_.bind(data_, sizeof data_); }
  SharedRef<T> operator[](long long i) { return SharedPtr<T>(&region_, 0)[i]; }
  operator SharedPtr<T>() { return {&region_, 0}; }
  template <class I, class = std::enable_if_t<std::is_integral_v<I>>>
  SharedPtr<T> operator+(I n) {
    return SharedPtr<T>(&region_, 0) + n;
  }

 private:
  alignas(16) unsigned char data_[sizeof(T) * N];
  SharedRegion region_{"static shared array"};
};

// The launch's dynamic shared memory (extern __shared__ on a device) as T[].
SharedRegion& dynamic_shared_region();
template <class T>
SharedPtr<T> dynamic_shared() {
  return {&dynamic_shared_region(), 0};
}

template <class T>
std::uint64_t to_bits(T v) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8,
                "the emulator shuffles values of at most 8 bytes");
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
T from_bits(std::uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

// Atomics on global memory: blocks may run on several host threads.
template <class T>
T atomic_add(T* p, T v) {
  return std::atomic_ref<T>(*p).fetch_add(v);
}
template <class T>
T atomic_add(SharedPtr<T> p, T v) {  // fibers of a block share one host thread
  SharedRef<T> r = p[0];
  const T old = r;
  r = old + v;
  return old;
}

}  // namespace bnscope::emu

#define threadIdx (::bnscope::emu::thread_idx())
#define blockIdx (::bnscope::emu::block_idx())
#define blockDim (::bnscope::emu::block_dim())
#define gridDim (::bnscope::emu::grid_dim())
#define warpSize 32

inline void __syncthreads() {
  ::bnscope::emu::sync_threads();
}
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  ::bnscope::emu::warp_op(::bnscope::emu::WarpOp::Sync, mask, 0, 0, 32);
}

template <class T>
T __shfl_sync(unsigned mask, T v, int src_lane, int width = 32) {
  using namespace ::bnscope::emu;
  return from_bits<T>(warp_op(WarpOp::Shfl, mask, to_bits(v), src_lane, width));
}
template <class T>
T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  using namespace ::bnscope::emu;
  return from_bits<T>(warp_op(WarpOp::ShflUp, mask, to_bits(v), static_cast<int>(delta), width));
}
template <class T>
T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  using namespace ::bnscope::emu;
  return from_bits<T>(warp_op(WarpOp::ShflDown, mask, to_bits(v), static_cast<int>(delta), width));
}
template <class T>
T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
  using namespace ::bnscope::emu;
  return from_bits<T>(warp_op(WarpOp::ShflXor, mask, to_bits(v), lane_mask, width));
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  using namespace ::bnscope::emu;
  return static_cast<unsigned>(warp_op(WarpOp::Ballot, mask, predicate != 0, 0, 32));
}
inline int __any_sync(unsigned mask, int predicate) {
  using namespace ::bnscope::emu;
  return static_cast<int>(warp_op(WarpOp::Any, mask, predicate != 0, 0, 32));
}
inline int __all_sync(unsigned mask, int predicate) {
  using namespace ::bnscope::emu;
  return static_cast<int>(warp_op(WarpOp::All, mask, predicate != 0, 0, 32));
}

template <class P, class T>
T atomicAdd(P p, T v) {
  return ::bnscope::emu::atomic_add(p, v);
}
template <class T>
T atomicExch(T* p, T v) {
  return std::atomic_ref<T>(*p).exchange(v);
}
template <class T>
T atomicCAS(T* p, T compare, T v) {
  std::atomic_ref<T>(*p).compare_exchange_strong(compare, v);
  return compare;
}
template <class T>
T atomicMax(T* p, T v) {
  static_assert(std::is_integral_v<T>, "atomicMax: integers only, as on a device");
  std::atomic_ref<T> a(*p);
  T old = a.load();
  while (old < v && !a.compare_exchange_weak(old, v)) {
  }
  return old;
}
template <class T>
T atomicMin(T* p, T v) {
  static_assert(std::is_integral_v<T>, "atomicMin: integers only, as on a device");
  std::atomic_ref<T> a(*p);
  T old = a.load();
  while (v < old && !a.compare_exchange_weak(old, v)) {
  }
  return old;
}
