#include "io/npz.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "io/atomic_file.h"
#include "io/npy.h"
#include "io/parallel_read.h"
#include "io/zip_directory.h"
#include "io/zip_inflate.h"
#include "io/zip_stored.h"
#include "tensor/error.h"
#include "tensor/memory_limit.h"

namespace bnscope {

namespace {

constexpr std::string_view kNpy = ".npy";

bool ends_with_npy(const std::string& s) {
  return s.size() > kNpy.size() && s.compare(s.size() - kNpy.size(), kNpy.size(), kNpy) == 0;
}

class ZipReader {
 public:
  explicit ZipReader(const std::string& path) : path_(path) {
    check_input_file(path);  // a directory or a missing file says so
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // never waits on a FIFO
    struct stat st;
    if (fd_ < 0 || ::fstat(fd_, &st) != 0) {
      const int e = errno;
      if (fd_ >= 0) ::close(fd_);
      fail("cannot read .npz '" + path + "': " + std::strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {  // replaced since it was checked
      ::close(fd_);
      fail("'" + path + "' is not a regular file");
    }
    try {
      dir_.emplace(fd_, static_cast<std::uint64_t>(st.st_size), path);
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }
  ~ZipReader() { ::close(fd_); }
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const ZipEntry& e : dir_->entries()) out.push_back(e.name);
    return out;
  }

  bool has(const std::string& name) const { return dir_->find(name) != nullptr; }

  // The member as a .npy: its declared uncompressed size bounds everything read; the data
  // inflates straight into the tensor, and a member that inflates past its size is refused.
  Tensor tensor(const std::string& name) const {
    Member m = open(name);
    const ByteSource read = [&](std::byte* dst, std::size_t n) { return m.read(dst, n); };
    const NpyLayout layout = read_npy_layout(m.size, read, m.what);
    // A stored member's data is counted as it is read; an inflated one is left to be counted.
    CountingSource counting;
    if (!m.inflater)
      counting = [&](std::byte* dst, std::size_t n, DType dtype) {
        return m.read_counted(dst, n, dtype);
      };
    Tensor t = read_npy_data(layout, read, m.what, counting);
    m.expect_end();
    return t;
  }

  std::vector<std::byte> bytes(const std::string& name) const {
    Member m = open(name);
    check_memory_limit(m.size, m.what);
    std::vector<std::byte> out(static_cast<std::size_t>(m.size));
    std::size_t at = 0;
    while (at < out.size()) {
      const std::size_t got = m.read(out.data() + at, out.size() - at);
      if (got == 0)
        fail(m.what + ": truncated member: " + std::to_string(at) + " of its declared " +
             std::to_string(m.size) + " bytes");
      at += got;
    }
    m.expect_end();
    return out;
  }

  const std::string& path() const { return path_; }

 private:
  struct Member {
    std::string what;
    std::uint64_t size = 0;
    // A deflated member inflates into place; a stored one is read from the file directly, into
    // place, on every core.
    std::unique_ptr<ZipInflater> inflater;
    int fd = -1;
    std::uint64_t offset = 0, left = 0;
    std::uint32_t crc = 0, expected_crc = 0;

    std::size_t read(std::byte* dst, std::size_t n) {
      if (inflater) return inflater->read(dst, n);
      n = static_cast<std::size_t>(std::min<std::uint64_t>(n, left));
      if (n) crc = pread_with_crc(fd, offset, dst, n, crc, what);
      offset += n;
      left -= n;
      return n;
    }
    // All n bytes (a stored member's whole data), with the NaN/Inf count of their values.
    std::int64_t read_counted(std::byte* dst, std::size_t n, DType dtype) {
      if (n > left)
        fail(what + ": truncated .npy data: " + std::to_string(left) + " of " + std::to_string(n) +
             " bytes");
      PieceChecks checks;
      checks.count = dtype;
      const PieceTally t = pread_checked(fd, offset, dst, n, crc, checks, what);
      crc = t.crc;
      offset += n;
      left -= n;
      return t.non_finite;
    }
    void expect_end() {
      if (inflater) return inflater->expect_end();
      if (left != 0 || crc != expected_crc) fail(what + ": cannot read the member: CRC error");
    }
  };

  Member open(const std::string& name) const {
    Member m;
    m.what = path_ + ":" + name;
    const ZipEntry* e = dir_->find(name);
    if (!e) fail(path_ + ": the archive has no member '" + name + "'");
    dir_->check_readable(*e);
    m.size = e->size;
    if (e->method == kZipDeflated) {
      m.inflater = std::make_unique<ZipInflater>(fd_, *e, m.what);
      return m;
    }
    m.fd = fd_;
    m.offset = e->data;
    m.left = e->size;
    m.expected_crc = e->crc;
    return m;
  }

  std::string path_;
  int fd_ = -1;
  std::optional<ZipDirectory> dir_;
};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

void check_member_name(const std::string& name, std::set<std::string>& seen) {
  if (name.empty() || name.find('\0') != std::string::npos)
    fail("cannot write .npz member '" + clip_for_message(name) + "': invalid name");
  if (!seen.insert(name).second)
    fail("cannot write .npz: member '" + clip_for_message(name) + "' given twice");
}

}  // namespace

std::map<std::string, Tensor> read_npz(const std::string& path,
                                       const std::function<bool(const std::string&)>& wanted) {
  ZipReader zip(path);
  std::map<std::string, Tensor> out;
  for (const std::string& name : zip.names()) {
    if (!ends_with_npy(name)) continue;
    const std::string key = name.substr(0, name.size() - kNpy.size());
    if (out.count(key))
      fail(path + ": the archive holds member '" + name + "' twice (a duplicate name)");
    if (wanted && !wanted(key)) continue;
    out.emplace(key, zip.tensor(name));
  }
  return out;
}

Tensor read_npz_member(const std::string& path, const std::string& member) {
  ZipReader zip(path);
  std::string name = member;
  if (!ends_with_npy(member) && zip.has(member + ".npy")) name = member + ".npy";
  if (!zip.has(name))
    fail(path + ": the archive has no member '" + member + "'; it holds " + joined(zip.names()));
  return zip.tensor(name);
}

std::vector<std::string> npz_members(const std::string& path) {
  return ZipReader(path).names();
}

bool npz_has_member(const std::string& path, const std::string& member) {
  return ZipReader(path).has(member);
}

std::vector<std::byte> read_npz_bytes(const std::string& path, const std::string& member) {
  ZipReader zip(path);
  if (!zip.has(member))
    fail(path + ": the archive has no member '" + member + "'; it holds " + joined(zip.names()));
  return zip.bytes(member);
}

namespace {

std::vector<std::pair<std::string, const Tensor*>> pointers(
    const std::vector<std::pair<std::string, Tensor>>& members) {
  std::vector<std::pair<std::string, const Tensor*>> out;
  for (const auto& [name, t] : members) out.emplace_back(name, &t);
  return out;
}

}  // namespace

std::vector<std::byte> serialize_npz(
    const std::vector<std::pair<std::string, Tensor>>& members,
    const std::vector<std::pair<std::string, std::string>>& extra_text_members) {
  char* buf = nullptr;
  std::size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  if (!f) fail(std::string("cannot build .npz: ") + std::strerror(errno));
  try {
    write_npz_to(f, "an .npz in memory", pointers(members), extra_text_members, true);
  } catch (...) {
    std::fclose(f);
    std::free(buf);
    throw;
  }
  const bool ok = std::fclose(f) == 0;  // sets buf and size
  std::unique_ptr<char, void (*)(void*)> keep(buf, &std::free);
  if (!ok) fail(std::string("cannot build .npz: ") + std::strerror(errno));
  const auto* p = reinterpret_cast<const std::byte*>(buf);
  return std::vector<std::byte>(p, p + size);
}

void write_npz_to(std::FILE* f, const std::string& what,
                  const std::vector<std::pair<std::string, const Tensor*>>& members,
                  const std::vector<std::pair<std::string, std::string>>& extra_text_members,
                  bool compress) {
  std::set<std::string> seen;
  std::vector<std::string> headers;  // stable storage for the spans below
  headers.reserve(members.size());
  std::vector<StoredMember> stored;
  for (const auto& [name, t] : members) {
    check_member_name(name + ".npy", seen);
    headers.push_back(npy_header_bytes(*t));
    stored.push_back(
        {name + ".npy",
         {std::as_bytes(std::span<const char>(headers.back())),
          std::span<const std::byte>(static_cast<const std::byte*>(t->raw()), t->nbytes())}});
  }
  for (const auto& [name, text] : extra_text_members) {
    check_member_name(name, seen);
    stored.push_back({name, {std::as_bytes(std::span<const char>(text))}});
  }
  if (!compress) return write_stored_zip(f, stored, what);
  // zlib's default level, as numpy's savez_compressed.
  StoredZipWriter zip(f, what);
  for (const StoredMember& m : stored) zip.add_deflated(m, Z_DEFAULT_COMPRESSION);
  zip.finish();
}

void write_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& members,
               const std::vector<std::pair<std::string, std::string>>& extra_text_members,
               bool compress) {
  write_file_atomic_cfile(path, [&](std::FILE* f) {
    write_npz_to(f, path, pointers(members), extra_text_members, compress);
  });
}

}  // namespace bnscope
