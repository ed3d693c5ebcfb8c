#include "io/zip_directory.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "tensor/error.h"

namespace bnscope {

namespace {

constexpr std::uint32_t kEndSig = 0x06054b50, kEnd64Sig = 0x06064b50, kLocator64Sig = 0x07064b50;
constexpr std::uint32_t kCentralSig = 0x02014b50, kLocalSig = 0x04034b50;
constexpr std::uint64_t kZip64Marker = 0xffffffffu;
// A directory is about 100 bytes a member: this allows hundreds of thousands.
constexpr std::uint64_t kMaxDirectory = std::uint64_t{64} << 20;

std::uint64_t read_le(const unsigned char* p, int n) {
  std::uint64_t v = 0;
  for (int k = n; k-- > 0;) v = (v << 8) | p[k];
  return v;
}

class ArchiveFile {
 public:
  ArchiveFile(int fd, std::uint64_t file_size, const std::string& path)
      : fd_(fd), size_(file_size), path_(path) {}

  [[noreturn]] void bad(const std::string& why) const {
    fail("cannot read .npz '" + path_ + "': " + why);
  }
  // A file cut short says so first: "not a zip archive" would send its owner looking for the
  // wrong mistake.
  [[noreturn]] void truncated(const std::string& where) const {
    fail(path_ + ": truncated (" + where + ")");
  }

  // n bytes at offset, which must lie within the file.
  void at(std::uint64_t offset, void* dst, std::size_t n, const char* what) const {
    if (offset > size_ || n > size_ - offset)
      bad(std::string(what) + " lies past the end of the file (truncated?)");
    auto* p = static_cast<unsigned char*>(dst);
    while (n) {
      const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) bad(std::string("cannot read ") + what + ": " + std::strerror(errno));
      if (got == 0) bad(std::string(what) + " lies past the end of the file (truncated?)");
      p += got;
      offset += static_cast<std::uint64_t>(got);
      n -= static_cast<std::size_t>(got);
    }
  }

  std::uint64_t size() const { return size_; }

