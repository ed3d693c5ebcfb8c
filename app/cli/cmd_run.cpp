// bnscope-cli run: one problem on one backend, every output written as OUTPUT.npy.

#include <cstdio>
#include <string>

#include "backends.h"
#include "command.h"
#include "engine/engine.h"
#include "flag_reader.h"
#include "io/atomic_file.h"
#include "io/npy.h"
#include "problem_args.h"
#include "problem_setup.h"
#include "tensor/error.h"

namespace bnscope::cli {

namespace {

void print_summary(const Result& r) {
  std::printf("%s on %s\n", r.op.c_str(), r.backend.c_str());
  std::printf("  %-18s %-14s %-9s %10s %12s %12s\n", "output", "shape", "dtype", "non-finite",
              "min", "max");
  for (const OutputTensor& o : r.outputs) {
    std::printf("  %-18s %-14s %-9s ", o.name.c_str(), shape_str(o.tensor.shape()).c_str(),
                std::string(dtype_name(o.tensor.dtype())).c_str());
    if (!o.defined) {
      std::printf("%10s  undefined (TensorFlow leaves it uninitialized; written as NaN)\n", "-");
      continue;
    }
    double lo = 0, hi = 0;
    visit_dtype(o.tensor.dtype(), [&](auto tag) {  // one dispatch per output, not per element
      using T = typename decltype(tag)::type;
      const T* p = static_cast<const T*>(o.tensor.raw());
      for (std::int64_t i = 0; i < o.tensor.numel(); ++i) {
        const double v = static_cast<double>(to_float(p[i]));
        lo = i ? std::min(lo, v) : v;
        hi = i ? std::max(hi, v) : v;
      }
    });
    if (o.tensor.numel())
      std::printf("%10lld %12.5g %12.5g\n", static_cast<long long>(o.non_finite), lo, hi);
    else
      std::printf("%10lld %12s %12s\n", static_cast<long long>(o.non_finite), "-", "-");
  }
}

// On stderr and never silenced: --quiet is for the summary, and a warning about the data is
// what a script most needs to see.
void print_notes(const Result& r) {
  for (const Note& n : r.notes)
    std::fprintf(stderr, "%s: %s\n", std::string(note_kind_name(n.kind)).c_str(),
                 note_text(n).c_str());
}

std::vector<std::string> output_files(const std::string& op_name) {
  std::vector<std::string> out;
  if (const OpSpec* op = find_op(op_name))
    for (const ArgSpec& a : op->outputs) out.push_back(std::string(a.name) + ".npy");
  return out;
}

// Straight from the result buffers into the set's temporary folder; moved into place together.
void write_outputs(const Result& r, OutputSet& set) {
  for (const OutputTensor& o : r.outputs) {
    const std::string name = o.name + ".npy";
    set.write(name, [&](std::FILE* f) { write_npy_to(f, o.tensor, set.path(name)); });
  }
  set.commit();
}

int run(Args args) {
  app::ProblemArgs pa = app::parse_problem_args(args);
  std::string backend = "cpu", out;
  int threads = 0;
  bool sample = false, quiet = false;
  FlagReader("run")
      .text("--backend", backend)
      .text("--out", out)
      .integer("--threads", threads, 0, 1024)
      .set("--sample", sample)
      .set("--quiet", quiet)
      .read(pa.rest);
  if (out.empty()) fail("run needs --out DIR (where OUTPUT.npy files are written)");
  if (!sample && !pa.inputs_given)
    fail("run needs inputs: --input NAME=PATH, --inputs FILE.npz, --problem FILE.npz, or --sample");
  const Problem problem = problem_or_sample(pa, {}, 1);
  OutputSet set(out, output_files(problem.op), "--out");  // the path is checked before the work
  app::register_all_backends();
  RunContext ctx;
  ctx.threads = threads;
  const Result r = run_problem(problem, backend, ctx);
  write_outputs(r, set);
  if (!quiet) print_summary(r);
  print_notes(r);
  return kExitOk;
}

const CommandRegistration reg{
    {"run", "run one problem on one backend and write every output as OUTPUT.npy",
     "usage: bnscope-cli run [problem flags] [--backend B] --out DIR [--threads N] [--sample] "
     "[--quiet]\n\n"
     "Runs the op and writes DIR/<output>.npy for every output, with TensorFlow's output names.\n"
     "Nothing is written unless the whole run succeeds. Notes and warnings about the problem\n"
     "(NaN in an input, a converted dtype, reserve spaces that are not x's statistics) go to\n"
     "stderr.\n\n"
     "  --backend B     cpu (default), cpu-reference, cuda, cudnn, cuda-emu\n"
     "  --out DIR       output directory (created if missing)\n"
     "  --threads N     threads for the cpu backend (0: all)\n"
     "  --sample        without inputs on the command line, run on a seeded random problem\n"
     "  --quiet         no summary on stdout (notes and warnings still go to stderr)\n\n"
     "exit status: 0 ok, 2 bad input, 3 backend unavailable or variant unsupported, 4 internal "
     "error",
     run, true}};

}  // namespace
}  // namespace bnscope::cli
