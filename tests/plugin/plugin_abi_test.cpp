// The plugin ABI's promises (include/bnscope/plugin.h): a newer plugin is refused with both
// versions named, an older one (smaller structs) loads and runs, a plugin built from the frozen
// copy of the first header keeps loading, and broken libraries get one clear line.
#include <gtest/gtest.h>

#include "analysis/conformance.h"
#include "bnscope/plugin.h"
#include "engine/engine.h"
#include "plugin/plugin_backend.h"
#include "plugin/plugin_helper.h"
#include "plugin_test_util.h"
#include "plugins.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

using test::plugin_path;

std::string load_error(const std::string& target, bool in_process) {
  try {
    if (in_process)
      make_in_process_transport(plugin_path(target));
    else
      make_helper_transport(plugin_path(target));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PluginAbi, NewerPluginIsRefusedWithBothVersions) {
  for (bool in_process : {false, true}) {
    const std::string why = load_error("plugin_newer", in_process);
    const std::string ours = std::to_string(BNSCOPE_PLUGIN_ABI_VERSION);
    const std::string theirs = std::to_string(BNSCOPE_PLUGIN_ABI_VERSION + 1);
    EXPECT_NE(why.find("plugin ABI " + theirs), std::string::npos) << why;
    EXPECT_NE(why.find("ABI " + ours), std::string::npos) << why;
    EXPECT_NE(why.find("newer"), std::string::npos) << why;
    EXPECT_NE(why.find("plugin_newer.so"), std::string::npos) << why;
  }
}

TEST(PluginAbi, PluginWithOlderSmallerStructsLoadsAndRuns) {
  auto t = make_helper_transport(plugin_path("plugin_older"));
  EXPECT_EQ(t->info().name, "older");
  ASSERT_EQ(t->info().kernels.size(), 1u);
  EXPECT_TRUE(t->info().kernels[0].has_supports);  // read from the members its size covers
  auto b = make_plugin_backend(std::move(t));
  const Prepared p = prepare(test::misbehaving_problem(test::kEpsFine));
  EXPECT_EQ(b->unsupported_reason(p), "");
  const Result r = run_prepared(p, *b);
  EXPECT_EQ(r.output("x_backprop").tensor.get(0), 0.0);
}

TEST(PluginAbi, PluginBuiltFromTheFrozenFirstHeaderKeepsLoading) {
  auto b = make_plugin_backend(make_helper_transport(plugin_path("plugin_frozen_v1")));
  EXPECT_EQ(b->name(), "example-c-abi-v1");
  SampleSpec spec;
  spec.shape = {2, 3, 4, 5};
  const Prepared p = prepare(random_problem(spec));
  ASSERT_EQ(b->unsupported_reason(p), "");
  const Result got = run_prepared(p, *b);
  const Result want = run_prepared(p, backend_or_throw("cpu-reference"));
  const std::vector<double> a = got.output("x_backprop").tensor.to_doubles(),
                            w = want.output("x_backprop").tensor.to_doubles();
  ASSERT_EQ(a.size(), w.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], w[i], 1e-4 + 1e-4 * std::abs(w[i]));
}

TEST(PluginAbi, MissingEntryPointIsNamed) {
  for (bool in_process : {false, true}) {
    const std::string why = load_error("plugin_no_entry", in_process);
    EXPECT_NE(why.find("has no bnscope_plugin_init"), std::string::npos) << why;
    EXPECT_NE(why.find("plugin_no_entry.so"), std::string::npos) << why;
  }
}

TEST(PluginAbi, AFileThatIsNoLibraryIsRefused) {
  const std::string why = [] {
    try {
      test::use_built_plugin_host();
      make_helper_transport(std::string(BNSCOPE_TEST_PLUGIN_DIR) + "/CMakeFiles");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  EXPECT_NE(why.find("cannot load plugin"), std::string::npos) << why;
}

TEST(PluginAbi, CrashInInitIsReportedAsSuch) {
  const std::string why = load_error("plugin_init_crash", false);
  EXPECT_NE(why.find("crashed: SIGSEGV in bnscope_plugin_init()"), std::string::npos) << why;
}

TEST(PluginAbi, DeclaredMasksDecideSupportBeforeThePlugin) {
  auto b = make_plugin_backend(make_helper_transport(plugin_path("plugin_misbehaving")));
  SampleSpec spec;
  spec.shape = {2, 3, 4, 5};
  spec.dtype = DType::F16;
  EXPECT_NE(b->unsupported_reason(prepare(random_problem(spec))).find("not float16"),
            std::string::npos);
  spec.dtype = DType::F32;
  spec.format = DataFormat::NCHW;
  EXPECT_NE(b->unsupported_reason(prepare(random_problem(spec))).find("not NCHW"),
            std::string::npos);
  // The plugin's own supports(), asked in the helper.
  const std::string why =
      b->unsupported_reason(prepare(test::misbehaving_problem(test::kEpsUnsupported)));
  EXPECT_NE(why.find("planted refusal"), std::string::npos) << why;
}

TEST(PluginAbi, CudaPluginSaysWhereItCannotRun) {
  // In this process there are no device buffers to hand it, whatever the machine.
  auto in_process = make_plugin_backend(make_in_process_transport(plugin_path("plugin_cuda_kind")));
  EXPECT_NE(in_process->unavailable_reason().find("runs only in the helper process"),
            std::string::npos);
  // The helper runs it where it finds a CUDA runtime and a device, and otherwise says which is
  // missing.
  auto helper = make_plugin_backend(make_helper_transport(plugin_path("plugin_cuda_kind")));
  const std::string why = helper->unavailable_reason();
  if (!why.empty()) {
    EXPECT_TRUE(why.find("no CUDA device") != std::string::npos ||
                why.find("no CUDA runtime") != std::string::npos)
        << why;
  }
  EXPECT_NE(helper->description().find("cuda"), std::string::npos);
}

TEST(PluginAbi, ALibraryNamedTwiceIsRegisteredOnce) {
  EXPECT_EQ(app::load_plugin(plugin_path("plugin_example"), false), "example-c");
  EXPECT_EQ(app::load_plugin(plugin_path("plugin_example"), false), "example-c");  // same file
  EXPECT_NE(BackendRegistry::instance().find("example-c"), nullptr);
}

}  // namespace
}  // namespace bnscope
