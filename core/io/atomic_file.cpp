#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <streambuf>

#include "io/temp_cleanup.h"
#include "tensor/error.h"
#include "tensor/parallel.h"

namespace bnscope {

namespace {

std::string errno_text() {
  return std::strerror(errno);
}

std::string parent_dir(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// mkstemp creates 0600 files; a replaced file keeps its mode, a new one gets what open() would
// give it. The umask can only be read by setting it, so it is read once.
mode_t new_file_mode(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return st.st_mode & 07777;
  static const mode_t mask = [] {
    const mode_t m = ::umask(022);
    ::umask(m);
    return m;
  }();
  return 0666 & ~mask;
}

// Makes the rename durable; a failure here cannot undo the rename, so it is not reported.
void sync_dir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

class CFileBuf : public std::streambuf {
 public:
  explicit CFileBuf(std::FILE* f) : f_(f) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    return std::fputc(c, f_) == EOF ? traits_type::eof() : c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    return static_cast<std::streamsize>(std::fwrite(s, 1, static_cast<std::size_t>(n), f_));
  }

 private:
  std::FILE* f_;
};

// Where a single file's bytes go. A symbolic link is followed (the link stays a link and the file
// it names is replaced); an existing character device or FIFO (/dev/null, a pipe) is written in
// place, since renaming over it would replace the node itself.
struct Target {
  std::string path;
  bool in_place = false;
};

Target resolve_target(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) return {p, false};                // a new file
    if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return {p, false};  // a directory fails later
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return {p, true};
    if (!S_ISLNK(st.st_mode))
      fail("cannot write '" + path + "': it is not a regular file, a character device or a FIFO");
    std::string link(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
    const ssize_t n = ::readlink(p.c_str(), link.data(), link.size());
    if (n < 0) fail("cannot write '" + path + "': " + errno_text());
    link.resize(static_cast<std::size_t>(n));
    p = link.front() == '/' ? link : parent_dir(p) + "/" + link;
  }
  fail("cannot write '" + path + "': too many levels of symbolic links");
}

// No temporary and no rename: the node stays what it is. A FIFO opens as a shell redirection
// would, once a reader is there.
void write_in_place(const std::string& path, const std::string& target,
                    const std::function<void(std::FILE*)>& writer) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot write '" + path + "': " + errno_text());
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    const std::string why = errno_text();
    ::close(fd);
    fail("cannot write '" + path + "': " + why);
  }
  try {
    writer(f);
    if (std::ferror(f) || std::fflush(f) != 0) fail("cannot write '" + path + "': write error");
  } catch (...) {
    std::fclose(f);
    throw;
  }
  if (std::fclose(f) != 0) fail("cannot write '" + path + "': " + errno_text());
}

}  // namespace

void write_file_atomic_cfile(const std::string& given,
                             const std::function<void(std::FILE*)>& writer) {
  if (given.empty()) fail("cannot write a file with an empty path");
  const Target target = resolve_target(given);
  if (target.in_place) return write_in_place(given, target.path, writer);
  const std::string& path = target.path;
  const std::string dir = parent_dir(path);
  const auto slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty()) fail("cannot write '" + given + "': the path names a directory");
  std::string tmp = (dir == "/" ? "" : dir) + "/." + base + ".tmp-XXXXXX";
  const mode_t mode = new_file_mode(path);
  TempRegistration registered;  // removed by a SIGINT or SIGTERM too
  const int fd = make_registered_temp_file(tmp, registered);
  if (fd < 0)
    fail("cannot write '" + given + "': cannot create a file in " + dir + ": " + errno_text());
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    const std::string why = errno_text();
    ::close(fd);
    ::unlink(tmp.c_str());
    fail("cannot write '" + given + "': " + why);
  }
  try {
    writer(f);
    if (std::ferror(f)) fail("cannot write '" + given + "': write error");
    if (std::fflush(f) != 0 || ::fchmod(fd, mode) != 0 || ::fsync(fd) != 0)
      fail("cannot write '" + given + "': " + errno_text());
  } catch (...) {
    std::fclose(f);
    ::unlink(tmp.c_str());
    throw;
  }
  if (std::fclose(f) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    fail("cannot write '" + given + "': " + why);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    fail("cannot write '" + given + "': cannot replace it: " + why);
  }
  registered.release();
  sync_dir(dir);
}

