// A plugin that crashes, aborts, hangs or writes out of bounds costs one run: the error names the
// plugin, the signal or fault, the function and the variant, and the next run gets a fresh helper.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "engine/engine.h"
#include "plugin/plugin_backend.h"
#include "plugin/plugin_helper.h"
#include "plugin_test_util.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

using test::plugin_path;

class PluginIsolation : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = make_plugin_backend(make_helper_transport(plugin_path("plugin_misbehaving")));
  }
  // The error of a run with this epsilon; "" when it succeeded.
  std::string run_error(double epsilon, const RunContext& ctx = {}) {
    try {
      run_prepared(prepare(test::misbehaving_problem(epsilon)), *backend_, ctx);
    } catch (const Error& e) {
      code_ = e.code();
      return e.what();
    }
    return "";
  }
  std::unique_ptr<Backend> backend_;
  ErrorCode code_ = ErrorCode::Internal;
};

TEST_F(PluginIsolation, SegfaultNamesSignalFunctionAndVariantAndTheNextRunWorks) {
  EXPECT_EQ(run_error(test::kEpsFine), "");
  const std::string why = run_error(test::kEpsSegv);
  EXPECT_NE(why.find("plugin misbehaving crashed: SIGSEGV in run() of FusedBatchNormGradV3 NHWC "
                     "float32"),
            std::string::npos)
      << why;
  EXPECT_EQ(run_error(test::kEpsFine), "");  // a fresh helper
  EXPECT_NE(run_error(test::kEpsSegv).find("SIGSEGV"), std::string::npos);
}

TEST_F(PluginIsolation, AbortIsSigabrt) {
  const std::string why = run_error(test::kEpsAbort);
  EXPECT_NE(why.find("plugin misbehaving crashed: SIGABRT in run() of"), std::string::npos) << why;
  EXPECT_EQ(run_error(test::kEpsFine), "");
}

TEST_F(PluginIsolation, HangIsStoppedAtTheTimeLimit) {
  ::setenv("BNSCOPE_PLUGIN_TIMEOUT", "0.5", 1);
  const std::string why = run_error(test::kEpsHang);
  ::unsetenv("BNSCOPE_PLUGIN_TIMEOUT");
  EXPECT_NE(why.find("did not return from run() of FusedBatchNormGradV3 NHWC float32 within 0.5"),
            std::string::npos)
      << why;
  EXPECT_EQ(run_error(test::kEpsFine), "");
}

TEST_F(PluginIsolation, HangIsCancelled) {
  std::atomic<bool> cancel{false};
  RunContext ctx;
  ctx.cancel = &cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  const std::string why = run_error(test::kEpsHang, ctx);
  stopper.join();
  EXPECT_EQ(code_, ErrorCode::Cancelled) << why;
  EXPECT_NE(why.find("cancelled"), std::string::npos) << why;
  EXPECT_EQ(run_error(test::kEpsFine), "");
}

TEST_F(PluginIsolation, WritePastTheEndOfAnOutputFaults) {
  const std::string why = run_error(test::kEpsPastEnd);
  EXPECT_NE(why.find("crashed: SIGSEGV in run() of"), std::string::npos) << why;
}

TEST_F(PluginIsolation, WriteBeforeTheStartOfAnOutputIsNamed) {
  const std::string why = run_error(test::kEpsBeforeStart);
  EXPECT_NE(why.find("plugin misbehaving wrote before the start of output x_backprop"),
            std::string::npos)
      << why;
}

TEST_F(PluginIsolation, WriteIntoAnInputFaults) {
  const std::string why = run_error(test::kEpsIntoInput);
  EXPECT_NE(why.find("crashed: SIGSEGV in run() of"), std::string::npos) << why;
}

TEST_F(PluginIsolation, ErrorStatusCarriesThePluginsMessage) {
  const std::string why = run_error(test::kEpsError);
  EXPECT_NE(why.find("plugin misbehaving failed: planted error for FusedBatchNormGradV3"),
            std::string::npos)
      << why;
  EXPECT_EQ(run_error(test::kEpsFine), "");  // the helper survived
}

TEST(PluginInProcess, RunsTheSameKernelInThisProcess) {
  auto b = make_plugin_backend(make_in_process_transport(plugin_path("plugin_misbehaving")));
  const Result r = run_prepared(prepare(test::misbehaving_problem(test::kEpsFine)), *b);
  EXPECT_EQ(r.backend, "misbehaving");
  try {
    run_prepared(prepare(test::misbehaving_problem(test::kEpsError)), *b);
    ADD_FAILURE() << "the planted error did not come back";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("planted error"), std::string::npos);
  }
}

}  // namespace
}  // namespace bnscope
