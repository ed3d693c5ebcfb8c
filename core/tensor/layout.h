#pragma once
// Data formats and the one index model every backend uses: a tensor seen as [outer, C, inner].
// NHWC/NDHWC: outer = N*H*W (or N*D*H*W), inner = 1. NCHW/NCDHW: outer = N, inner = H*W (or D*H*W).

#include <atomic>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "tensor/tensor.h"

namespace bnscope {

enum class DataFormat { NHWC, NCHW, NDHWC, NCDHW };

std::string_view data_format_name(DataFormat f);
// The format that names a layout at a rank: NHWC or NCHW, NDHWC or NCDHW for rank 5.
DataFormat data_format_for(bool channels_last, int rank);
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
  bool operator==(const ChannelView&) const = default;
};

int channel_axis(int rank, bool channels_last);
// Shape must have rank >= 2.
ChannelView channel_view(const Shape& shape, bool channels_last);

// Moves the channel axis: [N, spatial..., C] <-> [N, C, spatial...]. Any rank >= 2. threads:
// as parallel_parts takes them (0: every hardware thread); the result is the same on any count.
Tensor to_channels_first(const Tensor& t, int threads = 0);
Tensor to_channels_last(const Tensor& t, int threads = 0);
// The shape to_channels_first (to_first) or to_channels_last gives.
Shape channel_axis_moved(const Shape& shape, bool to_first);
// The same move done in t's own storage for batch elements [begin, end), through one element of
// scratch per thread: no second buffer and no fresh pages. It rewrites the storage that every
// copy of t shares, which keep their shape: for a caller that holds every copy and gives them
// the new shape (reshaped) when every element is done; the opposite move undoes it. scratch:
// memory the caller already has (pages already faulted in), used when it holds one batch element
// per thread; otherwise each thread allocates its own.
void move_channel_axis_in_place(const Tensor& t, bool to_first, std::int64_t begin,
                                std::int64_t end, int threads = 0,
                                std::span<std::byte> scratch = {});
// The same, stopping early once `stop` (polled before each element) is set: returns how many
// elements are moved, always the first ones of the range, [begin, begin + moved); the opposite
// move of that range undoes it. Each thread takes the next element when done with its last.
std::int64_t move_channel_axis_in_place_until(const Tensor& t, bool to_first, std::int64_t begin,
                                              std::int64_t end, const std::atomic<bool>* stop,
                                              int threads = 0, std::span<std::byte> scratch = {});

}  // namespace bnscope
