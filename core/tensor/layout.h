#pragma once
// Data formats and the one index model every backend uses: a tensor seen as [outer, C, inner].
// NHWC/NDHWC: outer = N*H*W (or N*D*H*W), inner = 1. NCHW/NCDHW: outer = N, inner = H*W (or D*H*W).

#include <optional>
#include <string_view>

#include "tensor/tensor.h"

namespace bnscope {

enum class DataFormat { NHWC, NCHW, NDHWC, NCDHW };

std::string_view data_format_name(DataFormat f);
std::optional<DataFormat> parse_data_format(std::string_view s);
// TensorFlow's FormatFromString folds the 3-D names onto the 2-D ones; the kernel then decides
// by rank. This is the part of the format that matters for indexing.
inline bool is_channels_last(DataFormat f) {
  return f == DataFormat::NHWC || f == DataFormat::NDHWC;
}

struct ChannelView {
  std::int64_t outer = 0;
  std::int64_t channels = 0;
  std::int64_t inner = 0;
  std::int64_t per_channel() const { return outer * inner; }  // M, TensorFlow's rest_size
  std::int64_t index(std::int64_t o, std::int64_t c, std::int64_t i) const {
    return (o * channels + c) * inner + i;
  }
};

int channel_axis(int rank, bool channels_last);
// Shape must have rank >= 2.
ChannelView channel_view(const Shape& shape, bool channels_last);

// Moves the channel axis: [N, spatial..., C] <-> [N, C, spatial...]. Any rank >= 2. threads:
// as parallel_parts takes them (0: every hardware thread); the result is the same on any count.
Tensor to_channels_first(const Tensor& t, int threads = 0);
Tensor to_channels_last(const Tensor& t, int threads = 0);

}  // namespace bnscope
