#include "io/npz.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "io/atomic_file.h"
#include "io/npy.h"
#include "io/parallel_read.h"
#include "io/zip_locate.h"
#include "io/zip_stored.h"
#include "tensor/error.h"
#include "tensor/memory_limit.h"

namespace bnscope {

namespace {

constexpr std::string_view kNpy = ".npy";

bool ends_with_npy(const std::string& s) {
  return s.size() > kNpy.size() && s.compare(s.size() - kNpy.size(), kNpy.size(), kNpy) == 0;
}

std::string zip_code_text(int code) {
  zip_error_t e;
  zip_error_init_with_code(&e, code);
  std::string text = zip_error_strerror(&e);
  zip_error_fini(&e);
  return text;
}

class ZipReader {
 public:
  explicit ZipReader(const std::string& path) : path_(path) {
    check_input_file(path);  // a directory or a missing file says so
    int code = 0;
    za_ = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
    if (!za_ && code == ZIP_ER_EXISTS) name_duplicate();
    if (!za_) fail("cannot read .npz '" + path + "': " + zip_code_text(code));
  }
  ~ZipReader() {
    zip_discard(za_);
    if (fd_ >= 0) ::close(fd_);
  }
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    const zip_int64_t n = zip_get_num_entries(za_, 0);
    for (zip_int64_t k = 0; k < n; ++k) {
      const char* name = zip_get_name(za_, static_cast<zip_uint64_t>(k), 0);
      if (!name) fail("cannot read .npz '" + path_ + "': " + zip_strerror(za_));
      out.emplace_back(name);
    }
    return out;
  }

  bool has(const std::string& name) const { return zip_name_locate(za_, name.c_str(), 0) >= 0; }

  // The member as a .npy: its declared uncompressed size bounds everything read; the data
  // inflates straight into the tensor, and a member that inflates past its size is refused.
  Tensor tensor(const std::string& name) const {
    Member m = open(name);
    const ByteSource read = [&](std::byte* dst, std::size_t n) { return m.read(dst, n); };
    const NpyLayout layout = read_npy_layout(m.size, read, m.what);
    // A stored member's data is counted as it is read; an inflated one is left to be counted.
    CountingSource counting;
    if (m.fd >= 0)
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
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> f{nullptr, &zip_fclose};
    // A stored member is read from the file directly: into place, on every core.
    int fd = -1;
    std::uint64_t offset = 0, left = 0;
    std::uint32_t crc = 0, expected_crc = 0;

    std::size_t read(std::byte* dst, std::size_t n) {
      if (fd >= 0) {
        n = static_cast<std::size_t>(std::min<std::uint64_t>(n, left));
        if (n) crc = pread_with_crc(fd, offset, dst, n, crc, what);
        offset += n;
        left -= n;
        return n;
      }
      const zip_int64_t got = zip_fread(f.get(), dst, std::min<std::size_t>(n, 1u << 30));
      if (got < 0) fail(what + ": cannot read the member: " + zip_file_strerror(f.get()));
      return static_cast<std::size_t>(got);
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
      if (fd >= 0) {
        if (left != 0 || crc != expected_crc) fail(what + ": cannot read the member: CRC error");
        return;
      }
      std::byte extra;
      if (read(&extra, 1) != 0)
        fail(what + ": the member inflates past its declared size of " + std::to_string(size) +
             " bytes");
    }
  };

  // The stored members' places in the file, found once; empty when the file cannot be opened
  // again or its directory is unusual (libzip then reads everything).
  const std::map<std::string, StoredSpan>& stored() const {
    if (!located_) {
      located_ = true;
      fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
      struct stat st;
      if (fd_ >= 0 && ::fstat(fd_, &st) == 0)
        stored_ = locate_stored_members(fd_, static_cast<std::uint64_t>(st.st_size));
    }
    return stored_;
  }

  // Direct reading when the directory places the member and libzip agrees on what it is.
  void place(Member& m, const std::string& name, const zip_stat_t& st) const {
    const auto it = stored().find(name);
    if (it == stored_.end() || !(st.valid & ZIP_STAT_COMP_METHOD) ||
        st.comp_method != ZIP_CM_STORE || !(st.valid & ZIP_STAT_CRC) || st.crc != it->second.crc ||
        it->second.size != st.size ||
        ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE))
      return;
    m.fd = fd_;
    m.offset = it->second.offset;
    m.left = st.size;
    m.expected_crc = st.crc;
  }

