#include "io/npy.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "io/atomic_file.h"
#include "io/npy_header.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

static_assert(std::endian::native == std::endian::little,
              "the .npy reader and writer assume a little-endian host");

// One element of the file's type, byte-swapped to host order when needed.
template <class T>
T load(const std::byte* p, bool swap) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, p, sizeof(T));
  if (swap)
    for (std::size_t k = 0; k < sizeof(T) / 2; ++k) std::swap(b[k], b[sizeof(T) - 1 - k]);
  T v;
  std::memcpy(&v, b, sizeof(T));
  return v;
}

template <class Src>
void to_doubles(const std::byte* src, std::int64_t n, bool swap, double* dst) {
  for (std::int64_t k = 0; k < n; ++k)
    dst[k] = static_cast<double>(load<Src>(src + k * static_cast<std::int64_t>(sizeof(Src)), swap));
}

// Converts n elements laid out as in the file into `out`, whose dtype is d.target().
void decode(const NpyDescr& d, const std::byte* src, std::int64_t n, Tensor& out) {
  using K = NpyDescr::Kind;
  if (d.kind == K::Float || d.kind == K::BFloat16) {
    if (!d.big_endian) {
      if (out.nbytes()) std::memcpy(out.raw(), src, out.nbytes());
      return;
    }
    auto* dst = static_cast<std::byte*>(out.raw());
    const auto size = static_cast<std::size_t>(d.itemsize);
    for (std::int64_t k = 0; k < n; ++k)
      for (std::size_t b = 0; b < size; ++b)
        dst[static_cast<std::size_t>(k) * size + b] =
            src[static_cast<std::size_t>(k) * size + size - 1 - b];
    return;
  }
  double* dst = out.data<double>();
  const bool swap = d.big_endian;
  if (d.kind == K::Bool) {
    for (std::int64_t k = 0; k < n; ++k) dst[k] = src[k] != std::byte{0} ? 1.0 : 0.0;
    return;
  }
  const bool sign = d.kind == K::Int;
  switch (d.itemsize) {
    case 1:
      return sign ? to_doubles<std::int8_t>(src, n, swap, dst)
                  : to_doubles<std::uint8_t>(src, n, swap, dst);
    case 2:
      return sign ? to_doubles<std::int16_t>(src, n, swap, dst)
                  : to_doubles<std::uint16_t>(src, n, swap, dst);
    case 4:
      return sign ? to_doubles<std::int32_t>(src, n, swap, dst)
                  : to_doubles<std::uint32_t>(src, n, swap, dst);
    default:
      return sign ? to_doubles<std::int64_t>(src, n, swap, dst)
                  : to_doubles<std::uint64_t>(src, n, swap, dst);
  }
}

// A Fortran-order array of shape S is, byte for byte, a C-order array of shape reverse(S); this
// reverses the axes of such a tensor to give S in C order.
Tensor reverse_axes(const Tensor& in, const Shape& shape) {
  Tensor out(in.dtype(), shape);
  const int rank = static_cast<int>(shape.size());
  const std::size_t es = dtype_size(in.dtype());
  // Stride in `in` (elements) of output axis a: `in` has axes reversed, so it is the product of
  // the output dims before a.
  std::vector<std::int64_t> stride(shape.size());
  std::int64_t s = 1;
  for (int a = 0; a < rank; ++a) {
    stride[static_cast<std::size_t>(a)] = s;
    s *= shape[static_cast<std::size_t>(a)];
  }
  std::vector<std::int64_t> idx(shape.size(), 0);
  const auto* src = static_cast<const std::byte*>(in.raw());
  auto* dst = static_cast<std::byte*>(out.raw());
  std::int64_t offset = 0;
  for (std::int64_t k = 0; k < out.numel(); ++k) {
    std::memcpy(dst + static_cast<std::size_t>(k) * es, src + static_cast<std::size_t>(offset) * es,
                es);
    for (int a = rank - 1; a >= 0; --a) {
      const auto ua = static_cast<std::size_t>(a);
      if (++idx[ua] < shape[ua]) {
        offset += stride[ua];
        break;
      }
      offset -= stride[ua] * (shape[ua] - 1);
      idx[ua] = 0;
    }
  }
  return out;
}

