#pragma once
// What the CPU benchmarks (ours and oneDNN's) share, so that their numbers mean the same thing:
// the environment knobs, the copy probe, the rate counters and the main().

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/host_caches.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/simd.h"
#include "profile/copy_bandwidth.h"
#include "tensor/error.h"

namespace bnscope {

inline int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

// BNSCOPE_BENCH_THREADS, default 2: the cpu backend's thread count and the copy probe's.
inline int bench_threads() {
  static const int threads = env_int("BNSCOPE_BENCH_THREADS", 2);
  return threads;
}

// A non-temporal copy of BNSCOPE_BENCH_COPY_MIB (default 1024) MiB, measured once a process.
inline double copy_bandwidth() {
  static const double bw = measure_copy_bandwidth(
      bench_threads(), static_cast<std::size_t>(env_int("BNSCOPE_BENCH_COPY_MIB", 1024)) << 20);
  return bw;
}

// Two arrays of half the copy probe's size read side by side (the reduce pass's traffic),
// measured once a process.
inline double read_bandwidth() {
  static const double bw = measure_read_bandwidth(
      bench_threads(), static_cast<std::size_t>(env_int("BNSCOPE_BENCH_COPY_MIB", 1024)) << 19);
  return bw;
}

// Two arrays read and their sum streamed to a third, each half the copy probe's size (a single
// sweep's traffic), measured once a process.
inline double stream_bandwidth() {
  static const double bw = measure_stream_bandwidth(
      bench_threads(), static_cast<std::size_t>(env_int("BNSCOPE_BENCH_COPY_MIB", 1024)) << 19);
  return bw;
}

// The copy probe again, in two arrays of BNSCOPE_BENCH_ADJACENT_MIB (default 128, 0: none) MiB
// kept for the whole process, run right after each repetition of a case (set_rate_counters):
// about 15 ms, within a tenth of a second of the runs it divides. On a shared host the bandwidth
// other guests leave moves by up to 2x over minutes (copy probes of 51-95 GB/s in one hour on the
// Zen 5 EPYC, docs/performance-zen5-avx512.md), so the probe taken once before all cases can be
// from another moment than the case; this one cannot be far from the case's. 0 when off.
inline double adjacent_copy_bandwidth() {
  static const int mib = env_int("BNSCOPE_BENCH_ADJACENT_MIB", 128);
  if (mib <= 0) return 0;
  static CopyProbe probe(bench_threads(), static_cast<std::size_t>(mib) << 20);
  return probe.measure();
}

// GBps, frac_copy and copy_GBps for `bytes` moved per iteration over `seconds` in total, and the
// same fraction against the adjacent probe (frac_copy_adj, copy_adj_GBps); the names
// scripts/peer_merge.py reads. Called after the timed loop, so the probe is not in the case's time.
inline void set_rate_counters(benchmark::State& state, double bytes, double seconds) {
  const double rate = bytes * static_cast<double>(state.iterations()) / seconds;
  state.counters["GBps"] = rate / 1e9;
  state.counters["frac_copy"] = rate / copy_bandwidth();
  state.counters["copy_GBps"] = copy_bandwidth() / 1e9;
  if (const double adjacent = adjacent_copy_bandwidth(); adjacent > 0) {
    state.counters["frac_copy_adj"] = rate / adjacent;
    state.counters["copy_adj_GBps"] = adjacent / 1e9;
  }
}

// Wall-clock time in milliseconds: the threads of a multithreaded run must count.
template <typename Fn>
void register_timed(const std::string& name, Fn fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::move(fn))
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

// The host each JSON was measured on, in its context: caches as the cpu backend reads them, the
// vector target it dispatches to and the copy probe (measured here, before any case).
inline void add_host_context() {
  benchmark::AddCustomContext("bnscope_host_caches", cpu::describe(cpu::host_caches()));
  benchmark::AddCustomContext("bnscope_simd_target", cpu::simd::target_name());
  benchmark::AddCustomContext("bnscope_copy_GBps", std::to_string(copy_bandwidth() / 1e9));
  benchmark::AddCustomContext("bnscope_threads", std::to_string(bench_threads()));
}

// --host: prints what add_host_context records and the read and stream probes (measured only
// here: the cases are divided by the copy probe), one "key: value" a line, and runs nothing.
inline int bench_main(int argc, char** argv, void (*register_all)()) {
  try {
    check_cpu_backend_variables();
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 2;
  }
  if (argc == 2 && std::string(argv[1]) == "--host") {
    std::printf(
        "caches: %s\nsimd_target: %s\nthreads: %d\ncopy_GBps: %.2f\nread_GBps: %.2f\n"
        "stream_GBps: %.2f\n",
        cpu::describe(cpu::host_caches()).c_str(), cpu::simd::target_name(), bench_threads(),
        copy_bandwidth() / 1e9, read_bandwidth() / 1e9, stream_bandwidth() / 1e9);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  add_host_context();
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace bnscope
