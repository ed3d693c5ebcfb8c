#include "backends/cpu_reference.h"

#include <type_traits>

#include "backends/reference/reference_ops.h"
#include "ops/outputs.h"
#include "tensor/parallel.h"

namespace bnscope {

namespace reference {

void end_pass(const RunContext& ctx, int done, int total) {
  if (ctx.progress) ctx.progress(static_cast<double>(done) / total);
  ctx.check_cancel();
}

void store(Tensor& t, const std::vector<double>& values) {
  t.set_doubles(values);
}

void load(const Tensor& t, std::int64_t begin, std::int64_t n, double* out) {
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = static_cast<const T*>(t.raw()) + begin;
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(to_float(p[i]));
  });
}

void store(DType dtype, void* base, std::int64_t begin, std::int64_t n, const double* values) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(base) + begin;
    for (std::int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, double>)
        p[i] = values[i];
      else
        p[i] = from_float<T>(static_cast<float>(values[i]));
    }
  });
}

void prefetch_rows_ahead(const ChannelView& v, const Tensor& a, const Tensor& b, std::int64_t begin,
                         std::int64_t n) {
  // Channels first, a segment is whole planes of a row: contiguous lines enough.
  if (v.inner != 1) return;
  constexpr std::int64_t kRowsAhead = 8;
  const std::int64_t at = begin + kRowsAhead * v.channels;
  for (const Tensor* t : {&a, &b}) {
    if (at + n > t->numel()) return;
    const std::size_t width = dtype_size(t->dtype());
    const auto* p = static_cast<const char*>(t->raw()) + static_cast<std::size_t>(at) * width;
    for (std::size_t o = 0; o < static_cast<std::size_t>(n) * width; o += 64)
      __builtin_prefetch(p + o);
  }
}

void for_channel_ranges(const ChannelView& v, const RunContext& ctx,
                        const std::function<void(std::int64_t, std::int64_t)>& body) {
  const int parts = channel_parts(v.channels, v.outer * v.channels * v.inner, ctx.threads);
  parallel_for(v.channels, parts, [&](int, std::int64_t c0, std::int64_t c1) { body(c0, c1); });
}

void for_row_ranges(const ChannelView& v, const RunContext& ctx,
                    const std::function<void(std::int64_t, std::int64_t)>& body) {
  const int parts = channel_parts(v.outer, v.outer * v.channels * v.inner, ctx.threads);
  parallel_for(v.outer, parts, [&](int, std::int64_t o0, std::int64_t o1) { body(o0, o1); });
}

}  // namespace reference

namespace {

class CpuReference : public Backend {
 public:
  std::string_view name() const override { return "cpu-reference"; }
  std::string_view description() const override {
    return "float64 loops over the untransposed data; the oracle for every other backend";
  }
  void run(const Prepared& p, Result& result, const RunContext& ctx) override {
    allocate_outputs(p, result);
    const OpSpec& op = *p.op;
    if (op.family == OpFamily::GlobalNorm)
      op.is_grad ? reference::global_grad(p, result, ctx)
                 : reference::global_forward(p, result, ctx);
    else
      op.is_grad ? reference::fused_grad(p, result, ctx) : reference::fused_forward(p, result, ctx);
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_reference_backend() {
  return std::make_unique<CpuReference>();
}

}  // namespace bnscope
