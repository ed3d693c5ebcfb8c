// The data_format change on a real layer: x and y_backprop of ResNet-50's first bottleneck at
// batch 32 (32x56x56x256, 98 MiB each) moved between NHWC and NCHW. In place the way the app's
// controller calls it (views/problem_controller_layout.cpp): one call per tensor, threads taking
// the next element as they finish one, through one batch element of scratch per thread that is
// already faulted in. The copying move (to_channels_first / to_channels_last) allocates its output
// as the app's fallback does. A plain copy of the same bytes is the yardstick.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "tensor/layout.h"
#include "tensor/parallel.h"

namespace bnscope {
namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// BNSCOPE_BENCH_THREADS, default every usable CPU (the app's choice).
int threads() {
  static const int t =
      env_int("BNSCOPE_BENCH_THREADS", 0) > 0 ? env_int("BNSCOPE_BENCH_THREADS", 0) : usable_cpus();
  return t;
}

const Shape kLayer{32, 56, 56, 256};

Tensor filled(DType dtype, const Shape& shape) {
  Tensor t = Tensor::uninitialized(dtype, shape);
  auto* p = static_cast<unsigned char*>(t.raw());
  for (std::size_t i = 0; i < t.nbytes(); ++i) p[i] = static_cast<unsigned char>(i * 131 + 7);
  return t;
}

void set_rate(benchmark::State& state, std::size_t bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
}

// Both tensors, the controller's loop: steps of max(2, threads) batch elements.
void BM_InPlace(benchmark::State& state, DType dtype, bool to_first) {
  const Shape nhwc = kLayer;
  const Shape shape = to_first ? nhwc : channel_axis_moved(nhwc, true);
  std::vector<Tensor> work{filled(dtype, shape), filled(dtype, shape)};
  const int t = threads();
  // The app's scratch is a spare output tensor: the same allocation (huge pages) as the data.
  Tensor spare = filled(dtype, {t, shape[1], shape[2], shape[3]});
  const std::span<std::byte> scratch(static_cast<std::byte*>(spare.raw()), spare.nbytes());
  const std::atomic<bool> stop{false};
  for (auto _ : state) {
    for (const Tensor& w : work)
      move_channel_axis_in_place_until(w, to_first, 0, w.dim(0), &stop, t, scratch);
    benchmark::ClobberMemory();
  }
  set_rate(state, 2 * work[0].nbytes());
}

void BM_MoveAxis(benchmark::State& state, DType dtype, bool to_first) {
  const Tensor in = filled(dtype, to_first ? kLayer : channel_axis_moved(kLayer, true));
  for (auto _ : state) {
    Tensor out = to_first ? to_channels_first(in, threads()) : to_channels_last(in, threads());
    benchmark::DoNotOptimize(out.raw());
  }
  set_rate(state, in.nbytes());
}

// The same bytes as BM_InPlace, copied in place's pattern: one element aside and back.
void BM_CopyBothWays(benchmark::State& state) {
  std::vector<Tensor> work{filled(DType::F32, kLayer), filled(DType::F32, kLayer)};
  const std::size_t element = work[0].nbytes() / static_cast<std::size_t>(kLayer[0]);
  const int t = threads();
  Tensor spare = filled(DType::F32, {t, kLayer[1], kLayer[2], kLayer[3]});
  const std::span<std::byte> scratch(static_cast<std::byte*>(spare.raw()), spare.nbytes());
  for (auto _ : state) {
    for (const Tensor& w : work) {
      auto* data = const_cast<std::byte*>(static_cast<const std::byte*>(w.raw()));
      std::vector<std::thread> pool;
      for (int k = 0; k < t; ++k)
        pool.emplace_back([&, k] {
          for (std::int64_t b = k; b < kLayer[0]; b += t) {
            std::byte* item = data + static_cast<std::size_t>(b) * element;
            std::byte* aside = scratch.data() + static_cast<std::size_t>(k) * element;
            std::memcpy(aside, item, element);
            std::memcpy(item, aside, element);
          }
        });
      for (std::thread& th : pool) th.join();
    }
    benchmark::ClobberMemory();
  }
  set_rate(state, 2 * work[0].nbytes());
}

// The floor: the same bytes copied once into another buffer whose pages are already in.
void BM_PlainCopy(benchmark::State& state) {
  const std::vector<Tensor> from{filled(DType::F32, kLayer), filled(DType::F32, kLayer)};
  std::vector<Tensor> to{filled(DType::F32, kLayer), filled(DType::F32, kLayer)};
  const int t = threads();
  for (auto _ : state) {
    for (std::size_t i = 0; i < from.size(); ++i) {
      const auto* src = static_cast<const std::byte*>(from[i].raw());
      auto* dst = static_cast<std::byte*>(to[i].raw());
      const std::size_t n = from[i].nbytes();
      std::vector<std::thread> pool;
      for (int k = 0; k < t; ++k)
        pool.emplace_back([&, k] {
          const std::size_t b = n * static_cast<std::size_t>(k) / static_cast<std::size_t>(t);
          const std::size_t e = n * static_cast<std::size_t>(k + 1) / static_cast<std::size_t>(t);
          std::memcpy(dst + b, src + b, e - b);
        });
      for (std::thread& th : pool) th.join();
    }
    benchmark::ClobberMemory();
  }
  set_rate(state, 2 * from[0].nbytes());
}

void register_all() {
  const auto reg = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)
        ->UseRealTime()
        ->MeasureProcessCPUTime()
        ->Unit(benchmark::kMillisecond)
        ->MinTime(0.5)
        // The host is shared: the fastest repetition shows the code, the median the day.
        ->ComputeStatistics("min", [](const std::vector<double>& v) {
          return *std::min_element(v.begin(), v.end());
        });
  };
  for (const DType d : {DType::F32, DType::F16, DType::F64})
    for (const bool to_first : {true, false}) {
      const std::string suffix = std::string(dtype_name(d)) + (to_first ? "/to_first" : "/to_last");
      reg("InPlaceTwoTensors/" + suffix,
          [d, to_first](benchmark::State& s) { BM_InPlace(s, d, to_first); });
      if (d == DType::F32)
        reg("MoveAxis/" + suffix,
            [d, to_first](benchmark::State& s) { BM_MoveAxis(s, d, to_first); });
    }
  reg("CopyAsideAndBack/float32", BM_CopyBothWays);
  reg("PlainCopy/float32", BM_PlainCopy);
}

}  // namespace
}  // namespace bnscope

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  bnscope::register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
