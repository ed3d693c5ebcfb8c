#include "io/npz.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "io/npy.h"
#include "io/zip_directory.h"
#include "io_test_util.h"

namespace bnscope {
namespace {

using test::expect_error;
using test::fixture;
using test::grid;
using test::write_bytes;

std::string as_text(const std::vector<std::byte>& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

int compression_of(const std::string& path, const std::string& member) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return -1;
  const ZipDirectory dir(fd, std::filesystem::file_size(path), path);
  ::close(fd);
  const ZipEntry* e = dir.find(member);
  return e ? e->method : -1;
}

class NpzFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(NpzFixture, LoadsNumpyArchives) {
  const std::string path = fixture(GetParam());
  EXPECT_EQ(compression_of(path, "x.npy"), GetParam() == "stored.npz" ? kZipStored : kZipDeflated);
  // count.npy holds int32, which no kernel takes: refused by name, and skipped unread when not
  // wanted.
  expect_error([&] { read_npz(path); }, {path + ":count.npy", "int32"});
  const auto all = read_npz(path, [](const std::string& key) { return key != "count"; });
  ASSERT_EQ(all.size(), 2u) << "notes.txt is not an array and is skipped";
  test::expect_same_tensor(all.at("x"), grid(DType::F32, {2, 3, 4}));
  EXPECT_EQ(all.at("scale").dtype(), DType::F64);
  EXPECT_EQ(all.at("scale").to_doubles(), (std::vector<double>{1, 2, 3, 4}));

  EXPECT_EQ(npz_members(path),
            (std::vector<std::string>{"x.npy", "scale.npy", "count.npy", "notes.txt"}));
  EXPECT_EQ(as_text(read_npz_bytes(path, "notes.txt")), "not an array\n");
  test::expect_same_tensor(read_npz_member(path, "x"), all.at("x"));
  test::expect_same_tensor(read_npz_member(path, "x.npy"), all.at("x"));
  EXPECT_TRUE(npz_has_member(path, "scale.npy"));
  EXPECT_FALSE(npz_has_member(path, "scale"));
}

INSTANTIATE_TEST_SUITE_P(StoredDeflatedStreamed, NpzFixture,
                         ::testing::Values("stored.npz", "deflated.npz", "streamed.npz"));

TEST(Npz, MissingMemberNamesArchiveAndMember) {
  const std::string path = fixture("stored.npz");
  expect_error([&] { read_npz_member(path, "offset"); },
               {"stored.npz", "no member 'offset'", "x.npy"});
  expect_error([&] { read_npz_bytes(path, "x"); }, {"stored.npz", "no member 'x'"});
}

TEST(Npz, RoundTripsDeflatedWithTextMembers) {
  test::ScratchDir dir;
  std::vector<std::pair<std::string, Tensor>> members;
  for (DType dtype : kAllDTypes)
    members.emplace_back(std::string("t_") + std::string(dtype_name(dtype)), grid(dtype, {2, 5}));
  members.emplace_back("scalar", grid(DType::F64, {}));
  members.emplace_back("empty", grid(DType::F32, {0, 4}));
  const std::string path = dir / "out.npz";
  write_npz(path, members, {{"readme.txt", "hello\n"}}, true);

  const auto back = read_npz(path);
  ASSERT_EQ(back.size(), members.size());
  for (const auto& [name, t] : members) test::expect_same_tensor(back.at(name), t);
  EXPECT_EQ(as_text(read_npz_bytes(path, "readme.txt")), "hello\n");
  EXPECT_EQ(compression_of(path, "t_float32.npy"), kZipDeflated);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.npz"});
}

TEST(Npz, WritesStoredByDefaultAsNumpySavezDoes) {
  test::ScratchDir dir;
  std::vector<std::pair<std::string, Tensor>> members;
  for (DType dtype : kAllDTypes)
    members.emplace_back(std::string("t_") + std::string(dtype_name(dtype)), grid(dtype, {3, 7}));
  members.emplace_back("empty", grid(DType::F32, {0, 4}));
  const std::string path = dir / "out.npz";
  write_npz(path, members, {{"readme.txt", "hello\n"}});
  const auto back = read_npz(path);
  ASSERT_EQ(back.size(), members.size());
  for (const auto& [name, t] : members) test::expect_same_tensor(back.at(name), t);
  EXPECT_EQ(as_text(read_npz_bytes(path, "readme.txt")), "hello\n");
  for (const char* m : {"t_float32.npy", "t_bfloat16.npy", "readme.txt"})
    EXPECT_EQ(compression_of(path, m), kZipStored) << m;
  // Each stored .npy sits whole in the file, header and data as serialize_npy gives them.
  const std::vector<std::byte> file = read_file_bytes(path);
  const std::vector<std::byte> npy = serialize_npy(members[2].second);
  EXPECT_NE(std::search(file.begin(), file.end(), npy.begin(), npy.end()), file.end());
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.npz"});
}

TEST(Npz, EmptyArchiveRoundTrips) {
  test::ScratchDir dir;
  write_npz(dir / "e.npz", {});
  EXPECT_TRUE(read_npz(dir / "e.npz").empty());
  EXPECT_TRUE(npz_members(dir / "e.npz").empty());
}

TEST(Npz, RejectsDuplicateMemberNames) {
  expect_error([] { serialize_npz({{"a", Tensor()}, {"a", Tensor()}}); }, {"'a.npy' given twice"});
}

TEST(Npz, MalformedArchivesNameTheFile) {
  test::ScratchDir dir;
  const std::string not_zip = dir / "not_zip.npz";
  write_bytes(not_zip, serialize_npy(grid(DType::F32, {3})));
  expect_error([&] { read_npz(not_zip); }, {not_zip, "cannot read .npz"});
  expect_error([&] { read_npz(dir / "missing.npz"); }, {"missing.npz"});

  const auto good = read_file_bytes(fixture("deflated.npz"));
  const std::string cut = dir / "cut.npz";
  write_bytes(cut, std::vector<std::byte>(good.begin(), good.begin() + 300));
  expect_error([&] { read_npz(cut); }, {cut});

  // Damage the compressed data of the first member: inflate or the CRC check must fail.
  auto damaged = good;
  for (std::size_t k = 60; k < 90; ++k) damaged[k] ^= std::byte{0x5a};
  const std::string bad = dir / "damaged.npz";
  write_bytes(bad, damaged);
  expect_error([&] { read_npz(bad); }, {bad});
}

TEST(Npz, MalformedMemberNamesArchiveAndMember) {
  test::ScratchDir dir;
  const std::string path = dir / "m.npz";
  write_npz(path, {{"good", grid(DType::F32, {2})}},
            {{"bad.npy", std::string("\x93NUMPY\x01\x00junk", 12)}});
  expect_error([&] { read_npz(path); }, {path + ":bad.npy", "truncated .npy header"});
  test::expect_same_tensor(read_npz_member(path, "good"), grid(DType::F32, {2}));
}

}  // namespace
}  // namespace bnscope
