#pragma once
// What a file (or a folder's files) looked like when it was read: its path, size, modification
// time and inode, so that a reader can tell whether what it read before is still what the file
// holds without reading it again.

#include <string>

namespace bnscope {

// The stamp of a regular file, or of every regular file directly in a folder (in name order);
// empty when the path cannot be examined (then nothing read before may stand for it).
std::string file_stamp(const std::string& path);

}  // namespace bnscope
