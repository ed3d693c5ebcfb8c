#include "ops/sample.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "ops/bn_math.h"
#include "ops/moments.h"
#include "tensor/error.h"
#include "tensor/memory_limit.h"
#include "tensor/parallel.h"
#include "tensor/seeded_rng.h"

namespace bnscope {

namespace {

using Rng = SeededRng;

Tensor channel_vector(std::int64_t c, DType dtype, Rng& rng, double lo, double hi) {
  Tensor t(dtype, {c});
  for (std::int64_t i = 0; i < c; ++i) t.set(i, lo + (hi - lo) * rng.uniform());
  return t;
}

// Data tensor whose channel k has mean mu[k] and spread sd[k]: returned whole, or with `slice_to`
// handed to it in order as slices of whole rows of about spec.slice_bytes (one row where a row is
// larger), made into two buffers in turn and not kept (the returned tensor is then empty).
Tensor data_tensor(const SampleSpec& s, DType dtype, Rng& rng, double mean_spread, double base_sd,
                   const std::function<void(const TensorSlice&)>& slice_to = {}) {
  const Shape shape = physical_shape(s.shape, s.format);
  const std::int64_t numel = num_elements(shape);
  const ChannelView v = channel_view(shape, is_channels_last(s.format));
  std::vector<double> mu(static_cast<std::size_t>(v.channels)), sd(mu.size());
  for (std::size_t k = 0; k < mu.size(); ++k) {
    mu[k] = mean_spread * (2 * rng.uniform() - 1);
    sd[k] = base_sd * (0.5 + rng.uniform());
  }
  // Element j, in (outer, channel, inner) order, is value j of the generator's normal stream
  // (SeededRng::normals_at), so the outer rows are split across threads, and into slices, with
  // the same values whatever their number.
  const Rng draws = rng;
  rng = rng.skipped(static_cast<std::uint64_t>(2 * numel));
  const std::int64_t row = v.channels * v.inner;
  const std::int64_t row_bytes = row * static_cast<std::int64_t>(dtype_size(dtype));
  // Rows [o0, o1) into `to`, which holds row o0 first.
  auto fill_rows = [&](void* to, std::int64_t o0, std::int64_t o1) {
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* const out = static_cast<T*>(to);
      constexpr std::int64_t kBatch = 4096;
      std::vector<double> z(static_cast<std::size_t>(std::min(row, kBatch)));
      for (std::int64_t o = o0; o < o1; ++o) {
        std::int64_t c = 0, i = 0;
        for (std::int64_t start = 0; start < row; start += kBatch) {
          const std::int64_t n = std::min(kBatch, row - start);
          draws.normals_at(static_cast<std::uint64_t>(o * row + start), z.data(), n);
          // (outer, channel, inner) order is memory order: element k of the batch is at dst[k].
          T* const dst = out + (o - o0) * row + start;
          const auto value = [](double x) -> T {
            if constexpr (std::is_same_v<T, double>)
              return x;
            else
              return from_float<T>(static_cast<float>(x));
          };
          if (v.inner == 1) {  // channels last: element k is channel start + k, a plain loop
            const double* const m = mu.data() + start;
            const double* const d = sd.data() + start;
            for (std::int64_t k = 0; k < n; ++k)
              dst[k] = value(m[k] + d[k] * z[static_cast<std::size_t>(k)]);
            continue;
          }
          for (std::int64_t k = 0; k < n; ++k) {
            dst[k] = value(mu[static_cast<std::size_t>(c)] +
                           sd[static_cast<std::size_t>(c)] * z[static_cast<std::size_t>(k)]);
            if (++i == v.inner) {
              i = 0;
              ++c;
            }
          }
        }
      }
    });
  };
  const int parts = s.threads > 0 ? s.threads : parallel_parts(numel, std::int64_t{1} << 20);
  // Every thread on each range of rows.
  const auto fill = [&](void* dst, std::int64_t o0, std::int64_t o1) {
    parallel_for(o1 - o0, parts, [&](int, std::int64_t a, std::int64_t b) {
      fill_rows(static_cast<std::byte*>(dst) + a * row_bytes, o0 + a, o0 + b);
    });
  };
  if (!slice_to) {
    Tensor t = Tensor::uninitialized(dtype, shape);  // every element is written below
    if (numel > 0) fill(t.raw(), 0, v.outer);
    return t;
  }
  if (numel == 0) {
    slice_to(TensorSlice{dtype, shape, 0, Tensor(dtype, {0}), 0});
    return {};
  }
  // Two buffers, so that one is filled while the other's slice is still being read: a slice's
  // buffer is refilled only after the call that hands the next slice has returned, which the
  // reader answers once it is done with the earlier one (sample.h). Fresh pages cost more than
  // refilling warm ones, so the whole tensor is never allocated.
  const std::int64_t rows = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(s.slice_bytes) / std::max<std::int64_t>(row_bytes, 1));
  Tensor buffers[2];
  std::int64_t k = 0;
  for (std::int64_t o0 = 0; o0 < v.outer; o0 += rows, ++k) {
    const std::int64_t o1 = std::min(v.outer, o0 + rows);
    Tensor& buffer = buffers[k % 2];
    if (buffer.numel() == 0) buffer = Tensor::uninitialized(dtype, {std::min(rows, v.outer) * row});
    fill(buffer.raw(), o0, o1);
    slice_to(TensorSlice{dtype, shape, static_cast<std::size_t>(o0 * row_bytes), buffer,
                         static_cast<std::size_t>((o1 - o0) * row_bytes)});
  }
  return {};
}

}  // namespace

