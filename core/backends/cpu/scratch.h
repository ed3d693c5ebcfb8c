#pragma once
// Memory the cpu backend keeps from one run to the next for its per-run work arrays (the chunk
// partials of kernels.h: Partials), so a run does not map and fault in fresh pages for them.
// Freshly allocated, large partials were returned to the system at every free and faulted in
// and zeroed again on the next run, while the pool waited. The buffer grows to
// the largest run's need (memory that run allocated before as well) and is held until the
// backend goes.

#include <cstddef>
#include <memory>

namespace bnscope::cpu {

class Scratch {
 public:
  // At least `bytes` bytes aligned for double, contents unspecified; valid until the next call.
  void* get(std::size_t bytes) {
    const std::size_t words = (bytes + sizeof(double) - 1) / sizeof(double);
    if (words > words_) {
      buf_ = std::make_unique_for_overwrite<double[]>(words);
      words_ = words;
    }
    return buf_.get();
  }

 private:
  std::unique_ptr<double[]> buf_;
  std::size_t words_ = 0;
};

}  // namespace bnscope::cpu