 private:
  int fd_;
  std::uint64_t size_;
  const std::string& path_;
};

struct DirectoryPlace {
  std::uint64_t offset = 0, size = 0, count = 0;
  std::uint64_t end = 0;  // where the end records begin: the directory must end there
};

// Zip64's end record, found through the locator just before the classic end record.
void read_end64(const ArchiveFile& r, std::uint64_t end_at, DirectoryPlace& d) {
  unsigned char loc[20], rec[56];
  if (end_at < sizeof loc) r.bad("the Zip64 end-record locator is missing");
  r.at(end_at - sizeof loc, loc, sizeof loc, "the Zip64 end-record locator");
  if (read_le(loc, 4) != kLocator64Sig) r.bad("the Zip64 end-record locator is missing");
  if (read_le(loc + 4, 4) != 0 || read_le(loc + 16, 4) > 1)
    r.bad("multi-disk archives are not supported");
  const std::uint64_t at = read_le(loc + 8, 8);
  if (at > end_at - sizeof loc || end_at - sizeof loc - at < sizeof rec)
    r.bad("the Zip64 end record does not lie before its locator");
  r.at(at, rec, sizeof rec, "the Zip64 end record");
  if (read_le(rec, 4) != kEnd64Sig)
    r.bad("the Zip64 end record is missing where its locator points");
  if (read_le(rec + 16, 4) != 0 || read_le(rec + 20, 4) != 0)
    r.bad("multi-disk archives are not supported");
  if (read_le(rec + 24, 8) != read_le(rec + 32, 8))
    r.bad("the Zip64 end record's entry counts disagree");
  d.count = read_le(rec + 32, 8);
  d.size = read_le(rec + 40, 8);
  d.offset = read_le(rec + 48, 8);
  d.end = at;
}

bool has_locator(const ArchiveFile& r, std::uint64_t end_at) {
  unsigned char sig[4];
  if (end_at < 20) return false;
  r.at(end_at - 20, sig, sizeof sig, "the end record");
  return read_le(sig, 4) == kLocator64Sig;
}

void apply_zip64(const ArchiveFile& r, const std::string& name, const unsigned char* extra,
                 std::size_t len, const std::vector<std::uint64_t*>& fields);

// Where a zip archive cut short before its end record stopped: the members' local headers,
// walked from the start, say how far the data was meant to go. Empty when the file does not
// begin like a zip archive, or goes on with something that is not one.
std::string where_cut(const ArchiveFile& r) {
  const std::string has = ", the file has " + std::to_string(r.size()) + " bytes";
  std::uint64_t at = 0;
  for (int member = 0;; ++member) {
    if (at == r.size())
      return member ? "ends after the members' data, before the zip's central directory" + has
                    : std::string();
    unsigned char h[30];
    if (r.size() - at < 4) return "ends inside the zip's data" + has;
    r.at(at, h, 4, "a local header");
    const std::uint64_t sig = read_le(h, 4);
    if (member && (sig == kCentralSig || sig == kEnd64Sig || sig == kLocator64Sig))
      return "ends inside the zip's central directory" + has;
    if (sig != kLocalSig) return {};
    if (r.size() - at < sizeof h)
      return "ends inside the zip's data; expected a " + std::to_string(sizeof h) +
             "-byte local header at " + std::to_string(at) + has;
    r.at(at, h, sizeof h, "a local header");
    const std::size_t name_len = read_le(h + 26, 2), extra_len = read_le(h + 28, 2);
    const std::uint64_t data = at + sizeof h + name_len + extra_len;
    if (data > r.size())
      return "ends inside the zip's data; expected at least " + std::to_string(data) +
             " bytes for member " + std::to_string(member + 1) + "'s local header" + has;
    std::vector<unsigned char> rest(name_len + extra_len);
    r.at(at + sizeof h, rest.data(), rest.size(), "a local header");
    const std::string name(reinterpret_cast<const char*>(rest.data()), name_len);
    const std::string what = "member '" + clip_for_message(name) + "'";
    const bool described = read_le(h + 6, 2) & 8;
    std::uint64_t packed = read_le(h + 18, 4), size = read_le(h + 22, 4);
    const bool zip64 = packed == kZip64Marker || size == kZip64Marker;
    apply_zip64(r, name, rest.data() + name_len, extra_len, {&size, &packed});
    // A data descriptor after the data holds its size: how far it goes is not known here.
    if (described && packed == 0) return "ends inside the zip's data, in or after " + what + has;
    if (packed > r.size() - data)
      return "ends inside the zip's data; expected at least " + std::to_string(data + packed) +
             " bytes for " + what + has;
    at = data + packed;
    if (described) {  // optional signature, CRC, then two 4-byte (or, with Zip64, 8-byte) sizes
      unsigned char d[4];
      if (r.size() - at >= 4 && (r.at(at, d, 4, "a data descriptor"), read_le(d, 4) == 0x08074b50))
        at += 4;
      const std::uint64_t n = 4 + (zip64 ? 16 : 8);
      if (r.size() - at < n)
        return "ends inside the zip's data, in " + what + "'s descriptor" + has;
      at += n;
    }
  }
}

DirectoryPlace find_directory(const ArchiveFile& r) {
  const std::uint64_t tail = std::min<std::uint64_t>(r.size(), 22 + 0xffff);
  if (tail < 22) {
    if (const std::string cut = where_cut(r); !cut.empty()) r.truncated(cut);
    r.bad("not a zip archive (" + std::to_string(r.size()) + " bytes)");
  }
  std::vector<unsigned char> t(static_cast<std::size_t>(tail));
  r.at(r.size() - tail, t.data(), t.size(), "the end record");
  std::size_t misplaced = t.size();
  for (std::size_t k = t.size() - 22 + 1; k-- > 0;) {
    if (read_le(&t[k], 4) != kEndSig) continue;
    if (k + 22 + read_le(&t[k + 20], 2) > t.size()) continue;
    if (k + 22 + read_le(&t[k + 20], 2) < t.size()) {  // the comment must end the file
      if (misplaced == t.size()) misplaced = k + 22 + read_le(&t[k + 20], 2);
      continue;
    }
    const unsigned char* e = &t[k];
    if (read_le(e + 4, 2) != 0 || read_le(e + 6, 2) != 0)
      r.bad("multi-disk archives are not supported");
    if (read_le(e + 8, 2) != read_le(e + 10, 2)) r.bad("the end record's entry counts disagree");
    DirectoryPlace d{read_le(e + 16, 4), read_le(e + 12, 4), read_le(e + 10, 2),
                     r.size() - tail + k};
    // Zip64's records are read whenever its locator is there, as zip readers do, not only when
    // the classic fields say so.
    if (has_locator(r, d.end) || d.count == 0xffff || d.size == kZip64Marker ||
        d.offset == kZip64Marker)
      read_end64(r, d.end, d);
    if (d.offset > d.end || d.size != d.end - d.offset)
      r.bad("the central directory (" + std::to_string(d.size) + " bytes at " +
            std::to_string(d.offset) + ") does not end where the end record begins (" +
            std::to_string(d.end) + ")");
    if (d.size > kMaxDirectory)
      r.bad("the central directory's " + std::to_string(d.size) + " bytes are more than " +
            std::to_string(kMaxDirectory >> 20) + " MiB");
    return d;
  }
  if (misplaced != t.size())
    r.bad("the file goes on " + std::to_string(t.size() - misplaced) +
          " bytes past the archive's end record");
  if (const std::string cut = where_cut(r); !cut.empty()) r.truncated(cut);
  r.bad("not a zip archive (no end-of-central-directory record)");
}

// The Zip64 extra field's values replace, in order, those fields that hold all ones; each such
// field must find its value.
void apply_zip64(const ArchiveFile& r, const std::string& name, const unsigned char* extra,
                 std::size_t len, const std::vector<std::uint64_t*>& fields) {
  const unsigned char* v = nullptr;
  const unsigned char* v_end = nullptr;
  for (std::size_t k = 0; k + 4 <= len;) {
    const std::size_t n = read_le(extra + k + 2, 2);
    if (k + 4 + n > len) r.bad("member '" + clip_for_message(name) + "': extra field overruns");
    if (read_le(extra + k, 2) == 1) {
      v = extra + k + 4;
      v_end = v + n;
    }
    k += 4 + n;
  }
  for (std::uint64_t* f : fields) {
    if (*f != kZip64Marker) continue;
    if (!v || v + 8 > v_end)
      r.bad("member '" + clip_for_message(name) + "': a Zip64 size or offset is missing");
    *f = read_le(v, 8);
    v += 8;
  }
}

// The local header must agree with the central entry; gives the offset of the data.
std::uint64_t check_local(const ArchiveFile& r, const ZipEntry& e, std::uint64_t local,
                          std::uint64_t limit) {
  const std::string member = "member '" + clip_for_message(e.name) + "'";
  unsigned char h[30];
  if (local > limit || limit - local < sizeof h) r.bad(member + ": local header out of range");
  r.at(local, h, sizeof h, "a local header");
  if (read_le(h, 4) != kLocalSig) r.bad(member + ": no local header where the directory points");
  const std::size_t name_len = read_le(h + 26, 2), extra_len = read_le(h + 28, 2);
  const std::uint64_t data = local + sizeof h + name_len + extra_len;
  if (data > limit) r.bad(member + ": local header out of range");
  std::vector<unsigned char> rest(name_len + extra_len);
  r.at(local + sizeof h, rest.data(), rest.size(), "a local header");
  if (read_le(h + 8, 2) != e.method || name_len != e.name.size() ||
      std::memcmp(rest.data(), e.name.data(), name_len) != 0)
    r.bad(member + ": the local header disagrees with the central directory");
  if (!((e.flags | read_le(h + 6, 2)) & 8)) {  // no data descriptor: the header holds the sizes
    std::uint64_t packed = read_le(h + 18, 4), size = read_le(h + 22, 4);
    apply_zip64(r, e.name, rest.data() + name_len, extra_len, {&size, &packed});
    if (read_le(h + 14, 4) != e.crc || packed != e.packed || size != e.size)
      r.bad(member + ": the local header's CRC or sizes disagree with the central directory");
  }
  if (e.packed > limit - data)
    r.bad(member + ": its " + std::to_string(e.packed) + " bytes of data overrun the directory");
  return data;
}

}  // namespace

