#pragma once
// A STREAM-style copy probe: the memory bandwidth a streaming kernel can hope for on this
// machine with this many threads, the yardstick for "fraction of copy bandwidth".

#include <cstddef>
#include <cstdint>
#include <memory>

namespace bnscope {

// Copies `bytes` (rounded down to 64) from one array to another with `threads` threads (0: all
// hardware threads), each its own contiguous slice, non-temporal stores where the CPU has them.
// Returns the best of a few repetitions in bytes per second, counting read plus write (2*bytes
// per copy). Use arrays well beyond the last-level cache (>= 1 GiB) to measure memory.
double measure_copy_bandwidth(int threads, std::size_t bytes);

// The same in memory the caller already has (both 64-byte aligned, `bytes` each, not
// overlapping; their contents are overwritten): no fresh pages to fault in first, which on a
// virtual machine can cost more than the probe itself, and no first-touch pass over them.
double measure_copy_bandwidth(int threads, std::byte* src, std::byte* dst, std::size_t bytes);

// The copy probe kept for measuring again and again: its two arrays of `bytes` are allocated and
// first touched once, here, and every measure() copies between them (measure_copy_bandwidth). For
// a probe beside each of many cases, at the moment of each.
class CopyProbe {
 public:
  CopyProbe(int threads, std::size_t bytes);
  double measure();

  struct Free {
    void operator()(std::byte* p) const;
  };

 private:
  int threads_;
  std::size_t bytes_;
  std::unique_ptr<std::byte[], Free> src_, dst_;
};

// Reads two arrays of `bytes` each, every thread its own contiguous slice of both side by side:
// the traffic of a reduction over x and dy (the cpu backend's reduce pass), which has no stores
// to overlap with its loads. Returns the best of a few repetitions in bytes per second, counting
// both arrays (2*bytes per pass). On some hosts this is well below the copy bandwidth: the pass
// structures that read without writing are bounded by it, not by the copy.
double measure_read_bandwidth(int threads, std::size_t bytes);

// Reads two arrays of `bytes` each and writes their bytewise sum to a third with non-temporal
// stores, every thread its own contiguous slice of all three: the traffic of a single sweep (two
// inputs in, dx out: inference-mode grads, the write pass), two thirds reads. Returns the best of
// a few repetitions in bytes per second, counting all three arrays (3*bytes per pass). Where
// reads are the scarcer resource this sits between the read and the copy probes, and a sweep
// with that traffic cannot beat it.
double measure_stream_bandwidth(int threads, std::size_t bytes);

}  // namespace bnscope
