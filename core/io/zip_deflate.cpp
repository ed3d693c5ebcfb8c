// StoredZipWriter's deflated members: zlib's raw deflate, the record code shared with the stored
// members in io/zip_stored.cpp.

#include <zlib.h>

#include <algorithm>
#include <vector>

#include "io/crc32.h"
#include "io/zip_stored.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

constexpr std::size_t kOutChunk = 256 << 10;
// Input is fed a piece at a time so the CRC and deflate read it while it is in cache.
constexpr std::size_t kInPiece = 1 << 20;

struct Deflater {
  z_stream z{};
  explicit Deflater(int level, const std::string& what) {
    if (deflateInit2(&z, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      fail("cannot write '" + what + "': cannot start deflating (out of memory?)");
  }
  ~Deflater() { deflateEnd(&z); }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
};

}  // namespace

void StoredZipWriter::add_deflated(const StoredMember& m, int level) {
  Entry e{m.name};
  e.method = 8;
  e.described = true;
  for (auto part : m.parts) e.size += part.size();
  // The sizes are known only at the end: Zip64 from the start wherever they might need it.
  e.zip64 = deflateBound(nullptr, e.size) >= 0xffffffffu;
  local_header(e);
  Deflater d(level, what_);
  std::vector<unsigned char> out(kOutChunk);
  auto drain = [&](int flush) {
    int rc;
    do {
      d.z.next_out = out.data();
      d.z.avail_out = static_cast<uInt>(out.size());
      rc = deflate(&d.z, flush);
      if (rc == Z_STREAM_ERROR) fail("cannot write '" + what_ + "': deflate failed");
      const std::size_t got = out.size() - d.z.avail_out;
      put(out.data(), got);
      e.packed += got;
    } while (d.z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  };
  for (std::span<const std::byte> part : m.parts)
    for (std::size_t at = 0; at < part.size();) {
      const std::size_t n = std::min(kInPiece, part.size() - at);
      e.crc = crc32_bytes(e.crc, part.data() + at, n);
      d.z.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(part.data() + at));
      d.z.avail_in = static_cast<uInt>(n);
      drain(Z_NO_FLUSH);
      at += n;
    }
  drain(Z_FINISH);
  data_descriptor(e);
  entries_.push_back(std::move(e));
}

}  // namespace bnscope
