// What the readers do to each 256 KiB piece while it is in cache: its CRC-32 by each path the CPU
// has (zlib's table walk, 128-bit and 512-bit carry-less folding) and its NaN/Inf count by each
// vector clone, and the same on a 64 MiB buffer that does not fit the caches. One thread; bytes
// per second is the rate counter.

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/crc32.h"
#include "tensor/non_finite.h"

namespace bnscope {
namespace {

std::vector<std::byte> noise(std::size_t n) {
  std::vector<std::byte> out(n);
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  for (std::byte& b : out) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    b = static_cast<std::byte>(s >> 56);
  }
  return out;
}

void crc(benchmark::State& state, Crc32Path path) {
  if (path > crc32_best_path()) {
    state.SkipWithError("this CPU lacks the instructions");
    return;
  }
  const std::vector<std::byte> data = noise(static_cast<std::size_t>(state.range(0)));
  std::uint32_t c = 0;
  for (auto _ : state) {
    c = crc32_bytes_by(path, c, data.data(), data.size());
    benchmark::DoNotOptimize(c);
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

BENCHMARK_CAPTURE(crc, zlib, Crc32Path::Zlib)->Arg(256 << 10)->Arg(64 << 20);
BENCHMARK_CAPTURE(crc, clmul, Crc32Path::Clmul)->Arg(256 << 10)->Arg(64 << 20);
BENCHMARK_CAPTURE(crc, vclmul512, Crc32Path::Vclmul512)->Arg(256 << 10)->Arg(64 << 20);

// The NaN/Inf count of a piece of float32 (the layer's dtype) in each vector clone.
void count(benchmark::State& state, int max_isa) {
  const std::vector<std::byte> data = noise(static_cast<std::size_t>(state.range(0)));
  const auto n = static_cast<std::int64_t>(data.size() / 4);
  for (auto _ : state)
    benchmark::DoNotOptimize(count_non_finite(DType::F32, data.data(), n, max_isa));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

BENCHMARK_CAPTURE(count, baseline, 0)->Arg(256 << 10)->Arg(64 << 20);
BENCHMARK_CAPTURE(count, avx2, 1)->Arg(256 << 10)->Arg(64 << 20);

}  // namespace
}  // namespace bnscope

BENCHMARK_MAIN();
