#include "plugin/plugin_protocol.h"

#include <unistd.h>

namespace bnscope::plugin_protocol {

std::size_t page_size() {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

}  // namespace bnscope::plugin_protocol
