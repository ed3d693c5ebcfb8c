#include "ipc/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace bnscope::ipc {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTick = std::chrono::milliseconds(10);
// A log past this is cut back to nothing before the next request: only its tail is ever quoted.
constexpr off_t kLogCutBytes = 8 << 20;

std::string errno_text(int err) {
  return std::strerror(err);
}

int move_above(int fd, int floor) {
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, floor);
  ::close(fd);
  return moved;
}

// A message quotes the log's tail on one line.
std::string one_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out += " | ";
    } else if (c != '\r') {
      out += c;
    }
  }
  return out;
}

// SIGPIPE for a write to a pipe whose reader is gone is blocked for the write and consumed, so a
// dead child is an EPIPE, never the end of bnscope.
ssize_t write_no_sigpipe(int fd, const char* p, std::size_t n) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigset_t pending;
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  const ssize_t w = ::write(fd, p, n);
  const int err = errno;
  if (w < 0 && err == EPIPE && !was_pending) {
    const timespec zero{0, 0};
    sigtimedwait(&pipe_set, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = err;
  return w;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    case SIGSYS:
      return "SIGSYS";
    default:
      return nullptr;
  }
}

}  // namespace

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = signal_name(sig);
    std::string s = "killed by " + (name ? std::string(name) : "signal " + std::to_string(sig));
    if (const char* text = ::strsignal(sig)) s += std::string(" (") + text + ")";
    return s;
  }
  return "ended (wait status " + std::to_string(status) + ")";
}

ChildProcess::~ChildProcess() {
  stop(std::chrono::milliseconds(500));
  if (log_fd_ >= 0) ::close(log_fd_);
}

void ChildProcess::start(ChildSpec spec) {
  stop();
  if (log_fd_ >= 0) ::close(log_fd_);
  log_fd_ = -1;
  exit_.clear();
  spec_ = std::move(spec);
  const std::string program = spec_.argv.empty() ? std::string() : spec_.argv[0];
  auto not_started = [&](const std::string& why) {
    close_fds();
    throw ChildError(ChildFailure::NotStarted, ErrorCode::Unavailable,
                     "cannot start " + (program.empty() ? spec_.what : program) + ": " + why);
  };
  if (program.empty()) not_started("no program given");

  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) not_started(errno_text(errno));
  if (::pipe2(out, O_CLOEXEC) != 0) {
    const int err = errno;
    ::close(in[0]);
    ::close(in[1]);
    not_started(errno_text(err));
  }
  log_fd_ = ::memfd_create("bnscope-child-log", MFD_CLOEXEC);
  if (log_fd_ < 0) log_fd_ = ::open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (log_fd_ >= 0) ::fcntl(log_fd_, F_SETFL, ::fcntl(log_fd_, F_GETFL) | O_APPEND);
  // The child's ends sit above the numbers they are duplicated onto, so no dup2 overwrites one.
  const int child_in = move_above(in[0], 10), child_out = move_above(out[1], 10);
  to_child_ = in[1];
  from_child_ = out[0];
  ::fcntl(to_child_, F_SETFL, ::fcntl(to_child_, F_GETFL) | O_NONBLOCK);
  ::fcntl(from_child_, F_SETFL, ::fcntl(from_child_, F_GETFL) | O_NONBLOCK);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (log_fd_ >= 0) {
    posix_spawn_file_actions_adddup2(&actions, log_fd_, 1);
    posix_spawn_file_actions_adddup2(&actions, log_fd_, 2);
  }
  posix_spawn_file_actions_adddup2(&actions, child_in, 3);
  posix_spawn_file_actions_adddup2(&actions, child_out, 4);

  // A GUI thread's blocked signals and an ignored SIGPIPE would otherwise pass to the child.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> env_text;
  auto overridden = [&](std::string_view entry) {
    const auto eq = entry.find('=');
    const std::string_view key = entry.substr(0, eq);
    if (key == "BNSCOPE_IPC_IN" || key == "BNSCOPE_IPC_OUT") return true;
    for (const auto& [k, v] : spec_.env)
      if (k == key) return true;
    return false;
  };
  for (char** e = environ; e && *e; ++e)
    if (!overridden(*e)) env_text.emplace_back(*e);
  for (const auto& [k, v] : spec_.env) env_text.push_back(k + "=" + v);
  env_text.emplace_back("BNSCOPE_IPC_IN=3");
  env_text.emplace_back("BNSCOPE_IPC_OUT=4");
  std::vector<char*> envp, argv;
  for (auto& s : env_text) envp.push_back(s.data());
  envp.push_back(nullptr);
  for (auto& s : spec_.argv) argv.push_back(s.data());
  argv.push_back(nullptr);

  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(child_in);
  ::close(child_out);
  if (rc != 0) not_started(errno_text(rc));
  pid_ = pid;
}

