#pragma once
// The interface every backend implements, and the registry the app and tests look them up in.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ops/prepared.h"
#include "ops/result.h"

namespace bnscope {

struct RunContext {
  const std::atomic<bool>* cancel = nullptr;  // polled between passes; throws Error(Cancelled)
  std::function<void(double)> progress;       // 0..1, may be empty
  int threads = 0;                            // 0: all hardware threads
  // The NaN/Inf count of a run's defined output, for a caller that reads that output in a pass
  // of its own anyway (the app's per-channel scan counts it there): the engine takes the count
  // from it instead of reading the output once more. nullopt leaves the count to the engine.
  std::function<std::optional<std::int64_t>(const Prepared&, const Result&, const OutputTensor&)>
      count_non_finite;

  bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
  void check_cancel() const;
};

// One phase of a backend's run, as it appears in Result::timings, for the views' tooltips and
// colours and the profile's byte counts.
struct PhaseInfo {
  std::string name;         // "pass:reduce", "upload", "kernel:<name>", ...
  std::string description;  // one line for the user
  int x_tensors = 0;        // x-sized tensors the phase reads or writes once each; 0: not modelled
  // 0: its family's colour (the name before ':'); 1, 2, ...: shades of its own, so that
  // neighbouring phases of one family are told apart on the timeline.
  int shade = 0;
};

// The phase of that name in a plan, or nullptr.
const PhaseInfo* find_phase(const std::vector<PhaseInfo>& plan, std::string_view name);

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  // Empty when the backend can run here; otherwise why not ("not built: ...", "no CUDA device").
  virtual std::string unavailable_reason() const { return {}; }
  // The accelerator it runs on, one line for reports (name, compute capability, memory); empty
  // for the CPU backends and where none is available.
  virtual std::string device() const { return {}; }
  // False where its timings are not the speed of what it stands for (an emulator's are the
  // emulation's): listed and runnable, but not profiled unless asked for.
  virtual bool measures_speed() const { return true; }
  // Empty when this backend runs the prepared problem; otherwise why not (a dtype or layout it
  // lacks). Asked before run(), so run() may assume support.
  virtual std::string unsupported_reason(const Prepared&) const { return {}; }
  // Fills result (allocate_outputs first); never validates, never prints. Not called for empty
  // inputs: the engine produces TensorFlow's empty result itself.
  virtual void run(const Prepared& p, Result& result, const RunContext& ctx) = 0;
  // One line for reports, the CLI's listing and the app's picker: what this backend runs on this
  // machine (vector target and caches; a framework's version, device and kernel path). Empty:
  // nothing to add.
  virtual std::string code_path() const { return {}; }
  // The phases a run of p with `threads` threads (0: all) makes, in order, as they appear in
  // Result::timings, each with a one-line description and its byte model; empty where not known
  // before the run.
  virtual std::vector<PhaseInfo> phase_plan(const Prepared& p, int threads) const {
    (void)p, (void)threads;
    return {};
  }
  // Throws Error on an environment variable of this backend set to a value it cannot take, so
  // that a command fails before its first run instead of running with a default.
  virtual void check_environment() const {}
};

class BackendRegistry {
 public:
  // Holds cpu-reference, cpu and the framework backends (backends/frameworks) from the start;
  // GPU backends are added by the app.
  static BackendRegistry& instance();
  void add(std::unique_ptr<Backend> backend);  // replaces one of the same name
  Backend* find(std::string_view name) const;
  std::vector<Backend*> all() const;
  std::string names_joined(std::string_view sep = ", ") const;
  // Backend::check_environment of every backend.
  void check_environment() const;

 private:
  BackendRegistry();
  std::vector<std::unique_ptr<Backend>> backends_;
};

// A backend known by name whose code is not in this build; it says so when asked to run.
std::unique_ptr<Backend> make_unavailable_backend(std::string name, std::string description,
                                                  std::string reason);

}  // namespace bnscope