  Member open(const std::string& name) const {
    Member m;
    m.what = path_ + ":" + name;
    const zip_int64_t index = zip_name_locate(za_, name.c_str(), 0);
    if (index < 0) fail(path_ + ": the archive has no member '" + name + "'");
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za_, static_cast<zip_uint64_t>(index), 0, &st) != 0 ||
        !(st.valid & ZIP_STAT_SIZE))
      fail(m.what + ": cannot read the member's size: " + zip_strerror(za_));
    m.size = st.size;
    place(m, name, st);
    if (m.fd >= 0) return m;
    m.f.reset(zip_fopen_index(za_, static_cast<zip_uint64_t>(index), 0));
    if (!m.f) fail(m.what + ": cannot open the member: " + zip_strerror(za_));
    return m;
  }

  // libzip refuses an archive naming a member twice without saying which; open it leniently to
  // find out.
  void name_duplicate() const {
    int code = 0;
    zip_t* za = zip_open(path_.c_str(), ZIP_RDONLY, &code);
    if (!za) return;
    std::set<std::string> seen;
    std::string twice;
    const zip_int64_t n = zip_get_num_entries(za, 0);
    for (zip_int64_t k = 0; k < n && twice.empty(); ++k)
      if (const char* name = zip_get_name(za, static_cast<zip_uint64_t>(k), ZIP_FL_ENC_RAW))
        if (!seen.insert(name).second) twice = name;
    zip_discard(za);
    if (!twice.empty())
      fail(path_ + ": the archive holds member '" + clip_for_message(twice) +
           "' twice (a duplicate name)");
  }

  std::string path_;
  zip_t* za_ = nullptr;
  mutable int fd_ = -1;
  mutable bool located_ = false;
  mutable std::map<std::string, StoredSpan> stored_;
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

// The central-directory end record alone: libzip deletes an archive with no entries instead of
// writing it.
std::vector<std::byte> empty_zip() {
  std::vector<std::byte> out(22, std::byte{0});
  out[0] = std::byte{'P'};
  out[1] = std::byte{'K'};
  out[2] = std::byte{5};
  out[3] = std::byte{6};
  return out;
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

std::vector<std::byte> deflated_npz(
    const std::vector<std::pair<std::string, const Tensor*>>& members,
    const std::vector<std::pair<std::string, std::string>>& extra_text_members) {
  // Buffers must outlive zip_close, which is when libzip compresses them.
  std::vector<std::pair<std::string, std::vector<std::byte>>> files;
  std::set<std::string> seen;
  auto add = [&](std::string name, std::vector<std::byte> data) {
    check_member_name(name, seen);
    files.emplace_back(std::move(name), std::move(data));
  };
  for (const auto& [name, t] : members) add(name + ".npy", serialize_npy(*t));
  for (const auto& [name, text] : extra_text_members) {
    const auto* p = reinterpret_cast<const std::byte*>(text.data());
    add(name, std::vector<std::byte>(p, p + text.size()));
  }
  if (files.empty()) return empty_zip();

  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* src = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (!src) fail(std::string("cannot build .npz: ") + zip_error_strerror(&error));
  std::unique_ptr<zip_source_t, void (*)(zip_source_t*)> keep(src, &zip_source_free);
  zip_source_keep(src);  // the archive's close must not free the buffer we read back
  zip_t* za = zip_open_from_source(src, ZIP_TRUNCATE, &error);
  if (!za) {
    const std::string why = zip_error_strerror(&error);
    zip_error_fini(&error);
    fail("cannot build .npz: " + why);
  }
  zip_error_fini(&error);
  auto abandon = [&](const std::string& why) {
    zip_discard(za);
    fail("cannot build .npz: " + why);
  };
  for (const auto& [name, data] : files) {
    zip_source_t* s = zip_source_buffer(za, data.data(), data.size(), 0);
    if (!s) abandon(zip_strerror(za));
    const zip_int64_t index = zip_file_add(za, name.c_str(), s, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(s);
      abandon("member '" + name + "': " + zip_strerror(za));
    }
    if (zip_set_file_compression(za, static_cast<zip_uint64_t>(index), ZIP_CM_DEFLATE, 0) != 0)
      abandon("member '" + name + "': " + zip_strerror(za));
  }
  if (zip_close(za) != 0) abandon(zip_strerror(za));

  std::vector<std::byte> out;
  if (zip_source_open(src) != 0)
    fail(std::string("cannot build .npz: ") + zip_error_strerror(zip_source_error(src)));
  std::byte buf[1 << 16];
  while (true) {
    const zip_int64_t got = zip_source_read(src, buf, sizeof buf);
    if (got < 0) {
      const std::string why = zip_error_strerror(zip_source_error(src));
      zip_source_close(src);
      fail("cannot build .npz: " + why);
    }
    if (got == 0) break;
    out.insert(out.end(), buf, buf + got);
  }
  zip_source_close(src);
  return out;
}

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
  return deflated_npz(pointers(members), extra_text_members);
}

void write_npz_to(std::FILE* f, const std::string& what,
                  const std::vector<std::pair<std::string, const Tensor*>>& members,
                  const std::vector<std::pair<std::string, std::string>>& extra_text_members,
                  bool compress) {
  if (compress) {
    const std::vector<std::byte> bytes = deflated_npz(members, extra_text_members);
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
      fail("cannot write '" + what + "': " + std::strerror(errno));
    return;
  }
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
  write_stored_zip(f, stored, what);
}

void write_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& members,
               const std::vector<std::pair<std::string, std::string>>& extra_text_members,
               bool compress) {
  write_file_atomic_cfile(path, [&](std::FILE* f) {
    write_npz_to(f, path, pointers(members), extra_text_members, compress);
  });
}

}  // namespace bnscope