void ChildProcess::restart() {
  ChildSpec spec = spec_;
  start(std::move(spec));
}

bool ChildProcess::reap(bool block) {
  if (pid_ <= 0) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (r == 0) return false;
  if (r == pid_) {
    exit_ = describe_wait_status(status);
  } else if (r < 0 && errno == EINTR) {
    return false;
  } else {
    exit_ = "ended";  // reaped elsewhere (SIGCHLD ignored)
  }
  pid_ = -1;
  return true;
}

void ChildProcess::close_fds() {
  if (to_child_ >= 0) ::close(to_child_);
  if (from_child_ >= 0) ::close(from_child_);
  to_child_ = from_child_ = -1;
}

bool ChildProcess::running() {
  return pid_ > 0 && !reap(false);
}

void ChildProcess::stop(std::chrono::milliseconds grace) {
  if (to_child_ >= 0) {
    ::close(to_child_);
    to_child_ = -1;
  }
  const auto until = Clock::now() + grace;
  while (pid_ > 0 && !reap(false) && Clock::now() < until) std::this_thread::sleep_for(kTick);
  kill();
}

void ChildProcess::kill() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    reap(true);
  }
  close_fds();
}

std::string ChildProcess::output_tail(std::size_t max) const {
  if (log_fd_ < 0) return {};
  struct stat st {};
  if (::fstat(log_fd_, &st) != 0 || st.st_size <= 0) return {};
  const off_t from =
      st.st_size > static_cast<off_t>(max) ? st.st_size - static_cast<off_t>(max) : 0;
  std::string s(static_cast<std::size_t>(st.st_size - from), '\0');
  const ssize_t r = ::pread(log_fd_, s.data(), s.size(), from);
  s.resize(r > 0 ? static_cast<std::size_t>(r) : 0);
  return s;
}

void ChildProcess::fail_died() {
  // The channel closed: the child is ending. A child that closed it and lives on is killed.
  const auto until = Clock::now() + std::chrono::milliseconds(1000);
  while (pid_ > 0 && !reap(false) && Clock::now() < until) std::this_thread::sleep_for(kTick);
  if (pid_ > 0) {
    kill();
    exit_ = "closed its channel and was killed";
  }
  close_fds();
  std::string msg = spec_.what + " " + (exit_.empty() ? std::string("ended") : exit_);
  const std::string tail = one_line(output_tail(400));
  if (!tail.empty()) msg += "; its last output: " + tail;
  throw ChildError(ChildFailure::Died, ErrorCode::Internal, msg);
}

void ChildProcess::check_wait(int error, const std::atomic<bool>* cancel,
                              std::chrono::steady_clock::time_point until, const char* late,
                              std::chrono::milliseconds limit) {
  if (error != EAGAIN && error != EINTR)
    fail_and_kill(ChildFailure::Died, ErrorCode::Internal, "channel: " + errno_text(error));
  if (cancel && cancel->load(std::memory_order_relaxed))
    fail_and_kill(ChildFailure::Cancelled, ErrorCode::Cancelled, "was stopped: run cancelled");
  if (Clock::now() >= until)
    fail_and_kill(ChildFailure::TimedOut, ErrorCode::Internal,
                  std::string(late) + " " + std::to_string(limit.count()) + " ms and was stopped");
}

