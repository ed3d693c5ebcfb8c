#include "ops/sample.h"

#include <algorithm>
#include <cmath>
#include <thread>
#include <type_traits>

#include "engine.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

// splitmix64: tiny, seedable, and identical on every platform (std distributions are not).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // The state after n more draws: splitmix64 is a counter, so a range of draws can be made on
  // another thread with the very values this generator would give.
  Rng skipped(std::uint64_t n) const { return Rng(s_ + n * 0x9e3779b97f4a7c15ull); }
  double normal() {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::uint64_t s_;
};

Tensor channel_vector(std::int64_t c, DType dtype, Rng& rng, double lo, double hi) {
  Tensor t(dtype, {c});
  for (std::int64_t i = 0; i < c; ++i) t.set(i, lo + (hi - lo) * rng.uniform());
  return t;
}

// Data tensor whose channel k has mean mu[k] and spread sd[k].
Tensor data_tensor(const SampleSpec& s, DType dtype, Rng& rng, double mean_spread, double base_sd) {
  const Shape shape = physical_shape(s.shape, s.format);
  Tensor t = Tensor::uninitialized(dtype, shape);  // every element is written below
  const ChannelView v = channel_view(shape, is_channels_last(s.format));
  std::vector<double> mu(static_cast<std::size_t>(v.channels)), sd(mu.size());
  for (std::size_t k = 0; k < mu.size(); ++k) {
    mu[k] = mean_spread * (2 * rng.uniform() - 1);
    sd[k] = base_sd * (0.5 + rng.uniform());
  }
  // Each element takes two draws, in (outer, channel, inner) order; the outer rows are split
  // across threads, each starting its generator where a single thread would be.
  const std::int64_t row = v.channels * v.inner;
  void* const base = t.raw();
  auto fill_rows = [&](std::int64_t o0, std::int64_t o1) {
    Rng r = rng.skipped(static_cast<std::uint64_t>(2 * o0 * row));
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* out = static_cast<T*>(base);
      for (std::int64_t o = o0; o < o1; ++o)
        for (std::int64_t c = 0; c < v.channels; ++c)
          for (std::int64_t i = 0; i < v.inner; ++i) {
            const double x =
                mu[static_cast<std::size_t>(c)] + sd[static_cast<std::size_t>(c)] * r.normal();
            if constexpr (std::is_same_v<T, double>)
              out[v.index(o, c, i)] = x;
            else
              out[v.index(o, c, i)] = from_float<T>(static_cast<float>(x));
          }
    });
  };
  const std::int64_t n = std::max<std::int64_t>(
      1, std::min({static_cast<std::int64_t>(std::thread::hardware_concurrency()), t.numel() >> 20,
                   v.outer}));
  std::vector<std::thread> workers;
  for (std::int64_t k = 1; k < n; ++k)
    workers.emplace_back(fill_rows, v.outer * k / n, v.outer * (k + 1) / n);
  fill_rows(0, v.outer / n);
  for (std::thread& w : workers) w.join();
  rng = rng.skipped(static_cast<std::uint64_t>(2 * t.numel()));
  return t;
}

}  // namespace

Shape physical_shape(const Shape& logical, DataFormat format) {
  if (is_channels_last(format) || logical.size() < 2) return logical;
  Shape s{logical.front(), logical.back()};
  s.insert(s.end(), logical.begin() + 1, logical.end() - 1);
  return s;
}

