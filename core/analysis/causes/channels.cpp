#include "analysis/causes/channels.h"

#include <cstring>

#include "tensor/parallel.h"

namespace bnscope::causes {

namespace {

// Below this many bytes a copy is not worth waking the pool.
constexpr std::int64_t kPerPart = std::int64_t{1} << 20;

}  // namespace

Tensor take_channels(const Tensor& t, const ChannelView& view, bool channels_last,
                     const std::vector<std::int64_t>& channels) {
  const auto k = static_cast<std::int64_t>(channels.size());
  const std::size_t es = dtype_size(t.dtype());
  if (t.rank() == 1 && t.numel() == view.channels) {
    Tensor out = Tensor::uninitialized(t.dtype(), {k});
    const auto* src = static_cast<const unsigned char*>(t.raw());
    auto* dst = static_cast<unsigned char*>(out.raw());
    for (std::int64_t i = 0; i < k; ++i) std::memcpy(dst + i * es, src + channels[i] * es, es);
    return out;
  }
  if (t.rank() < 2 || t.numel() != view.outer * view.channels * view.inner || t.numel() == 0)
    return t;
  Shape shape = t.shape();
  shape[static_cast<std::size_t>(channel_axis(t.rank(), channels_last))] = k;
  Tensor out = Tensor::uninitialized(t.dtype(), shape);
  const auto* src = static_cast<const unsigned char*>(t.raw());
  auto* dst = static_cast<unsigned char*>(out.raw());
  const std::size_t run = static_cast<std::size_t>(view.inner) * es;
  bool consecutive = true;
  for (std::int64_t i = 1; i < k && consecutive; ++i) consecutive = channels[i] == channels[0] + i;
  // The rows are split between the core's threads: a block of a layer's channels reads a line or
  // two of every row of the whole tensor, which one core does not read at the memory's speed.
  const int parts = parallel_parts(static_cast<std::int64_t>(out.nbytes()), kPerPart);
  if (consecutive && k > 0) {  // a block of channels: one copy per outer index
    const std::size_t block = static_cast<std::size_t>(k) * run;
    parallel_for(view.outer, parts, [&](int, std::int64_t begin, std::int64_t end) {
      for (std::int64_t o = begin; o < end; ++o)
        std::memcpy(dst + static_cast<std::size_t>(o) * block,
                    src + static_cast<std::size_t>(view.index(o, channels[0], 0)) * es, block);
    });
    return out;
  }
  if (view.inner == 1 && es == 4) {  // channels-last float32: a gather per row, no memcpy calls
    const auto* s32 = static_cast<const std::uint32_t*>(t.raw());
    auto* d32 = static_cast<std::uint32_t*>(out.raw());
    parallel_for(view.outer, parts, [&](int, std::int64_t begin, std::int64_t end) {
      for (std::int64_t o = begin; o < end; ++o)
        for (std::int64_t i = 0; i < k; ++i) d32[o * k + i] = s32[o * view.channels + channels[i]];
    });
    return out;
  }
  parallel_for(view.outer, parts, [&](int, std::int64_t begin, std::int64_t end) {
    for (std::int64_t o = begin; o < end; ++o)
      for (std::int64_t i = 0; i < k; ++i)
        std::memcpy(dst + static_cast<std::size_t>((o * k + i) * view.inner) * es,
                    src + static_cast<std::size_t>(view.index(o, channels[i], 0)) * es, run);
  });
  return out;
}

Problem problem_on_channels(const Problem& p, const ChannelView& view, bool channels_last,
                            const std::vector<std::int64_t>& channels) {
  Problem out = p;
  for (auto& [name, t] : out.inputs) t = take_channels(t, view, channels_last, channels);
  return out;
}

std::vector<OutputTensor> outputs_on_channels(const std::vector<OutputTensor>& outs,
                                              const ChannelView& view, bool channels_last,
                                              const std::vector<std::int64_t>& channels) {
  std::vector<OutputTensor> sub = outs;
  for (OutputTensor& o : sub)
    if (o.defined) o.tensor = take_channels(o.tensor, view, channels_last, channels);
  return sub;
}

std::vector<double> channel_sample(const Tensor& t, const ChannelView& v, std::int64_t c,
                                   std::int64_t stride) {
  std::vector<double> out;
  const std::int64_t m = v.per_channel();
  for (std::int64_t j = 0; j < m; j += stride)
    out.push_back(t.get(v.index(j / v.inner, c, j % v.inner)));
  return out;
}

bool declared_channels_last(const Problem& p, const OpSpec& op) {
  if (!op.has_attr("data_format")) return true;
  auto f = parse_data_format(attr_string(p, "data_format"));
  return !f || is_channels_last(*f);
}

}  // namespace bnscope::causes
