#include "io/zip_stored.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "io/bulk_write.h"
#include "io/crc32.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

constexpr std::uint32_t kMax32 = 0xffffffffu;

class Out {
 public:
  Out(std::FILE* f, const std::string& what, std::uint64_t at) : f_(f), what_(what), at_(at) {}
  void u16(std::uint32_t v) { le(v, 2); }
  void u32(std::uint64_t v) { le(v, 4); }
  void u64(std::uint64_t v) { le(v, 8); }
  void bytes(const void* p, std::size_t n) {
    if (n && !write_bulk(f_, p, n)) fail("cannot write '" + what_ + "': " + std::strerror(errno));
    at_ += n;
  }
  std::uint64_t at() const { return at_; }

 private:
  void le(std::uint64_t v, int n) {
    unsigned char b[8];
    for (int k = 0; k < n; ++k) b[k] = static_cast<unsigned char>(v >> (8 * k));
    bytes(b, static_cast<std::size_t>(n));
  }
  std::FILE* f_;
  const std::string& what_;
  std::uint64_t at_;
};

std::uint32_t crc_of(const StoredMember& m) {
  std::uint32_t crc = 0;
  for (std::span<const std::byte> part : m.parts) crc = crc32_update(crc, part);
  return crc;
}

constexpr std::uint32_t kDosDate = (1 << 5) | 1;  // 1980-01-01, as numpy leaves it for tests

}  // namespace

void write_stored_zip(std::FILE* f, const std::vector<StoredMember>& members,
                      const std::string& what) {
  StoredZipWriter zip(f, what);
  for (const StoredMember& m : members) zip.add(m);
  zip.finish();
}

StoredZipWriter::StoredZipWriter(std::FILE* f, std::string what) : f_(f), what_(std::move(what)) {}

void StoredZipWriter::local_header(Entry& e) {
  Out out(f_, what_, at_);
  e.offset = out.at();
  if (e.method == 0) e.packed = e.size;
  e.zip64 = e.zip64 || e.size >= kMax32 || e.packed >= kMax32;
  // With a data descriptor the CRC and sizes are zeros here (Zip64's too).
  const std::uint64_t size = e.described ? 0 : e.size, packed = e.described ? 0 : e.packed;
  out.u32(0x04034b50);
  out.u16(e.zip64 ? 45 : 20);
  out.u16((1 << 11) | (e.described ? 8 : 0));  // names are UTF-8
  out.u16(e.method);
  out.u16(0);
  out.u16(kDosDate);
  out.u32(e.described ? 0 : e.crc);
  out.u32(e.zip64 ? kMax32 : packed);
  out.u32(e.zip64 ? kMax32 : size);
  out.u16(static_cast<std::uint32_t>(e.name.size()));
  out.u16(e.zip64 ? 20 : 0);
  out.bytes(e.name.data(), e.name.size());
  if (e.zip64) {
    out.u16(1);
    out.u16(16);
    out.u64(size);
    out.u64(packed);
  }
  at_ = out.at();
}

void StoredZipWriter::data_descriptor(const Entry& e) {
  Out out(f_, what_, at_);
  out.u32(0x08074b50);
  out.u32(e.crc);
  if (e.zip64) {
    out.u64(e.packed);
    out.u64(e.size);
  } else {
    out.u32(e.packed);
    out.u32(e.size);
  }
  at_ = out.at();
}

void StoredZipWriter::put(const void* p, std::size_t n) {
  Out out(f_, what_, at_);
  out.bytes(p, n);
  at_ = out.at();
}

void StoredZipWriter::add(const StoredMember& m) {
  Entry e{m.name};
  for (auto part : m.parts) e.size += part.size();
  e.crc = crc_of(m);
  local_header(e);
  Out out(f_, what_, at_);
  for (auto part : m.parts) out.bytes(part.data(), part.size());
  at_ = out.at();
  entries_.push_back(std::move(e));
}

void StoredZipWriter::add_streamed(const std::string& name, std::span<const std::byte> head,
                                   std::uint64_t size,
                                   const std::function<std::span<const std::byte>()>& next) {
  Entry e{name};
  e.size = size;
  local_header(e);
  Out out(f_, what_, at_);
  std::uint32_t crc = crc32_bytes(0, head.data(), head.size());
  out.bytes(head.data(), head.size());
  for (std::span<const std::byte> piece = next(); !piece.empty(); piece = next()) {
    crc = crc32_bytes(crc, piece.data(), piece.size());
    out.bytes(piece.data(), piece.size());
  }
  if (out.at() - at_ != size)
    fail("cannot write '" + what_ + "': member '" + name + "' is not the size it was declared");
  at_ = out.at();
  // The CRC field sits 14 bytes into the local header.
  unsigned char le[4];
  for (int k = 0; k < 4; ++k) le[k] = static_cast<unsigned char>(crc >> (8 * k));
  if (std::fflush(f_) != 0 ||
      ::pwrite(::fileno(f_), le, sizeof le, static_cast<off_t>(e.offset + 14)) != sizeof le)
    fail("cannot write '" + what_ + "': " + std::strerror(errno));
  e.crc = crc;
  entries_.push_back(std::move(e));
}

void StoredZipWriter::finish() {
  Out out(f_, what_, at_);
  const std::uint64_t cd_offset = out.at();
  for (const Entry& e : entries_) {
    const bool big = e.zip64, far = e.offset >= kMax32;
    const std::uint32_t extra = (big ? 16 : 0) + (far ? 8 : 0);
    out.u32(0x02014b50);
    out.u16((3 << 8) | 45);  // made by: Unix, zip 4.5
    out.u16(big || far ? 45 : 20);
    out.u16((1 << 11) | (e.described ? 8 : 0));
    out.u16(e.method);
    out.u16(0);
    out.u16(kDosDate);
    out.u32(e.crc);
    out.u32(big ? kMax32 : e.packed);
    out.u32(big ? kMax32 : e.size);
    out.u16(static_cast<std::uint32_t>(e.name.size()));
    out.u16(extra ? extra + 4 : 0);
    out.u16(0);               // comment
    out.u16(0);               // disk
    out.u16(0);               // internal attributes
    out.u32(0100644u << 16);  // external: a regular file, rw-r--r--
    out.u32(far ? kMax32 : e.offset);
    out.bytes(e.name.data(), e.name.size());
    if (extra) {
      out.u16(1);
      out.u16(extra);
      if (big) {
        out.u64(e.size);
        out.u64(e.packed);
      }
      if (far) out.u64(e.offset);
    }
  }
  const std::uint64_t cd_size = out.at() - cd_offset;
  const std::uint64_t count = entries_.size();
  const bool z64 = cd_offset >= kMax32 || cd_size >= kMax32 || count >= 0xffff;
  if (z64) {
    const std::uint64_t record = out.at();
    out.u32(0x06064b50);
    out.u64(44);
    out.u16(45);
    out.u16(45);
    out.u32(0);
    out.u32(0);
    out.u64(count);
    out.u64(count);
    out.u64(cd_size);
    out.u64(cd_offset);
    out.u32(0x07064b50);
    out.u32(0);
    out.u64(record);
    out.u32(1);
  }
  out.u32(0x06054b50);
  out.u16(0);
  out.u16(0);
  out.u16(z64 ? 0xffff : count);
  out.u16(z64 ? 0xffff : count);
  out.u32(z64 ? kMax32 : cd_size);
  out.u32(z64 ? kMax32 : cd_offset);
  out.u16(0);
  at_ = out.at();
}

}  // namespace bnscope
