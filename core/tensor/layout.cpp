#include "tensor/layout.h"

#include <cstring>

#include "tensor/error.h"

namespace bnscope {

std::string_view data_format_name(DataFormat f) {
  switch (f) {
    case DataFormat::NHWC:
      return "NHWC";
    case DataFormat::NCHW:
      return "NCHW";
    case DataFormat::NDHWC:
      return "NDHWC";
    case DataFormat::NCDHW:
      break;
  }
  return "NCDHW";
}

std::optional<DataFormat> parse_data_format(std::string_view s) {
  if (s == "NHWC") return DataFormat::NHWC;
  if (s == "NCHW") return DataFormat::NCHW;
  if (s == "NDHWC") return DataFormat::NDHWC;
  if (s == "NCDHW") return DataFormat::NCDHW;
  return std::nullopt;
}

int channel_axis(int rank, bool channels_last) {
  return channels_last ? rank - 1 : 1;
}

ChannelView channel_view(const Shape& shape, bool channels_last) {
  if (shape.size() < 2) fail("expected a tensor of rank >= 2, got shape " + shape_str(shape));
  ChannelView v;
  v.channels =
      shape[static_cast<std::size_t>(channel_axis(static_cast<int>(shape.size()), channels_last))];
  const std::int64_t total = num_elements(shape);
  const std::int64_t n = shape[0];
  if (channels_last) {
    v.inner = 1;
    v.outer = v.channels ? total / v.channels : 0;
    if (!v.channels) {  // keep outer meaningful for empty tensors
      v.outer = 1;
      for (std::size_t i = 0; i + 1 < shape.size(); ++i) v.outer *= shape[i];
    }
  } else {
    v.outer = n;
    v.inner = 1;
    for (std::size_t i = 2; i < shape.size(); ++i) v.inner *= shape[i];
  }
  return v;
}

namespace {

// Moves the channel axis between last and second place; the spatial order is kept.
Tensor move_axis(const Tensor& t, bool to_first) {
  if (t.rank() < 2) fail("layout conversion needs rank >= 2, got shape " + shape_str(t.shape()));
  const Shape& s = t.shape();
  Shape out_shape;
  std::int64_t n = s[0], c, spatial = 1;
  if (to_first) {
    c = s.back();
    for (std::size_t i = 1; i + 1 < s.size(); ++i) spatial *= s[i];
    out_shape = {n, c};
    out_shape.insert(out_shape.end(), s.begin() + 1, s.end() - 1);
  } else {
    c = s[1];
    for (std::size_t i = 2; i < s.size(); ++i) spatial *= s[i];
    out_shape = {n};
    out_shape.insert(out_shape.end(), s.begin() + 2, s.end());
    out_shape.push_back(c);
  }
  Tensor out(t.dtype(), out_shape);
  const std::size_t es = dtype_size(t.dtype());
  const auto* src = static_cast<const std::byte*>(t.raw());
  auto* dst = static_cast<std::byte*>(out.raw());
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t p = 0; p < spatial; ++p)
      for (std::int64_t k = 0; k < c; ++k) {
        const std::int64_t last = (b * spatial + p) * c + k;   // channels-last index
        const std::int64_t first = (b * c + k) * spatial + p;  // channels-first index
        const std::int64_t from = to_first ? last : first, to = to_first ? first : last;
        std::memcpy(dst + to * static_cast<std::int64_t>(es),
                    src + from * static_cast<std::int64_t>(es), es);
      }
  return out;
}

}  // namespace

Tensor to_channels_first(const Tensor& t) {
  return move_axis(t, true);
}
Tensor to_channels_last(const Tensor& t) {
  return move_axis(t, false);
}

}  // namespace bnscope
