#include <algorithm>
#include <atomic>

#include "ops/input_health.h"
#include "ops/prepared.h"
#include "tensor/error.h"
#include "tensor/memory_limit.h"

namespace bnscope {

const Tensor& Prepared::in(std::string_view name) const {
  const int i = op->input_index(name);
  if (i < 0) throw Error(ErrorCode::Internal, "no input named " + std::string(name));
  return inputs[static_cast<std::size_t>(i)];
}

namespace {

// prepare()'s checks run through this: throwing at the first failure (prepare) or recording each
// and going on (validation_problems), in the same order either way, so the first recorded is the
// one prepare() throws. A check about an input that already failed is skipped: it would only
// restate that input's problem, or read a shape the first one said is wrong.
class Checks {
 public:
  explicit Checks(std::vector<ValidationProblem>* found = nullptr) : found_(found) {}

  // Runs check(); false when it failed (recorded) or was skipped.
  template <class F>
  bool run(std::string_view input, F&& check) {
    if (!usable(input)) return false;
    if (!found_) {
      check();
      return true;
    }
    try {
      check();
      return true;
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Cancelled || e.code() == ErrorCode::Internal) throw;
      found_->push_back({std::string(input), e.what(), e.parts()});
      if (!input.empty()) failed_.emplace_back(input);
      return false;
    }
  }
  bool usable(std::string_view input) const {
    return std::find(failed_.begin(), failed_.end(), input) == failed_.end();
  }
  bool collecting() const { return found_ != nullptr; }

