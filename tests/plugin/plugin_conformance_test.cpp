// The conformance run on the example plugin: it passes every case it declares; its planted bugs
// fail with the causes the pipeline names for them.
#include <gtest/gtest.h>

#include <set>

#include "analysis/conformance.h"
#include "plugin_test_util.h"
#include "plugins.h"

namespace bnscope {
namespace {

using test::plugin_path;

ConformanceResult conformance(const std::string& target, const std::string& filter = "") {
  ConformanceRequest r;
  r.backend = app::load_plugin(plugin_path(target), false);
  r.filter = filter;
  return run_conformance(r);
}

TEST(PluginConformance, ExamplePassesEveryCaseItDeclares) {
  const ConformanceResult r = conformance("plugin_example");
  EXPECT_TRUE(r.passed());
  std::set<std::string> shapes, ops;
  for (const ConformanceRow& row : r.rows)
    if (row.verdict == ConformanceVerdict::Pass) {
      shapes.insert(row.c.shape.label);
      ops.insert(std::string(row.c.variant.op->name));
    } else {
      EXPECT_EQ(row.verdict, ConformanceVerdict::Unsupported)
          << row.c.label() << ": " << row.detail;
    }
  EXPECT_EQ(ops, (std::set<std::string>{"FusedBatchNormGradV2", "FusedBatchNormGradV3"}));
  for (const char* s : {"odd sizes", "C=1", "M=1", "empty batch", "NaN/Inf inputs", "epsilon 0",
                        "epsilon 1e-6, below cuDNN's minimum"})
    EXPECT_TRUE(shapes.count(s)) << s;
  // Every declared variant ran: 4 layouts of V3 and 2 of V2, x (2 conventions + inference) x 3
  // dtypes, 7 shapes each.
  EXPECT_EQ(r.count(ConformanceVerdict::Pass), (4 + 2) * 3 * 3 * 7);
  bool five_d = false;
  for (const ConformanceRow& row : r.rows)
    five_d = five_d || (row.verdict == ConformanceVerdict::Pass && row.c.shape.logical.size() == 5);
  EXPECT_TRUE(five_d);
}

TEST(PluginConformance, ReserveBugIsNamedReserveConvention) {
  const ConformanceResult r =
      conformance("plugin_bug_reserve", "FusedBatchNormGradV3 NHWC training variance float32");
  EXPECT_FALSE(r.passed());
  int named = 0;
  for (const ConformanceRow& row : r.rows)
    if (row.verdict == ConformanceVerdict::Fail && row.cause_code == "reserve-convention") ++named;
  EXPECT_GE(named, 3);
}

TEST(PluginConformance, LayoutBugIsNamedLayoutSwappedAndOnlyInNchw) {
  const ConformanceResult r =
      conformance("plugin_bug_layout", "FusedBatchNormGradV3 NCHW training variance float32");
  EXPECT_FALSE(r.passed());
  int named = 0;
  for (const ConformanceRow& row : r.rows)
    if (row.verdict == ConformanceVerdict::Fail) {
      EXPECT_EQ(row.cause_code, "layout-swapped") << row.c.label();
      ++named;
    }
  EXPECT_GE(named, 3);
  EXPECT_TRUE(conformance("plugin_bug_layout", "FusedBatchNormGradV3 NHWC").passed());
}

}  // namespace
}  // namespace bnscope
