// Stored .npz members are read straight from the file into their tensors, in parts on several
// threads, with the CRC-32 checked as for any member: the same tensors, and a damaged byte
// anywhere in a member refused by name.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "io/npz.h"
#include "io_test_util.h"

namespace bnscope::test {
namespace {

Tensor counting(std::int64_t n, double scale) {
  Tensor t(DType::F32, {n});
  float* p = t.data<float>();
  for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(static_cast<double>(i) * scale);
  return t;
}

std::vector<char> file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void put_file_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// 24 MiB of data: several parts, whose boundaries fall inside the member.
constexpr std::int64_t kBig = (std::int64_t{24} << 20) / 4 + 3;

TEST(NpzDirect, StoredMembersReadBackExactly) {
  ScratchDir dir;
  const Tensor big = counting(kBig, 0.5), small = counting(7, -1.25);
  write_npz(dir / "a.npz", {{"big", big}, {"small", small}}, {{"notes.txt", "hello"}}, false);
  const auto got = read_npz(dir / "a.npz");
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(got.at("big").nbytes(), big.nbytes());
  EXPECT_EQ(std::memcmp(got.at("big").raw(), big.raw(), big.nbytes()), 0);
  ASSERT_EQ(got.at("small").nbytes(), small.nbytes());
  EXPECT_EQ(std::memcmp(got.at("small").raw(), small.raw(), small.nbytes()), 0);
  EXPECT_EQ(read_npz_bytes(dir / "a.npz", "notes.txt").size(), 5u);
}

TEST(NpzDirect, DamagedByteIsACrcErrorNamingTheMember) {
  ScratchDir dir;
  write_npz(dir / "a.npz", {{"big", counting(kBig, 0.5)}, {"small", counting(7, 1.0)}}, {}, false);
  const std::vector<char> clean = file_bytes(dir / "a.npz");
  // Bytes early, in the middle and at the very end of the big member's data.
  const std::size_t data = std::string(clean.begin(), clean.end()).find("NUMPY") + 200;
  for (std::size_t at : {data, data + static_cast<std::size_t>(kBig) * 2,
                         data + static_cast<std::size_t>(kBig) * 4 - 200 - 1}) {
    std::vector<char> bad = clean;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    put_file_bytes(dir / "bad.npz", bad);
    try {
      read_npz(dir / "bad.npz");
      ADD_FAILURE() << "a damaged byte at " << at << " was read without error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("big.npy"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("CRC error"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace bnscope::test
