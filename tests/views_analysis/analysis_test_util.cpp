#include "analysis_test_util.h"

#include "sample_source.h"

namespace bnscope::test {

Problem analysis_sample(std::uint64_t seed) {
  SampleSpec s;
  s.shape = {2, 3, 4, 5};
  s.seed = seed;
  return generate_problem(s);
}

ProfileOptions quick_profile_options(int reps) {
  ProfileOptions o;
  o.warmup = 1;
  o.reps = reps;
  o.copy_probe = [](int, std::size_t) { return 20.0; };
  return o;
}

}  // namespace bnscope::test