void ChildProcess::fail_and_kill(ChildFailure failure, ErrorCode code, const std::string& why) {
  kill();
  throw ChildError(failure, code, spec_.what + " " + why);
}

void ChildProcess::send(std::string_view message, std::chrono::milliseconds limit,
                        const std::atomic<bool>* cancel) {
  if (to_child_ < 0) {
    if (pid_ > 0 && !reap(false))
      fail_and_kill(ChildFailure::BadMessage, ErrorCode::Internal, "has no open channel");
    if (exit_.empty())
      throw ChildError(ChildFailure::NotStarted, ErrorCode::Internal,
                       spec_.what + " is not running");
    fail_died();
  }
  if (message.size() > kMaxMessageBytes)
    throw ChildError(ChildFailure::BadMessage, ErrorCode::InvalidArgument,
                     spec_.what + ": a message of " + std::to_string(message.size()) +
                         " bytes is over the limit of " + std::to_string(kMaxMessageBytes));
  if (log_fd_ >= 0) {
    struct stat st {};
    if (::fstat(log_fd_, &st) == 0 && st.st_size > kLogCutBytes) (void)::ftruncate(log_fd_, 0);
  }
  const auto n = static_cast<std::uint32_t>(message.size());
  std::string frame = {static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff),
                       static_cast<char>((n >> 16) & 0xff), static_cast<char>((n >> 24) & 0xff)};
  frame.append(message);
  const auto until = Clock::now() + limit;
  std::size_t done = 0;
  while (done < frame.size()) {
    const ssize_t w = write_no_sigpipe(to_child_, frame.data() + done, frame.size() - done);
    if (w > 0) {
      done += static_cast<std::size_t>(w);
      continue;
    }
    if (w < 0 && errno == EPIPE) fail_died();
    check_wait(w < 0 ? errno : EAGAIN, cancel, until, "did not read its input within", limit);
    if (!running()) fail_died();
    pollfd p{to_child_, POLLOUT, 0};
    ::poll(&p, 1, static_cast<int>(kTick.count()));
  }
}

std::string ChildProcess::receive(std::chrono::milliseconds limit,
                                  const std::atomic<bool>* cancel) {
  if (from_child_ < 0) {
    if (exit_.empty())
      throw ChildError(ChildFailure::NotStarted, ErrorCode::Internal,
                       spec_.what + " is not running");
    fail_died();
  }
  const auto until = Clock::now() + limit;
  char header[4];
  std::size_t have = 0;
  std::string body;
  std::size_t need = sizeof header;
  bool in_body = false;
  while (true) {
    char* dst = in_body ? body.data() : header;
    const ssize_t r = ::read(from_child_, dst + have, need - have);
    if (r > 0) {
      have += static_cast<std::size_t>(r);
      if (have < need) continue;
      if (in_body) return body;
      const std::uint32_t n =
          static_cast<std::uint8_t>(header[0]) |
          static_cast<std::uint32_t>(static_cast<std::uint8_t>(header[1])) << 8 |
          static_cast<std::uint32_t>(static_cast<std::uint8_t>(header[2])) << 16 |
          static_cast<std::uint32_t>(static_cast<std::uint8_t>(header[3])) << 24;
      if (n > kMaxMessageBytes)
        fail_and_kill(ChildFailure::BadMessage, ErrorCode::Internal,
                      "sent a message of " + std::to_string(n) + " bytes (at most " +
                          std::to_string(kMaxMessageBytes) + " expected) and was stopped");
      if (n == 0) return {};
      body.assign(n, '\0');
      in_body = true;
      have = 0;
      need = n;
      continue;
    }
    if (r == 0) fail_died();
    check_wait(errno, cancel, until, "did not answer within", limit);
    // A child that died while a process it started holds the channel open.
    if (!running()) {
      pollfd p{from_child_, POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN)) fail_died();
      continue;
    }
    pollfd p{from_child_, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(kTick.count()));
  }
}

}  // namespace bnscope::ipc
