#pragma once
// The one seeded generator: splitmix64, tiny and identical on every platform (the standard
// library's distributions are not), so a seed names the same sample everywhere: the CLI, the
// app, the GPU self-test and the tests.

#include <cmath>
#include <cstdint>

namespace bnscope {

class SeededRng {
 public:
  explicit SeededRng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // The state after n more draws: splitmix64 is a counter, so a range of draws can be made on
  // another thread with the very values this generator would give.
  SeededRng skipped(std::uint64_t n) const { return SeededRng(s_ + n * 0x9e3779b97f4a7c15ull); }
  // Standard normal by Box-Muller (one draw of two uniforms per value).
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  // n values of normal(), bit for bit, with each step run over the whole batch: the logs, the
  // cosines and the square roots of many values are in flight at once instead of one chain each.
  void normals(double* out, int n) {
    constexpr int kBatch = 256;
    double u1[kBatch], u2[kBatch];
    for (int start = 0; start < n; start += kBatch) {
      const int m = n - start < kBatch ? n - start : kBatch;
      for (int k = 0; k < m; ++k) {
        u1[k] = 1.0 - uniform();
        u2[k] = uniform();
      }
      for (int k = 0; k < m; ++k) u1[k] = std::log(u1[k]);
      for (int k = 0; k < m; ++k) u2[k] = std::cos(6.283185307179586 * u2[k]);
      for (int k = 0; k < m; ++k) out[start + k] = std::sqrt(-2.0 * u1[k]) * u2[k];
    }
  }

 private:
  std::uint64_t s_;
};

}  // namespace bnscope
