#include "memory_policy.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace bnscope {

void apply_memory_policy() {
#if defined(__GLIBC__)
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, kMapOnItsOwnBytes);
#endif
}

}  // namespace bnscope
