// A framework worker that is killed, hangs or is cancelled gives a clear error, and the next run
// starts a fresh worker. The worker is found as a child process of the test (its command line
// names bnscope_worker) and stopped with signals from outside, as a crash or a hang would.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "backends/backend.h"
#include "backends/frameworks/python_choice.h"
#include "engine/engine.h"
#include "ops/sample.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

std::string test_python() {
  if (const char* env = std::getenv("BNSCOPE_PYTHON"); env && *env) return env;
  return BNSCOPE_TEST_PYTHON;
}

// The pids of this process's children whose command line holds `word`.
std::vector<pid_t> children_with(const std::string& word) {
  std::vector<pid_t> out;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream f(task.path() / "children");
    pid_t pid;
    while (f >> pid) {
      std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline");
      std::string text((std::istreambuf_iterator<char>(cmd)), {});
      for (char& c : text)
        if (c == '\0') c = ' ';
      if (text.find(word) != std::string::npos) out.push_back(pid);
    }
  }
  return out;
}

class WorkerFailure : public ::testing::Test {
 protected:
  void SetUp() override {
    set_framework_python(test_python());
    backend_ = BackendRegistry::instance().find("torch");
    ASSERT_NE(backend_, nullptr);
    if (const std::string why = backend_->unavailable_reason(); !why.empty())
      GTEST_SKIP() << "torch backend unavailable: " << why;
    SampleSpec spec;
    spec.shape = {4, 6, 6, 8};
    prepared_ = prepare(random_problem(spec));
    // A Python whose torch is found but does not import (an install still under way) is no
    // worker to test.
    try {
      run();
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Unavailable) GTEST_SKIP() << e.what();
      throw;
    }
  }
  void TearDown() override { unsetenv("BNSCOPE_WORKER_TIMEOUT"); }

  Result run(const RunContext& ctx = {}) { return run_prepared(prepared_, *backend_, ctx); }
  pid_t worker() {
    const auto pids = children_with("bnscope_worker torch cpu");
    EXPECT_EQ(pids.size(), 1u);
    return pids.empty() ? -1 : pids[0];
  }
  std::string error_of(const RunContext& ctx = {}) {
    try {
      run(ctx);
    } catch (const Error& e) {
      code_ = e.code();
      return e.what();
    }
    return "no error";
  }

  // A fresh worker is sent every input again: the same bits come back.
  static bool same_first_output(const Result& a, const Result& b) {
    const Tensor& x = a.outputs[0].tensor;
    const Tensor& y = b.outputs[0].tensor;
    return x.nbytes() == y.nbytes() && std::memcmp(x.raw(), y.raw(), x.nbytes()) == 0;
  }

  Backend* backend_ = nullptr;
  Prepared prepared_;
  ErrorCode code_ = ErrorCode::Internal;
};

TEST_F(WorkerFailure, AKilledWorkerIsNamedAndTheNextRunStartsAFreshOne) {
  const Result first = run();
  const pid_t pid = worker();
  ASSERT_GT(pid, 0);
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  const std::string msg = error_of();
  EXPECT_NE(msg.find("torch worker"), std::string::npos) << msg;
  EXPECT_NE(msg.find("killed by SIGKILL"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the next run starts a fresh worker"), std::string::npos) << msg;
  const Result again = run();
  EXPECT_NE(worker(), pid);
  EXPECT_TRUE(same_first_output(again, first));
}

TEST_F(WorkerFailure, AHangingWorkerIsStoppedAtTheTimeLimit) {
  run();
  const pid_t pid = worker();
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);
  setenv("BNSCOPE_WORKER_TIMEOUT", "1", 1);
  const std::string msg = error_of();
  EXPECT_NE(msg.find("did not answer within 1000 ms and was stopped"), std::string::npos) << msg;
  unsetenv("BNSCOPE_WORKER_TIMEOUT");
  EXPECT_EQ(::kill(pid, 0), -1);  // gone: killed and reaped
  run();
  EXPECT_NE(worker(), pid);
}

TEST_F(WorkerFailure, ACancelEndsTheWaitOnAHangingWorker) {
  run();
  const pid_t pid = worker();
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);
  std::atomic<bool> cancel{false};
  RunContext ctx;
  ctx.cancel = &cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = error_of(ctx);
  canceller.join();
  EXPECT_EQ(code_, ErrorCode::Cancelled) << msg;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
  run();
  EXPECT_NE(worker(), pid);
}

// A fresh worker's inputs are written while it imports its framework: a cancel in that wait
// ends the run (the writing joined, nothing left half sent), and the next run starts afresh.
TEST_F(WorkerFailure, ACancelWhileTheWorkerStartsEndsTheRunAndTheNextStartsAfresh) {
  const Result first = run();
  const pid_t pid = worker();
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  error_of();  // the killed worker is found and forgotten
  std::atomic<bool> cancel{false};
  RunContext ctx;
  ctx.cancel = &cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // PyTorch imports for seconds
    cancel = true;
  });
  const std::string msg = error_of(ctx);
  canceller.join();
  EXPECT_EQ(code_, ErrorCode::Cancelled) << msg;
  EXPECT_NE(msg.find("run cancelled"), std::string::npos) << msg;
  const Result again = run();
  EXPECT_NE(worker(), pid);
  EXPECT_TRUE(same_first_output(again, first));
}

TEST_F(WorkerFailure, AMissingPythonIsUnavailableNotACrash) {
  set_framework_python("/nonexistent/python3");
  const std::string why = backend_->unavailable_reason();
  EXPECT_NE(why.find("cannot start /nonexistent/python3"), std::string::npos) << why;
  set_framework_python(test_python());
}

}  // namespace
}  // namespace bnscope
