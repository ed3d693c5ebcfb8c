#include "io/zip_inflate.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "io/crc32.h"
#include "tensor/error.h"

namespace bnscope {

namespace {
constexpr std::size_t kInputChunk = 256 << 10;
constexpr std::size_t kMaxStep = std::size_t{1} << 30;  // zlib counts in 32 bits
}  // namespace

ZipInflater::ZipInflater(int fd, const ZipEntry& e, std::string what)
    : fd_(fd),
      what_(std::move(what)),
      in_at_(e.data),
      in_left_(e.packed),
      size_(e.size),
      out_left_(e.size),
      expected_crc_(e.crc) {
  if (inflateInit2(&z_, -MAX_WBITS) != Z_OK)
    fail(what_ + ": cannot start inflating the member (out of memory?)");
}

ZipInflater::~ZipInflater() {
  inflateEnd(&z_);
}

void ZipInflater::refill() {
  if (in_.empty())
    in_.resize(static_cast<std::size_t>(std::min<std::uint64_t>(kInputChunk, in_left_)));
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(in_.size(), in_left_));
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd_, in_.data() + got, n - got, static_cast<off_t>(in_at_ + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail(what_ + ": cannot read the member: " + std::strerror(errno));
    if (r == 0) fail(what_ + ": the archive ends inside the member's deflated data");
    got += static_cast<std::size_t>(r);
  }
  in_at_ += n;
  in_left_ -= n;
  z_.next_in = in_.data();
  z_.avail_in = static_cast<uInt>(n);
}

std::size_t ZipInflater::inflate_into(std::byte* dst, std::size_t n, bool scratch) {
  std::size_t out = 0;
  while (out < n && !ended_) {
    if (z_.avail_in == 0 && in_left_ > 0) refill();
    const std::size_t step = std::min(n - out, kMaxStep);
    z_.next_out = reinterpret_cast<Bytef*>(dst + out);
    z_.avail_out = static_cast<uInt>(step);
    const int rc = inflate(&z_, Z_NO_FLUSH);
    const std::size_t got = step - z_.avail_out;
    if (!scratch && got) crc_ = crc32_bytes(crc_, dst + out, got);
    out += got;
    if (rc == Z_STREAM_END) {
      ended_ = true;
    } else if (rc == Z_BUF_ERROR && z_.avail_in == 0 && in_left_ == 0) {
      fail(what_ + ": the member's deflated data is cut short after " +
           std::to_string(size_ - out_left_ + out) + " bytes (it declares " +
           std::to_string(size_) + ")");
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      fail(what_ + ": the member's deflated data is corrupt (" +
           (z_.msg ? std::string(z_.msg) : "zlib error " + std::to_string(rc)) + ")");
    }
  }
  return out;
}

std::size_t ZipInflater::read(std::byte* dst, std::size_t n) {
  n = static_cast<std::size_t>(std::min<std::uint64_t>(n, out_left_));
  const std::size_t got = inflate_into(dst, n, false);
  out_left_ -= got;
  return got;
}

void ZipInflater::expect_end() {
  if (out_left_ != 0)
    fail(what_ + ": the member ends after " + std::to_string(size_ - out_left_) +
         " of its declared " + std::to_string(size_) + " bytes");
  std::byte extra[64];
  if (inflate_into(extra, sizeof extra, true) != 0)
    fail(what_ + ": the member inflates past its declared size of " + std::to_string(size_) +
         " bytes");
  if (crc_ != expected_crc_) fail(what_ + ": cannot read the member: CRC error");
}

}  // namespace bnscope
