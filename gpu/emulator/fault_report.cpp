#include "fault_report.h"

#include <cstdio>

namespace bnscope::emu::detail {

const char* op_name(WarpOp op) {
  switch (op) {
    case WarpOp::Sync:
      return "__syncwarp";
    case WarpOp::Shfl:
      return "__shfl_sync";
    case WarpOp::ShflUp:
      return "__shfl_up_sync";
    case WarpOp::ShflDown:
      return "__shfl_down_sync";
    case WarpOp::ShflXor:
      return "__shfl_xor_sync";
    case WarpOp::Ballot:
      return "__ballot_sync";
    case WarpOp::Any:
      return "__any_sync";
    case WarpOp::All:
      break;
  }
  return "__all_sync";
}

std::string xyz(const uint3& v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string hex(unsigned v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

std::string lane_list(unsigned lanes) {
  std::string s;
  for (int l = 0; l < 32; ++l)
    if (lanes >> l & 1u) s += (s.empty() ? "" : ",") + std::to_string(l);
  return s;
}

std::string where(const BlockRun& b, int linear) {
  return "kernel " + std::string(b.kernel) + ", block " + xyz(b.block) + ", thread " +
         xyz(thread_coords(b, linear));
}

void fault(const std::string& what) {
  throw Fault(what);
}

void diagnose_stall(const BlockRun& b) {
  for (std::size_t w = 0; w < b.warps.size(); ++w) {
    const WarpSlot& s = b.warps[w];
    if (!s.arrived) continue;
    const unsigned missing = s.mask & ~s.arrived;
    int first = -1;
    for (int l = 0; l < 32; ++l)
      if (s.arrived >> l & 1u) {
        first = static_cast<int>(w) * 32 + l;
        break;
      }
    std::string why;
    for (int l = 0; l < 32; ++l) {
      if (!(missing >> l & 1u)) continue;
      const Fiber& f = b.fibers[w * 32 + static_cast<std::size_t>(l)];
      why += " lane " + std::to_string(l) +
             (f.state == State::Done ? " has exited;" : " waits at __syncthreads;");
    }
    fault("warp check: " + std::string(op_name(s.op)) + " with mask " + hex(s.mask) + " in " +
          where(b, first) + ": lanes " + lane_list(missing) +
          " named in the mask never arrive:" + why);
  }
  fault("emulator: block " + xyz(b.block) + " of kernel " + b.kernel +
        " stalled with no thread runnable");
}

void check_no_lane_waits(const BlockRun& b, const Fiber& f, const char* barrier) {
  const unsigned warp = static_cast<unsigned>(f.linear) / 32;
  if (b.warps[warp].arrived && b.warps[warp].mask >> (f.linear % 32) & 1u)
    fault(std::string("warp check: ") + barrier + " in " + where(b, f.linear) + " while lanes " +
          lane_list(b.warps[warp].arrived) + " of its warp wait at " + op_name(b.warps[warp].op));
}

}  // namespace bnscope::emu::detail
