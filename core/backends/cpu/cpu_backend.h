#pragma once
// cpu: the fast, multithreaded backend (float32 accumulation for f16/bf16/f32, as TensorFlow).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"

namespace bnscope {
namespace cpu {
struct Host;
}
std::unique_ptr<Backend> make_cpu_backend();
// The same planning its walks from another host's figures (backends/cpu/planner.h): for tests
// that check what that host would choose, and that every choice gives the same bits.
std::unique_ptr<Backend> make_cpu_backend(const cpu::Host& host);
// Applies the environment variable the cpu backend reads (BNSCOPE_SIMD: backends/cpu/simd.h);
// throws Error on a value it cannot take, so a command fails before its first run.
void check_cpu_backend_variables();
// The code path the cpu backend takes on this machine, for reports: its vector target and the
// caches its pass structures are planned from ("AVX-512 vectors; L1d 48 KiB, L2 1 MiB, ...").
std::string cpu_code_path();
// The passes a cpu run of p makes with `threads` threads (0: all), in order, named as the phases
// the run reports in Result::timings ("pass:reduce", "pass:write", ...); empty for empty inputs.
std::vector<std::string> cpu_pass_plan(const Prepared& p, int threads = 0);
// What a pass of cpu_pass_plan does, one line for the user; empty for any other phase name.
std::string_view cpu_pass_description(std::string_view phase);
// The x-sized tensors a pass of op reads or writes once each (x, dy, dx: 3); 0 for other phases.
int cpu_pass_tensors(std::string_view phase, const OpSpec& op);
}  // namespace bnscope
