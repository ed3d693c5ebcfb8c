#include "views_test_util.h"

#include <cmath>

#include "analysis/diff.h"
#include "engine/engine.h"
#include "sample_source.h"
#include "tensor/error.h"

namespace bnscope::test {

Problem small_sample(std::uint64_t seed) {
  SampleSpec s;
  s.shape = {2, 3, 4, 5};
  s.seed = seed;
  return generate_problem(s);
}

Expected reference_answer(const Problem& p) {
  Expected e;
  try {
    const Result r = run_problem(p, "cpu-reference");
    e.stats = channel_stats(prepare(p), r);
  } catch (const Error& err) {
    e.error = err.what();
  }
  return e;
}

bool close_to_reference(double got, double want, bool is_count) {
  if (std::isnan(want)) return std::isnan(got);
  if (is_count || std::isinf(want)) return got == want;
  const Tolerance tol = default_tolerance(DType::F32);  // what the Diff tab passes for float32
  return std::fabs(got - want) <= tol.atol + tol.rtol * std::fabs(want);
}

}  // namespace bnscope::test
