#include "engine/engine.h"

#include <chrono>

#include "engine/output_health.h"
#include "ops/outputs.h"
#include "tensor/error.h"

namespace bnscope {

Backend& backend_or_throw(std::string_view name) {
  Backend* b = BackendRegistry::instance().find(name);
  if (!b)
    fail("unknown backend '" + std::string(name) + "'; expected one of " +
         BackendRegistry::instance().names_joined());
  if (std::string why = b->unavailable_reason(); !why.empty())
    throw Error(ErrorCode::Unavailable,
                "backend " + std::string(name) + " is not available: " + why);
  return *b;
}

void run_backend_into(const Prepared& p, Backend& backend, Result& result, const RunContext& ctx) {
  if (std::string why = backend.unsupported_reason(p); !why.empty())
    throw Error(ErrorCode::Unimplemented, "backend " + std::string(backend.name()) +
                                              " cannot run " + std::string(p.op->name) +
                                              " here: " + why);
  result.backend = backend.name();
  result.prepared = p.id;
  result.timings.clear();
  result.notes.clear();
  ctx.check_cancel();
  if (p.empty())
    fill_empty_result(p, result);
  else
    backend.run(p, result, ctx);  // may add notes of its own
  result.notes.insert(result.notes.begin(), p.notes.begin(), p.notes.end());
}

void run_prepared_into(const Prepared& p, Backend& backend, Result& result, const RunContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  run_backend_into(p, backend, result, ctx);
  if (ctx.count_non_finite)
    note_output_health(result,
                       [&](const OutputTensor& o) { return ctx.count_non_finite(p, result, o); });
  else
    note_output_health(result);
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Result run_prepared(const Prepared& p, Backend& backend, const RunContext& ctx) {
  Result r;
  run_prepared_into(p, backend, r, ctx);
  return r;
}

Result run_problem(const Problem& problem, std::string_view backend, const RunContext& ctx) {
  Backend& b = backend_or_throw(backend);
  return run_prepared(prepare(problem), b, ctx);
}

}  // namespace bnscope