 private:
  std::vector<ValidationProblem>* found_;
  std::vector<std::string> failed_;
};

std::string count_mismatch(std::string_view what, std::int64_t got, std::int64_t c) {
  return std::string(what) + " must have the same number of elements as the channels of x, got " +
         std::to_string(got) + " and " + std::to_string(c);
}

void require_rank1(const Tensor& t, std::string_view tf_name) {
  if (t.rank() != 1) fail(std::string(tf_name) + " must be 1-dimensional" + shape_str(t.shape()));
}

void tf_reject(Prepared& p, std::string code, std::string message) {
  p.notes.push_back({NoteKind::TfWouldReject, std::move(code), std::move(message), "", -1});
}

std::string names_of(const std::vector<ArgSpec>& args) {
  std::string s;
  for (const ArgSpec& a : args) s += (s.empty() ? "" : ", ") + std::string(a.name);
  return s;
}

// Inputs a debugger user may leave out because no kernel reads them in that configuration.
Tensor default_for_missing(const OpSpec& op, std::string_view name) {
  if (op.family == OpFamily::Fused && !op.is_grad && (name == "mean" || name == "variance"))
    return Tensor(DType::F32, {0});
  if (op.family == OpFamily::Fused && op.is_grad && name == "reserve_space_3")
    return Tensor(DType::F32, {});
  fail("missing input '" + std::string(name) + "': " + std::string(op.name) + " takes " +
       names_of(op.inputs));
}

DType infer_t(const Problem& pb, const OpSpec& op) {
  if (pb.dtype) return *pb.dtype;
  const std::string main(op.data_input());
  if (auto it = pb.inputs.find(main); it != pb.inputs.end()) return it->second.dtype();
  return DType::F32;
}

// The conversion of t to want is the one the problem's chosen T asks for: T was set apart from
// the data input's own dtype, and t is of that dtype and meant to be T. Not TensorFlow's to
// reject: nobody fed it these tensors, the person chose to run them in T.
bool chose_t(const Problem& pb, const OpSpec& op, const Tensor& t, DType want) {
  const auto main = pb.inputs.find(std::string(op.data_input()));
  return pb.dtype && want == *pb.dtype && main != pb.inputs.end() &&
         main->second.dtype() != *pb.dtype && t.dtype() == main->second.dtype();
}

// earlier's conversion of the same buffer to the same type, shape and layout; nullptr if none.
const Tensor* earlier_conversion(const Prepared* earlier, const Prepared& p, std::size_t i,
                                 const Tensor& source, DType want) {
  if (!earlier || earlier->op != p.op || earlier->format != p.format) return nullptr;
  if (i >= earlier->inputs.size() || i >= earlier->converted_from.size()) return nullptr;
  const Tensor& e = earlier->inputs[i];
  if (!source.shares_storage_with(earlier->converted_from[i]) || e.dtype() != want ||
      e.shape() != source.shape())
    return nullptr;
  return &e;
}

void resolve_inputs(const Problem& pb, Prepared& p, Checks& ck, const Prepared* earlier) {
  const OpSpec& op = *p.op;
  // Named, not a structured binding: clang before 16 cannot capture one in the lambda.
  for (const auto& entry : pb.inputs)
    if (const std::string& name = entry.first; op.input_index(name) < 0)
      ck.run(name, [&] {
        fail("unknown input '" + name + "' for " + std::string(op.name) + "; expected one of " +
             names_of(op.inputs));
      });
  for (const ArgSpec& a : op.inputs) {
    auto it = pb.inputs.find(std::string(a.name));
    Tensor t;
    if (it != pb.inputs.end())
      t = it->second;
    else if (!ck.run(a.name, [&] { t = default_for_missing(op, a.name); })) {
      p.inputs.push_back(std::move(t));  // keeps the catalog's order; never read
      continue;
    }
    const DType want = resolve_arg_type(op, a.type, p.t);
    if (t.dtype() != want) {
      if (it != pb.inputs.end() && chose_t(pb, op, t, want))
        p.notes.push_back({NoteKind::Info, "dtype-converted",
                           "converted " + std::string(a.name) + " from " +
                               std::string(dtype_name(t.dtype())) + " to " +
                               std::string(dtype_name(want)) + " as chosen",
                           std::string(a.name), -1});
      else if (it != pb.inputs.end())
        tf_reject(p, "tf-reject-dtype",
                  std::string(a.name) + " has dtype " + std::string(tf_dtype_name(t.dtype())) +
                      " but " + std::string(op.name) + " expects " +
                      std::string(tf_dtype_name(want)) + " here (converted)");
      // Listing problems needs shapes only: no copy of what may be gigabytes.
      if (!ck.collecting()) {
        p.converted_from.resize(p.inputs.size() + 1);
        p.converted_from.back() = t;
        const Tensor* done = earlier_conversion(earlier, p, p.inputs.size(), t, want);
        t = done ? *done : t.to(want);
      }
    }
    p.inputs.push_back(std::move(t));
  }
}

// A problem built in code (the app's fields) is held to what --attr and problem files are: an
// attr that overflows float32 would give inf and silently zero gradients.
float float32_attr(const Problem& pb, std::string_view name) {
  const double v = attr_float(pb, name);
  if (const std::string why = float32_attr_problem(name, v); !why.empty()) fail(why);
  return static_cast<float>(v);
}

// Attr problems are recorded against the attr's name; false when data_format is unusable (the
// channel axis is then unknown).
bool resolve_attrs(const Problem& pb, Prepared& p, Checks& ck) {
  const OpSpec& op = *p.op;
  for (const auto& entry : pb.attrs)
    if (const std::string& name = entry.first; !op.attr(name))
      ck.run(name, [&] {
        std::string names;
        for (const AttrSpec& s : op.attrs)
          names += (names.empty() ? "" : ", ") + std::string(s.name);
        fail("unknown attr '" + name + "' for " + std::string(op.name) + "; expected one of " +
             names);
      });
  // TensorFlow's float attrs are 32-bit: round so every backend sees the same epsilon.
  if (op.family == OpFamily::GlobalNorm) {
    ck.run("variance_epsilon", [&] { p.epsilon = float32_attr(pb, "variance_epsilon"); });
    ck.run("scale_after_normalization",
           [&] { p.scale_after_normalization = attr_bool(pb, "scale_after_normalization"); });
    p.is_training = false;
    p.format = DataFormat::NHWC;
    return true;
  }
  ck.run("epsilon", [&] { p.epsilon = float32_attr(pb, "epsilon"); });
  ck.run("is_training", [&] { p.is_training = attr_bool(pb, "is_training"); });
  if (op.has_attr("exponential_avg_factor"))
    ck.run("exponential_avg_factor",
           [&] { p.exponential_avg_factor = float32_attr(pb, "exponential_avg_factor"); });
  return ck.run("data_format", [&] {
    const std::string fmt = attr_string(pb, "data_format");
    const AttrSpec& fa = *op.attr("data_format");
    if (std::find(fa.allowed.begin(), fa.allowed.end(), fmt) == fa.allowed.end()) {
      std::string allowed;
      for (auto a : fa.allowed)
        allowed += (allowed.empty() ? "\"" : ", \"") + std::string(a) + "\"";
      fail("Value for attr 'data_format' of \"" + fmt +
           "\" is not in the list of allowed values: " + allowed);
    }
    p.format = *parse_data_format(fmt);
  });
}

void check_dtype_registered(Prepared& p) {
  const OpSpec& op = *p.op;
  if (std::find(op.cpu_types.begin(), op.cpu_types.end(), p.t) == op.cpu_types.end())
    tf_reject(p, "tf-reject-dtype",
              "No registered kernel for " + std::string(op.name) +
                  " with T=" + std::string(tf_dtype_name(p.t)) + " on CPU");
}

void check_fused_rank(Prepared& p, const Tensor& x) {
  p.rank = x.rank();
  const bool named_3d = p.format == DataFormat::NDHWC || p.format == DataFormat::NCDHW;
  if ((p.rank == 5) != named_3d)
    p.notes.push_back({NoteKind::Info, "rank-format",
                       "x is " + std::to_string(p.rank) + "-D but data_format is " +
                           std::string(data_format_name(p.format)) +
                           "; TensorFlow's kernel goes by rank (eager mode runs it), graph mode's "
                           "shape function would reject it",
                       "x", -1});
  p.channels_last = is_channels_last(p.format);
  p.view = channel_view(x.shape(), p.channels_last);
}

void require_data_rank(Checks& ck, const Prepared& p, std::string_view name) {
  ck.run(name, [&] {
    const Tensor& t = p.in(name);
    if (t.rank() != 4 && t.rank() != 5)
      fail("input must be 4 or 5-dimensional" + shape_str(t.shape()));
  });
}

void require_rank1(Checks& ck, const Prepared& p, std::string_view name, std::string_view tf_name) {
  ck.run(name, [&] { require_rank1(p.in(name), tf_name); });
}

// Every per-channel input holds C values; skipped when C is unknown (x or the layout failed).
void require_channel_counts(Checks& ck, const Prepared& p, std::initializer_list<const char*> names,
                            std::string_view prefix = {}) {
  const std::int64_t c = p.channels();
  for (const char* n : names)
    ck.run(n, [&] {
      if (p.in(n).numel() != c) fail(std::string(prefix) + count_mismatch(n, p.in(n).numel(), c));
    });
}

// x's rank and the layout give the channel axis: false when either is unusable.
bool view_of_x(Checks& ck, Prepared& p, bool layout_known) {
  if (!layout_known || !ck.usable("x")) return false;
  check_fused_rank(p, p.in("x"));
  return true;
}

void validate_fused_grad(Prepared& p, Checks& ck, bool layout_known) {
  require_data_rank(ck, p, "y_backprop");
  require_data_rank(ck, p, "x");
  require_rank1(ck, p, "scale", "scale");
  require_rank1(ck, p, "reserve_space_1", "saved mean");
  require_rank1(ck, p, "reserve_space_2", "saved variance");
  if (ck.usable("x"))
    ck.run("y_backprop", [&] {
      const Tensor& x = p.in("x");
      const Tensor& dy = p.in("y_backprop");
      if (!same_shape(x, dy))
        fail("x and y_backprop must have same shape, but x has shape " + shape_str(x.shape()) +
             " and y_backprop has shape " + shape_str(dy.shape()));
    });
  if (!view_of_x(ck, p, layout_known)) return;
  require_channel_counts(ck, p, {"scale", "reserve_space_1", "reserve_space_2"});
  if (!p.is_training && !p.channels_last && !p.empty())
    tf_reject(p, "tf-reject-format",
              "The implementation of FusedBatchNormGrad with is_training=False only support NHWC "
              "tensor format for now.");
  if (!p.is_training && p.convention == ReserveConvention::InvStd)
    p.notes.push_back(
        {NoteKind::Info, "reserve-convention",
         "the reserve-space convention applies to training only: with "
         "is_training=false reserve_space_2 is the population variance on every device",
         "reserve_space_2", -1});
}

void validate_fused_forward(Prepared& p, Checks& ck, bool layout_known) {
  require_data_rank(ck, p, "x");
  require_rank1(ck, p, "scale", "scale");
  require_rank1(ck, p, "offset", "offset");
  require_rank1(ck, p, "mean", "estimated_mean");
  require_rank1(ck, p, "variance", "estimated_variance");
  if (!view_of_x(ck, p, layout_known)) return;
  require_channel_counts(ck, p, {"scale", "offset"});
  const bool needs_stats = !p.is_training || p.exponential_avg_factor != 1.0;
  if (needs_stats)
    require_channel_counts(
        ck, p, {"mean", "variance"},
        !p.is_training ? "When is_training=false, " : "When exponential_avg_factor != 1, ");
}

// TensorFlow's kernel lacks the channel and shape checks (spec 3.7); reading past m, v or gamma
// would be out of bounds, so bnscope checks them with messages in TensorFlow's style.
void validate_global(Prepared& p, Checks& ck) {
  const OpSpec& op = *p.op;
  ck.run("t", [&] {
    if (p.in("t").rank() != 4) fail("input must be 4-dimensional" + shape_str(p.in("t").shape()));
  });
  require_rank1(ck, p, "m", "mean");
  require_rank1(ck, p, "v", "var");
  if (!op.is_grad) require_rank1(ck, p, "beta", "beta");
  require_rank1(ck, p, "gamma", "gamma");
  if (op.is_grad)
    ck.run("backprop", [&] {
      if (p.in("backprop").rank() != 4)
        fail("out_backprop must be 4-dimensional" + shape_str(p.in("backprop").shape()));
    });
  if (ck.usable("t")) {
    const Tensor& t = p.in("t");
    p.rank = 4;
    p.channels_last = true;
    p.view = channel_view(t.shape(), true);
    const std::int64_t c = p.channels();
    for (const ArgSpec& a : op.inputs) {
      if (a.name == "t" || a.name == "backprop") continue;
      ck.run(a.name, [&] {
        const Tensor& v = p.in(a.name);
        if (v.numel() != c)
          fail(std::string(a.name) +
               " must have the same number of elements as the channels of t, got " +
               std::to_string(v.numel()) + " and " + std::to_string(c));
      });
    }
    if (op.is_grad)
      ck.run("backprop", [&] {
        if (!same_shape(t, p.in("backprop")))
          fail("t and backprop must have same shape, but t has shape " + shape_str(t.shape()) +
               " and backprop has shape " + shape_str(p.in("backprop").shape()));
      });
  }
  tf_reject(
      p, "tf-reject-deprecated",
      "Op " + std::string(op.name) +
          " is not available in GraphDef version 9 or later. It has been removed in version 9. "
          "Use tf.nn.batch_normalization().");
}

// prepare() up to its notes on the inputs; with a collecting ck it goes on past failures.
Prepared prepare_checked(const Problem& pb, Checks& ck, const Prepared* earlier = nullptr) {
  static std::atomic<std::uint64_t> preparations{0};
  Prepared p;
  p.id = ++preparations;
  p.op = find_op(pb.op);
  if (!ck.run("", [&] {
        if (!p.op) fail("unknown op '" + pb.op + "'; expected one of " + op_names_joined());
      }))
    return p;  // nothing else can be checked without the op's catalog row
  p.convention = pb.convention;
  p.t = infer_t(pb, *p.op);
  p.u = resolve_arg_type(*p.op, ArgType::U, p.t);
  const bool layout_known = resolve_attrs(pb, p, ck);
  resolve_inputs(pb, p, ck, earlier);
  check_dtype_registered(p);
  if (p.op->family == OpFamily::GlobalNorm)
    validate_global(p, ck);
  else if (p.op->is_grad)
    validate_fused_grad(p, ck, layout_known);
  else
    validate_fused_forward(p, ck, layout_known);
  // Inputs are in memory already; the data-shaped output (and its converted copies) are not.
  ck.run("", [&] {
    // In the op's types, which a listing run leaves unconverted.
    auto bytes_of = [&](std::size_t i) {
      const DType want = resolve_arg_type(*p.op, p.op->inputs[i].type, p.t);
      return static_cast<std::uint64_t>(p.inputs[i].numel()) * dtype_size(want);
    };
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < p.inputs.size(); ++i) bytes += bytes_of(i);
    check_memory_limit(
        bytes + 2 * bytes_of(0),
        "running " + std::string(p.op->name) + " on x of shape " + shape_str(p.inputs[0].shape()));
  });
  if (pb.strict)
    for (const Note& n : p.notes)
      if (n.kind == NoteKind::TfWouldReject)
        ck.run(n.subject, [&] { fail(ErrorParts{{}, {}, note_text(n), {}, Option::Strict}); });
  return p;
}

}  // namespace

Prepared prepare(const Problem& pb, const Prepared* earlier) {
  Checks ck;
  Prepared p = prepare_checked(pb, ck, earlier);
  attach_input_notes(
      p, earlier);  // once, here: every caller shares the prepared problem and its notes
  return p;
}

std::vector<ValidationProblem> validation_problems(const Problem& pb) {
  std::vector<ValidationProblem> found;
  Checks ck(&found);
  prepare_checked(pb, ck);
  return found;
}

}  // namespace bnscope
