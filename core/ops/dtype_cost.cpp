#include "ops/dtype_cost.h"

#include "ops/catalog.h"

namespace bnscope {

std::uint64_t run_bytes_at(const Problem& problem, DType t) {
  const OpSpec* op = find_op(problem.op);
  if (!op) return 0;
  std::uint64_t bytes = 0, data = 0;
  for (const ArgSpec& a : op->inputs) {
    const auto it = problem.inputs.find(std::string(a.name));
    if (it == problem.inputs.end()) continue;
    const std::uint64_t b = static_cast<std::uint64_t>(it->second.numel()) *
                            dtype_size(resolve_arg_type(*op, a.type, t));
    bytes += b;
    if (a.name == op->data_input()) data = b;
  }
  return bytes + 2 * data;
}

}  // namespace bnscope
