#pragma once
// Named ranges "bnscope/<op>/<backend>/<phase>" and device-clock timings around every upload,
// kernel and download of a run; finish() appends them to Result::timings as "upload",
// "kernel:<name>", "download". On a runtime without a device clock (the emulator) it records
// nothing: host time is never reported as device time.

#include <string>
#include <vector>

#include "device_runtime.h"
#include "ops/result.h"

namespace bnscope::gpu {

class PhaseTimer : public PhaseHooks {
 public:
  PhaseTimer(DeviceRuntime& rt, std::string_view op, std::string_view backend, Stream s);
  ~PhaseTimer() override;
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

  void begin(const char* kernel) override { begin_phase("kernel:" + std::string(kernel)); }
  void end() override;
  void begin_phase(const std::string& phase);  // "upload", "download", ...
  // Waits for the stream and appends the timings.
  void finish(Result& result);

 private:
  struct Phase {
    std::string name;
    Event start = nullptr;
    Event stop = nullptr;
  };
  DeviceRuntime& rt_;
  std::string prefix_;
  Stream stream_;
  std::vector<Phase> phases_;
  bool open_ = false;
};

// Opens phase on construction and closes it on scope exit.
class PhaseScope {
 public:
  PhaseScope(PhaseTimer& t, const std::string& phase) : t_(t) { t_.begin_phase(phase); }
  ~PhaseScope() {
    try {
      t_.end();
    } catch (...) {  // an unwinding run already carries the first error
    }
  }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  PhaseTimer& t_;
};

}  // namespace bnscope::gpu
