// The per-channel scan the app runs over the data gradient after every run, and the comparison
// of two backends' data gradients that diff and report make, on a real-size
// layer (32x56x56x256 float32, 98 MiB) seen channels last and as NCHW, and on a small tensor
// whose cost is mostly set-up. BNSCOPE_BENCH_THREADS (default 2) threads.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "analysis/channel_scan.h"
#include "analysis/diff.h"
#include "tensor/layout.h"

namespace bnscope {
namespace {

int threads() {
  const char* v = std::getenv("BNSCOPE_BENCH_THREADS");
  return v && *v ? std::atoi(v) : 2;
}

// Gradient-like values in about [-1, 1), from a fixed LCG so every build scans the same bits.
Tensor filled(DType dtype, Shape shape) {
  Tensor t(dtype, std::move(shape));
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  float* p = t.data<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    p[i] =
        static_cast<float>(static_cast<std::int64_t>(s >> 40) - (std::int64_t{1} << 23)) * 0x1p-23f;
  }
  return t;
}

void scan(benchmark::State& state, const Shape& shape, bool channels_last) {
  const Tensor t = filled(DType::F32, shape);
  const ChannelView v = channel_view(t.shape(), channels_last);
  ScanControl ctl;
  ctl.threads = threads();
  for (auto _ : state) {
    ChannelScan s = scan_channels(t, v, ctl, true);
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(state.iterations() * t.numel() * 4);
}

void BM_ScanLayerNHWC(benchmark::State& state) {
  scan(state, {32, 56, 56, 256}, true);
}
void BM_ScanLayerNCHW(benchmark::State& state) {
  scan(state, {32, 56, 56, 256}, false);
}
void BM_ScanSmallNHWC(benchmark::State& state) {
  scan(state, {2, 7, 7, 24}, true);
}
void BM_ScanSmallNCHW(benchmark::State& state) {
  scan(state, {2, 24, 7, 7}, false);
}
// compare_output of two such tensors a few ulps apart, as a cpu run and the float64 oracle's are:
// errors over many decades, every element scanned for the figures, histogram and channels.
void diff(benchmark::State& state, const Shape& shape, bool channels_last) {
  OutputTensor reference{"x_backprop", filled(DType::F32, shape), true};
  OutputTensor candidate{"x_backprop", filled(DType::F32, shape), true};
  float* c = candidate.tensor.data<float>();
  std::uint64_t s = 12345;
  for (std::int64_t i = 0; i < candidate.tensor.numel(); ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    c[i] = std::nextafter(c[i], (s >> 63) ? 2.0f : -2.0f);
    if ((s >> 60) & 1) c[i] = std::nextafter(c[i], 2.0f);
  }
  const ChannelView v = channel_view(reference.tensor.shape(), channels_last);
  const DiffOptions options;
  for (auto _ : state) {
    OutputDiff d = compare_output(reference, candidate, options, &v);
    benchmark::DoNotOptimize(d);
  }
  state.SetBytesProcessed(state.iterations() * reference.tensor.numel() * 8);
}

void BM_DiffLayerNHWC(benchmark::State& state) {
  diff(state, {32, 56, 56, 256}, true);
}
void BM_DiffLayerNCHW(benchmark::State& state) {
  diff(state, {32, 56, 56, 256}, false);
}

BENCHMARK(BM_ScanLayerNHWC)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanLayerNCHW)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScanSmallNHWC)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ScanSmallNCHW)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DiffLayerNHWC)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DiffLayerNCHW)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bnscope

BENCHMARK_MAIN();
