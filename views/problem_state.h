#pragma once
// A problem as its file holds it, to tell whether the problem being edited is still that one
// (Quit and Open ask to save only then): a setting changed and set back again is no change.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "ops/problem.h"

namespace bnscope {

class ProblemState {
 public:
  explicit ProblemState(const Problem& p);
  // The op, the attrs and T as they take effect (an attr set to TensorFlow's default is the
  // attr unset, T chosen as x's dtype is T "as x"), the convention, strict, and every input.
  bool matches(const Problem& p) const;
  // The inputs of p that are still the very buffers recorded here (the large ones, by storage),
  // with the type and shape recorded, while p's data_format is the recorded one (a layout change
  // in place rewrites a buffer and changes data_format): what reading the unchanged file again
  // would give back.
  std::map<std::string, Tensor> same_buffers(const Problem& p) const;

  // An input up to this size is compared by its CRC-32, so that the same values read or typed
  // in again are no change. A larger one by its storage, through a weak handle: the state keeps
  // no replaced layer's data alive and is no copy the controller must count before rewriting
  // an input in place; read again, it counts as changed (a checksum of hundreds of MB on every
  // edit is not worth it).
  static constexpr std::size_t kChecksummedBytes = std::size_t{1} << 20;

 private:
  struct Input {
    DType dtype = DType::F32;
    Shape shape;
    std::weak_ptr<const void> storage;
    std::optional<std::uint32_t> crc;
  };
  std::string op_;
  std::map<std::string, std::string> attrs_;
  std::optional<DType> dtype_;
  ReserveConvention convention_;
  bool strict_;
  std::map<std::string, Input> inputs_;
};

}  // namespace bnscope
