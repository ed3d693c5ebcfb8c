#include "problem_state.h"

#include "io/crc32.h"

namespace bnscope {

namespace {

// Every attr as text: the op's own with TensorFlow's default where unset, in the spelling a set
// value has, and any other the problem holds.
std::map<std::string, std::string> effective_attrs(const Problem& p) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : p.attrs) out[name] = attr_value_text(value);
  if (const OpSpec* op = find_op(p.op))
    for (const AttrSpec& a : op->attrs) {
      const std::string name(a.name);
      if (out.count(name)) continue;
      if (a.required()) {
        out[name] = "(unset)";
        continue;
      }
      Problem scratch;
      scratch.op = p.op;
      try {
        scratch.set_attr(name, std::string(a.default_value));
        out[name] = attr_value_text(scratch.attrs.at(name));
      } catch (const std::exception&) {
        out[name] = std::string(a.default_value);
      }
    }
  return out;
}

// T as the run takes it: "as x" is the same as x's own dtype chosen.
std::optional<DType> effective_t(const Problem& p) {
  if (p.dtype) return p.dtype;
  const OpSpec* op = find_op(p.op);
  const auto x = op ? p.inputs.find(std::string(op->data_input())) : p.inputs.end();
  return x != p.inputs.end() ? std::optional(x->second.dtype()) : std::nullopt;
}

std::optional<std::uint32_t> checksum(const Tensor& t) {
  if (t.nbytes() > ProblemState::kChecksummedBytes) return std::nullopt;
  return crc32_bytes(0, t.raw(), t.nbytes());
}

}  // namespace

ProblemState::ProblemState(const Problem& p)
    : op_(p.op),
      attrs_(effective_attrs(p)),
      dtype_(effective_t(p)),
      convention_(p.convention),
      strict_(p.strict) {
  for (const auto& [name, t] : p.inputs) {
    Input& in = inputs_[name];
    in.dtype = t.dtype();
    in.shape = t.shape();
    in.crc = checksum(t);
    if (!in.crc) in.storage = t.storage_handle();
  }
}

bool ProblemState::matches(const Problem& p) const {
  if (p.op != op_ || effective_t(p) != dtype_ || p.convention != convention_ ||
      p.strict != strict_ || p.inputs.size() != inputs_.size() || effective_attrs(p) != attrs_)
    return false;
  for (const auto& [name, t] : p.inputs) {
    const auto it = inputs_.find(name);
    if (it == inputs_.end()) return false;
    const Input& in = it->second;
    if (t.dtype() != in.dtype || t.shape() != in.shape) return false;
    if (in.crc ? checksum(t) != in.crc : !t.same_storage(in.storage)) return false;
  }
  return true;
}

std::map<std::string, Tensor> ProblemState::same_buffers(const Problem& p) const {
  std::map<std::string, Tensor> same;
  const std::map<std::string, std::string> attrs = effective_attrs(p);
  const auto format = [](const std::map<std::string, std::string>& a) {
    const auto it = a.find("data_format");
    return it != a.end() ? it->second : std::string();
  };
  if (p.op != op_ || format(attrs) != format(attrs_)) return same;
  for (const auto& [name, t] : p.inputs) {
    const auto it = inputs_.find(name);
    if (it == inputs_.end() || it->second.crc) continue;
    const Input& in = it->second;
    if (t.dtype() == in.dtype && t.shape() == in.shape && t.same_storage(in.storage))
      same.emplace(name, t);
  }
  return same;
}

}  // namespace bnscope
