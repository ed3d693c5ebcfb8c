#include "phase_timer.h"

namespace bnscope::gpu {

PhaseTimer::PhaseTimer(DeviceRuntime& rt, std::string_view op, std::string_view backend, Stream s)
    : rt_(rt),
      prefix_("bnscope/" + std::string(op) + "/" + std::string(backend) + "/"),
      stream_(s) {}

PhaseTimer::~PhaseTimer() {
  if (open_) rt_.range_pop();
  for (Phase& p : phases_) {
    if (p.start) rt_.destroy_event(p.start);
    if (p.stop) rt_.destroy_event(p.stop);
  }
}

void PhaseTimer::begin_phase(const std::string& phase) {
  if (open_) end();  // phases do not nest
  rt_.range_push(prefix_ + phase);
  open_ = true;
  if (!rt_.has_device_clock()) return;
  Phase p;
  p.name = phase;
  phases_.push_back(p);
  Phase& back = phases_.back();
  back.start = rt_.create_event();
  back.stop = rt_.create_event();
  rt_.record(back.start, stream_);
}

void PhaseTimer::end() {
  if (!open_) return;
  open_ = false;
  rt_.range_pop();
  if (rt_.has_device_clock()) rt_.record(phases_.back().stop, stream_);
}

void PhaseTimer::finish(Result& result) {
  end();
  rt_.synchronize(stream_);
  for (const Phase& p : phases_)
    result.timings.push_back({p.name, rt_.elapsed_seconds(p.start, p.stop)});
}

}  // namespace bnscope::gpu