void write_file_atomic_stream(const std::string& path,
                              const std::function<void(std::ostream&)>& writer) {
  write_file_atomic_cfile(path, [&](std::FILE* f) {
    CFileBuf buf(f);
    std::ostream out(&buf);
    writer(out);
    out.flush();
    if (!out) fail("cannot write '" + path + "': write error");
  });
}

void write_file_atomic(const std::string& path, std::span<const std::byte> bytes) {
  write_file_atomic_cfile(path, [&](std::FILE* f) {
    if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
      fail("cannot write '" + path + "': " + errno_text());
  });
}

void write_file_atomic(const std::string& path, std::string_view text) {
  write_file_atomic(path, std::as_bytes(std::span<const char>(text.data(), text.size())));
}

}  // namespace bnscope

namespace bnscope {

namespace {

bool is_dir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

OutputSet::OutputSet(std::string dir, std::vector<std::string> names, std::string flag)
    : dir_(std::move(dir)), flag_(std::move(flag)), names_(std::move(names)) {
  if (dir_.empty()) fail(flag_ + " needs a directory");
  struct stat st;
  if (::stat(dir_.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) fail(flag_ + " " + dir_ + ": exists and is not a directory");
  } else {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) fail(flag_ + " " + dir_ + ": cannot create the directory: " + ec.message());
    created_dir_ = true;
  }
  try {
    check_targets();
  } catch (...) {
    discard();
    throw;
  }
  std::string tmpl = dir_ + "/.bnscope-tmp-XXXXXX";
  TempRegistration registered;
  if (!make_registered_temp_dir(tmpl, registered)) {
    const std::string why = errno_text();
    discard();
    fail(flag_ + " " + dir_ + ": cannot write there: " + why);
  }
  tmp_ = tmpl;
  temps_.push_back(std::move(registered));
}

OutputSet::~OutputSet() {
  close_pending();
  if (!committed_) discard();
}

void OutputSet::close_pending() noexcept {
  for (int fd : unsynced_) ::close(fd);
  unsynced_.clear();
}

void OutputSet::discard() noexcept {
  std::error_code ec;
  if (!tmp_.empty()) std::filesystem::remove_all(tmp_, ec);
  tmp_.clear();
  temps_.clear();
  if (created_dir_) ::rmdir(dir_.c_str());  // only when still empty
  created_dir_ = false;
}

std::string OutputSet::path(const std::string& name) const {
  return dir_ + "/" + name;
}

void OutputSet::check_targets() const {
  for (const std::string& name : names_) {
    const std::string target = path(name);
    struct stat st;
    if (::lstat(target.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      fail(flag_ + " " + dir_ + ": cannot write " + name +
           ": a directory of that name is in the way; nothing was written");
  }
}

void OutputSet::write(const std::string& name, const std::function<void(std::FILE*)>& writer) {
  if (std::find(names_.begin(), names_.end(), name) == names_.end())
    throw Error(ErrorCode::Internal, "output set: unexpected file " + name);
  if (std::find(removed_.begin(), removed_.end(), name) != removed_.end())
    throw Error(ErrorCode::Internal, "output set: " + name + " is to be removed");
  const std::string file = tmp_ + "/" + name;
  temps_.emplace_back(file);  // before it exists: a signal in between finds nothing to remove
  std::FILE* f = std::fopen(file.c_str(), "wb");
  if (!f) fail("cannot write '" + path(name) + "': " + errno_text());
  int kept = -1;
  try {
    writer(f);
    if (std::ferror(f)) fail("cannot write '" + path(name) + "': write error");
    if (std::fflush(f) != 0 || ::fchmod(::fileno(f), new_file_mode(path(name))) != 0)
      fail("cannot write '" + path(name) + "': " + errno_text());
      // The disk starts on this file while the next ones are made; commit() waits for all of them
      // at once.
#if defined(__linux__)
    ::sync_file_range(::fileno(f), 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
    kept = ::dup(::fileno(f));
    if (kept < 0) fail("cannot write '" + path(name) + "': " + errno_text());
  } catch (...) {
    std::fclose(f);
    throw;
  }
  if (std::fclose(f) != 0) {
    const std::string why = errno_text();
    ::close(kept);
    fail("cannot write '" + path(name) + "': " + why);
  }
  unsynced_.push_back(kept);
  written_.push_back(name);
}

void OutputSet::sync_written() {
  // One thread per file: the file system commits concurrent syncs together rather than one
  // journal commit after another.
  std::vector<int> failed(unsynced_.size(), 0);
  const auto files = static_cast<std::int64_t>(unsynced_.size());
  parallel_for(files, static_cast<int>(files), [&](int, std::int64_t b, std::int64_t e) {
    for (auto k = static_cast<std::size_t>(b); k < static_cast<std::size_t>(e); ++k)
      failed[k] = ::fsync(unsynced_[k]) != 0 ? errno : 0;
  });
  close_pending();
  for (std::size_t k = 0; k < failed.size(); ++k)
    if (failed[k]) fail("cannot write '" + path(written_[k]) + "': " + std::strerror(failed[k]));
}

void OutputSet::write_stream(const std::string& name,
                             const std::function<void(std::ostream&)>& writer) {
  write(name, [&](std::FILE* f) {
    CFileBuf buf(f);
    std::ostream out(&buf);
    writer(out);
    out.flush();
    if (!out) fail("cannot write '" + path(name) + "': write error");
  });
}

void OutputSet::remove(const std::string& name) {
  if (std::find(names_.begin(), names_.end(), name) == names_.end())
    throw Error(ErrorCode::Internal, "output set: unexpected file " + name);
  if (std::find(written_.begin(), written_.end(), name) != written_.end())
    throw Error(ErrorCode::Internal, "output set: " + name + " was written");
  if (std::find(removed_.begin(), removed_.end(), name) == removed_.end()) removed_.push_back(name);
}

void OutputSet::commit() {
  const auto listed = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  for (const std::string& name : names_)
    if (!listed(written_, name) && !listed(removed_, name))
      throw Error(ErrorCode::Internal, "output set: " + name + " was not written");
  sync_written();
  check_targets();  // again: something may have appeared while the work ran
  // Earlier files are kept as hard links in the temporary folder until every move succeeded, so
  // a failed move can put them back.
  const std::string old = tmp_ + "/.old";
  if (::mkdir(old.c_str(), 0700) != 0) fail("cannot write into " + dir_ + ": " + errno_text());
  std::vector<std::string> had;
  for (const std::string& name : names_)
    if (::link(path(name).c_str(), (old + "/" + name).c_str()) == 0) had.push_back(name);
  // A removed name is undone as a moved one is: its earlier file comes back from the links.
  std::vector<std::string> moved;
  for (const std::string& name : names_) {
    const bool drop = listed(removed_, name);
    const bool done = drop ? ::unlink(path(name).c_str()) == 0 || errno == ENOENT
                           : ::rename((tmp_ + "/" + name).c_str(), path(name).c_str()) == 0;
    if (!done) {
      const std::string why = errno_text();
      for (const std::string& m : moved) {
        if (listed(had, m))
          ::rename((old + "/" + m).c_str(), path(m).c_str());
        else
          ::unlink(path(m).c_str());
      }
      fail(flag_ + " " + dir_ + ": cannot " + (drop ? "remove the earlier " : "move ") + name +
           (drop ? "" : " into place") + ": " + why + "; the earlier files are unchanged");
    }
    moved.push_back(name);
  }
  committed_ = true;
  sync_dir(dir_);
  std::error_code ec;
  std::filesystem::remove_all(tmp_, ec);
  temps_.clear();
}

void check_output_file(const std::string& path, const std::string& flag) {
  if (path.empty()) fail(flag + " needs a file name");
  if (is_dir(path)) fail(flag + " " + path + ": is a directory; expected a file name");
  Target target;
  try {
    target = resolve_target(path);
  } catch (const Error& e) {
    fail(flag + " " + path + ": " + e.what());
  }
  if (target.in_place) {
    if (::access(target.path.c_str(), W_OK) != 0)
      fail(flag + " " + path + ": cannot write it: " + errno_text());
    return;
  }
  const std::string dir = parent_dir(target.path);
  if (!is_dir(dir)) {
    struct stat st;
    if (::stat(dir.c_str(), &st) == 0) fail(flag + " " + path + ": " + dir + " is not a directory");
    fail(flag + " " + path + ": the directory " + dir + " does not exist");
  }
  if (::access(dir.c_str(), W_OK) != 0)
    fail(flag + " " + path + ": cannot write in " + dir + ": " + errno_text());
}

}  // namespace bnscope
