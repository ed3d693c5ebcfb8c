// cuda and cudnn against cpu-reference over the selftest sweep (every op x format x mode x dtype
// on the spec's shapes). Each case skips with the backend's reason on a machine without a
// usable device.

#include <gtest/gtest.h>

#include <cctype>
#include <ostream>

#include "backends/backend.h"
#include "register.h"
#include "selftest.h"

namespace bnscope::gpu {
namespace {

struct Param {
  std::string backend;
  std::size_t index;
};

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.backend << " case " << p.index;
}

const std::vector<SelftestCase>& cases() {
  static const std::vector<SelftestCase> c = selftest_cases();
  return c;
}

Backend& registered(const std::string& name) {
  static const bool once = [] {
    register_backends(BackendRegistry::instance());
    return true;
  }();
  (void)once;
  return *BackendRegistry::instance().find(name);
}

class GpuBackendVsReference : public testing::TestWithParam<Param> {};

TEST_P(GpuBackendVsReference, Matches) {
  Backend& gpu = registered(GetParam().backend);
  if (const std::string why = gpu.unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  Backend& reference = *BackendRegistry::instance().find("cpu-reference");
  const SelftestCase& c = cases()[GetParam().index];
  const CaseOutcome o = run_selftest_case(c, gpu, reference);
  if (o.status == CaseStatus::Unsupported) GTEST_SKIP() << o.detail;
  EXPECT_EQ(o.status, CaseStatus::Pass) << c.label << ": " << o.detail;
}

std::vector<Param> params() {
  std::vector<Param> p;
  for (const char* b : {"cuda", "cudnn"})
    for (std::size_t i = 0; i < cases().size(); ++i) p.push_back({b, i});
  return p;
}

std::string param_name(const testing::TestParamInfo<Param>& info) {
  std::string s = info.param.backend + "_" + std::to_string(info.param.index) + "_" +
                  cases()[info.param.index].label;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Sweep, GpuBackendVsReference, testing::ValuesIn(params()), param_name);

TEST(GpuBackends, RegisteredWithReasons) {
  for (const char* name : {"cuda", "cudnn"}) {
    Backend& b = registered(name);
    EXPECT_EQ(b.name(), name);
    const std::string why = b.unavailable_reason();
    if (why.empty()) continue;
    const bool known = why.rfind("no CUDA device", 0) == 0 ||
                       why.find("driver") != std::string::npos ||
                       why.find("compute capability") != std::string::npos ||
                       why.find("cuDNN") != std::string::npos;
    EXPECT_TRUE(known) << why;
  }
}

}  // namespace
}  // namespace bnscope::gpu
