// The child the ipc tests start: answers framed requests on fds 3 and 4 (ipc/child_process.h)
// with one word of behaviour each, so a test can make it answer, print, die or hang.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

namespace {

bool read_exact(int fd, char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

void reply(const std::string& s) {
  const auto n = static_cast<std::uint32_t>(s.size());
  const unsigned char h[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                              static_cast<unsigned char>(n >> 16),
                              static_cast<unsigned char>(n >> 24)};
  std::string frame(reinterpret_cast<const char*>(h), 4);
  frame += s;
  std::size_t done = 0;
  while (done < frame.size()) {
    const ssize_t w = ::write(4, frame.data() + done, frame.size() - done);
    if (w <= 0) std::exit(9);
    done += static_cast<std::size_t>(w);
  }
}

unsigned char* map(const std::string& path, std::size_t size) {
  const int fd = ::open(path.c_str(), O_RDWR);
  if (fd < 0) return nullptr;
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  return p == MAP_FAILED ? nullptr : static_cast<unsigned char*>(p);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "exit-now") == 0) {
    std::fprintf(stderr, "leaving at once\n");
    return 3;
  }
  while (true) {
    char h[4];
    if (!read_exact(3, h, 4)) return 0;  // bnscope closed the channel
    const std::uint32_t n = static_cast<unsigned char>(h[0]) |
                            static_cast<std::uint32_t>(static_cast<unsigned char>(h[1])) << 8 |
                            static_cast<std::uint32_t>(static_cast<unsigned char>(h[2])) << 16 |
                            static_cast<std::uint32_t>(static_cast<unsigned char>(h[3])) << 24;
    std::string msg(n, '\0');
    if (!read_exact(3, msg.data(), n)) return 8;
    std::istringstream in(msg);
    std::string word;
    in >> word;
    if (word == "crash") {
      std::fprintf(stderr, "about to crash\n");
      std::fflush(stderr);
      // The default action, not a sanitizer's handler that would abort instead.
      ::signal(SIGSEGV, SIG_DFL);
      ::raise(SIGSEGV);
    } else if (word == "hang") {
      while (true) ::pause();
    } else if (word == "exit3") {
      return 3;
    } else if (word == "print") {
      std::printf("to stdout\n");
      std::fflush(stdout);
      std::fprintf(stderr, "to stderr\n");
      reply("printed");
    } else if (word == "env") {
      std::string name;
      in >> name;
      const char* v = std::getenv(name.c_str());
      reply(v ? v : "<unset>");
    } else if (word == "fill" || word == "sum") {
      std::string path;
      std::size_t size = 0;
      int byte = 0;
      in >> path >> size >> byte;
      unsigned char* p = map(path, size);
      if (!p) {
        reply("cannot map " + path);
        continue;
      }
      std::uint64_t sum = 0;
      for (std::size_t i = 0; i < size; ++i) {
        if (word == "fill") p[i] = static_cast<unsigned char>(byte + i % 7);
        sum += p[i];
      }
      ::munmap(p, size);
      reply(std::to_string(sum));
    } else {
      reply(msg);  // echo
    }
  }
}
