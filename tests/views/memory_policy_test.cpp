// The app's allocator policy: a MB-sized block freed goes back to the system, also after larger
// blocks were freed before it (glibc would otherwise have raised its threshold past it).
#include "memory_policy.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(BNSCOPE_SANITIZED)
std::size_t mapped_bytes() {
  return mallinfo2().hblkhd;  // blocks mapped on their own, in use now
}

// Called through volatile pointers: a compiler may drop a malloc whose block is only written
// and freed, and these blocks are.
void* (*volatile allocate)(std::size_t) = std::malloc;
void (*volatile release)(void*) = std::free;

void* touched(std::size_t n) {
  void* p = allocate(n);
  if (p) std::memset(p, 1, n);
  return p;
}
#endif

}  // namespace

TEST(MemoryPolicy, AFreedMegabyteBlockGoesBackAfterLargerOnes) {
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__) || defined(BNSCOPE_SANITIZED)
  GTEST_SKIP() << "glibc's allocator only (a sanitizer brings its own)";
#else
  bnscope::apply_memory_policy();
  // Blocks of 8 MiB freed: glibc alone would take blocks up to that size from the heap after.
  for (int i = 0; i < 3; ++i) release(touched(std::size_t{8} << 20));
  const std::size_t before = mapped_bytes();
  const std::size_t size = 2 * static_cast<std::size_t>(bnscope::kMapOnItsOwnBytes);
  void* block = touched(size);
  ASSERT_NE(block, nullptr);
  EXPECT_GE(mapped_bytes(), before + size) << "a 2 MiB block was not mapped on its own";
  release(block);
  EXPECT_EQ(mapped_bytes(), before) << "the freed block stayed held";
#endif
}