Shape physical_shape(const Shape& logical, DataFormat format) {
  if (is_channels_last(format) || logical.size() < 2) return logical;
  Shape s{logical.front(), logical.back()};
  s.insert(s.end(), logical.begin() + 1, logical.end() - 1);
  return s;
}

std::uint64_t sample_bytes(const SampleSpec& spec, bool gradient_in_slices) {
  const OpSpec* op = find_op(spec.op);
  if (!op) fail("unknown op '" + spec.op + "'; expected one of " + op_names_joined());
  if (spec.shape.size() < 2) fail("sample shape must have rank >= 2, got " + shape_str(spec.shape));
  // Saturating: a shape of 2^40 x 2^40 is refused by the limit, not wrapped into a small size.
  const auto mul = [](std::uint64_t a, std::uint64_t b) {
    std::uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
  };
  const auto add = [](std::uint64_t a, std::uint64_t b) {
    std::uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
  };
  std::uint64_t numel = 1;
  for (const std::int64_t d : spec.shape) {
    if (d < 0) fail("negative dimension in shape " + shape_str(spec.shape));
    numel = mul(numel, static_cast<std::uint64_t>(d));
  }
  const auto c = static_cast<std::uint64_t>(spec.shape.back());
  const std::uint64_t data = mul(numel, dtype_size(spec.dtype));
  const bool whole_gradient = op->is_grad && !gradient_in_slices;
  // Per channel: a mean and a spread per data tensor and the moments, in float64, beside the
  // four channel inputs.
  const std::uint64_t per_channel =
      add(mul(c, 8 * 8), mul(c, 4 * dtype_size(resolve_arg_type(*op, ArgType::U, spec.dtype))));
  return add(add(data, whole_gradient ? data : 0), per_channel);
}

void check_sample_memory(const SampleSpec& spec, bool gradient_in_slices) {
  check_memory_limit(sample_bytes(spec, gradient_in_slices),
                     "a sample of " + spec.op + " with x of shape " +
                         shape_str(physical_shape(spec.shape, spec.format)));
}

