#pragma once
// Channel-wise views of a problem for the cause search: batch norm treats every channel on its
// own, so the problem on a few channels gives those channels' outputs exactly as the whole does.

#include <cstdint>
#include <vector>

#include "ops/catalog.h"
#include "ops/problem.h"
#include "ops/result.h"
#include "tensor/layout.h"

namespace bnscope::causes {

// channels[i] of t taken in order: t shaped like the data (view) keeps its other dimensions; a
// 1-D tensor of view.channels values is picked; any other tensor is returned as it is.
Tensor take_channels(const Tensor& t, const ChannelView& view, bool channels_last,
                     const std::vector<std::int64_t>& channels);

// The problem with every data-shaped and per-channel input taken on `channels`.
Problem problem_on_channels(const Problem& p, const ChannelView& view, bool channels_last,
                            const std::vector<std::int64_t>& channels);
std::vector<OutputTensor> outputs_on_channels(const std::vector<OutputTensor>& outs,
                                              const ChannelView& view, bool channels_last,
                                              const std::vector<std::int64_t>& channels);

// Values of channel c of a data-shaped tensor, every `stride`-th element of the channel.
std::vector<double> channel_sample(const Tensor& t, const ChannelView& v, std::int64_t c,
                                   std::int64_t stride = 1);

// Whether the problem declares channels-last data.
bool declared_channels_last(const Problem& p, const OpSpec& op);

}  // namespace bnscope::causes
