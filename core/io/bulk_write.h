#pragma once
// Large writes whose disk work starts while they are still being made: a file written whole and
// then fsynced would leave the disk idle during the copy into the page cache and the CPU idle
// during the sync; here each slice's writeback is started as soon as the slice is in the cache.

#include <cstddef>
#include <cstdio>

namespace bnscope {

// Writes n bytes at data through f. Returns false on a write error, with errno set. The
// writeback is only started, never waited for: the caller's fsync still decides durability.
bool write_bulk(std::FILE* f, const void* data, std::size_t n);

}  // namespace bnscope
