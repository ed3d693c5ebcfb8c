// The archive checks done before any member is read, and the members refused only when opened:
// each case is a good archive with a few bytes changed, and the error names the file and, where
// there is one, the member.

#include "io/zip_directory.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "io/npy.h"
#include "io/npz.h"
#include "io_test_util.h"

namespace bnscope {
namespace {

using test::expect_error;
using test::grid;
using test::write_bytes;

std::size_t find_sig(const std::vector<std::byte>& b, const char* sig, std::size_t from = 0) {
  for (std::size_t k = from; k + 4 <= b.size(); ++k)
    if (std::memcmp(b.data() + k, sig, 4) == 0) return k;
  return b.size();
}

void put16(std::vector<std::byte>& b, std::size_t at, unsigned v) {
  b[at] = std::byte(v & 0xff);
  b[at + 1] = std::byte((v >> 8) & 0xff);
}

class ZipChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    write_npz(dir_ / "good.npz", {{"x", grid(DType::F32, {3, 4})}}, {{"notes.txt", "hello"}});
    good_ = read_file_bytes(dir_ / "good.npz");
    central_ = find_sig(good_, "PK\x01\x02");
    end_ = find_sig(good_, "PK\x05\x06");
    ASSERT_LT(end_, good_.size());
  }
  // The archive with `change` made, written as name.
  std::string changed(const std::string& name,
                      const std::function<void(std::vector<std::byte>&)>& change) {
    std::vector<std::byte> b = good_;
    change(b);
    write_bytes(dir_ / name, b);
    return dir_ / name;
  }
  test::ScratchDir dir_;
  std::vector<std::byte> good_;
  std::size_t central_ = 0, end_ = 0;  // x.npy's central entry, the end record
};

TEST_F(ZipChecks, EncryptedMemberIsRefusedByNameWhenOpened) {
  const std::string path = changed("enc.npz", [&](auto& b) {
    put16(b, 6, 1 | (1 << 11));
    put16(b, central_ + 8, 1 | (1 << 11));
  });
  expect_error([&] { read_npz(path); }, {path + ":x.npy", "encrypted"});
  EXPECT_EQ(npz_members(path), (std::vector<std::string>{"x.npy", "notes.txt"}));
  EXPECT_EQ(read_npz_bytes(path, "notes.txt").size(), 5u);
}

TEST_F(ZipChecks, UnsupportedMethodIsRefusedByName) {
  const std::string path = changed("bz.npz", [&](auto& b) {
    put16(b, 8, 12);
    put16(b, central_ + 10, 12);
  });
  expect_error([&] { read_npz_member(path, "x"); }, {path + ":x.npy", "method 12 (bzip2)"});
}

TEST_F(ZipChecks, LocalHeaderMustAgreeWithTheDirectory) {
  const std::string name = changed("name.npz", [&](auto& b) { b[30] = std::byte{'y'}; });
  expect_error([&] { npz_members(name); },
               {"cannot read .npz '" + name + "'", "'x.npy'", "local header disagrees"});
  const std::string crc = changed("crc.npz", [&](auto& b) { b[14] ^= std::byte{1}; });
  expect_error([&] { read_npz(crc); }, {crc, "'x.npy'", "CRC or sizes disagree"});
}

TEST_F(ZipChecks, StoredMemberWithUnequalSizesIsRefused) {
  const std::string path = changed("sizes.npz", [&](auto& b) { b[central_ + 20] ^= std::byte{1}; });
  expect_error([&] { read_npz(path); }, {path, "'x.npy' is stored with"});
}

TEST_F(ZipChecks, EndRecordCountsAndPlaceAreChecked) {
  const std::string count = changed("count.npz", [&](auto& b) {
    put16(b, end_ + 8, 3);
    put16(b, end_ + 10, 3);
  });
  expect_error([&] { read_npz(count); }, {count, "holds 2 entries, not the 3"});
  const std::string disks = changed("disks.npz", [&](auto& b) { put16(b, end_ + 4, 1); });
  expect_error([&] { read_npz(disks); }, {disks, "multi-disk"});
  const std::string trailing = dir_ / "trailing.npz";
  std::vector<std::byte> t = good_;
  t.push_back(std::byte{0});
  write_bytes(trailing, t);
  expect_error([&] { read_npz(trailing); },
               {trailing, "goes on 1 bytes past the archive's end record"});
}

