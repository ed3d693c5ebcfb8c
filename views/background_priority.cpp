#include "background_priority.h"

#include <cerrno>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace bnscope {

namespace {
// Enough for the UI thread to take about three quarters of a shared core, little enough that
// the job still gets its share next to other programs of normal priority.
constexpr int kNiceIncrement = 5;
}  // namespace

void yield_to_ui_thread() {
  thread_local bool lowered = false;
  if (lowered) return;
  lowered = true;
#if defined(__linux__)
  // On Linux the nice value belongs to the thread (its tid), not to the process.
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, tid);
  if (errno == 0) setpriority(PRIO_PROCESS, tid, now + kNiceIncrement);
#endif
}

}  // namespace bnscope
