// bnscope-cli sample: a seeded random problem saved as one .npz, a starting point to edit.

#include <cstdio>
#include <functional>
#include <string>

#include "command.h"
#include "flag_reader.h"
#include "io/atomic_file.h"
#include "ops/problem_io.h"
#include "ops/sample.h"
#include "problem_args.h"
#include "problem_setup.h"
#include "tensor/error.h"

namespace bnscope::cli {

namespace {

int run(Args args) {
  app::ProblemArgs pa = app::parse_problem_args(args);
  SampleSpec spec;
  spec.op = pa.problem.op;
  spec.dtype = pa.problem.dtype.value_or(DType::F32);
  spec.convention = pa.problem.convention;
  std::string out;
  bool compress = false;
  FlagReader("sample")
      .text("--out", out)
      .set("--compress", compress)
      .shape("--shape", spec.shape)
      .seed("--seed", spec.seed, INT32_MAX)
      .read(pa.rest);
  if (out.empty()) fail("sample needs --out FILE.npz");
  check_output_file(out, "--out");
  const OpSpec& op = *find_op(spec.op);
  if (op.has_attr("data_format")) {
    spec.format = *parse_data_format(attr_string(pa.problem, "data_format"));
    spec.is_training = attr_bool(pa.problem, "is_training");
  }
  check_sample_memory(spec, !compress);  // before the file is opened
  std::size_t inputs = 0;
  const auto make = [&](ProblemStream* stream) {
    SampleHooks hooks;
    if (stream) {
      hooks.before_gradient = [stream](const Problem& p) { stream->started(p); };
      hooks.gradient_slice = [stream](const TensorSlice& s) { stream->last_slice(s); };
    }
    Problem p = random_problem(spec, hooks);
    for (auto& [k, v] : pa.problem.attrs) p.attrs[k] = v;
    p.strict = pa.problem.strict;
    // A gradient input handed out in slices went to the file and is not in p.
    inputs = p.inputs.size() + (stream && op.is_grad ? 1 : 0);
    return p;
  };
  if (compress) {
    save_problem(out, make(nullptr), true);
  } else {
    // The members before the gradient input (x among them) are written while it is generated,
    // and it slice by slice from two reused buffers, so it is never held whole.
    const std::string last(op.is_grad ? op.gradient_input() : "");
    save_problem_while_made(out, last, [&](ProblemStream& s) { return make(&s); });
  }
  std::printf("wrote %s: %s, %zu inputs\n", out.c_str(), spec.op.c_str(), inputs);
  return kExitOk;
}

const CommandRegistration reg{
    {"sample", "write a seeded random problem (inputs and attrs) to a .npz",
     "usage: bnscope-cli sample [--op OP] [--attr K=V]... [--dtype T] [--convention C]\n"
     "                          [--shape N,H,W,C] [--seed S] [--compress] --out FILE.npz\n\n"
     "Generates random inputs for the op (training reserve spaces are the batch statistics of x, "
     "made by\n"
     "the forward op) and saves the whole problem; open it with bnscope FILE.npz or --problem "
     "FILE.npz.\n"
     "--shape is logical (N,H,W,C or N,D,H,W,C) whatever the data_format. The data are normal\n"
     "values from a counter-based stream of the seed (Box-Muller pairs of splitmix64 draws): the\n"
     "same bytes on every machine and thread count. Members are stored\n"
     "uncompressed, as numpy's savez does; --compress deflates them (random floats shrink little).",
     run, true}};

}  // namespace
}  // namespace bnscope::cli
