#pragma once
// The clock the profiler reads, injectable so timing statistics can be tested on a fake clock;
// and the one spelling of a wall-clock time in what bnscope writes.

#include <chrono>
#include <functional>
#include <string>

namespace bnscope {

// Seconds since an arbitrary epoch; only differences matter.
using Clock = std::function<double()>;

inline double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ISO 8601 UTC to the second, "2026-01-31T12:00:00Z": how a report and a roofline say when.
std::string iso8601_utc(std::chrono::system_clock::time_point t);

}  // namespace bnscope
