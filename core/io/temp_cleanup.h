#pragma once
// Temporary files and folders that a SIGINT or SIGTERM must not leave behind. Writers register
// them while they exist; the handler removes them with unlink/rmdir only (async-signal-safe, on
// fixed slots that need no allocation), then ends the process as the signal would have. The
// handlers are installed on first use, and only where the signal has its default action, so a
// program that handles the signal itself keeps its handler.

#include <string>

namespace bnscope {

class TempRegistration {
 public:
  TempRegistration() = default;
  // A path that does not fit a slot, or a full table, is simply not cleaned up on a signal.
  explicit TempRegistration(const std::string& path, bool is_dir = false);
  ~TempRegistration() { release(); }
  TempRegistration(TempRegistration&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
  TempRegistration& operator=(TempRegistration&& other) noexcept;
  TempRegistration(const TempRegistration&) = delete;
  TempRegistration& operator=(const TempRegistration&) = delete;

  // The path was moved into place or removed: a signal leaves it alone from now on.
  void release() noexcept;

 private:
  int slot_ = -1;
};

// mkstemp and mkdtemp whose result is registered before it exists, so that a signal in between
// finds nothing to remove rather than missing it. `tmpl` ends in XXXXXX, which is replaced.
// -1 (with errno) on failure.
int make_registered_temp_file(std::string& tmpl, TempRegistration& registration);
bool make_registered_temp_dir(std::string& tmpl, TempRegistration& registration);

}  // namespace bnscope
