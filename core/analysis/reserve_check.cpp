// TEMPORARY placeholder until the reserve-space check lands.
#include "analysis/reserve_check.h"
namespace bnscope {
std::vector<Note> check_reserve_spaces(const Prepared&) {
  return {};
}
}  // namespace bnscope
