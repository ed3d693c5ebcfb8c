#pragma once
// Shared by the io tests: fixture paths, scratch directories, hand-built .npy bytes and error
// assertions.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "tensor/error.h"
#include "tensor/tensor.h"

namespace bnscope::test {

inline std::string fixture(const std::string& name) {
  return std::string(BNSCOPE_SOURCE_DIR) + "/tests/io/data/" + name;
}

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "bnscope-io-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::filesystem::path path_;
};

inline void write_bytes(const std::string& path, const std::vector<std::byte>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline std::vector<std::byte> to_bytes(const std::string& s) {
  std::vector<std::byte> out(s.size());
  if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
  return out;
}

// A .npy file with the given header text (padded with spaces and '\n' as numpy does) and data.
inline std::vector<std::byte> npy_bytes(const std::string& header,
                                        const std::vector<std::byte>& data, int major = 1) {
  std::string h = header;
  const std::size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t b = 0; b < prefix - 8; ++b)
    out += static_cast<char>((h.size() >> (8 * b)) & 0xff);
  out += h;
  std::vector<std::byte> bytes = to_bytes(out);
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

template <class T>
std::vector<std::byte> raw_le(std::initializer_list<T> values) {
  std::vector<std::byte> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

// Runs f, expecting a bnscope::Error whose one-line message contains every one of `parts`.
inline void expect_error(const std::function<void()>& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "expected an Error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "message spans lines: " << msg;
    for (const std::string& p : parts)
      EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

inline void expect_same_tensor(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.nbytes(), b.nbytes());
  if (a.nbytes()) {
    EXPECT_EQ(std::memcmp(a.raw(), b.raw(), a.nbytes()), 0);
  }
}

// 0.5*i - 4 for i = 0..n-1: exact in every dtype.
inline Tensor grid(DType dtype, Shape shape) {
  Tensor t(dtype, std::move(shape));
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, 0.5 * static_cast<double>(i) - 4.0);
  return t;
}

}  // namespace bnscope::test