Problem random_problem(const SampleSpec& requested) {
  SampleSpec spec = requested;
  const OpSpec* op = find_op(spec.op);
  if (!op) fail("unknown op '" + spec.op + "'; expected one of " + op_names_joined());
  if (spec.shape.size() < 2) fail("sample shape must have rank >= 2, got " + shape_str(spec.shape));
  Rng rng(spec.seed);
  Problem p;
  p.op = spec.op;
  p.dtype = spec.dtype;
  p.convention = spec.convention;
  const std::int64_t c = spec.shape.back();
  const DType u = resolve_arg_type(*op, ArgType::U, spec.dtype);
  const bool global = op->family == OpFamily::GlobalNorm;
  if (global) spec.format = DataFormat::NHWC;  // the global ops are always channels-last
  if (global) {
    p.attrs["variance_epsilon"] = 0.001;
    p.attrs["scale_after_normalization"] = true;
  } else {
    p.attrs["data_format"] = std::string(data_format_name(spec.format));
    p.attrs["is_training"] = spec.is_training;
    p.attrs["epsilon"] = 0.001;
  }
  const std::string x_name = global ? "t" : "x";
  p.inputs[x_name] = data_tensor(spec, spec.dtype, rng, 2.0, 1.0);
  const std::string scale_name = global ? "gamma" : "scale";
  p.inputs[scale_name] = channel_vector(c, u, rng, 0.5, 1.5);
  Tensor offset = channel_vector(c, u, rng, -0.5, 0.5);
  if (!op->is_grad) {
    p.inputs[global ? "beta" : "offset"] = offset;
    Tensor mean = channel_vector(c, u, rng, -1.0, 1.0), var = channel_vector(c, u, rng, 0.5, 2.0);
    p.inputs[global ? "m" : "mean"] = mean;
    p.inputs[global ? "v" : "variance"] = var;
    return p;
  }
  p.inputs[global ? "backprop" : "y_backprop"] = data_tensor(spec, spec.dtype, rng, 0.1, 1.0);
  fill_reserve_from_forward(p, &offset);
  return p;
}

void fill_reserve_from_forward(Problem& p, const Tensor* offset) {
  const OpSpec* op = find_op(p.op);
  if (!op || !op->is_grad) fail("fill_reserve_from_forward needs a grad op, got '" + p.op + "'");
  const bool global = op->family == OpFamily::GlobalNorm;
  const std::string x_name = global ? "t" : "x";
  auto x = p.inputs.find(x_name);
  if (x == p.inputs.end()) fail("generating reserve spaces needs input '" + x_name + "'");
  const std::string scale_name = global ? "gamma" : "scale";
  auto scale = p.inputs.find(scale_name);
  if (scale == p.inputs.end()) fail("generating reserve spaces needs input '" + scale_name + "'");

  // The global ops have no training mode: their m and v are statistics of t, computed by the
  // fused forward op in training mode on the same data.
  Problem fwd;
  fwd.op = global ? "FusedBatchNormV3" : std::string(op->counterpart);
  fwd.dtype = p.dtype;
  fwd.convention = p.convention;
  fwd.inputs["x"] = x->second;
  fwd.inputs["scale"] = scale->second.to(DType::F32);
  const std::int64_t c = scale->second.numel();
  fwd.inputs["offset"] = offset ? offset->to(DType::F32) : Tensor(DType::F32, {c});
  bool training = true;
  if (global) {
    fwd.attrs["epsilon"] = attr_float(p, "variance_epsilon");
  } else {
    for (const char* a : {"epsilon", "data_format"})
      if (auto it = p.attrs.find(a); it != p.attrs.end()) fwd.attrs[a] = it->second;
    training = attr_bool(p, "is_training");
  }
  if (op->version == 1 && !global) {  // V1 takes T-typed statistics
    fwd.inputs["scale"] = scale->second;
    fwd.inputs["offset"] = offset ? *offset : Tensor(scale->second.dtype(), {c});
  }
  const Result r = run_problem(fwd, "cpu-reference");
  const DType stat_type =
      global ? x->second.dtype() : resolve_arg_type(*op, ArgType::U, x->second.dtype());
  if (global) {
    p.inputs["m"] = r.output("reserve_space_1").tensor.to(stat_type);
    p.inputs["v"] = r.output("batch_variance").tensor.to(stat_type);
    return;
  }
  if (training) {
    p.inputs["reserve_space_1"] = r.output("reserve_space_1").tensor.to(stat_type);
    p.inputs["reserve_space_2"] = r.output("reserve_space_2").tensor.to(stat_type);
  } else {
    p.inputs["reserve_space_1"] = r.output("batch_mean").tensor.to(stat_type);
    p.inputs["reserve_space_2"] = r.output("batch_variance").tensor.to(stat_type);
  }
  if (op->input_index("reserve_space_3") >= 0)
    p.inputs["reserve_space_3"] = r.output("reserve_space_3").tensor;
}

}  // namespace bnscope
