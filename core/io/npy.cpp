#include "io/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "io/atomic_file.h"
#include "io/bulk_write.h"
#include "io/npy_header.h"
#include "io/parallel_read.h"
#include "tensor/error.h"
#include "tensor/memory_limit.h"

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

// Reverses the bytes of every element in place (a big-endian file read into place).
void swap_in_place(Tensor& t) {
  const std::size_t size = dtype_size(t.dtype());
  auto* p = static_cast<std::byte*>(t.raw());
  for (std::size_t k = 0; k < t.nbytes(); k += size) std::reverse(p + k, p + k + size);
}

std::string numpy_type_name(const NpyDescr& d) {
  using K = NpyDescr::Kind;
  if (d.kind == K::Bool) return "bool";
  const char* base = d.kind == K::Int ? "int" : d.kind == K::UInt ? "uint" : "complex";
  return base + std::to_string(8 * d.itemsize);
}

// A Fortran-order array of shape S is, byte for byte, a C-order array of shape reverse(S); this
// reverses the axes of such a tensor to give S in C order.
Tensor reverse_axes(const Tensor& in, const Shape& shape) {
  Tensor out = Tensor::uninitialized(in.dtype(), shape);
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

std::string header_text(DType dtype, const Shape& shape) {
  const char* descr = "<f8";
  switch (dtype) {
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
         "', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }";
}

}  // namespace

NpyLayout read_npy_layout(std::uint64_t size, const ByteSource& read, std::string_view what) {
  const std::string w(what);
  // The prefix, then as much of the header as the prefix announces and the bytes allow; the
  // header parser reports what is missing.
  std::vector<std::byte> head(static_cast<std::size_t>(std::min<std::uint64_t>(size, 10)));
  auto fill = [&](std::size_t from) {
    std::size_t at = from;
    while (at < head.size()) {
      const std::size_t got = read(head.data() + at, head.size() - at);
      if (got == 0) break;
      at += got;
    }
    head.resize(at);
  };
  fill(0);
  if (head.size() == 10 && std::to_integer<int>(head[6]) >= 2 && size >= 12) {
    head.resize(12);
    fill(10);
  }
  if (head.size() >= 10) {
    const bool v1 = std::to_integer<int>(head[6]) == 1;
    const std::size_t prefix = v1 ? 10 : 12;
    if (head.size() == prefix) {
      std::uint64_t len = 0;
      for (std::size_t b = 0; b < (v1 ? 2u : 4u); ++b)
        len |= std::to_integer<std::uint64_t>(head[8 + b]) << (8 * b);
      len = std::min<std::uint64_t>(len, size - prefix);
      check_memory_limit(len, w + ": the .npy header");
      head.resize(prefix + static_cast<std::size_t>(len));
      fill(prefix);
    }
  }
  NpyLayout l;
  l.header = parse_npy_header(head, what);
  const NpyHeader& h = l.header;
  using K = NpyDescr::Kind;
  if (h.descr.kind != K::Float && h.descr.kind != K::BFloat16)
    throw UnsupportedDTypeError(w + ": unsupported dtype " + numpy_type_name(h.descr) + " ('" +
                                    h.descr.text +
                                    "'): TensorFlow's batch-norm kernels take real floats only; "
                                    "expected float16, bfloat16, float32 or float64",
                                numpy_type_name(h.descr));
  const std::int64_t n = num_elements(h.shape);  // checked by the header parser
  const auto itemsize = static_cast<std::int64_t>(h.descr.itemsize);
  const std::uint64_t available = size - h.data_offset;
  const std::string need_text = "shape " + shape_tuple(h.shape) + " of '" + h.descr.text + "'";
  if (n > INT64_MAX / itemsize)
    fail(w + ": " + need_text + " needs more than 2^63 bytes, the file has " +
         std::to_string(available) + " bytes of data");
  l.data_bytes = static_cast<std::uint64_t>(n * itemsize);
  if (l.data_bytes > available)
    fail(w + ": truncated .npy data: " + need_text + " needs " + std::to_string(l.data_bytes) +
         " bytes, the file has " + std::to_string(available));
  if (l.data_bytes < available)
    fail(w + ": " + std::to_string(available - l.data_bytes) +
         " unexpected bytes after the .npy data; " + need_text + " needs " +
         std::to_string(l.data_bytes) + " bytes");
  check_memory_limit(l.data_bytes, w + ": " + need_text);
  return l;
}

Tensor read_npy_data(const NpyLayout& l, const ByteSource& read, std::string_view what,
                     const CountingSource& counting) {
  const NpyHeader& h = l.header;
  const bool transpose = h.fortran_order && h.shape.size() > 1;
  Shape file_shape = h.shape;
  if (transpose) std::reverse(file_shape.begin(), file_shape.end());
  Tensor t = Tensor::uninitialized(h.descr.target(), file_shape);
  auto* dst = static_cast<std::byte*>(t.raw());
  if (counting && !h.descr.big_endian) {
    // The count is the same in either axis order.
    const std::int64_t n = t.nbytes() ? counting(dst, t.nbytes(), t.dtype()) : 0;
    Tensor out = transpose ? reverse_axes(t, h.shape) : std::move(t);
    out.set_known_non_finite(n);
    return out;
  }
  std::size_t at = 0;
  while (at < t.nbytes()) {
    const std::size_t got = read(dst + at, t.nbytes() - at);
    if (got == 0)
      fail(std::string(what) + ": truncated .npy data: " + std::to_string(at) + " of " +
           std::to_string(t.nbytes()) + " bytes");
    at += got;
  }
  if (h.descr.big_endian) swap_in_place(t);
  return transpose ? reverse_axes(t, h.shape) : t;
}

Tensor read_npy_source(std::uint64_t size, const ByteSource& read, std::string_view what) {
  return read_npy_data(read_npy_layout(size, read, what), read, what);
}

Tensor parse_npy(std::span<const std::byte> bytes, std::string_view what) {
  std::size_t at = 0;
  return read_npy_source(
      bytes.size(),
      [&](std::byte* dst, std::size_t n) {
        n = std::min(n, bytes.size() - at);
        if (n) std::memcpy(dst, bytes.data() + at, n);
        at += n;
        return n;
      },
      what);
}

namespace {

class File {
 public:
  explicit File(const std::string& path) : path_(path) {
    // Non-blocking: a FIFO would otherwise wait in open() for a writer before it could be
    // refused. Regular files read the same either way.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) fail("cannot open '" + path + "': " + std::strerror(errno));
    struct stat st;
    std::string problem;
    if (::fstat(fd_, &st) != 0)
      problem = "cannot read '" + path + "': " + std::strerror(errno);
    else if (S_ISDIR(st.st_mode))
      problem = "'" + path + "' is a directory, not a file";
    else if (!S_ISREG(st.st_mode))
      problem = "'" + path + "' is not a regular file";
    if (!problem.empty()) {
      ::close(fd_);
      fail(problem);
    }
    size_ = static_cast<std::uint64_t>(st.st_size);
  }
  ~File() { ::close(fd_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  std::uint64_t size() const { return size_; }
  int fd() const { return fd_; }
  std::size_t read(std::byte* dst, std::size_t n) {
    while (true) {
      const ssize_t got = ::read(fd_, dst, std::min<std::size_t>(n, std::size_t{1} << 30));
      if (got >= 0) return static_cast<std::size_t>(got);
      if (errno != EINTR) fail("cannot read '" + path_ + "': " + std::strerror(errno));
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

}  // namespace

void check_input_file(const std::string& path) {
  File f(path);
}

std::vector<std::byte> read_file_bytes(const std::string& path) {
  File f(path);
  check_memory_limit(f.size(), "'" + path + "'");
  std::vector<std::byte> out(static_cast<std::size_t>(f.size()));
  std::size_t at = 0;
  while (at < out.size()) {
    const std::size_t got = f.read(out.data() + at, out.size() - at);
    if (got == 0) break;
    at += got;
  }
  out.resize(at);
  return out;
}

Tensor read_npy(const std::string& path) {
  File f(path);
  const ByteSource read = [&](std::byte* dst, std::size_t n) { return f.read(dst, n); };
  // Read into place, not mapped: a file rewritten in place later (np.save truncates) would take
  // a mapping's pages away from under a long-running session. The data on every core, counted
  // piece by piece; it starts where the header ends.
  const NpyLayout layout = read_npy_layout(f.size(), read, path);
  const CountingSource counting = [&](std::byte* dst, std::size_t n, DType dtype) {
    PieceChecks checks;
    checks.crc = false;
    checks.count = dtype;
    checks.noun = ".npy data";
    return pread_checked(f.fd(), layout.header.data_offset, dst, n, 0, checks, path).non_finite;
  };
  return read_npy_data(layout, read, path, counting);
}

std::string npy_header_bytes(const Tensor& t) {
  return npy_header_bytes(t.dtype(), t.shape());
}

std::string npy_header_bytes(DType dtype, const Shape& shape) {
  std::string header = header_text(dtype, shape);
  // numpy pads so the data starts at a multiple of 64 bytes and ends the header with '\n'.
  const bool v2 = header.size() + 11 > 65535;
  const std::size_t prefix = v2 ? 12 : 10;
  const std::size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const std::size_t len = header.size();
  for (std::size_t b = 0; b < prefix - 8; ++b) out += static_cast<char>((len >> (8 * b)) & 0xff);
  return out + header;
}

std::vector<std::byte> serialize_npy(const Tensor& t) {
  const std::string head = npy_header_bytes(t);
  std::vector<std::byte> out(head.size() + t.nbytes());
  std::memcpy(out.data(), head.data(), head.size());
  if (t.nbytes()) std::memcpy(out.data() + head.size(), t.raw(), t.nbytes());
  return out;
}

void write_npy_to(std::FILE* f, const Tensor& t, const std::string& what) {
  const std::string head = npy_header_bytes(t);
  if (std::fwrite(head.data(), 1, head.size(), f) != head.size() ||
      (t.nbytes() && !write_bulk(f, t.raw(), t.nbytes())))
    fail("cannot write '" + what + "': " + std::strerror(errno));
}

void write_npy(const std::string& path, const Tensor& t) {
  write_file_atomic_cfile(path, [&](std::FILE* f) { write_npy_to(f, t, path); });
}

}  // namespace bnscope
