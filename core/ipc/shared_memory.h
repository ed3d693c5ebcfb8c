#pragma once
// A shared-memory segment another process can map: the way tensors travel between bnscope and a
// helper process (a framework worker, a plugin host) without copies through pipes or files.
//
// The segment is a memfd (anonymous, gone when the last mapping and descriptor close, so nothing
// is left behind when bnscope is killed) or, where memfd_create is missing, a file under /dev/shm
// that is unlinked when the segment is destroyed. path() is what the other process opens and maps
// read-write with the segment's size: "/proc/<bnscope's pid>/fd/<fd>" for a memfd (opening it
// re-opens the same memory), the /dev/shm file otherwise. From Python:
//   fd = os.open(path, os.O_RDWR); m = mmap.mmap(fd, size); os.close(fd)

#include <cstddef>
#include <string>
#include <string_view>

namespace bnscope::ipc {

class SharedMemory {
 public:
  SharedMemory() = default;
  // A zero-filled segment of `bytes` (at least one page is mapped for 0); `tag` names it in
  // /proc/<pid>/maps and in error messages. Throws Error(ResourceExhausted) when the system
  // refuses the memory, Error(Internal) for other failures.
  static SharedMemory create(std::size_t bytes, std::string_view tag);

  SharedMemory(SharedMemory&& other) noexcept;
  SharedMemory& operator=(SharedMemory&& other) noexcept;
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  ~SharedMemory();

  // Writes bytes [offset, offset + n) of the segment from src through its descriptor rather than
  // its mapping: a page the segment does not have yet is allocated holding the bytes, with no
  // zero-fill first and no page fault (segment_fill.h). Throws Error(ResourceExhausted) when the
  // system has no memory for the pages, Error(Internal) for other failures and for a range past
  // the segment's end.
  void write(std::size_t offset, const void* src, std::size_t n);

  bool valid() const { return data_ != nullptr; }
  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  void release() noexcept;

  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t mapped_ = 0;
  int fd_ = -1;
  std::string path_;
  std::string tag_;      // names the segment in messages
  bool unlink_ = false;  // a /dev/shm file, removed with the segment
};

}  // namespace bnscope::ipc
