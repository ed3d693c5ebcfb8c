#pragma once
// Filling shared-memory segments with tensors' bytes: what a framework backend's transfer of
// its inputs costs.
//
// A segment that has just been created has no pages yet. Copied into through its mapping, every
// 4 KiB page faults, is zero-filled and is then overwritten; written through its descriptor
// (SharedMemory::write) a page is allocated already holding the bytes, with neither the fault
// nor the zero pass: 205 MB in 74-108 ms on one thread where two threads copying into the
// mapping took 88-169 ms (2-vCPU Emerald Rapids VM; shared memory has no huge pages there). A
// segment's writes take its file's lock one at a time, so fresh segments are written in
// parallel with each other (the training grad's x and dy on two threads), not within one.
//
// A segment written before has its pages: the bytes are copied into the mapping in slices on
// every thread, with non-temporal stores, since they are for another process, not for this
// core's cache: 103 MB in 6 ms on two threads where memcpy took 10-11 ms. glibc streams only
// copies larger than a share of the last-level cache, and a VM reports the whole host's.

#include <cstddef>
#include <vector>

#include "ipc/shared_memory.h"

namespace bnscope::ipc {

struct SegmentFill {
  SharedMemory* segment = nullptr;
  const void* src = nullptr;
  std::size_t bytes = 0;  // from offset 0, at most the segment's size
  bool fresh = false;     // created since its last write: no page of it exists yet
};

// Writes every fill, on up to `threads` threads (0: every usable CPU), largest first. Throws the
// first failure (Error from SharedMemory::write) after every fill has ended; the segments'
// contents are then unspecified.
void fill_segments(const std::vector<SegmentFill>& fills, int threads = 0);

// dst[0, n) = src[0, n): streamed (tensor/stream_bytes.h) from 1 MiB up, memcpy below, where the
// bytes stay in the cache anyway; dst 16-byte aligned.
void stream_copy(void* dst, const void* src, std::size_t n);

}  // namespace bnscope::ipc
