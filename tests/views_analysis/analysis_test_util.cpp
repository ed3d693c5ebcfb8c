#include "analysis_test_util.h"

#include "views_test_util.h"

namespace bnscope::test {

Problem analysis_sample(std::uint64_t seed) {
  return small_sample(seed);
}

ProfileOptions quick_profile_options(int reps) {
  ProfileOptions o;
  o.warmup = 1;
  o.reps = reps;
  o.copy_probe = [](int, std::size_t) { return 20.0; };
  return o;
}

}  // namespace bnscope::test
