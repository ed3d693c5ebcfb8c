#pragma once
// The wording of the emulator's faults: every report names the kernel, block and thread, the
// warp operation and its mask, and why a device would hang or misbehave there.

#include <string>

#include "emulator_state.h"

namespace bnscope::emu::detail {

const char* op_name(WarpOp op);
std::string xyz(const uint3& v);
std::string hex(unsigned v);
std::string lane_list(unsigned lanes);
// "kernel K, block (x,y,z), thread (x,y,z)" of thread `linear` of b.
std::string where(const BlockRun& b, int linear);

[[noreturn]] void fault(const std::string& what);

// No fiber can run and the live ones are not all at __syncthreads: a warp operation waits for
// lanes that never arrive.
[[noreturn]] void diagnose_stall(const BlockRun& b);

// A barrier while lanes of the same warp wait in a warp operation that includes this thread
// deadlocks a device: say so instead.
void check_no_lane_waits(const BlockRun& b, const Fiber& f, const char* barrier);

}  // namespace bnscope::emu::detail