TEST_F(ZipChecks, EveryTruncationIsRefusedNamingTheFile) {
  for (std::size_t n = 0; n < good_.size(); ++n) {
    const std::string path = dir_ / "cut.npz";
    write_bytes(path, std::vector<std::byte>(good_.begin(), good_.begin() + n));
    expect_error([&] { read_npz(path); }, {path});
  }
}

// A download or copy cut short is said to be one, with how far the data was meant to go, not
// taken for a file that is no zip archive at all.
TEST_F(ZipChecks, CutArchiveSaysItIsTruncated) {
  const std::string has = "the file has ";
  const auto cut_at = [&](const std::string& name, std::size_t n) {
    write_bytes(dir_ / name, std::vector<std::byte>(good_.begin(), good_.begin() + n));
    return dir_ / name;
  };
  const std::string data = cut_at("data.npz", 100);            // inside x.npy's header and data
  const std::size_t x_end = find_sig(good_, "PK\x03\x04", 4);  // notes.txt's local header
  expect_error([&] { read_npz(data); },
               {data + ": truncated (ends inside the zip's data; expected at least " +
                    std::to_string(x_end) + " bytes for member 'x.npy'",
                has + "100 bytes"});
  const std::string members = cut_at("members.npz", central_);
  expect_error([&] { npz_members(members); },
               {members + ": truncated (ends after the members' data, before the zip's central "
                          "directory",
                has + std::to_string(central_) + " bytes"});
  const std::string directory = cut_at("directory.npz", end_ + 10);
  expect_error([&] { npz_members(directory); },
               {directory + ": truncated (ends inside the zip's central directory"});
  const std::string header = cut_at("header.npz", 12);
  expect_error([&] { npz_members(header); },
               {header + ": truncated (ends inside the zip's data", has + "12 bytes"});
  for (const std::string& path : {data, members, directory, header}) try {
      npz_members(path);
    } catch (const std::exception& e) {
      EXPECT_EQ(std::string(e.what()).find("not a zip archive"), std::string::npos) << e.what();
    }
  // A file that does not begin like an archive is still no zip archive.
  const std::string text = dir_ / "text.npz";
  write_bytes(text, test::to_bytes("this is not a zip archive, and long enough to look for one"));
  expect_error([&] { npz_members(text); }, {text, "not a zip archive"});
}

// A deflated archive's members give their sizes after the data: cut inside one, it is still
// said to be truncated, and where.
TEST(ZipDeflate, CutDeflatedArchiveSaysItIsTruncated) {
  test::ScratchDir dir;
  const std::string whole = dir / "whole.npz";
  write_npz(whole, {{"x", grid(DType::F32, {64, 64})}}, {}, true);
  std::vector<std::byte> b = read_file_bytes(whole);
  b.resize(b.size() / 2);
  const std::string cut = dir / "cut.npz";
  write_bytes(cut, b);
  expect_error([&] { read_npz(cut); },
               {cut + ": truncated (ends inside the zip's data, in or after member 'x.npy'"});
}

TEST(ZipDeflate, MembersUseDataDescriptorsAndReadBack) {
  test::ScratchDir dir;
  // Several MiB of varied data: many output chunks, and a member that really compresses.
  Tensor big(DType::F32, {3 << 20});
  for (std::int64_t i = 0; i < big.numel(); ++i)
    big.data<float>()[i] = static_cast<float>(i % 1000);
  const std::string path = dir / "d.npz";
  write_npz(path, {{"big", big}, {"empty", grid(DType::F32, {0})}}, {{"t.txt", ""}}, true);
  test::expect_same_tensor(read_npz_member(path, "big"), big);
  EXPECT_EQ(read_npz_member(path, "empty").numel(), 0);
  EXPECT_TRUE(read_npz_bytes(path, "t.txt").empty());

  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  const ZipDirectory zip(fd, std::filesystem::file_size(path), path);
  ::close(fd);
  ASSERT_EQ(zip.entries().size(), 3u);
  const ZipEntry& e = zip.entries()[0];
  EXPECT_EQ(e.method, kZipDeflated);
  EXPECT_TRUE(e.flags & 8) << "a data descriptor follows the data";
  EXPECT_EQ(e.size, big.nbytes() + npy_header_bytes(big).size());
  EXPECT_LT(e.packed, e.size / 4);
  // The archive in memory is the one written to a file.
  write_npz(dir / "one.npz", {{"big", big}}, {}, true);
  EXPECT_EQ(serialize_npz({{"big", big}}), read_file_bytes(dir / "one.npz"));
}

}  // namespace
}  // namespace bnscope
