#include "io/zip_locate.h"

#include <unistd.h>

#include <cerrno>
#include <vector>

namespace bnscope {

namespace {

bool read_at(int fd, std::uint64_t offset, void* dst, std::size_t n) {
  auto* p = static_cast<unsigned char*>(dst);
  while (n) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    offset += static_cast<std::uint64_t>(got);
    n -= static_cast<std::size_t>(got);
  }
  return true;
}

std::uint64_t le(const unsigned char* p, int n) {
  std::uint64_t v = 0;
  for (int k = n; k-- > 0;) v = (v << 8) | p[k];
  return v;
}

constexpr std::uint32_t kEnd = 0x06054b50, kEnd64 = 0x06064b50, kLocator64 = 0x07064b50;
constexpr std::uint32_t kCentral = 0x02014b50, kLocal = 0x04034b50;

// The central directory's offset and size, or false.
bool find_directory(int fd, std::uint64_t file_size, std::uint64_t& at, std::uint64_t& size) {
  const std::uint64_t tail = std::min<std::uint64_t>(file_size, 22 + 0xffff);
  std::vector<unsigned char> t(static_cast<std::size_t>(tail));
  if (tail < 22 || !read_at(fd, file_size - tail, t.data(), t.size())) return false;
  for (std::size_t k = t.size() - 22 + 1; k-- > 0;) {
    if (le(&t[k], 4) != kEnd) continue;
    if (k + 22 + le(&t[k + 20], 2) != t.size()) continue;  // the comment must end the file
    at = le(&t[k + 16], 4);
    size = le(&t[k + 12], 4);
    if (at != 0xffffffffu && size != 0xffffffffu) return true;
    // Zip64: the locator sits just before the end record.
    const std::uint64_t end_at = file_size - tail + k;
    unsigned char loc[20], rec[56];
    if (end_at < 20 || !read_at(fd, end_at - 20, loc, sizeof loc) || le(loc, 4) != kLocator64)
      return false;
    if (!read_at(fd, le(loc + 8, 8), rec, sizeof rec) || le(rec, 4) != kEnd64) return false;
    size = le(rec + 40, 8);
    at = le(rec + 48, 8);
    return true;
  }
  return false;
}

}  // namespace

std::map<std::string, StoredSpan> locate_stored_members(int fd, std::uint64_t file_size) {
  std::map<std::string, StoredSpan> out;
  std::uint64_t at = 0, size = 0;
  if (!find_directory(fd, file_size, at, size)) return {};
  if (size > file_size || at > file_size - size || size > (std::uint64_t{64} << 20)) return {};
  std::vector<unsigned char> d(static_cast<std::size_t>(size));
  if (!read_at(fd, at, d.data(), d.size())) return {};
  std::size_t k = 0;
  while (k + 46 <= d.size() && le(&d[k], 4) == kCentral) {
    const unsigned char* h = &d[k];
    const std::size_t name_len = le(h + 28, 2), extra_len = le(h + 30, 2),
                      comment_len = le(h + 32, 2);
    if (k + 46 + name_len + extra_len + comment_len > d.size()) return {};
    const std::string name(reinterpret_cast<const char*>(h + 46), name_len);
    const bool encrypted = le(h + 8, 2) & 1;
    const std::uint64_t method = le(h + 10, 2);
    StoredSpan s;
    s.crc = static_cast<std::uint32_t>(le(h + 16, 4));
    std::uint64_t packed = le(h + 20, 4), plain = le(h + 24, 4), local = le(h + 42, 4);
    // Zip64 extra field: the 64-bit values of the fields that hold all ones, in this order.
    for (const unsigned char* e = h + 46 + name_len; e + 4 <= h + 46 + name_len + extra_len;) {
      const std::size_t len = le(e + 2, 2);
      if (e + 4 + len > h + 46 + name_len + extra_len) break;
      if (le(e, 2) == 1) {
        const unsigned char* v = e + 4;
        const unsigned char* v_end = v + len;
        for (std::uint64_t* f : {&plain, &packed, &local})
          if (*f == 0xffffffffu && v + 8 <= v_end) {
            *f = le(v, 8);
            v += 8;
          }
      }
      e += 4 + len;
    }
    k += 46 + name_len + extra_len + comment_len;
    if (encrypted || method != 0 || packed != plain) continue;
    unsigned char lh[30];
    if (local > file_size || !read_at(fd, local, lh, sizeof lh) || le(lh, 4) != kLocal) continue;
    s.offset = local + 30 + le(lh + 26, 2) + le(lh + 28, 2);
    s.size = plain;
    if (s.offset > file_size || s.size > file_size - s.offset) continue;
    out[name] = s;
  }
  return out;
}

}  // namespace bnscope
