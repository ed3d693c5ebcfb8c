#pragma once
// A zip archive of stored (uncompressed) members written straight from the callers' buffers, as
// numpy's savez writes .npz files. Zip64 fields appear only where a size or offset needs them.

#include <cstddef>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

namespace bnscope {

struct StoredMember {
  std::string name;
  std::vector<std::span<const std::byte>> parts;  // concatenated, e.g. a .npy header and its data
};

// `what` names the archive in error messages.
void write_stored_zip(std::FILE* f, const std::vector<StoredMember>& members,
                      const std::string& what);

}  // namespace bnscope
