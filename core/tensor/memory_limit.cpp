#include "tensor/memory_limit.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "tensor/error.h"

namespace bnscope {

namespace {

std::atomic<std::uint64_t> g_override{0};

constexpr const char* kVariable = "BNSCOPE_MEMORY_LIMIT_MB";
// Whole MiB whose byte count fits 64 bits.
constexpr unsigned long long kMaxMiB = (~0ull) >> 20;

// The variable's MiB, 0 when it is not set, nullopt when it is set to something else than a
// whole number from 1 to kMaxMiB.
std::optional<unsigned long long> variable_mib() {
  const char* env = std::getenv(kVariable);
  if (!env) return 0;
  if (*env < '0' || *env > '9') return std::nullopt;  // strtoull would take "-5" and " 5"
  errno = 0;
  char* end = nullptr;
  const unsigned long long mb = std::strtoull(env, &end, 10);
  if (*end != '\0' || errno == ERANGE || mb == 0 || mb > kMaxMiB) return std::nullopt;
  return mb;
}

std::uint64_t default_limit() {
  if (const auto mb = variable_mib(); mb && *mb) return *mb << 20;
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

void check_memory_limit_variable() {
  if (variable_mib()) return;
  fail(std::string(kVariable) + " expects a whole number of MiB from 1 to " +
       std::to_string(kMaxMiB) + ", got '" + clip_for_message(std::getenv(kVariable)) + "'");
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