Problem random_problem(const SampleSpec& requested, const SampleHooks& hooks) {
  SampleSpec spec = requested;
  const OpSpec* op = find_op(spec.op);
  // Before anything is made: an absurd shape is refused at once, not after minutes of filling.
  check_sample_memory(spec, static_cast<bool>(hooks.gradient_slice));
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
  p.inputs[std::string(op->data_input())] = data_tensor(spec, spec.dtype, rng, 2.0, 1.0);
  p.inputs[std::string(op->scale_input)] = channel_vector(c, u, rng, 0.5, 1.5);
  Tensor offset = channel_vector(c, u, rng, -0.5, 0.5);
  if (!op->is_grad) {
    p.inputs[global ? "beta" : "offset"] = offset;
    Tensor mean = channel_vector(c, u, rng, -1.0, 1.0), var = channel_vector(c, u, rng, 0.5, 2.0);
    p.inputs[std::string(op->mean_input)] = mean;
    p.inputs[std::string(op->variance_input)] = var;
    return p;
  }
  // The reserve spaces read x and scale only and draw nothing from the stream.
  fill_reserve_from_forward(p);
  if (hooks.before_gradient) hooks.before_gradient(p);
  Tensor gradient = data_tensor(spec, spec.dtype, rng, 0.1, 1.0, hooks.gradient_slice);
  if (!hooks.gradient_slice) p.inputs[std::string(op->gradient_input())] = std::move(gradient);
  return p;
}

void fill_reserve_from_forward(Problem& p) {
  const OpSpec* op = find_op(p.op);
  if (!op || !op->is_grad) fail("fill_reserve_from_forward needs a grad op, got '" + p.op + "'");
  const bool global = op->family == OpFamily::GlobalNorm;
  const std::string x_name(op->data_input());
  auto x = p.inputs.find(x_name);
  if (x == p.inputs.end()) fail("generating reserve spaces needs input '" + x_name + "'");
  const std::string scale_name(op->scale_input);
  auto scale = p.inputs.find(scale_name);
  if (scale == p.inputs.end()) fail("generating reserve spaces needs input '" + scale_name + "'");

  // What the forward op saves, in training mode on the same data: the batch mean, the biased
  // variance (or 1/sqrt(var + eps) under the cuDNN convention) as reserve spaces, the mean and
  // the unbiased variance as batch_mean/batch_variance. The global ops have no training mode:
  // their m and v are those batch statistics of t.
  const std::string forward = global ? "FusedBatchNormV3" : std::string(op->counterpart);
  const DType t_type = p.dtype.value_or(x->second.dtype());
  const DType forward_u = resolve_arg_type(*find_op(forward), ArgType::U, t_type);
  const bool channels_last =
      global ||
      is_channels_last(parse_data_format(attr_string(p, "data_format")).value_or(DataFormat::NHWC));
  if (x->second.rank() < 2) fail("generating reserve spaces needs " + x_name + " of rank >= 2");
  const ChannelView view = channel_view(x->second.shape(), channels_last);
  const std::int64_t c = view.channels;
  if (scale->second.numel() != c)
    fail("generating reserve spaces needs " + scale_name + " with one value per channel (" +
         std::to_string(c) + "), got " + shape_str(scale->second.shape()));
  // prepare() converts x to T before the forward would read it.
  const Tensor& x_given = x->second;
  // One shifted pass in float64: the figures round to the same T values as two passes would
  // (they differ by a few float64 ulps), at half the reads of x.
  const ChannelMoments m =
      channel_moments_one_pass(x_given.dtype() == t_type ? x_given : x_given.to(t_type), view);
  const double eps = static_cast<float>(attr_float(p, op->epsilon_attr()));
  const bool training = !op->has_modes() || attr_bool(p, "is_training");
  std::vector<double> saved_2(m.biased_variance), unbiased(m.biased_variance);
  for (std::size_t k = 0; k < saved_2.size(); ++k) {
    if (p.convention == ReserveConvention::InvStd) saved_2[k] = inv_std(saved_2[k], eps);
    unbiased[k] *= bessel_factor(view.per_channel());
  }
  // Rounded to the forward's output type first, as a real forward run would have saved them.
  const DType stat_type =
      global ? x_given.dtype() : resolve_arg_type(*op, ArgType::U, x_given.dtype());
  const auto stat = [&](const std::vector<double>& values) {
    Tensor t(forward_u, {c});
    t.set_doubles(values);
    return t.to(stat_type);
  };
  p.inputs[std::string(op->mean_input)] = stat(m.mean);
  p.inputs[std::string(op->variance_input)] = stat(training && !global ? saved_2 : unbiased);
  if (op->input_index("reserve_space_3") >= 0) p.inputs["reserve_space_3"] = Tensor(forward_u, {});
}

}  // namespace bnscope
