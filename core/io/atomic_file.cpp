#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ostream>
#include <streambuf>

#include "tensor/error.h"

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

}  // namespace

void write_file_atomic_cfile(const std::string& path,
                             const std::function<void(std::FILE*)>& writer) {
  if (path.empty()) fail("cannot write a file with an empty path");
  const std::string dir = parent_dir(path);
  const auto slash = path.find_last_of('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty()) fail("cannot write '" + path + "': the path names a directory");
  std::string tmp = (dir == "/" ? "" : dir) + "/." + base + ".tmp-XXXXXX";
  const mode_t mode = new_file_mode(path);
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    fail("cannot write '" + path + "': cannot create a file in " + dir + ": " + errno_text());
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    const std::string why = errno_text();
    ::close(fd);
    ::unlink(tmp.c_str());
    fail("cannot write '" + path + "': " + why);
  }
  try {
    writer(f);
    if (std::ferror(f)) fail("cannot write '" + path + "': write error");
    if (std::fflush(f) != 0 || ::fchmod(fd, mode) != 0 || ::fsync(fd) != 0)
      fail("cannot write '" + path + "': " + errno_text());
  } catch (...) {
    std::fclose(f);
    ::unlink(tmp.c_str());
    throw;
  }
  if (std::fclose(f) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    fail("cannot write '" + path + "': " + why);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    fail("cannot write '" + path + "': cannot replace it: " + why);
  }
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
