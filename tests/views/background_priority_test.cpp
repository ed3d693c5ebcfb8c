// A background job's thread lowers its priority once, and the threads it starts inherit it.
#include "background_priority.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

namespace bnscope {
namespace {

int own_nice() {
  return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
}

TEST(BackgroundPriority, LowersTheCallingThreadOnceAndItsNewThreadsInherit) {
  const int before = own_nice();
  const int lowest = 19;  // the nice value cannot go past it
  if (before >= lowest) GTEST_SKIP() << "this process already runs at the lowest priority";
  int after_first = 0, after_second = 0, child = 0;
  std::thread job([&] {
    yield_to_ui_thread();
    after_first = own_nice();
    yield_to_ui_thread();  // a pool thread runs many jobs: only the first lowers it
    after_second = own_nice();
    std::thread part([&] { child = own_nice(); });
    part.join();
  });
  job.join();
  EXPECT_GT(after_first, before);
  EXPECT_EQ(after_first, std::min(lowest, before + 5));
  EXPECT_EQ(after_second, after_first);
  EXPECT_EQ(child, after_first);
  EXPECT_EQ(own_nice(), before) << "the UI thread keeps its priority";
}

}  // namespace
}  // namespace bnscope
