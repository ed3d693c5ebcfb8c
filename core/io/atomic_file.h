#pragma once
// Atomic file replacement: the content goes to a temporary file in the target's directory, is
// fsynced and then renamed over the target. Readers see either the old file or the complete new
// one; on any failure the temporary file is removed and the old file is left untouched.
// A symbolic link is followed: the file it names is replaced and the link stays. An existing
// character device or FIFO (/dev/null, a named pipe) is written in place, never replaced.

#include <cstddef>
#include <cstdio>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/temp_cleanup.h"

namespace bnscope {

void write_file_atomic(const std::string& path, std::span<const std::byte> bytes);
void write_file_atomic(const std::string& path, std::string_view text);

// The writer fills the stream; an exception it throws, or a failed stream, aborts the write.
void write_file_atomic_stream(const std::string& path,
                              const std::function<void(std::ostream&)>& writer);
// Same with a stdio handle; a write error on it (ferror) aborts the write.
void write_file_atomic_cfile(const std::string& path,
                             const std::function<void(std::FILE*)>& writer);

}  // namespace bnscope

namespace bnscope {

// A set of files that replaces its earlier version in a directory all at once: every file is
// written into a temporary folder inside the directory, and only when all are complete are they
// moved over their targets. Any failure (while writing or moving) leaves the earlier set as it
// was and no temporary behind. Constructing one checks the path, so commands can build it before
// their work: `dir` is created when missing, and a name in the way (a directory) is refused.
// A name the new set lacks is removed instead: its earlier file goes with the same commit, so the
// folder never holds files of two sets. `what` names the folder in the caller's words in every
// error (the CLI's flag, "--out"; the app's "report folder").
class OutputSet {
 public:
  OutputSet(std::string dir, std::vector<std::string> names, std::string what);
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  // `name` must be one of the names given at construction.
  void write(const std::string& name, const std::function<void(std::FILE*)>& writer);
  void write_stream(const std::string& name, const std::function<void(std::ostream&)>& writer);
  // `name` (one of the names, not written) has no file in the new set: commit() deletes its
  // earlier file, if any, as it moves the others in, and a failed commit leaves it.
  void remove(const std::string& name);
  void commit();  // every name must have been written or removed
  std::string path(const std::string& name) const;

 private:
  void check_targets() const;
  void discard() noexcept;

  void sync_written();  // every written file on disk, or fail naming the first that is not
  void close_pending() noexcept;

  std::string dir_, flag_, tmp_;
  std::vector<std::string> names_, written_, removed_;
  std::vector<int> unsynced_;  // descriptors of written files, synced together by commit()
  std::vector<TempRegistration> temps_;  // the folder and its files, removed on SIGINT/SIGTERM
  bool created_dir_ = false, committed_ = false;
};

// For a single output file given by `flag`: refuses, before any work, a path that is a
// directory or whose parent directory (where a link points) is missing or not writable, and a
// device or FIFO that cannot be written.
void check_output_file(const std::string& path, const std::string& flag);

}  // namespace bnscope
