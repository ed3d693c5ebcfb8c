// The CRC-32 of large buffers is made in parts on several threads and joined: it must be what
// one pass of zlib gives, for any start value and for sizes that do not split evenly.

#include "io/crc32.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
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

// The folding path (64 bytes and up, 16-byte blocks, the tail by table) against zlib's crc32
// for every length up to 4 KiB, at every alignment in 16 bytes, from several start values.
TEST(Crc32, BytesMatchZlibAtEveryLengthAndAlignment) {
  const std::vector<std::byte> data = bytes(4096 + 16);
  for (std::size_t shift = 0; shift < 16; ++shift)
    for (std::size_t n = 0; n <= 4096; ++n)
      for (std::uint32_t start : {0u, 0xffffffffu, 0x12345678u}) {
        const std::vector<std::byte> part(data.begin() + static_cast<std::ptrdiff_t>(shift),
                                          data.begin() + static_cast<std::ptrdiff_t>(shift + n));
        ASSERT_EQ(crc32_bytes(start, data.data() + shift, n), one_pass(start, part))
            << n << " bytes at +" << shift << " from " << start;
      }
}

TEST(Crc32, BytesMatchZlibOnLargeAndSpecialBuffers) {
  for (std::size_t n : {std::size_t{1} << 20, (std::size_t{3} << 20) + 37}) {
    const std::vector<std::byte> data = bytes(n);
    EXPECT_EQ(crc32_bytes(0, data.data(), n), one_pass(0, data));
    EXPECT_EQ(crc32_bytes(7, data.data() + 1, n - 1),
              one_pass(7, std::vector<std::byte>(data.begin() + 1, data.end())));
  }
  for (const std::byte fill : {std::byte{0}, std::byte{0xff}}) {
    const std::vector<std::byte> same(100003, fill);
    EXPECT_EQ(crc32_bytes(0, same.data(), same.size()), one_pass(0, same));
  }
}

// A buffer checksummed in pieces (as the readers do, 256 KiB at a time and per thread) and the
// pieces joined gives the whole buffer's value.
TEST(Crc32, PiecesChainAndJoin) {
  const std::vector<std::byte> data = bytes((std::size_t{1} << 20) + 4099);
  const std::uint32_t whole = one_pass(0, data);
  std::uint32_t chained = 0;
  for (std::size_t at = 0; at < data.size(); at += 65537)
    chained =
        crc32_bytes(chained, data.data() + at, std::min<std::size_t>(65537, data.size() - at));
  EXPECT_EQ(chained, whole);
  std::vector<unsigned long> crcs;
  std::vector<std::int64_t> sizes;
  for (std::size_t at = 0; at < data.size(); at += 300007) {
    const std::size_t n = std::min<std::size_t>(300007, data.size() - at);
    crcs.push_back(crc32_bytes(0, data.data() + at, n));
    sizes.push_back(static_cast<std::int64_t>(n));
  }
  EXPECT_EQ(crc32_join(0, crcs, sizes), whole);
}

// Every path crc32_bytes can take, forced, against zlib: lengths that reach each loop and each
// tail (under 64 bytes by table, 64-255 on 128-bit registers, 256 and up on 512-bit ones, the
// 16-byte blocks and bytes left over) at every start alignment in 64 bytes, from several start
// values, then random lengths up to 8 KiB, a few MiB, and a buffer chained through random
// pieces. A wrong folding constant changes every value past the first fold.
class Crc32Paths : public ::testing::TestWithParam<Crc32Path> {
 protected:
  void SetUp() override {
    if (GetParam() > crc32_best_path()) GTEST_SKIP() << "this CPU lacks the instructions";
  }
};

TEST_P(Crc32Paths, EveryShortLengthAtEveryAlignment) {
  const std::vector<std::byte> data = bytes(1100 + 64);
  const std::uint32_t starts[] = {0u, 0xffffffffu, 0x12345678u, 0x9e3779b9u};
  for (std::size_t shift = 0; shift < 64; ++shift)
    for (std::size_t n = 0; n <= 1100; ++n) {
      const std::uint32_t start = starts[(n + shift) % 4];
      const std::vector<std::byte> part(data.begin() + static_cast<std::ptrdiff_t>(shift),
                                        data.begin() + static_cast<std::ptrdiff_t>(shift + n));
      ASSERT_EQ(crc32_bytes_by(GetParam(), start, data.data() + shift, n), one_pass(start, part))
          << n << " bytes at +" << shift << " from " << start;
    }
}

TEST_P(Crc32Paths, RandomLengthsAndLargeBuffers) {
  const std::vector<std::byte> data = bytes((std::size_t{5} << 20) + 64);
  std::uint64_t s = 99;
  auto next = [&] { return (s = s * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (int k = 0; k < 3000; ++k) {
    const std::size_t n = next() % 8193, shift = next() % 64;
    const auto start = static_cast<std::uint32_t>(next());
    const std::vector<std::byte> part(data.begin() + static_cast<std::ptrdiff_t>(shift),
                                      data.begin() + static_cast<std::ptrdiff_t>(shift + n));
    ASSERT_EQ(crc32_bytes_by(GetParam(), start, data.data() + shift, n), one_pass(start, part))
        << n << " bytes at +" << shift << " from " << start;
  }
  for (std::size_t n : {std::size_t{1} << 20, (std::size_t{3} << 20) + 37, std::size_t{5} << 20})
    for (std::size_t shift : {0, 1, 17, 63}) {
      const std::vector<std::byte> part(data.begin() + static_cast<std::ptrdiff_t>(shift),
                                        data.begin() + static_cast<std::ptrdiff_t>(shift + n));
      EXPECT_EQ(crc32_bytes_by(GetParam(), 0xdeadbeefu, data.data() + shift, n),
                one_pass(0xdeadbeefu, part))
          << n << " bytes at +" << shift;
    }
}

TEST_P(Crc32Paths, RandomPiecesChain) {
  const std::vector<std::byte> data = bytes((std::size_t{2} << 20) + 4099);
  std::uint64_t s = 7;
  auto next = [&] { return (s = s * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  std::uint32_t chained = 0;
  for (std::size_t at = 0; at < data.size();) {
    // Mostly short pieces, some long: every path's tail meets every following start.
    const std::size_t want = next() % 8 ? next() % 1024 : next() % (std::size_t{300} << 10);
    const std::size_t n = std::min(want, data.size() - at);
    chained = crc32_bytes_by(GetParam(), chained, data.data() + at, n);
    at += n;
  }
  EXPECT_EQ(chained, one_pass(0, data));
}

INSTANTIATE_TEST_SUITE_P(EachPath, Crc32Paths,
                         ::testing::Values(Crc32Path::Zlib, Crc32Path::Clmul, Crc32Path::Vclmul512),
                         [](const ::testing::TestParamInfo<Crc32Path>& path) {
                           switch (path.param) {
                             case Crc32Path::Zlib:
                               return "Zlib";
                             case Crc32Path::Clmul:
                               return "Clmul";
                             case Crc32Path::Vclmul512:
                               return "Vclmul512";
                           }
                           return "Unknown";
                         });

TEST(Crc32, KnownValue) {
  const char text[] = "123456789";  // the CRC-32 check value
  EXPECT_EQ(crc32_update(0, std::as_bytes(std::span<const char>(text, 9))), 0xCBF43926u);
}

}  // namespace
}  // namespace bnscope
