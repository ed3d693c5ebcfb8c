#pragma once
// The one seeded generator: splitmix64, tiny and identical on every platform (the standard
// library's distributions are not), so a seed names the same sample everywhere: the CLI, the
// app, the GPU self-test and the tests.

#include <cstdint>

namespace bnscope {

// The instruction sets normals_at can run on, narrowest first; every one gives the same bits.
enum class NormalsPath { Plain, Avx2, Avx512 };
// The widest this CPU runs (the one normals_at takes).
NormalsPath normals_best_path();

class SeededRng {
 public:
  explicit SeededRng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() { return mix(s_ += kGolden); }
  // [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // The state after n more draws: splitmix64 is a counter, so a range of draws can be made on
  // another thread with the very values this generator would give.
  SeededRng skipped(std::uint64_t n) const { return SeededRng(s_ + n * kGolden); }

  // Values first .. first+n-1 of this generator's stream of standard normals, without moving it.
  // Value j is one half of a Box-Muller pair (cosine for even j, sine for odd j) made from draws
  // 2(j/2) and 2(j/2)+1, so any range is made on any thread with the same bits: a sample is the
  // same whatever the thread count. The logarithm and the sine and cosine are polynomials in
  // plain double arithmetic (seeded_rng.cpp, no contraction into FMAs), identical on every
  // platform and vectorized over batches of pairs; they are within a few ulp of libm's.
  void normals_at(std::uint64_t first, double* out, std::int64_t n) const;
  // normals_at on `path`, or on the CPU's widest where that is narrower: tests check that every
  // path gives the same bits.
  void normals_at_by(NormalsPath path, std::uint64_t first, double* out, std::int64_t n) const;
  // The next n values of the stream; the generator moves past the pairs they used.
  void normals(double* out, std::int64_t n) {
    normals_at(0, out, n);
    *this = skipped(2 * ((static_cast<std::uint64_t>(n) + 1) / 2));
  }

  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  static constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ull;  // the counter's step

 private:
  std::uint64_t s_;
};

}  // namespace bnscope
