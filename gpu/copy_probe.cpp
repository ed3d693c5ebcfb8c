#include "copy_probe.h"

#include <algorithm>
#include <chrono>

#include "device_memory.h"

namespace bnscope::gpu {

namespace {

// Seconds of one copy: device events where the runtime has a clock, the host clock otherwise.
double time_copy(DeviceRuntime& rt, void* dst, const void* src, std::size_t bytes, Stream s) {
  if (rt.has_device_clock()) {
    const Event start = rt.create_event(), stop = rt.create_event();
    rt.record(start, s);
    rt.copy_on_device(dst, src, bytes, s);
    rt.record(stop, s);
    rt.synchronize(s);
    const double t = rt.elapsed_seconds(start, stop);
    rt.destroy_event(start);
    rt.destroy_event(stop);
    return t;
  }
  const auto t0 = std::chrono::steady_clock::now();
  rt.copy_on_device(dst, src, bytes, s);
  rt.synchronize(s);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

DeviceCopy measure_device_copy(DeviceRuntime& rt, std::size_t bytes, int reps) {
  bytes = std::max<std::size_t>(bytes, 1);
  DeviceStream stream(rt);
  const Stream s = stream.get();
  DeviceBuffer src(rt, bytes), dst(rt, bytes);
  rt.fill_zero(src.get(), bytes, s);  // first touch, outside the timed copies
  rt.fill_zero(dst.get(), bytes, s);
  time_copy(rt, dst.get(), src.get(), bytes, s);
  double best = 0;
  for (int i = 0; i < std::max(reps, 1); ++i) {
    const double t = time_copy(rt, dst.get(), src.get(), bytes, s);
    if (t > 0 && (best == 0 || t < best)) best = t;
  }
  DeviceCopy c;
  c.emulated = !rt.has_device_clock();
  c.gbps = best > 0 ? 2.0 * static_cast<double>(bytes) / best / 1e9 : 0;
  return c;
}

}  // namespace bnscope::gpu
