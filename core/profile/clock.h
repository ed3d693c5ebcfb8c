#pragma once
// The clock the profiler reads, injectable so timing statistics can be tested on a fake clock.

#include <chrono>
#include <functional>

namespace bnscope {

// Seconds since an arbitrary epoch; only differences matter.
using Clock = std::function<double()>;

inline double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace bnscope
