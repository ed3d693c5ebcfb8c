#include "problem_setup.h"

#include "tensor/error.h"
#include "tensor/memory_limit.h"

namespace bnscope::cli {

Problem problem_or_sample(const app::ProblemArgs& pa, const Shape& logical_shape,
                          std::uint64_t seed) {
  const Problem& given = pa.problem;
  if (pa.inputs_given) return given;
  SampleSpec spec;
  spec.op = given.op;
  spec.dtype = given.dtype.value_or(DType::F32);
  spec.convention = given.convention;
  spec.seed = seed;
  if (!logical_shape.empty()) spec.shape = logical_shape;
  const OpSpec* op = find_op(given.op);
  if (op && op->has_attr("data_format")) {
    spec.format = *parse_data_format(attr_string(given, "data_format"));
    if ((spec.format == DataFormat::NDHWC || spec.format == DataFormat::NCDHW) &&
        logical_shape.empty())
      spec.shape = {2, 4, 8, 8, 16};
  }
  if (op && op->has_modes()) spec.is_training = attr_bool(given, "is_training");
  check_sample_runs(spec);
  Problem p = random_problem(spec);
  for (const auto& [k, v] : given.attrs) p.attrs[k] = v;
  p.strict = given.strict;
  return p;
}

void check_sample_runs(const SampleSpec& spec) {
  check_sample_memory(spec);
  // What prepare() will ask for on top of the inputs (two x-sized buffers), from the shape
  // alone: refused before the sample is made, with the words a run uses.
  const Shape x = physical_shape(spec.shape, spec.format);
  const std::uint64_t data = static_cast<std::uint64_t>(num_elements(x)) * dtype_size(spec.dtype);
  const std::uint64_t total = sample_bytes(spec) + 2 * data;
  check_memory_limit(total < data ? UINT64_MAX : total,
                     "running " + spec.op + " on x of shape " + shape_str(x));
}

}  // namespace bnscope::cli
