#pragma once
// The most memory one tensor (and one problem) may take. Checked before allocating, so an absurd
// shape is a clear error instead of an out-of-memory kill.

#include <cstdint>
#include <string>

namespace bnscope {

// Default: 3/4 of physical memory, or BNSCOPE_MEMORY_LIMIT_MB from the environment.
std::uint64_t memory_limit_bytes();
void set_memory_limit_bytes(std::uint64_t bytes);  // 0 restores the default
// Throws Error(InvalidArgument) naming BNSCOPE_MEMORY_LIMIT_MB and what it takes when it is set
// to anything but a whole number of MiB (the default then ignores it).
void check_memory_limit_variable();
// Throws Error(ResourceExhausted) naming what and the sizes when bytes exceed the limit.
void check_memory_limit(std::uint64_t bytes, const std::string& what);

}  // namespace bnscope
