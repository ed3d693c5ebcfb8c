#pragma once
// A Problem saved as one .npz: each input as NAME.npy plus a text member problem.json holding
// the rest:
//   {"bnscope_problem": 1, "op": "FusedBatchNormGradV3",
//    "attrs": {"epsilon": 0.001, "is_training": true, "data_format": "NHWC"},
//    "dtype": "float32", "convention": "variance", "strict": false}
// Attrs keep their catalog type (JSON number, bool or string); "dtype" is present only when set.
// Saving then loading gives back an equal Problem. Members named out_<output> are expected outputs
// (TensorFlow's, in a capture) that travel with the problem: they are not inputs, and
// load_expected_outputs (analysis/diff.h) reads them from the same file.

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ops/problem.h"
#include "tensor/tensor_slice.h"

namespace bnscope {

inline constexpr const char* kProblemMember = "problem.json";
inline constexpr std::string_view kExpectedPrefix = "out_";

// Atomic; inputs stored uncompressed like numpy's savez unless `compress` (deflate).
void save_problem(const std::string& path, const Problem& p, bool compress = false);
// What a problem being made tells save_problem_while_made: started(p) once every input of p but
// `last` is final, then, when `last` is made in slices and never held whole, last_slice(s) for
// each slice in order (at least one; they make up the whole tensor). The stream keeps shares of
// the tensors' storage, so a make that fails may free its own. last_slice returns once the slice
// handed before it has been written, after which the stream holds no share of that slice's
// buffer: a maker with two buffers fills one while the other is written and refills a buffer
// once the next call has returned. It throws the writing's error when writing has failed, so a
// maker never waits on a writer that has stopped.
class ProblemStream {
 public:
  virtual void started(const Problem& p) = 0;
  virtual void last_slice(const TensorSlice& s) = 0;

 protected:
  ~ProblemStream() = default;
};
// The same bytes as save_problem (stored), written while make builds the problem: the members
// that sort before `last` go out on a thread of their own from started() on, then input `last`
// slice by slice as make hands them, beside the rest of make's work; the others once make
// returns. A `last` handed in slices is not in the problem make returns; one that was not is
// written from it with the others. Atomic as save_problem: an error in make or in writing
// leaves the earlier file.
void save_problem_while_made(const std::string& path, const std::string& last,
                             const std::function<Problem(ProblemStream&)>& make);
// Whether the .npz at path carries expected outputs (out_<output> members); false for any other
// file and for one that cannot be read (opening it says why).
bool has_expected_outputs(const std::string& path);
// An archive without problem.json loads as a Problem with the default op whose inputs are the
// members named like that op's inputs.
// read_before: inputs the caller read from this very file before and vouches for (the file is
// unchanged since and the buffers unwritten): taken as they are instead of read again.
Problem load_problem(const std::string& path,
                     const std::map<std::string, Tensor>& read_before = {});
// Adds (replacing same-named ones) every member named like an input of p.op; returns their names.
std::vector<std::string> add_npz_inputs(Problem& p, const std::string& path,
                                        const std::map<std::string, Tensor>& read_before = {});

// Runs `read` for input `input` of op; a refused dtype (integers, bool) becomes a message naming
// the input, its source and the dtypes the op takes for it (from the catalog).
Tensor read_input_tensor(const OpSpec& op, const std::string& input, const std::string& source,
                         const std::function<Tensor()>& read);
// The dtypes `op` has a kernel for at `input`, as "float16, bfloat16, float32".
std::string input_dtypes_text(const OpSpec& op, const std::string& input);

std::string problem_to_json(const Problem& p);
// Sets everything but the inputs; `what` names the source in error messages.
Problem problem_from_json(const std::string& text, const std::string& what);

}  // namespace bnscope
