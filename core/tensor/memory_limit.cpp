#include "tensor/memory_limit.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "tensor/error.h"

namespace bnscope {

namespace {

std::atomic<std::uint64_t> g_override{0};

std::uint64_t default_limit() {
  if (const char* env = std::getenv("BNSCOPE_MEMORY_LIMIT_MB")) {
    char* end = nullptr;
    const unsigned long long mb = std::strtoull(env, &end, 10);
    if (end != env && *end == '\0' && mb > 0) return mb << 20;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::uint64_t{8} << 30;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 4 * 3;
}

std::string gib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1u << 30));
  return buf;
}

}  // namespace

std::uint64_t memory_limit_bytes() {
  const std::uint64_t o = g_override.load();
  if (o) return o;
  static const std::uint64_t d = default_limit();
  return d;
}

void set_memory_limit_bytes(std::uint64_t bytes) {
  g_override.store(bytes);
}

void check_memory_limit(std::uint64_t bytes, const std::string& what) {
  const std::uint64_t limit = memory_limit_bytes();
  if (bytes > limit)
    throw Error(ErrorCode::ResourceExhausted, what + " needs " + gib(bytes) +
                                                  ", more than the memory limit of " + gib(limit) +
                                                  " (set BNSCOPE_MEMORY_LIMIT_MB to change it)");
}

}  // namespace bnscope
