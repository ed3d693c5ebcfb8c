#include "io/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

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

TEST(AtomicFile, ASymbolicLinkIsFollowedAndStaysALink) {
  test::ScratchDir dir;
  std::filesystem::create_directory(dir / "real");
  write_file_atomic(dir / "real/t.json", std::string_view("old"));
  std::filesystem::create_symlink("real/t.json", dir / "link.json");
  write_file_atomic(dir / "link.json", std::string_view("new"));
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.json"));
  EXPECT_EQ(slurp(dir / "real/t.json"), "new");
  // A link to a file not made yet makes it where the link points.
  std::filesystem::create_symlink("real/later.json", dir / "dangling.json");
  write_file_atomic(dir / "dangling.json", std::string_view("made"));
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "dangling.json"));
  EXPECT_EQ(slurp(dir / "real/later.json"), "made");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"dangling.json", "link.json", "real"}));
  std::filesystem::create_symlink("loop", dir / "loop");
  expect_error([&] { write_file_atomic(dir / "loop", std::string_view("x")); },
               {"too many levels of symbolic links"});
}

TEST(AtomicFile, AFifoIsWrittenInPlace) {
  test::ScratchDir dir;
  const std::string fifo = dir / "pipe.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  write_file_atomic(fifo, std::string_view("through the pipe"));
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  struct stat st;
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"pipe.json"});
  EXPECT_NO_THROW(check_output_file(fifo, "--json"));
}

TEST(AtomicFile, ACharacterDeviceIsWrittenInPlace) {
  struct stat st;
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  ASSERT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_NO_THROW(check_output_file("/dev/null", "--json"));
  write_file_atomic("/dev/null", std::string_view("discarded"));
  write_npz("/dev/null", {{"a", Tensor(DType::F32, {2})}});
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(AtomicFile, OutputFileChecksFollowLinksAndNameWhatIsInTheWay) {
  test::ScratchDir dir;
  std::ofstream(dir / "afile") << "x";
  expect_error([&] { check_output_file(dir / "afile/x.json", "--json"); },
               {"--json", "afile is not a directory"});
  expect_error([&] { check_output_file(dir / "none/x.json", "--json"); },
               {"the directory", "does not exist"});
  std::filesystem::create_symlink("none/x.json", dir / "link.json");
  expect_error([&] { check_output_file(dir / "link.json", "--json"); },
               {"--json", "link.json", "does not exist"});
}

// A set replaces its earlier version whole: the new files appear together at commit, and a name
// the new set removes loses its earlier file with that commit, not before.
TEST(OutputSet, ReplacesTheEarlierFilesAndRemovesTheDroppedOnesAtCommit) {
  test::ScratchDir dir;
  {
    OutputSet first(dir.path().string(), {"a.txt", "b.txt"}, "--out");
    first.write_stream("a.txt", [](std::ostream& out) { out << "a1"; });
    first.write_stream("b.txt", [](std::ostream& out) { out << "b1"; });
    first.commit();
  }
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"a.txt", "b.txt"}));
  OutputSet second(dir.path().string(), {"a.txt", "b.txt"}, "--out");
  second.write_stream("a.txt", [](std::ostream& out) { out << "a2"; });
  second.remove("b.txt");
  // Nothing has changed before the commit.
  EXPECT_EQ(slurp(dir / "a.txt"), "a1");
  EXPECT_EQ(slurp(dir / "b.txt"), "b1");
  second.commit();
  EXPECT_EQ(slurp(dir / "a.txt"), "a2");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.txt"});
  // Removing a name that has no earlier file is no error.
  OutputSet third(dir.path().string(), {"a.txt", "b.txt"}, "--out");
  third.write_stream("a.txt", [](std::ostream& out) { out << "a3"; });
  third.remove("b.txt");
  third.commit();
  EXPECT_EQ(slurp(dir / "a.txt"), "a3");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.txt"});
}

// A failure while the set is written leaves every earlier file, the one it would remove too,
// and no temporary.
TEST(OutputSet, AFailedWriteLeavesTheEarlierFilesAndRemovesNothing) {
  test::ScratchDir dir;
  {
    OutputSet first(dir.path().string(), {"a.txt", "b.txt", "c.txt"}, "--out");
    for (const char* name : {"a.txt", "b.txt", "c.txt"})
      first.write_stream(name, [&](std::ostream& out) { out << name; });
    first.commit();
  }
  {
    OutputSet second(dir.path().string(), {"a.txt", "b.txt", "c.txt"}, "--out");
    second.write_stream("a.txt", [](std::ostream& out) { out << "new a"; });
    second.remove("c.txt");
    EXPECT_THROW(second.write_stream("b.txt",
                                     [](std::ostream& out) {
                                       out << "half of b";
                                       throw Error(ErrorCode::Internal, "serializer failed");
                                     }),
                 Error);
  }
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"a.txt", "b.txt", "c.txt"}));
  EXPECT_EQ(slurp(dir / "a.txt"), "a.txt");
  EXPECT_EQ(slurp(dir / "b.txt"), "b.txt");
  EXPECT_EQ(slurp(dir / "c.txt"), "c.txt");
}

// A name is written or removed, once, and only a name of the set; commit wants every name
// accounted for.
TEST(OutputSet, RemoveTakesOnlyAnUnwrittenNameOfTheSet) {
  test::ScratchDir dir;
  OutputSet set(dir.path().string(), {"a.txt", "b.txt"}, "--out");
  expect_error([&] { set.remove("other.txt"); }, {"unexpected file other.txt"});
  set.write_stream("a.txt", [](std::ostream& out) { out << "a"; });
  expect_error([&] { set.remove("a.txt"); }, {"a.txt was written"});
  expect_error([&] { set.commit(); }, {"b.txt was not written"});
  set.remove("b.txt");
  expect_error([&] { set.write_stream("b.txt", [](std::ostream& out) { out << "b"; }); },
               {"b.txt is to be removed"});
  set.commit();
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.txt"});
}

}  // namespace
}  // namespace bnscope
