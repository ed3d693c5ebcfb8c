#pragma once
// A deflated zip member inflated by zlib straight into the caller's buffers: never more than its
// declared uncompressed size is given out, a member that would inflate past it is an error, and
// its CRC-32 is checked at the end.

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/zip_directory.h"

namespace bnscope {

class ZipInflater {
 public:
  // `what` ("archive.npz:member") names the member in error messages.
  ZipInflater(int fd, const ZipEntry& e, std::string what);
  ~ZipInflater();
  ZipInflater(const ZipInflater&) = delete;
  ZipInflater& operator=(const ZipInflater&) = delete;

  // Up to n bytes; fewer only when the member's declared size or its data ends.
  std::size_t read(std::byte* dst, std::size_t n);
  // Throws unless exactly the declared size came out, nothing would follow, and the CRC matches.
  void expect_end();

 private:
  void refill();
  // Inflates into dst (at most n bytes), adding what came out to the CRC unless `scratch`.
  std::size_t inflate_into(std::byte* dst, std::size_t n, bool scratch);

  int fd_;
  std::string what_;
  std::uint64_t in_at_, in_left_, size_, out_left_;
  std::uint32_t crc_ = 0, expected_crc_;
  std::vector<unsigned char> in_;
  z_stream z_{};
  bool ended_ = false;
};

}  // namespace bnscope