ZipDirectory::ZipDirectory(int fd, std::uint64_t file_size, std::string path)
    : path_(std::move(path)) {
  const ArchiveFile r(fd, file_size, path_);
  const DirectoryPlace d = find_directory(r);
  std::vector<unsigned char> cd(static_cast<std::size_t>(d.size));
  r.at(d.offset, cd.data(), cd.size(), "the central directory");
  std::set<std::string> seen;
  std::size_t k = 0;
  for (std::uint64_t n = 0; n < d.count; ++n) {
    if (k + 46 > cd.size() || read_le(&cd[k], 4) != kCentralSig)
      r.bad("the central directory holds " + std::to_string(n) + " entries, not the " +
            std::to_string(d.count) + " its end record says");
    const unsigned char* h = &cd[k];
    const std::size_t name_len = read_le(h + 28, 2), extra_len = read_le(h + 30, 2),
                      comment_len = read_le(h + 32, 2);
    if (k + 46 + name_len + extra_len + comment_len > cd.size())
      r.bad("the central directory's entry " + std::to_string(n) + " overruns it");
    ZipEntry e;
    e.name.assign(reinterpret_cast<const char*>(h + 46), name_len);
    if (e.name.empty() || e.name.find('\0') != std::string::npos)
      r.bad("entry " + std::to_string(n) + " has an invalid name");
    e.flags = static_cast<std::uint16_t>(read_le(h + 8, 2));
    e.method = static_cast<std::uint16_t>(read_le(h + 10, 2));
    e.crc = static_cast<std::uint32_t>(read_le(h + 16, 4));
    e.packed = read_le(h + 20, 4);
    e.size = read_le(h + 24, 4);
    std::uint64_t local = read_le(h + 42, 4);
    apply_zip64(r, e.name, h + 46 + name_len, extra_len, {&e.size, &e.packed, &local});
    const std::uint64_t disk = read_le(h + 34, 2);  // 0xffff: its Zip64 value, after the offset
    if (disk != 0 && disk != 0xffff) r.bad("multi-disk archives are not supported");
    if (e.method == kZipStored && e.packed != e.size)
      r.bad("member '" + clip_for_message(e.name) + "' is stored with " + std::to_string(e.packed) +
            " bytes but declares " + std::to_string(e.size));
    if (!seen.insert(e.name).second)
      fail(path_ + ": the archive holds member '" + clip_for_message(e.name) +
           "' twice (a duplicate name)");
    e.data = check_local(r, e, local, d.offset);
    entries_.push_back(std::move(e));
    k += 46 + name_len + extra_len + comment_len;
  }
  if (k != cd.size())
    r.bad("the central directory has " + std::to_string(cd.size() - k) +
          " bytes beyond its entries");
}

const ZipEntry* ZipDirectory::find(const std::string& name) const {
  for (const ZipEntry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

void ZipDirectory::check_readable(const ZipEntry& e) const {
  const std::string what = path_ + ":" + clip_for_message(e.name);
  if (e.flags & 0x41)
    fail(what + ": the member is encrypted; bnscope reads only unencrypted members");
  if (e.method == kZipStored || e.method == kZipDeflated) return;
  const char* known = e.method == 9    ? " (deflate64)"
                      : e.method == 12 ? " (bzip2)"
                      : e.method == 14 ? " (LZMA)"
                      : e.method == 93 ? " (zstd)"
                      : e.method == 95 ? " (xz)"
                      : e.method == 99 ? " (AES encryption)"
                                       : "";
  fail(what + ": the member is compressed with method " + std::to_string(e.method) + known +
       "; bnscope reads stored and deflated members");
}

}  // namespace bnscope
