#include <mutex>

#include "emulator.h"

namespace bnscope::emu {

namespace {

std::mutex g_config_mutex;
Config g_config;

}  // namespace

const char* order_name(Order o) {
  return o == Order::Forward ? "forward" : o == Order::Reverse ? "reverse" : "random";
}

Config config() {
  const std::lock_guard<std::mutex> lock(g_config_mutex);
  return g_config;
}

void set_config(const Config& c) {
  const std::lock_guard<std::mutex> lock(g_config_mutex);
  g_config = c;
}

}  // namespace bnscope::emu
