#pragma once
// Reads a fuzz input as a stream of choices. Running out of bytes yields zeros, so every input,
// however short, decodes to a complete case and small mutations stay small.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

namespace bnscope::fuzz {

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) : data_(data, size) {}

  std::uint8_t byte() { return pos_ < data_.size() ? data_[pos_++] : 0; }
  // A value in [0, n); n must be positive.
  std::size_t pick(std::size_t n) { return byte() % n; }
  bool flag() { return byte() & 1u; }
  float raw_float() {
    std::uint32_t u = 0;
    for (int i = 0; i < 4; ++i) u = (u << 8) | byte();
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }
  // Up to max_len bytes as text.
  std::string text(std::size_t max_len) {
    const std::size_t n = pick(max_len + 1);
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(byte()));
    return s;
  }
  std::span<const std::uint8_t> rest() {
    auto r = data_.subspan(pos_);
    pos_ = data_.size();
    return r;
  }

 private:
  std::span<const std::uint8_t> data_;
  std::size_t pos_ = 0;
};

// Keeps each case small and fast: the engine refuses anything over this before allocating.
void limit_memory_for_fuzzing();

}  // namespace bnscope::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
