#include "tensor/stride_pipeline.h"

#include <atomic>

#include "tensor/thread_pool.h"

namespace bnscope {

void run_strides(const StridePass& pass, int threads) {
  if (pass.strides <= 0) return;
  // Stride s is one run of the pool: every task takes pieces, and the caller's task first ends
  // stride s - 1's in-order part, beside the others' pieces of stride s.
  for (std::int64_t s = 0; s < pass.strides; ++s) {
    const std::int64_t n = pass.pieces(s);
    std::atomic<std::int64_t> next{0};
    shared_pool().run(threads > 1 ? threads : 1, [&](int t) {
      if (t == 0 && s > 0) pass.after(s - 1);
      for (std::int64_t p; (p = next++) < n;) pass.piece(t, s, p);
    });
  }
  pass.after(pass.strides - 1);
}

}  // namespace bnscope
