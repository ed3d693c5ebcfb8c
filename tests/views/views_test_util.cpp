#include "views_test_util.h"

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

Expected engine_answer(const Problem& p, const std::string& backend) {
  Expected e;
  try {
    const Result r = run_problem(p, backend);
    e.stats = channel_stats(prepare(p), r);
  } catch (const Error& err) {
    e.error = err.what();
  }
  return e;
}

}  // namespace bnscope::test
