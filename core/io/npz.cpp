#include "io/npz.h"

#include <zip.h>

#include <memory>
#include <set>

#include "io/atomic_file.h"
#include "io/npy.h"
#include "tensor/error.h"

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
    int code = 0;
    za_ = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
    if (!za_) fail("cannot read .npz '" + path + "': " + zip_code_text(code));
  }
  ~ZipReader() { zip_discard(za_); }
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

  // Reads in chunks so a member whose recorded size is a lie cannot make us allocate more than
  // the archive really holds.
  std::vector<std::byte> bytes(const std::string& name) const {
    const std::string what = path_ + ":" + name;
    const zip_int64_t index = zip_name_locate(za_, name.c_str(), 0);
    if (index < 0) fail(path_ + ": the archive has no member '" + name + "'");
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za_, static_cast<zip_uint64_t>(index), 0, &st) != 0 ||
        !(st.valid & ZIP_STAT_SIZE))
      fail(what + ": cannot read the member's size: " + zip_strerror(za_));
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> f(
        zip_fopen_index(za_, static_cast<zip_uint64_t>(index), 0), &zip_fclose);
    if (!f) fail(what + ": cannot open the member: " + zip_strerror(za_));
    std::vector<std::byte> out;
    constexpr std::size_t kChunk = 1 << 20;
    while (true) {
      const std::size_t at = out.size();
      out.resize(at + kChunk);
      const zip_int64_t got = zip_fread(f.get(), out.data() + at, kChunk);
      if (got < 0) fail(what + ": cannot read the member: " + zip_file_strerror(f.get()));
      out.resize(at + static_cast<std::size_t>(got));
      if (out.size() > st.size)
        fail(what + ": the member holds more than its recorded " + std::to_string(st.size) +
             " bytes");
      if (got == 0) break;
    }
    if (out.size() != st.size)
      fail(what + ": truncated member: " + std::to_string(out.size()) + " of its recorded " +
           std::to_string(st.size) + " bytes");
    return out;
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  zip_t* za_ = nullptr;
};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
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

std::map<std::string, Tensor> read_npz(const std::string& path) {
  ZipReader zip(path);
  std::map<std::string, Tensor> out;
  for (const std::string& name : zip.names()) {
    if (!ends_with_npy(name)) continue;
    const std::string key = name.substr(0, name.size() - kNpy.size());
    if (out.count(key)) fail(path + ": the archive holds member '" + name + "' twice");
    out.emplace(key, parse_npy(zip.bytes(name), path + ":" + name));
  }
  return out;
}

Tensor read_npz_member(const std::string& path, const std::string& member) {
  ZipReader zip(path);
  std::string name = member;
  if (!ends_with_npy(member) && zip.has(member + ".npy")) name = member + ".npy";
  if (!zip.has(name))
    fail(path + ": the archive has no member '" + member + "'; it holds " + joined(zip.names()));
  return parse_npy(zip.bytes(name), path + ":" + name);
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

std::vector<std::byte> serialize_npz(
    const std::vector<std::pair<std::string, Tensor>>& members,
    const std::vector<std::pair<std::string, std::string>>& extra_text_members) {
  // Buffers must outlive zip_close, which is when libzip compresses them.
  std::vector<std::pair<std::string, std::vector<std::byte>>> files;
  std::set<std::string> seen;
  auto add = [&](std::string name, std::vector<std::byte> data) {
    if (name.empty() || name.find('\0') != std::string::npos)
      fail("cannot write .npz member '" + name + "': invalid name");
    if (!seen.insert(name).second) fail("cannot write .npz: member '" + name + "' given twice");
    files.emplace_back(std::move(name), std::move(data));
  };
  for (const auto& [name, t] : members) add(name + ".npy", serialize_npy(t));
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

void write_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& members,
               const std::vector<std::pair<std::string, std::string>>& extra_text_members) {
  write_file_atomic(path, serialize_npz(members, extra_text_members));
}

}  // namespace bnscope
