#pragma once
// A capture swept layer by layer: each layer's problem goes through the one pipeline
// (analysis/pipeline.h) on every backend and is compared with TensorFlow's recorded outputs or
// with a backend. A layer whose file cannot be read or run gets its error in its row; the others
// still run. Plain data for the CLI's table, its JSON and the app.

#include <functional>
#include <string>
#include <vector>

#include "analysis/pipeline.h"
#include "io/capture_folder.h"

namespace bnscope {

inline constexpr const char* kAgainstTensorFlow = "tf";

struct SweepRequest {
  std::vector<std::string> backends;  // empty: cpu-reference and cpu
  // "tf" (TensorFlow's outputs recorded in each layer file) or a backend name. Empty: "tf" when
  // the manifest lists recorded outputs, else cpu-reference.
  std::string against;
  DiffOptions diff;
  bool find_causes = true;
};

// One output of one layer, worst over every candidate backend.
struct SweepOutput {
  std::string name;
  bool compared = false;
  double max_abs = 0;
  std::uint64_t max_ulp = 0;
  bool passed = true;
};

struct SweepRow {
  CaptureLayer layer;
  std::string shape;  // of x, e.g. [4,8,8,3]
  std::string dtype;  // of x
  std::string error;  // non-empty: the layer could not be read or run; nothing else is set
  PipelineResult result;
  std::vector<SweepOutput> outputs;
  std::vector<std::string> failing;  // candidate backends that disagree
  double worst_ratio = 0;            // worst tolerance ratio over candidates; <= 1 passes

  bool broken() const { return !error.empty(); }
  bool passed() const { return !broken() && result.passed(); }
  std::string verdict() const;       // "agree", "DISAGREE (cpu)", "BROKEN"
  std::string likely_cause() const;  // best cause's title, or "" / a short why
};

struct SweepResult {
  Capture capture;
  std::string reference;  // "tf" or a backend
  std::vector<std::string> backends;
  std::vector<SweepRow> rows;  // manifest order

  int agreeing() const;
  int disagreeing() const;
  int broken() const;
  bool passed() const { return agreeing() == static_cast<int>(rows.size()); }
  // Row indices, broken first, then by worst tolerance ratio, largest first; ties in model order.
  std::vector<std::size_t> worst_first() const;
};

// Called before each layer runs (done = layers finished so far).
using SweepProgress =
    std::function<void(std::size_t done, std::size_t total, const std::string& layer)>;

// The request is checked first (backends known, against resolvable): Error on bad input.
SweepResult run_sweep(const Capture& capture, const SweepRequest& request,
                      const SweepProgress& progress = {}, const RunContext& ctx = {});

}  // namespace bnscope
