#include "backends/cpu/host_caches.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace bnscope::cpu {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<std::uint64_t> parse_uint(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  std::uint64_t v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(ch - '0');
  }
  return v;
}

std::optional<std::string> read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void add_cache(HostCaches& c, int level, bool data_or_unified, std::size_t size, int sharing) {
  if (!data_or_unified || size == 0) return;
  sharing = sharing > 0 ? sharing : 1;
  if (level == 1) {
    c.l1d = size;
  } else if (level == 2) {
    c.l2 = size;
    c.l2_sharing = sharing;
  } else if (level == 3) {
    c.l3 = size;
    c.l3_sharing = sharing;
  }
}

std::string bytes_text(std::size_t b) {
  if (b >= (1u << 20) && b % (1u << 20) == 0) return std::to_string(b >> 20) + " MiB";
  if (b >= (1u << 10) && b % (1u << 10) == 0) return std::to_string(b >> 10) + " KiB";
  return std::to_string(b) + " B";
}

}  // namespace

std::size_t HostCaches::reuse_bytes() const {
  const std::size_t share = l2 / static_cast<std::size_t>(l2_sharing > 0 ? l2_sharing : 1);
  return share - share / 8;
}

std::size_t HostCaches::resident_bytes() const {
  const std::size_t l3_share = l3 / static_cast<std::size_t>(l3_sharing > 0 ? l3_sharing : 1);
  return reuse_bytes() + l3_share / 4;
}

std::size_t HostCaches::llc_bytes() const {
  return l3 > 0 ? l3 : l2;
}

std::size_t HostCaches::llc_share_bytes(int threads) const {
  const int sharing = std::max(l3 > 0 ? l3_sharing : l2_sharing, 1);
  const int users = std::clamp(threads, 1, sharing);
  return llc_bytes() / static_cast<std::size_t>(sharing) * static_cast<std::size_t>(users);
}

std::optional<std::size_t> parse_cache_size(std::string_view text) {
  text = trim(text);
  const int unit = text.empty() ? 0 : std::toupper(static_cast<unsigned char>(text.back()));
  const int shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
  if (shift > 0) text.remove_suffix(1);
  const auto v = parse_uint(text);
  if (!v) return std::nullopt;
  return static_cast<std::size_t>(*v) << shift;
}

int count_cpu_list(std::string_view text) {
  text = trim(text);
  if (text.empty()) return 0;
  int count = 0;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const std::size_t dash = item.find('-');
    const auto lo = parse_uint(item.substr(0, dash));
    const auto hi = dash == std::string_view::npos ? lo : parse_uint(item.substr(dash + 1));
    if (!lo || !hi || *hi < *lo) return 0;
    count += static_cast<int>(*hi - *lo + 1);
  }
  return count;
}

HostCaches read_sysfs_caches(const std::string& dir) {
  HostCaches c;
  c.source = "sysfs";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("index", 0) != 0) continue;
    const auto level = read_text(entry.path() / "level");
    const auto type = read_text(entry.path() / "type");
    const auto size = read_text(entry.path() / "size");
    if (!level || !type || !size) continue;
    const auto lv = parse_uint(trim(*level));
    const auto bytes = parse_cache_size(*size);
    if (!lv || !bytes) continue;
    const std::string_view t = trim(*type);
    const auto shared = read_text(entry.path() / "shared_cpu_list");
    add_cache(c, static_cast<int>(*lv), t == "Data" || t == "Unified", *bytes,
              shared ? count_cpu_list(*shared) : 1);
  }
  return c;
}

HostCaches read_cpuid_caches() {
  HostCaches c;
  c.source = "cpuid";
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, cx = 0, d = 0;
  if (!__get_cpuid(0, &a, &b, &cx, &d)) return c;
  const unsigned max_basic = a;
  const bool amd = b == 0x68747541u;  // "Auth"enticAMD
  unsigned leaf = 0;
  // clang's cpuid.h returns int, GCC's unsigned.
  if (amd && static_cast<unsigned>(__get_cpuid_max(0x80000000u, nullptr)) >= 0x8000001Du)
    leaf = 0x8000001Du;
  else if (!amd && max_basic >= 4)
    leaf = 4;
  if (leaf == 0) return c;
  for (unsigned sub = 0; sub < 16; ++sub) {
    __cpuid_count(leaf, sub, a, b, cx, d);
    const unsigned type = a & 0x1Fu;  // 0 none, 1 data, 2 instruction, 3 unified
    if (type == 0) break;
    const int level = static_cast<int>((a >> 5) & 0x7u);
    const int sharing = static_cast<int>(((a >> 14) & 0xFFFu) + 1);
    const std::size_t size = std::size_t{((b >> 22) & 0x3FFu) + 1} * (((b >> 12) & 0x3FFu) + 1) *
                             ((b & 0xFFFu) + 1) * (std::size_t{cx} + 1);
    add_cache(c, level, type == 1 || type == 3, size, sharing);
  }
#endif
  return c;
}

const HostCaches& host_caches() {
  static const HostCaches caches = [] {
    HostCaches c = read_sysfs_caches("/sys/devices/system/cpu/cpu0/cache");
    if (c.l2 == 0) c = read_cpuid_caches();
    if (c.l2 == 0) {
      c = HostCaches{};
      c.l1d = std::size_t{32} << 10;
      c.l2 = std::size_t{256} << 10;
      c.source = "default";
    }
    return c;
  }();
  return caches;
}

std::string describe(const HostCaches& c) {
  std::string s = "L1d " + (c.l1d ? bytes_text(c.l1d) : std::string("?")) + ", L2 " +
                  (c.l2 ? bytes_text(c.l2) : std::string("?"));
  if (c.l3) s += ", L3 " + bytes_text(c.l3) + " shared by " + std::to_string(c.l3_sharing);
  return s + " (" + c.source + ")";
}

}  // namespace bnscope::cpu
