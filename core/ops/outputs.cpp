#include "ops/outputs.h"

#include <cmath>
#include <limits>

#include "tensor/error.h"

namespace bnscope {

const OutputTensor& Result::output(std::string_view name) const {
  for (const OutputTensor& o : outputs)
    if (o.name == name) return o;
  throw Error(ErrorCode::Internal, "result has no output named " + std::string(name));
}

OutputTensor& Result::output(std::string_view name) {
  return const_cast<OutputTensor&>(static_cast<const Result&>(*this).output(name));
}

namespace {

Shape output_shape(const Prepared& p, std::size_t index) {
  const OpSpec& op = *p.op;
  const Shape& data = p.inputs[0].shape();  // y_backprop, x or t: all have the data shape
  const Shape channels{p.channels()};
  if (op.family == OpFamily::GlobalNorm) return index == 0 ? data : channels;
  if (op.is_grad) {
    if (index == 0) return data;
    if (index <= 2) return p.in("scale").shape();
    return {0};
  }
  if (index == 0) return data;
  if (index == 5) return {};  // reserve_space_3: a scalar on CPU
  return channels;
}

// CPU inference and empty training inputs allocate the forward's saved statistics but never
// write them.
bool defined_output(const Prepared& p, std::string_view name) {
  const OpSpec& op = *p.op;
  const bool forward_fused = op.family == OpFamily::Fused && !op.is_grad;
  const bool saved = name == "reserve_space_1" || name == "reserve_space_2";
  return !(forward_fused && saved && (!p.is_training || p.empty()));
}

void fill(Tensor& t, double v) {
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, v);
}

}  // namespace

void allocate_outputs(const Prepared& p, Result& result) {
  const OpSpec& op = *p.op;
  result.op = op.name;
  result.outputs.resize(op.outputs.size());
  for (std::size_t i = 0; i < op.outputs.size(); ++i) {
    OutputTensor& o = result.outputs[i];
    o.name = op.outputs[i].name;
    // The data-shaped output is written whole by every backend: no zero-fill pass first.
    o.tensor.reset(resolve_arg_type(op, op.outputs[i].type, p.t), output_shape(p, i),
                   i != 0 || p.empty());
    o.defined = defined_output(p, o.name);
    o.non_finite = 0;
    if (!o.defined) fill(o.tensor, std::numeric_limits<double>::quiet_NaN());
  }
}

std::vector<std::string> written_outputs(const Prepared& p) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < p.op->outputs.size(); ++i) {
    const std::string name(p.op->outputs[i].name);
    if (defined_output(p, name) && num_elements(output_shape(p, i)) > 0) names.push_back(name);
  }
  return names;
}

std::optional<Shape> output_shape(const Prepared& p, std::string_view name) {
  const int i = p.op->output_index(name);
  if (i < 0) return std::nullopt;
  return output_shape(p, static_cast<std::size_t>(i));
}

void fill_empty_result(const Prepared& p, Result& result) {
  allocate_outputs(p, result);
  const OpSpec& op = *p.op;
  if (op.family == OpFamily::Fused && !op.is_grad) {
    fill(result.output("batch_mean").tensor, std::nan(""));
    fill(result.output("batch_variance").tensor, std::nan(""));
  }
  // Everything else is zero-filled already: scale/offset backprops are zeros in TensorFlow too.
}

}  // namespace bnscope
