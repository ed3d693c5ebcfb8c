// Runs every TensorFlow-made case in tests/golden/data through bnscope's CPU backends (and
// cuda-emu, the cuda backend's kernels on the CPU, for the dtypes TensorFlow has GPU kernels for)
// and compares with what TensorFlow produced (or the error TensorFlow raised). The data is written
// by make_golden.py; this test needs neither Python nor TensorFlow.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "engine/engine.h"
#include "golden_case.h"
#include "ops/catalog.h"
#include "tensor/error.h"
#ifdef BNSCOPE_HAVE_CUDA_EMU
#include "emu_backend.h"
#endif

namespace bnscope {
namespace {

std::vector<std::string> golden_backends() {
  std::vector<std::string> b{"cpu-reference", "cpu"};
#ifdef BNSCOPE_HAVE_CUDA_EMU
  static const bool registered = [] {
    BackendRegistry::instance().add(gpu::make_cuda_emu_backend());
    return true;
  }();
  (void)registered;
  b.push_back("cuda-emu");
#endif
  return b;
}

// A GPU backend does not run a dtype TensorFlow registers no GPU kernel for; the CPU backends
// cover those cases.
bool runs_case(const GoldenCase& c, const std::string& backend) {
  Prepared p;
  try {
    p = prepare(c.problem);
  } catch (const Error&) {
    return true;  // refused before any backend: every backend must refuse it alike
  }
  return BackendRegistry::instance().find(backend)->unsupported_reason(p).empty();
}

// TensorFlow's CPU kernels compute in float32 and cast the data outputs to T at the end; our
// backends differ from it by rounding only, so the tolerance follows the output's dtype:
// - float32: float32 reductions over at most 1540 elements and a float rsqrt leave errors around
//   1e-6 relative (oneDNN and Eigen differ by at most 6e-6 on these cases); 1e-4 leaves room
//   without hiding a wrong formula, which is off by far more.
// - float16: one rounding to half is 2^-11 relative, and two backends rounding slightly
//   different float values can land one ulp (2^-10) apart; 1e-2 allows a few ulps.
// - bfloat16: one ulp is 2^-7 (7.8e-3); 4e-2 allows a few ulps for the same reason.
// Errors are scaled by max(1, |expected|): values near zero come from cancelling O(1) terms
// (x - mean, dy - mean(dy)), so their rounding error follows the terms, not the result.
double tolerance(DType tf_dtype) {
  switch (tf_dtype) {
    case DType::F16:
      return 1e-2;
    case DType::BF16:
      return 4e-2;
    default:
      return 1e-4;
  }
}

bool contains_all(const std::string& text, const std::vector<std::string>& parts) {
  return std::all_of(parts.begin(), parts.end(),
                     [&](const std::string& p) { return text.find(p) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& parts) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : " ... ") + p;
  return s;
}

void expect_close(const std::string& name, const Tensor& got, const GoldenOutput& want) {
  ASSERT_EQ(shape_str(got.shape()), shape_str(want.tensor.shape())) << name << " shape";
  const double tol = tolerance(want.tf_dtype);
  int reported = 0;
  for (std::int64_t i = 0; i < got.numel() && reported < 5; ++i) {
    const double a = got.get(i), b = want.tensor.get(i);
    if (std::isnan(a) && std::isnan(b)) continue;
    const bool ok = std::fabs(a - b) <= tol * std::max(1.0, std::fabs(b));
    if (!ok) ++reported;
    EXPECT_TRUE(ok) << name << "[" << i << "]: bnscope " << a << ", TensorFlow " << b
                    << " (tolerance " << tol << ")";
  }
}

// TensorFlow refused the case: bnscope must refuse it with the same message, or compute it and
// carry TensorFlow's message in a TfWouldReject note (freeze-mode NCHW grads, deprecated ops).
void expect_tf_error(const GoldenCase& c, std::string_view backend) {
  Result r;
  try {
    r = run_problem(c.problem, backend);
  } catch (const Error& e) {
    EXPECT_TRUE(contains_all(e.what(), c.expected_error_parts))
        << "bnscope: " << e.what() << "\nTensorFlow: " << joined(c.expected_error_parts);
    return;
  }
  const bool noted = std::any_of(r.notes.begin(), r.notes.end(), [&](const Note& n) {
    return n.kind == NoteKind::TfWouldReject && contains_all(n.message, c.expected_error_parts);
  });
  EXPECT_TRUE(noted) << "bnscope ran it without an error or a TfWouldReject note carrying "
                        "TensorFlow's message: "
                     << joined(c.expected_error_parts);
}

void expect_tf_outputs(const GoldenCase& c, std::string_view backend) {
  const Result r = run_problem(c.problem, backend);
  for (const OutputTensor& o : r.outputs) {
    auto it = c.outputs.find(o.name);
    if (it == c.outputs.end()) {
      // make_golden.py leaves out exactly the outputs TensorFlow never writes.
      EXPECT_FALSE(o.defined) << o.name << " is uninitialized in TensorFlow";
      continue;
    }
    EXPECT_TRUE(o.defined) << o.name << " is data in TensorFlow";
    EXPECT_EQ(dtype_name(o.tensor.dtype()), dtype_name(it->second.tf_dtype)) << o.name;
    expect_close(o.name, o.tensor, it->second);
  }
  for (const auto& [name, want] : c.outputs)
    EXPECT_NO_THROW((void)r.output(name)) << "bnscope has no output " << name;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, MatchesTensorFlow) {
  const GoldenCase c = load_golden_case(GetParam());
  for (const std::string& backend : golden_backends()) {
    if (!runs_case(c, backend)) continue;
    SCOPED_TRACE("backend " + backend + ", TensorFlow " + c.tf_version);
    try {
      if (c.expected_error_parts.empty())
        expect_tf_outputs(c, backend);
      else
        expect_tf_error(c, backend);
    } catch (const Error& e) {
      ADD_FAILURE() << "bnscope threw: " << e.what();
    }
  }
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(TensorFlow, Golden, ::testing::ValuesIn(golden_case_names()), test_name);

// The data must be there and cover every op of the catalog, or the suite above proves nothing.
TEST(GoldenData, CoversEveryCatalogOp) {
  const std::vector<std::string> names = golden_case_names();
  ASSERT_FALSE(names.empty()) << "no cases in " << golden_data_dir();
  std::set<std::string> ops;
  for (const std::string& n : names) ops.insert(n.substr(0, n.find("__")));
  for (const OpSpec& op : op_catalog())
    EXPECT_TRUE(ops.count(std::string(op.name))) << "no golden case for " << op.name;
}

}  // namespace
}  // namespace bnscope
