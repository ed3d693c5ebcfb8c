#pragma once
// Which axis of a tensor plays which logical role in the views, so that the heatmap slices and
// the places of single elements always agree. Rank 1 is channels only; otherwise axis 0 is the
// batch, the channel axis is the last (channels_last) or axis 1, and the rest are spatial. Free of
// Qt, as element_errors.h is.

#include <cstddef>
#include <optional>
#include <vector>

namespace bnscope {

struct AxisRoles {
  std::optional<std::size_t> batch, channel;
  std::vector<std::size_t> spatial;  // in order: the last is the column, the others fold into rows
};
AxisRoles axis_roles(std::size_t rank, bool channels_last);

}  // namespace bnscope
