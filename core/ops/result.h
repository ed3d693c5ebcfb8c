#pragma once
// What a backend returns: the op's outputs with TensorFlow's names and shapes, the notes that
// travelled with the run, and the timings of its phases.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/note.h"
#include "tensor/tensor.h"

namespace bnscope {

struct OutputTensor {
  std::string name;
  Tensor tensor;
  // False where TensorFlow leaves the output uninitialized (spec section 9.3); the tensor then
  // holds NaN so that nothing mistakes it for data.
  bool defined = true;
  std::int64_t non_finite = 0;  // NaN and Inf count, filled by the engine
};

struct PhaseTiming {
  std::string phase;  // "upload", "kernel:<name>", "download", "pass:<name>"
  double seconds = 0;
  // From the start of Backend::run on the host's steady clock, where the backend knows it (the
  // cpu backend's passes); < 0: not known (device phases), the profiler lays them end to end.
  double start = -1;
};

struct Result {
  std::string op;
  std::string backend;
  std::uint64_t prepared = 0;  // Prepared::id of the problem the run was of
  std::vector<OutputTensor> outputs;
  std::vector<Note> notes;
  std::vector<PhaseTiming> timings;
  double wall_seconds = 0;  // the whole run as the engine saw it, checks and output scan included

  const OutputTensor& output(std::string_view name) const;
  OutputTensor& output(std::string_view name);
};

}  // namespace bnscope
