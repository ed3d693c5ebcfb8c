#pragma once
// A helper process bnscope starts and talks to: a framework worker in the user's Python, a plugin
// host. Messages go both ways over two pipes; tensors go through ipc/shared_memory.h segments
// whose paths the messages name.
//
// The protocol's framing (the same from C++ and Python):
//   - The child reads requests from file descriptor 3 and writes replies to file descriptor 4;
//     the environment says so too: BNSCOPE_IPC_IN=3, BNSCOPE_IPC_OUT=4.
//   - Each message is a 4-byte little-endian unsigned length n (at most kMaxMessageBytes)
//     followed by n bytes of UTF-8 text. bnscope's callers send JSON objects (io/json_value.h);
//     the framing itself does not look inside. From Python:
//       os.write(out, struct.pack("<I", len(b)) + b); n = struct.unpack("<I", read_exact(in, 4))
//   - The child's stdin is /dev/null; its stdout and stderr go to a private log whose last
//     lines an error message quotes, so a library that prints never corrupts the channel.
//   - End of input on fd 3 means bnscope is done (or gone): the child should exit. bnscope
//     closes the pipe, waits a moment, then kills.
//   - A reply that does not come in time, or a cancelled wait, leaves the channel out of step
//     (a late reply would answer the wrong request), so receive() then kills the child; the next
//     start() or restart() begins a fresh one.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor/error.h"

namespace bnscope::ipc {

inline constexpr std::uint32_t kMaxMessageBytes = 64u << 20;

struct ChildSpec {
  std::vector<std::string> argv;                         // argv[0] is looked up on PATH
  std::vector<std::pair<std::string, std::string>> env;  // set or replaced in the child's
  std::string what;                                      // names it in messages: "tf worker"
};

// Why an exchange with the child failed; the message says it in words.
enum class ChildFailure { NotStarted, Died, TimedOut, Cancelled, BadMessage };

class ChildError : public Error {
 public:
  ChildError(ChildFailure failure, ErrorCode code, const std::string& message)
      : Error(code, message), failure_(failure) {}
  ChildFailure failure() const { return failure_; }

 private:
  ChildFailure failure_;
};

// "exited with status 3", "killed by SIGSEGV (Segmentation fault)", from a waitpid status.
std::string describe_wait_status(int status);

class ChildProcess {
 public:
  ChildProcess() = default;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();  // stop()

  // Starts the child (ending a running one first). Throws ChildError(NotStarted, Unavailable)
  // when the program cannot be started ("cannot start python3: No such file or directory").
  void start(ChildSpec spec);
  // stop() and start() with the last spec.
  void restart();
  // Closes the child's input, gives it `grace` to exit, then kills it; reaps it either way.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));
  // SIGKILL now, and reap.
  void kill();

  // Whether a child was started and has not been seen to end (checks without blocking).
  bool running();
  pid_t pid() const { return pid_; }
  const ChildSpec& spec() const { return spec_; }
  // How the last child ended ("killed by SIGKILL"); empty while it runs or before any.
  const std::string& exit_description() const { return exit_; }
  // The last `max` bytes of what the child printed (stdout and stderr together).
  std::string output_tail(std::size_t max = 2000) const;

  // Sends one message. Waits at most `limit` for room in the pipe (a child that stopped
  // reading). Throws ChildError: Died when the child is gone, TimedOut, Cancelled.
  void send(std::string_view message, std::chrono::milliseconds limit,
            const std::atomic<bool>* cancel = nullptr);
  // The next message. Throws ChildError: Died (with how, and the tail of its output),
  // TimedOut after `limit`, Cancelled when *cancel turns true (polled every few ms),
  // BadMessage for a length over kMaxMessageBytes. TimedOut and Cancelled kill the child.
  std::string receive(std::chrono::milliseconds limit, const std::atomic<bool>* cancel = nullptr);

 private:
  [[noreturn]] void fail_died();
  [[noreturn]] void fail_and_kill(ChildFailure failure, ErrorCode code, const std::string& why);
  // One step of waiting on the channel after a read or write returned `error` (errno): a real
  // error, a cancel or the time limit (`late` says what the child did not do in time) ends it.
  void check_wait(int error, const std::atomic<bool>* cancel,
                  std::chrono::steady_clock::time_point until, const char* late,
                  std::chrono::milliseconds limit);
  bool reap(bool block);
  void close_fds();

  ChildSpec spec_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  int log_fd_ = -1;  // a memfd holding the child's stdout and stderr
  std::string exit_;
};

}  // namespace bnscope::ipc
