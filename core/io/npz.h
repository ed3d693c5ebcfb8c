#pragma once
// .npz archives (numpy's zip of .npy members). Stored and deflated members are read (the archive
// checked by io/zip_directory.h first), each bounded by its declared uncompressed size and by the
// memory limit before anything is inflated, straight into the tensor's buffer. Archives are written
// atomically, stored (as numpy's savez does, straight from the tensors' buffers) or deflated on
// request. A member "x.npy" is the tensor named "x"; other members (e.g. a problem.json) are
// skipped by read_npz and read as raw bytes by name.

#include <cstddef>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace bnscope {

// Every .npy member, keyed by its name without ".npy"; with `wanted`, only the members it
// accepts are inflated.
std::map<std::string, Tensor> read_npz(const std::string& path,
                                       const std::function<bool(const std::string&)>& wanted = {});
// `member` with or without the ".npy" suffix.
Tensor read_npz_member(const std::string& path, const std::string& member);
// Member names as stored, in archive order.
std::vector<std::string> npz_members(const std::string& path);
bool npz_has_member(const std::string& path, const std::string& member);
// The member's uncompressed bytes; `member` is the exact stored name.
std::vector<std::byte> read_npz_bytes(const std::string& path, const std::string& member);

// Tensors are stored as NAME.npy; extra_text_members are (exact name, content) pairs.
void write_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& members,
               const std::vector<std::pair<std::string, std::string>>& extra_text_members = {},
               bool compress = false);
// The same into an open file, from tensors the caller keeps alive.
void write_npz_to(std::FILE* f, const std::string& what,
                  const std::vector<std::pair<std::string, const Tensor*>>& members,
                  const std::vector<std::pair<std::string, std::string>>& extra_text_members,
                  bool compress);
// The deflated archive write_npz(..., compress = true) would produce, in memory.
std::vector<std::byte> serialize_npz(
    const std::vector<std::pair<std::string, Tensor>>& members,
    const std::vector<std::pair<std::string, std::string>>& extra_text_members = {});

}  // namespace bnscope
