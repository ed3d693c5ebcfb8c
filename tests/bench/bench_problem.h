#pragma once
// The problems the CPU benchmarks time (bnscope's alone and beside oneDNN's in turn): a case of
// bench_cases.h as a Problem with fixed pseudo-random inputs, and the check against cpu-reference
// that every timed case passes first.

#include <cstdint>
#include <map>
#include <string>

#include "analysis/diff.h"
#include "backends/backend.h"
#include "engine/engine.h"
#include "ops/outputs.h"
#include "ops/prepared.h"
#include "profile/profiler.h"

namespace bnscope {

// Fast deterministic fill: a 64-bit LCG mapped to [lo, hi).
inline Tensor filled(DType dtype, const Shape& shape, std::uint64_t seed, double lo, double hi) {
  Tensor f32(DType::F32, shape);
  float* d = f32.data<float>();
  std::uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (std::int64_t i = 0; i < f32.numel(); ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    d[i] = static_cast<float>(lo + (hi - lo) * static_cast<double>(s >> 40) / 16777216.0);
  }
  return dtype == DType::F32 ? f32 : f32.to(dtype);
}

struct Config {
  Shape nhwc;
  bool nchw;
  bool training;
  DType dtype;
  std::string backend;
  bool global = false;
};

inline Problem make_problem(const Config& cfg) {
  Problem pb;
  if (cfg.global) {
    const std::int64_t C = cfg.nhwc.back();
    pb.op = "BatchNormWithGlobalNormalizationGrad";
    pb.dtype = cfg.dtype;
    pb.set_attr("variance_epsilon", "0.001");
    pb.set_attr("scale_after_normalization", "true");
    pb.inputs["t"] = filled(cfg.dtype, cfg.nhwc, 1, -1.0, 3.0);
    pb.inputs["backprop"] = filled(cfg.dtype, cfg.nhwc, 2, -1.0, 1.0);
    pb.inputs["m"] = filled(cfg.dtype, {C}, 4, 0.9, 1.1);
    pb.inputs["v"] = filled(cfg.dtype, {C}, 5, 1.2, 1.4);
    pb.inputs["gamma"] = filled(cfg.dtype, {C}, 3, 0.5, 1.5);
    return pb;
  }
  pb.op = "FusedBatchNormGradV3";
  pb.dtype = cfg.dtype;
  pb.set_attr("data_format", cfg.nchw ? "NCHW" : "NHWC");
  pb.set_attr("is_training", cfg.training ? "true" : "false");
  Shape shape = cfg.nhwc;
  const std::int64_t C = shape.back();
  if (cfg.nchw) shape = {shape[0], C, shape[1], shape[2]};
  pb.inputs["x"] = filled(cfg.dtype, shape, 1, -1.0, 3.0);
  pb.inputs["y_backprop"] = filled(cfg.dtype, shape, 2, -1.0, 1.0);
  pb.inputs["scale"] = filled(DType::F32, {C}, 3, 0.5, 1.5);
  pb.inputs["reserve_space_1"] = filled(DType::F32, {C}, 4, 0.9, 1.1);
  pb.inputs["reserve_space_2"] = filled(DType::F32, {C}, 5, 1.2, 1.4);
  return pb;
}

// A case whose outputs disagree with cpu-reference is not timed. Checked once per case (Google
// Benchmark calls the body once per repetition), on the output of the warm-up run.
inline bool agrees_with_reference(const std::string& name, const Prepared& p, const Result& got) {
  static std::map<std::string, bool> checked;
  if (auto it = checked.find(name); it != checked.end()) return it->second;
  Result ref;
  allocate_outputs(p, ref);
  backend_or_throw("cpu-reference").run(p, ref, RunContext{});
  const bool ok =
      compare_results("cpu-reference", ref.outputs, "cpu", got.outputs, {}, &p.view).passed;
  return checked[name] = ok;
}

// A case on a CPU backend, ready to time: its problem prepared, its outputs allocated and reused,
// run once on `threads` threads (first touch of the outputs, pool start; after one run on
// `wide_first` threads where that is positive, as when the app or a check ran the backend on
// every CPU first) and, but for cpu-reference itself, checked against cpu-reference (`agrees`).
struct BackendCase {
  Backend& backend;
  const Prepared p;
  Result result;
  RunContext ctx;
  bool agrees = true;

  BackendCase(const Config& cfg, const std::string& name, int threads, int wide_first = 0)
      : backend(backend_or_throw(cfg.backend)), p(prepare(make_problem(cfg))) {
    allocate_outputs(p, result);
    if (wide_first > 0) {
      ctx.threads = wide_first;
      call();
    }
    ctx.threads = threads;
    call();
    if (cfg.backend != "cpu-reference") agrees = agrees_with_reference(name, p, result);
  }
  void call() { backend.run(p, result, ctx); }
};

}  // namespace bnscope
