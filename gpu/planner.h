#pragma once
// Host-side launch planning for the cuda backend: which kernel variant, grid and block shapes,
// shared memory and workspace a shape gets. Plain C++ so the choices are unit-tested without a
// GPU; the .cu launchers only execute a Plan.

#include <cstdint>
#include <string_view>

namespace bnscope::gpu {

// What a launch has to do over the [outer, C, inner] view.
enum class Work {
  GradTraining,  // reductions, then dx from them: a per-channel barrier between two phases
  GradDirect,    // freeze grad and global-normalization grad: dx needs no reduction, one pass
  Moments,       // forward training statistics (two reduction passes, then elementwise y)
};

enum class Variant {
  CtaPerGroup,  // one CTA owns a channel group over all of M: one launch, no workspace
  SplitM,       // M split over grid.y; partials to a workspace; a second stage finishes channels
  SinglePass,   // training grad held on chip: one cooperative launch, partials, a grid barrier,
                // a fixed-order final sum in every CTA, then dx from the held tile
};
std::string_view variant_name(Variant v);

// Launch limits and the per-SM resources that decide how many CTAs are co-resident (what a
// cooperative launch may use). Defaults: an sm_90 part with H100 SXM's 132 SMs and 50 MB L2.
struct DeviceLimits {
  int sm_count = 132;
  int max_threads_per_block = 1024;
  int max_grid_y = 65535;
  std::int64_t max_grid_x = 2147483647;
  int max_shared_per_block = 48 * 1024;
  int max_shared_per_block_optin = 227 * 1024;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int registers_per_sm = 65536;
  int max_registers_per_thread = 255;
  int shared_per_sm = 228 * 1024;
  int reserved_shared_per_block = 1024;  // the driver's per-CTA share of shared memory
  std::int64_t l2_bytes = 50 * 1024 * 1024;
  bool cooperative_launch = true;  // cudaDevAttrCooperativeLaunch
};

// The single-pass training grad (kernels/single_pass_kernel.cuh): 256-thread CTAs whose
// __launch_bounds__ keep 4 of them resident per SM, so at most 64 registers a thread, of which
// kSinglePassRegItems positions of x and dy; the rest of a thread's tile sits in shared memory.
constexpr int kSinglePassThreads = 256;
constexpr int kSinglePassMinBlocksPerSm = 4;
constexpr int kSinglePassRegisters = 65536 / (kSinglePassThreads * kSinglePassMinBlocksPerSm);
constexpr int kSinglePassRegItems = 8;

struct ShapeIn {
  std::int64_t outer = 0, channels = 0, inner = 0;
  int elem_bytes = 4;  // storage type of the data tensors
  int acc_bytes = 4;   // float, or double for f64
  Work work = Work::GradTraining;
};

struct Plan {
  Variant variant = Variant::CtaPerGroup;
  bool index64 = false;          // element offsets need 64 bits (E >= 2^31)
  int block_x = 1, block_y = 1;  // x: channels of a group (contiguous in NHWC); y: positions in M
  std::int64_t groups = 0;       // grid.x: channel groups of block_x channels
  int splits = 1;                // grid.y: slices of M per group
  std::int64_t m_per_split = 0;  // positions of M each slice covers
  int shared_bytes = 0;          // dynamic shared memory of the reduce kernels
  // SinglePass: positions per thread held in shared memory beyond kSinglePassRegItems, and where
  // that tile starts in the dynamic shared memory (after the reduction scratch).
  int smem_items = 0;
  int tile_offset_bytes = 0;
  std::int64_t workspace_bytes = 0;  // partials of SplitM, SinglePass: splits * C * 2 accumulators
  // Elementwise kernel (forward y): grid-stride over all E elements.
  int ew_block = 256;
  std::int64_t ew_grid = 0;
  int threads() const { return block_x * block_y; }
};

// Bytes of x and dy a single-pass plan can hold on chip for this shape's types and device.
std::int64_t single_pass_capacity_bytes(const ShapeIn& s, const DeviceLimits& d);

// Throws Error(InvalidArgument) for a shape with a zero or negative extent (the engine handles
// empty inputs before any backend runs).
Plan plan_launch(const ShapeIn& s, const DeviceLimits& d = {});

}  // namespace bnscope::gpu
