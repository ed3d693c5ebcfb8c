#pragma once
// The engine room: the run. Layer above ops/ (prepare, catalog) and below analysis/, profile/ and
// report/; backends/ implement the Backend interface against this room's Result and the engine
// runs them. One path a run takes: prepare (validation and the input notes, ops/prepare.cpp),
// run the backend, count what came out. The CLI, the GUI, the profiler and the tests all run
// problems through here; comparing runs is analysis/pipeline.h's job.

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
// there by note_output_health (engine/output_health.h).
void run_backend_into(const Prepared& p, Backend& backend, Result& result,
                      const RunContext& ctx = {});

Backend& backend_or_throw(std::string_view name);

}  // namespace bnscope
