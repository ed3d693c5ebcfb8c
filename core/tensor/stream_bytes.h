#pragma once
// Copies whose bytes are for another reader (another process's shared memory, the copy probe's
// far array), not for this core's caches: written with non-temporal stores, with neither a
// read-for-ownership of the destination nor an eviction of what the caches hold.

#include <cstddef>

namespace bnscope {

// dst[0, n) = src[0, n): 64 bytes at a time with non-temporal stores where the CPU has them
// (SSE2), the tail by memcpy, then a store fence, so the bytes are visible before whoever is told
// they are done. dst 16-byte aligned; src any.
void stream_bytes(void* dst, const void* src, std::size_t n);

}  // namespace bnscope
