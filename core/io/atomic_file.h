#pragma once
// Atomic file replacement: the content goes to a temporary file in the target's directory, is
// fsynced and then renamed over the target. Readers see either the old file or the complete new
// one; on any failure the temporary file is removed and the old file is left untouched.

#include <cstddef>
#include <cstdio>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

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
