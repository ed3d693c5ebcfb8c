#pragma once
// Whether AddressSanitizer instruments this build (GCC says so with a macro, Clang with a feature
// test): the fiber stacks are then larger, and every fiber switch is announced to it.

#if defined(__SANITIZE_ADDRESS__)
#define BNSCOPE_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BNSCOPE_EMU_ASAN 1
#endif
#endif
