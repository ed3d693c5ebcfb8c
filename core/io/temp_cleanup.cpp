#include "io/temp_cleanup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <random>

namespace bnscope {

namespace {

constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;

enum SlotState : int { kFree = 0, kFilling = 1, kLive = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  bool is_dir = false;
  char path[kPathMax];
};

Slot g_slots[kSlots];

static_assert(std::atomic<int>::is_always_lock_free, "the handler reads slot states");

void remove_registered(int sig) {
  // Files first: a folder is removed only once empty.
  for (const bool dirs : {false, true})
    for (Slot& s : g_slots)
      if (s.state.load() == kLive && s.is_dir == dirs) {
        if (dirs)
          ::rmdir(s.path);
        else
          ::unlink(s.path);
      }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int sig : {SIGINT, SIGTERM}) {
      struct sigaction old;
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = remove_registered;
      ::sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

// Registers each candidate name before `create` makes it; a name taken already is drawn again.
template <class Create>
bool make_registered(std::string& tmpl, TempRegistration& registration, bool is_dir,
                     Create create) {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const std::size_t at = tmpl.size() - 6;
  if (tmpl.size() < 6 || tmpl.compare(at, 6, "XXXXXX") != 0) {
    errno = EINVAL;
    return false;
  }
  thread_local std::mt19937_64 rng(std::random_device{}() ^
                                   (static_cast<std::uint64_t>(::getpid()) << 32));
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::uint64_t bits = rng();
    for (std::size_t k = 0; k < 6; ++k, bits >>= 6) tmpl[at + k] = kChars[bits % 62];
    registration = TempRegistration(tmpl, is_dir);
    if (create(tmpl.c_str())) return true;
    const int e = errno;
    registration.release();
    errno = e;
    if (e != EEXIST) return false;
  }
  return false;
}

}  // namespace

int make_registered_temp_file(std::string& tmpl, TempRegistration& registration) {
  int fd = -1;
  make_registered(tmpl, registration, false, [&fd](const char* path) {
    fd = ::open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    return fd >= 0;
  });
  return fd;
}

bool make_registered_temp_dir(std::string& tmpl, TempRegistration& registration) {
  return make_registered(tmpl, registration, true,
                         [](const char* path) { return ::mkdir(path, 0700) == 0; });
}

TempRegistration::TempRegistration(const std::string& path, bool is_dir) {
  if (path.size() >= kPathMax) return;
  install_handlers();
  for (int k = 0; k < kSlots; ++k) {
    int expected = kFree;
    if (!g_slots[k].state.compare_exchange_strong(expected, kFilling)) continue;
    std::memcpy(g_slots[k].path, path.c_str(), path.size() + 1);
    g_slots[k].is_dir = is_dir;
    g_slots[k].state.store(kLive);
    slot_ = k;
    return;
  }
}

TempRegistration& TempRegistration::operator=(TempRegistration&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

void TempRegistration::release() noexcept {
  if (slot_ >= 0) g_slots[slot_].state.store(kFree);
  slot_ = -1;
}

}  // namespace bnscope
