#include "io/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "io/npz.h"
#include "io_test_util.h"

namespace bnscope {
namespace {

using test::expect_error;

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(AtomicFile, CreatesAndReplaces) {
  test::ScratchDir dir;
  const std::string path = dir / "a.txt";
  write_file_atomic(path, std::string_view("first"));
  EXPECT_EQ(slurp(path), "first");
  write_file_atomic_stream(path, [](std::ostream& out) { out << "second " << 2; });
  EXPECT_EQ(slurp(path), "second 2");
  write_file_atomic_cfile(path, [](std::FILE* f) { std::fputs("third", f); });
  EXPECT_EQ(slurp(path), "third");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.txt"});
}

TEST(AtomicFile, ReplacedFileKeepsItsMode) {
  test::ScratchDir dir;
  const std::string path = dir / "m.txt";
  write_file_atomic(path, std::string_view("x"));
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  write_file_atomic(path, std::string_view("y"));
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(AtomicFile, WriterErrorMidwayLeavesOldFile) {
  test::ScratchDir dir;
  const std::string path = dir / "keep.txt";
  write_file_atomic(path, std::string_view("old content"));
  EXPECT_THROW(write_file_atomic_stream(path,
                                        [](std::ostream& out) {
                                          out << std::string(1 << 20, 'n');
                                          throw Error(ErrorCode::Internal, "serializer failed");
                                        }),
               Error);
  EXPECT_EQ(slurp(path), "old content");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"keep.txt"});
}

TEST(AtomicFile, FailedStreamLeavesOldFile) {
  test::ScratchDir dir;
  const std::string path = dir / "keep.txt";
  write_file_atomic(path, std::string_view("old content"));
  expect_error(
      [&] {
        write_file_atomic_stream(path, [](std::ostream& out) {
          out << "partial";
          out.setstate(std::ios::badbit);
        });
      },
      {path, "write error"});
  EXPECT_EQ(slurp(path), "old content");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"keep.txt"});
}

TEST(AtomicFile, SerializationErrorLeavesOldArchive) {
  test::ScratchDir dir;
  const std::string path = dir / "old.npz";
  write_npz(path, {{"a", Tensor(DType::F32, {2})}});
  const std::string before = slurp(path);
  EXPECT_THROW(write_npz(path, {{"a", Tensor()}, {"a", Tensor()}}), Error);
  EXPECT_EQ(slurp(path), before);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"old.npz"});
}

TEST(AtomicFile, UnwritableTargetsGiveErrorsAndLeaveNoTemp) {
  test::ScratchDir dir;
  expect_error([&] { write_file_atomic(dir / "no/such/dir/f.npy", std::string_view("x")); },
               {"no/such/dir/f.npy", "cannot write"});
  // Not writable even for root: procfs refuses new files.
  expect_error([] { write_file_atomic("/proc/bnscope-test.npy", std::string_view("x")); },
               {"/proc/bnscope-test.npy", "cannot write"});
  // The target is a directory: rename fails after the data was written.
  std::filesystem::create_directory(dir / "sub");
  std::ofstream(dir / "sub/inside.txt") << "kept";
  expect_error([&] { write_file_atomic(dir / "sub", std::string_view("x")); },
               {dir / "sub", "cannot replace it"});
  EXPECT_EQ(slurp(dir / "sub/inside.txt"), "kept");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"sub"});
  expect_error([&] { write_file_atomic(dir.path().string() + "/", std::string_view("x")); },
               {"names a directory"});
}

}  // namespace
}  // namespace bnscope