std::string shape_tuple(const Shape& s) {
  std::string out = "(";
  for (std::size_t k = 0; k < s.size(); ++k) out += (k ? ", " : "") + std::to_string(s[k]);
  return out + (s.size() == 1 ? ",)" : ")");
}

std::string header_text(const Tensor& t) {
  const char* descr = "<f8";
  switch (t.dtype()) {
    case DType::F16:
      descr = "<f2";
      break;
    case DType::BF16:
      descr = "<V2";
      break;
    case DType::F32:
      descr = "<f4";
      break;
    case DType::F64:
      break;
  }
  return std::string("{'descr': '") + descr +
         "', 'fortran_order': False, 'shape': " + shape_tuple(t.shape()) + ", }";
}

}  // namespace

Tensor parse_npy(std::span<const std::byte> bytes, std::string_view what) {
  const NpyHeader h = parse_npy_header(bytes, what);
  const std::int64_t n = num_elements(h.shape);  // checked by the header parser
  const auto itemsize = static_cast<std::int64_t>(h.descr.itemsize);
  const std::size_t available = bytes.size() - h.data_offset;
  const std::string need_text = "shape " + shape_tuple(h.shape) + " of '" + h.descr.text + "'";
  if (n > INT64_MAX / itemsize)
    fail(std::string(what) + ": " + need_text + " needs more than 2^63 bytes, the file has " +
         std::to_string(available) + " bytes of data");
  const auto need = static_cast<std::uint64_t>(n * itemsize);
  if (need > available)
    fail(std::string(what) + ": truncated .npy data: " + need_text + " needs " +
         std::to_string(need) + " bytes, the file has " + std::to_string(available));
  if (need < available)
    fail(std::string(what) + ": " + std::to_string(available - need) +
         " unexpected bytes after the .npy data; " + need_text + " needs " + std::to_string(need) +
         " bytes");
  const std::byte* data = bytes.data() + h.data_offset;
  const bool transpose = h.fortran_order && h.shape.size() > 1;
  Shape file_shape = h.shape;
  if (transpose) std::reverse(file_shape.begin(), file_shape.end());
  Tensor t(h.descr.target(), file_shape);
  decode(h.descr, data, n, t);
  return transpose ? reverse_axes(t, h.shape) : t;
}

std::vector<std::byte> read_file_bytes(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) fail("cannot open '" + path + "': " + std::strerror(errno));
  std::vector<std::byte> out;
  std::byte buf[1 << 16];
  while (true) {
    const std::size_t got = std::fread(buf, 1, sizeof buf, f.get());
    out.insert(out.end(), buf, buf + got);
    if (got < sizeof buf) break;
  }
  if (std::ferror(f.get())) fail("cannot read '" + path + "': " + std::strerror(errno));
  return out;
}

Tensor read_npy(const std::string& path) {
  return parse_npy(read_file_bytes(path), path);
}

std::vector<std::byte> serialize_npy(const Tensor& t) {
  std::string header = header_text(t);
  // numpy pads so the data starts at a multiple of 64 bytes and ends the header with '\n'.
  const bool v2 = header.size() + 11 > 65535;
  const std::size_t prefix = v2 ? 12 : 10;
  const std::size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  std::vector<std::byte> out;
  out.reserve(total + t.nbytes());
  for (unsigned char c : {0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59})  // \x93NUMPY
    out.push_back(std::byte{c});
  out.push_back(std::byte{static_cast<unsigned char>(v2 ? 2 : 1)});
  out.push_back(std::byte{0});
  const std::size_t len = header.size();
  for (std::size_t b = 0; b < prefix - 8; ++b)
    out.push_back(static_cast<std::byte>((len >> (8 * b)) & 0xff));
  for (char c : header) out.push_back(static_cast<std::byte>(c));
  const auto* data = static_cast<const std::byte*>(t.raw());
  if (t.nbytes()) out.insert(out.end(), data, data + t.nbytes());
  return out;
}

void write_npy(const std::string& path, const Tensor& t) {
  write_file_atomic(path, serialize_npy(t));
}

}  // namespace bnscope
