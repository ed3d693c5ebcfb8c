#include "ipc/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <utility>

#include "tensor/error.h"

namespace bnscope::ipc {
namespace {

[[noreturn]] void refuse(std::string_view what, std::string_view tag, int err) {
  const ErrorCode code = (err == ENOMEM || err == ENOSPC || err == EFBIG || err == EMFILE)
                             ? ErrorCode::ResourceExhausted
                             : ErrorCode::Internal;
  throw Error(code, "shared memory " + std::string(tag) + ": " + std::string(what) +
                        " failed: " + std::strerror(err));
}

// A name unique in this process; the pid keeps processes apart.
std::string shm_name(std::string_view tag) {
  static std::atomic<unsigned> counter{0};
  return "/bnscope-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
         std::string(tag.substr(0, 32));
}

}  // namespace

SharedMemory SharedMemory::create(std::size_t bytes, std::string_view tag) {
  SharedMemory s;
  const std::string name = "bnscope-" + std::string(tag);
  int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd >= 0) {
    s.path_ = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd);
  } else {
    std::string file = shm_name(tag);
    for (char& c : file)
      if (c != '/' && c != '-' && c != '_' && !std::isalnum(static_cast<unsigned char>(c))) c = '_';
    fd = ::open(("/dev/shm" + file).c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) refuse("creating /dev/shm" + file, tag, errno);
    s.path_ = "/dev/shm" + file;
    s.unlink_ = true;
  }
  s.fd_ = fd;
  s.tag_ = tag;
  s.size_ = bytes;
  s.mapped_ = bytes == 0 ? 1 : bytes;
  if (::ftruncate(fd, static_cast<off_t>(s.mapped_)) != 0) {
    const int err = errno;
    s.release();
    refuse("sizing to " + std::to_string(bytes) + " bytes", tag, err);
  }
  void* p = ::mmap(nullptr, s.mapped_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    s.release();
    refuse("mapping " + std::to_string(bytes) + " bytes", tag, err);
  }
  s.data_ = static_cast<std::byte*>(p);
  return s;
}

void SharedMemory::write(std::size_t offset, const void* src, std::size_t n) {
  if (offset > size_ || n > size_ - offset)
    throw Error(ErrorCode::Internal, "shared memory: a write of " + std::to_string(n) +
                                         " bytes at " + std::to_string(offset) +
                                         " is past the end of a segment of " +
                                         std::to_string(size_));
  const auto* p = static_cast<const char*>(src);
  while (n > 0) {
    // Linux writes at most about 2 GiB a call; a signal may end one early.
    const ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
    if (w <= 0) {
      const int err = w < 0 ? errno : ENOSPC;
      if (err == EINTR) continue;
      refuse("writing " + std::to_string(n) + " bytes", tag_, err);
    }
    p += w;
    offset += static_cast<std::size_t>(w);
    n -= static_cast<std::size_t>(w);
  }
}

SharedMemory::SharedMemory(SharedMemory&& other) noexcept {
  *this = std::move(other);
}

SharedMemory& SharedMemory::operator=(SharedMemory&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::exchange(other.path_, {});
    tag_ = std::exchange(other.tag_, {});
    unlink_ = std::exchange(other.unlink_, false);
  }
  return *this;
}

SharedMemory::~SharedMemory() {
  release();
}

void SharedMemory::release() noexcept {
  if (data_) ::munmap(data_, mapped_);
  if (fd_ >= 0) ::close(fd_);
  if (unlink_) ::unlink(path_.c_str());
  data_ = nullptr;
  size_ = mapped_ = 0;
  fd_ = -1;
  path_.clear();
  tag_.clear();
  unlink_ = false;
}

}  // namespace bnscope::ipc
