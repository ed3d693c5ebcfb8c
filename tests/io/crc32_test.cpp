// The CRC-32 of large buffers is made in parts on several threads and joined: it must be what
// one pass of zlib gives, for any start value and for sizes that do not split evenly.

#include "io/crc32.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <vector>

namespace bnscope {
namespace {

std::vector<std::byte> bytes(std::size_t n) {
  std::vector<std::byte> out(n);
  std::uint64_t s = 12345;
  for (std::byte& b : out) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    b = static_cast<std::byte>(s >> 56);
  }
  return out;
}

std::uint32_t one_pass(std::uint32_t crc, const std::vector<std::byte>& data) {
  if (data.empty()) return crc;  // zlib takes a null buffer as "give the start value"
  return static_cast<std::uint32_t>(
      crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

TEST(Crc32, PartsJoinToOnePass) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4099},
                        (std::size_t{8} << 20) * 3 + 7, (std::size_t{40} << 20) + 13}) {
    const std::vector<std::byte> data = bytes(n);
    for (std::uint32_t start : {0u, 0xdeadbeefu})
      EXPECT_EQ(crc32_update(start, data), one_pass(start, data)) << n << " bytes from " << start;
  }
}

TEST(Crc32, KnownValue) {
  const char text[] = "123456789";  // the CRC-32 check value
  EXPECT_EQ(crc32_update(0, std::as_bytes(std::span<const char>(text, 9))), 0xCBF43926u);
}

}  // namespace
}  // namespace bnscope
