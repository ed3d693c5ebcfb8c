// .npy parsing: any byte string must give a tensor or an Error, and a parsed tensor must survive
// a write and re-read unchanged.

#include <cstring>

#include "fuzz_input.h"
#include "io/npy.h"
#include "tensor/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace bnscope;
  fuzz::limit_memory_for_fuzzing();
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  Tensor t;
  try {
    t = parse_npy(bytes, "fuzz.npy");
  } catch (const Error&) {
    return 0;
  }
  const std::vector<std::byte> again = serialize_npy(t);
  const Tensor back = parse_npy(again, "fuzz-roundtrip.npy");
  if (back.dtype() != t.dtype() || back.shape() != t.shape() || back.nbytes() != t.nbytes() ||
      (t.nbytes() > 0 && std::memcmp(back.raw(), t.raw(), t.nbytes()) != 0))
    __builtin_trap();  // a tensor that does not round-trip is a bug, not bad input
  return 0;
}
