#pragma once
// The cpu backend's pass structures and their memory traffic in tensor passes (reads or writes
// of an x-sized tensor; every grad needs at least 3: x, dy, dx):
//   grad_two_pass.cpp  reduce pass, then write pass: training grads whose channel data cannot
//                      stay cached between the two; 5 passes. Also the forward's statistics.
//                      Its single_pass: freeze-mode and global grads, whose dx needs no
//                      reduction: sums and dx in one sweep, 3 passes.
//   grad_planes.cpp    channels-first training grads whose plane (or channel block) x+dy stays
//                      in a core's caches between reduction and write; 3 passes.
// planner.h picks the structure and the walks; each pass is timed as one phase (timed_pass). dx
// goes out non-temporally past the last-level cache (planner.h: stream_output). Every structure
// and walk gives the same bits for a shape, on any thread count (kernels.h).

#include <chrono>
#include <functional>
#include <type_traits>
#include <vector>

#include "backends/backend.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/planner.h"
#include "ops/prepared.h"
#include "tensor/item_queue.h"
#include "tensor/parallel.h"
#include "tensor/thread_pool.h"

// Applies M to every element type the cpu backend runs (explicit instantiations of the passes).
#define BNSCOPE_CPU_ELEMENT_TYPES(M) M(f16) M(bf16) M(float) M(double)

namespace bnscope::cpu {

struct Exec {
  ThreadPool* pool = nullptr;  // the core's (tensor/thread_pool.h: shared_pool)
  int threads = 1;
  Host host;  // what the walks are planned from (planner.h)
  const RunContext* ctx = nullptr;
  bool nt = false;             // stream outputs with non-temporal stores
  Scratch* scratch = nullptr;  // the backend's, kept from run to run (kernels.h: Scratch)
  // The run's phase timings (Result::timings): each pass appends one, timed from `origin`.
  std::vector<PhaseTiming>* timings = nullptr;
  std::chrono::steady_clock::time_point origin;
};

// Runs one pass and records it as the phase `name` (planner.h): two clock reads around the
// whole pass, nothing per element, so the profile costs the fast path nothing measurable.
template <class F>
decltype(auto) timed_pass(const Exec& ex, const char* name, F&& pass) {
  using clock = std::chrono::steady_clock;
  const clock::time_point start = clock::now();
  auto record = [&] {
    if (!ex.timings) return;
    const clock::time_point end = clock::now();
    ex.timings->push_back({name, std::chrono::duration<double>(end - start).count(),
                           std::chrono::duration<double>(start - ex.origin).count()});
  };
  if constexpr (std::is_void_v<std::invoke_result_t<F>>) {
    pass();
    record();
  } else {
    auto out = pass();
    record();
    return out;
  }
}

// One pass over a and b: per-chunk partial sums on all threads, then the fixed-order combine.
template <class T>
Totals reduce_pass(const Exec& ex, const Geometry& g, Sum kind, const T* a, const T* b,
                   const std::vector<Acc<T>>& center);

// One pass writing out = simd::affine(a, b, p, q, m, r) (the grad or, with normalize, the forward
// form); the coefficients are per channel ([C]). Each thread walks its items last first: where
// the reduce pass before it ended, so what that read last is still in the caches.
template <class T>
void write_pass(const Exec& ex, const Geometry& g, const T* a, const T* b, T* out,
                const Affine<Acc<T>>& per_channel);

// Coefficients p, q, r of a channel's output from its totals (m is the centre passed in).
using ChannelCoefs =
    std::function<void(std::int64_t c, double s0, double s1, double& p, double& q, double& r)>;

// Channels-first only: per channel, Grad sums over the plane, then out from coefs while the
// plane is cache-hot.
template <class T>
Totals planes_pass(const Exec& ex, const Geometry& g, const T* x, const T* dy, T* dx,
                   const std::vector<Acc<T>>& mean, const ChannelCoefs& coefs);

// Grad sums and dx = p*dy in the same sweep.
template <class T>
Totals single_pass(const Exec& ex, const Geometry& g, const T* x, const T* dy, T* dx,
                   const std::vector<Acc<T>>& mean, const std::vector<Acc<T>>& p);

// Between passes: tells the caller how far the run is (0..1) and honours a cancel request.
inline void between_passes(const Exec& ex, double done) {
  if (ex.ctx->progress) ex.ctx->progress(done);
  ex.ctx->check_cancel();
}

// Threads actually used for `items` independent work items.
inline int threads_for(const Exec& ex, std::int64_t items) {
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(ex.threads, items)));
}

// A pass's totals from its partials, the channels split among the threads in runs of 64 where
// there are many partials (each channel still adds its chunks in chunk order: the same bits),
// rather than on the caller's thread alone with the others waiting.
template <class A>
Totals combine(const Exec& ex, const Geometry& g, const Partials<A>& parts) {
  constexpr std::int64_t kRun = 64, kSerialPartials = std::int64_t{1} << 15;
  if (g.chunks * g.channels < kSerialPartials || ex.threads < 2) return parts.totals(g);
  Totals t = Partials<A>::zero_totals(g);
  const std::int64_t runs = (g.channels + kRun - 1) / kRun;
  const int n = threads_for(ex, runs);
  ex.pool->run(n, [&](int i) {
    const Span span = split_range(runs, n, i);
    parts.add_into(g, span.begin * kRun, std::min(g.channels, span.end * kRun), t);
  });
  return t;
}

// The ops: per-channel epilogues around the passes above. result holds allocate_outputs()'s
// tensors; these fill them.
void run_fused_grad(const Exec& ex, const Prepared& p, Result& result);
void run_global_grad(const Exec& ex, const Prepared& p, Result& result);
// T = half: TensorFlow's arithmetic, every step rounded to half (simd_global_half.cpp).
void run_global_grad_half(const Exec& ex, const Prepared& p, Result& result);
void run_fused_forward(const Exec& ex, const Prepared& p, Result& result);
void run_global_forward(const Exec& ex, const Prepared& p, Result& result);

template <class A>
std::vector<A> narrow(const std::vector<double>& v) {
  return std::vector<A>(v.begin(), v.end());
}

}  // namespace bnscope::cpu
