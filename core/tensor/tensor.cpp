#include "tensor/tensor.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "tensor/convert_elements.h"
#include "tensor/error.h"
#include "tensor/memory_limit.h"

namespace bnscope {

namespace {
constexpr std::size_t kAlign = 64;
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kHugeFrom = std::size_t{8} << 20;
}  // namespace

void Tensor::Free::operator()(std::byte* p) const {
  std::free(p);
}

Tensor::Tensor() : dtype_(DType::F32), shape_{0}, numel_(0) {}

Tensor::Tensor(DType dtype, Shape shape)
    : dtype_(dtype), shape_(std::move(shape)), numel_(num_elements(shape_)) {
  allocate(true);
}

Tensor::Tensor(DType dtype, Shape shape, NoInit)
    : dtype_(dtype), shape_(std::move(shape)), numel_(num_elements(shape_)) {
  allocate(false);
}

Tensor Tensor::uninitialized(DType dtype, Shape shape) {
  return Tensor(dtype, std::move(shape), NoInit{});
}

Tensor Tensor::adopt(DType dtype, Shape shape, std::shared_ptr<std::byte> storage) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = num_elements(t.shape_);
  if (t.nbytes() && (!storage || reinterpret_cast<std::uintptr_t>(storage.get()) % kAlign != 0))
    throw Error(ErrorCode::Internal, "adopted tensor storage is missing or not aligned");
  t.data_ = t.nbytes() ? std::move(storage) : nullptr;
  return t;
}

void Tensor::allocate(bool zero) {
  const std::size_t size = dtype_size(dtype_);
  if (static_cast<std::uint64_t>(numel_) > SIZE_MAX / size / 2)
    throw Error(ErrorCode::ResourceExhausted,
                "tensor of shape " + shape_str(shape_) + " is too large");
  const std::size_t bytes = nbytes();
  check_memory_limit(bytes, "a tensor of shape " + shape_str(shape_));
  if (bytes == 0) {
    data_.reset();
    return;
  }
  // Large buffers are 2 MiB aligned and asked for huge pages: one page fault per 2 MiB instead
  // of per 4 KiB when a file is read into them or a kernel first writes them.
  const bool huge = bytes >= kHugeFrom;
  const std::size_t align = huge ? kHugePage : kAlign;
  const std::size_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (p && huge) ::madvise(p, rounded, MADV_HUGEPAGE);
  if (!p)
    throw Error(ErrorCode::ResourceExhausted, "cannot allocate " + std::to_string(bytes) +
                                                  " bytes for a tensor of shape " +
                                                  shape_str(shape_));
  if (zero) std::memset(p, 0, rounded);
  data_ = std::shared_ptr<std::byte>(static_cast<std::byte*>(p), Free{});
}

void Tensor::detach() {
  const std::shared_ptr<std::byte> shared = data_;
  allocate(false);
  if (nbytes()) std::memcpy(data_.get(), shared.get(), nbytes());
}

void Tensor::reset(DType dtype, Shape shape, bool zero) {
  const std::int64_t n = num_elements(shape);
  const bool keep = data_ && data_.use_count() == 1 && n == numel_ && dtype == dtype_;
  dtype_ = dtype;
  shape_ = std::move(shape);
  numel_ = n;
  known_non_finite_ = -1;
  if (keep) return;
  // The old buffer goes first: a reused output set of another dtype or size is never held
  // beside its replacement.
  data_.reset();
  allocate(zero);
}

void Tensor::check_type(DType t) const {
  if (t != dtype_)
    throw Error(ErrorCode::Internal, "tensor holds " + std::string(dtype_name(dtype_)) +
                                         ", accessed as " + std::string(dtype_name(t)));
}

double Tensor::get(std::int64_t i) const {
  return visit_dtype(dtype_, [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    return static_cast<double>(to_float(static_cast<const T*>(raw())[i]));
  });
}

void Tensor::set(std::int64_t i, double v) {
  visit_dtype(dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, double>)
      static_cast<double*>(raw())[i] = v;
    else
      static_cast<T*>(raw())[i] = from_float<T>(static_cast<float>(v));
  });
}

std::vector<double> Tensor::to_doubles() const {
  std::vector<double> out(static_cast<std::size_t>(numel_));
  visit_dtype(dtype_, [&](auto tag) {  // one dispatch per tensor, not per element
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(raw());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(to_float(p[i]));
  });
  return out;
}

void Tensor::set_doubles(std::span<const double> values) {
  const auto n = std::min(static_cast<std::size_t>(numel_), values.size());
  visit_dtype(dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(raw());
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, double>)
        p[i] = values[i];
      else
        p[i] = from_float<T>(static_cast<float>(values[i]));
    }
  });
}

Tensor Tensor::from_doubles(DType dtype, Shape shape, std::span<const double> values) {
  Tensor t(dtype, std::move(shape));
  if (static_cast<std::int64_t>(values.size()) != t.numel())
    fail("expected " + std::to_string(t.numel()) + " values for shape " + shape_str(t.shape()) +
         ", got " + std::to_string(values.size()));
  t.set_doubles(values);
  return t;
}

Tensor Tensor::from_floats(DType dtype, Shape shape, std::span<const float> values) {
  std::vector<double> d(values.begin(), values.end());
  return from_doubles(dtype, std::move(shape), d);
}

Tensor Tensor::to(DType dtype) const {
  if (dtype == dtype_) return *this;
  Tensor out = uninitialized(dtype, shape_);
  convert_elements(raw(), dtype_, out.raw(), dtype, numel_);
  return out;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (num_elements(shape) != numel_)
    fail("cannot reshape " + shape_str(shape_) + " to " + shape_str(shape));
  Tensor out = *this;  // shares the storage
  out.shape_ = std::move(shape);
  return out;
}

bool same_shape(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape();
}

}  // namespace bnscope
