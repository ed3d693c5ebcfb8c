#pragma once
// A dense, row-major tensor with value semantics. Storage is 64-byte aligned so vector loops
// can use aligned loads and non-temporal stores. Copies share the storage until one of them is
// written through a non-const accessor (copy on write): a problem's inputs, prepared with the
// op's dtype already, are the very buffers that were read.

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "tensor/dtype.h"
#include "tensor/shape.h"

namespace bnscope {

class Tensor {
 public:
  Tensor();                          // float32, shape [0]
  Tensor(DType dtype, Shape shape);  // zero-filled
  // For storage about to be overwritten whole (a file read into place, a kernel's output): no
  // zero-fill pass, and the pages are first touched by whoever writes them.
  static Tensor uninitialized(DType dtype, Shape shape);
  // Storage owned elsewhere (a shared-memory segment a worker process wrote): `storage` holds at
  // least the tensor's bytes, 64-byte aligned; the tensor shares it like any copy would, so a
  // write through a non-const accessor while another handle holds it copies first.
  static Tensor adopt(DType dtype, Shape shape, std::shared_ptr<std::byte> storage);
  static Tensor from_doubles(DType dtype, Shape shape, std::span<const double> values);
  static Tensor from_floats(DType dtype, Shape shape, std::span<const float> values);

  Tensor(const Tensor& other) = default;
  Tensor& operator=(const Tensor& other) = default;
  Tensor(Tensor&&) noexcept = default;
  Tensor& operator=(Tensor&&) noexcept = default;

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  std::int64_t dim(int i) const { return shape_[static_cast<std::size_t>(i)]; }
  std::int64_t numel() const { return numel_; }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel_) * dtype_size(dtype_); }

  void* raw() {
    if (data_.use_count() > 1) detach();
    known_non_finite_ = -1;  // whoever asks for write access may change any value
    return data_.get();
  }
  const void* raw() const { return data_.get(); }
  bool shares_storage_with(const Tensor& other) const { return data_ && data_ == other.data_; }
  // A handle on the storage that keeps nothing alive and is not counted by storage_holders():
  // to tell later whether a tensor still has this very storage (same_storage).
  std::weak_ptr<const void> storage_handle() const { return data_; }
  bool same_storage(const std::weak_ptr<const void>& handle) const {
    return data_ && !handle.expired() && !handle.owner_before(data_) && !data_.owner_before(handle);
  }
  // No other handle shares the storage: a run may write its next output into it (reset keeps it).
  bool sole_owner() const { return data_ && data_.use_count() == 1; }
  // How many handles share the storage (0: none): a caller that can name every one of them may
  // rewrite it in place.
  long storage_holders() const { return data_ ? data_.use_count() : 0; }
  // Typed views; T must be the storage type of dtype() (f16, bf16, float, double).
  template <class T>
  T* data() {
    check_type(DTypeOf<T>::value);
    return static_cast<T*>(raw());
  }
  template <class T>
  const T* data() const {
    check_type(DTypeOf<T>::value);
    return static_cast<const T*>(raw());
  }

  // Element access through double, for tests, analysis and views (not for hot loops).
  double get(std::int64_t i) const;
  void set(std::int64_t i, double v);
  std::vector<double> to_doubles() const;
  // Writes values[i] to element i, converting as set() does, for i below both sizes.
  void set_doubles(std::span<const double> values);

  // The NaN/Inf count of the values where the reader counted them while reading, -1 where not
  // known: a non-const accessor (raw(), data(), set()) forgets it, copies carry it with the
  // storage they share, and the health notes take it instead of reading the tensor again.
  std::int64_t known_non_finite() const { return known_non_finite_; }
  void set_known_non_finite(std::int64_t n) { known_non_finite_ = n; }

  // Each element as set(i, get(i)) would write it (tensor/convert_elements.h), on the core's
  // threads for a large tensor.
  Tensor to(DType dtype) const;
  Tensor reshaped(Shape shape) const;  // same element count required
  // Keeps the allocation (and its contents) when dtype and element count already match (outputs
  // reused across runs); a new allocation is zero-filled unless `zero` is false.
  void reset(DType dtype, Shape shape, bool zero = true);

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  struct NoInit {};
  Tensor(DType dtype, Shape shape, NoInit);
  void check_type(DType t) const;
  void allocate(bool zero);
  void detach();  // a private copy of shared storage

  DType dtype_;
  Shape shape_;
  std::int64_t numel_;
  std::shared_ptr<std::byte> data_;
  std::int64_t known_non_finite_ = -1;
};

bool same_shape(const Tensor& a, const Tensor& b);

}  // namespace bnscope
