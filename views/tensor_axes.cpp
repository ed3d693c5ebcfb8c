#include "tensor_axes.h"

namespace bnscope {

AxisRoles axis_roles(std::size_t rank, bool channels_last) {
  AxisRoles r;
  if (rank == 0) return r;
  if (rank == 1) {
    r.channel = 0;
    return r;
  }
  r.batch = 0;
  r.channel = channels_last ? rank - 1 : 1;
  for (std::size_t i = 1; i < rank; ++i)
    if (i != *r.channel) r.spatial.push_back(i);
  return r;
}

}  // namespace bnscope
