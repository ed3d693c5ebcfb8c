#include "fuzz_input.h"
#include "tensor/memory_limit.h"

namespace bnscope::fuzz {

void limit_memory_for_fuzzing() {
  static const bool once = [] {
    set_memory_limit_bytes(std::uint64_t{64} << 20);
    return true;
  }();
  (void)once;
}

}  // namespace bnscope::fuzz
