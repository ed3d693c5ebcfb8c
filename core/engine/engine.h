#pragma once
// The one path a run takes: validate, check the inputs' health, run the backend, count what
// came out. The CLI, the GUI, the profiler and the tests all run problems through here.

#include <string_view>

#include "backends/backend.h"

namespace bnscope {

// Throws Error for invalid input, an unavailable backend, or an unsupported variant.
Result run_problem(const Problem& problem, std::string_view backend, const RunContext& ctx = {});
Result run_prepared(const Prepared& p, Backend& backend, const RunContext& ctx = {});
// Same, reusing result's allocations (benchmarks, repeated runs).
void run_prepared_into(const Prepared& p, Backend& backend, Result& result,
                       const RunContext& ctx = {});
// run_prepared_into without the scan of the outputs for NaN/Inf that ends it: the part the
// profiler times (the scan reads every output once more, which no peer kernel does), followed
// there by note_output_health (analysis/health.h).
void run_backend_into(const Prepared& p, Backend& backend, Result& result,
                      const RunContext& ctx = {});

Backend& backend_or_throw(std::string_view name);

}  // namespace bnscope
