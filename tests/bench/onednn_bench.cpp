// oneDNN batch-normalization backward on the shapes of bench_cases.h, the peer for the cpu
// backend (TensorFlow's x86 CPU kernels rewrite FusedBatchNormGrad to oneDNN by default).
//
// Same counters as bnscope_bench (GBps under the minimum-traffic model, frac_copy against the
// same copy probe) so scripts/peer_merge.py joins the two by name. Outputs are preallocated;
// only execute() + wait() is timed. Threads: oneDNN uses OpenMP, so set OMP_NUM_THREADS (the
// copy probe uses BNSCOPE_BENCH_THREADS; scripts/peer_bench.sh sets both). NCHW shapes are run
// in plain nchw and also in oneDNN's own blocked nChw16c ("NCHW16c", reorders not timed).
// f16 has no oneDNN batch-norm in this version; GlobalNormalizationGrad maps to
// use_global_stats (frozen) with the same traffic.

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <dnnl.hpp>
#include <string>
#include <unordered_map>

#include "bench_cases.h"
#include "bench_util.h"

namespace bnscope {
namespace {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

void fill(dnnl::memory& m, float lo, float hi) {
  const std::size_t bytes = m.get_desc().get_size();
  auto* p = static_cast<unsigned char*>(m.get_data_handle());
  if (m.get_desc().data_type() == dt::f32) {
    float* f = reinterpret_cast<float*>(p);
    for (std::size_t i = 0; i < bytes / 4; ++i) f[i] = lo + (hi - lo) * float(i % 1009) / 1009.f;
  } else {  // bf16: upper half of the float
    auto* h = reinterpret_cast<std::uint16_t*>(p);
    for (std::size_t i = 0; i < bytes / 2; ++i) {
      float f = lo + (hi - lo) * float(i % 1009) / 1009.f;
      std::uint32_t u;
      std::memcpy(&u, &f, 4);
      h[i] = static_cast<std::uint16_t>(u >> 16);
    }
  }
}

void run_case(benchmark::State& state, const BenchCase& c, tag layout) {
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const Shape& x = c.shape;
  const dnnl::memory::dims dims = {x[0], x[3], x[1], x[2]};
  const dt type = c.dtype == DType::BF16 ? dt::bf16 : dt::f32;
  const dnnl::memory::desc data_md(dims, type, layout);
  auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
  if (!c.training) flags = flags | dnnl::normalization_flags::use_global_stats;
  const float eps = 1e-3f;
  dnnl::batch_normalization_forward::primitive_desc fwd(
      {dnnl::prop_kind::forward_training, data_md, eps, flags}, eng);
  dnnl::batch_normalization_backward::primitive_desc bwd(
      {dnnl::prop_kind::backward, data_md, data_md, eps, flags}, eng, fwd);
  dnnl::memory src(bwd.src_desc(), eng), ddst(bwd.diff_dst_desc(), eng),
      dsrc(bwd.diff_src_desc(), eng);
  dnnl::memory mean(bwd.mean_desc(), eng), var(bwd.variance_desc(), eng);
  const dnnl::memory::desc c_md({x[3]}, dt::f32, tag::a);
  dnnl::memory scale(c_md, eng), shift(c_md, eng), dscale(c_md, eng), dshift(c_md, eng);
  fill(src, -1, 3);
  fill(ddst, -1, 1);
  fill(mean, 0.9f, 1.1f);
  fill(var, 1.2f, 1.4f);
  fill(scale, 0.5f, 1.5f);
  fill(shift, 0, 0);
  fill(dsrc, 0, 0);
  std::unordered_map<int, dnnl::memory> args = {
      {DNNL_ARG_SRC, src},       {DNNL_ARG_DIFF_DST, ddst},     {DNNL_ARG_MEAN, mean},
      {DNNL_ARG_VARIANCE, var},  {DNNL_ARG_SCALE, scale},       {DNNL_ARG_SHIFT, shift},
      {DNNL_ARG_DIFF_SRC, dsrc}, {DNNL_ARG_DIFF_SCALE, dscale}, {DNNL_ARG_DIFF_SHIFT, dshift}};
  dnnl::batch_normalization_backward prim(bwd);
  prim.execute(strm, args);  // warm-up
  strm.wait();
  double seconds = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    prim.execute(strm, args);
    strm.wait();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const double elem = static_cast<double>(x[0] * x[1] * x[2] * x[3]);
  const double bytes = 3.0 * elem * (type == dt::f32 ? 4 : 2);
  set_rate_counters(state, bytes, seconds);
  state.SetLabel(bwd.impl_info_str());
}

void run_or_skip(benchmark::State& state, const BenchCase& c, tag layout) {
  try {
    run_case(state, c, layout);
  } catch (const dnnl::error& e) {
    state.SkipWithError((std::string("oneDNN: ") + e.what()).c_str());
  }
}

void register_all() {
  for (const BenchCase& c : bench_cases()) {
    if (c.dtype == DType::F16) continue;
    const tag layout = c.nchw ? tag::nchw : tag::nhwc;
    register_timed("onednn/" + case_name(c),
                   [c, layout](benchmark::State& st) { run_or_skip(st, c, layout); });
    if (c.nchw) {
      std::string blocked = "onednn/" + case_name(c);
      blocked.replace(blocked.find("/NCHW/"), 6, "/NCHW16c/");
      register_timed(blocked, [c](benchmark::State& st) { run_or_skip(st, c, tag::nChw16c); });
    }
  }
}

}  // namespace
}  // namespace bnscope

int main(int argc, char** argv) {
  return bnscope::bench_main(argc, argv, bnscope::register_all);
}
