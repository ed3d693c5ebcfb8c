// The problem flags as bnscope-cli and the GUI parse them, then validation of what they built.
// The input is the argument list, one argument per line. Arguments naming anything outside the
// scratch folder (any '/') are dropped, so the only files the parser can open are the small
// ones placed there.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "fuzz_input.h"
#include "io/npy.h"
#include "ops/prepared.h"
#include "ops/problem_io.h"
#include "problem_args.h"
#include "tensor/error.h"

namespace {

// A folder holding a.npy, b.npy (16-bit) and p.npz (a saved problem), made once and removed at
// exit. Held by a pointer that is never freed so that it outlives the exit handler.
const std::filesystem::path& scratch_folder() {
  static const std::filesystem::path* const dir = [] {
    namespace fs = std::filesystem;
    auto* d = new fs::path(fs::temp_directory_path() /
                           ("bnscope-fuzz-cli-" + std::to_string(::getpid())));
    fs::create_directories(*d);
    using namespace bnscope;
    const std::vector<double> four = {1, 2, 3, 4};
    write_npy((*d / "a.npy").string(), Tensor::from_doubles(DType::F32, {1, 2, 2, 1}, four));
    write_npy((*d / "b.npy").string(), Tensor::from_doubles(DType::F16, {4}, four));
    Problem p;
    p.inputs["x"] = Tensor::from_doubles(DType::F32, {1, 2, 2, 1}, four);
    p.inputs["y_backprop"] = p.inputs["x"];
    p.inputs["scale"] = Tensor::from_doubles(DType::F32, {1}, std::vector<double>{1});
    p.set_attr("epsilon", "0.01");
    save_problem((*d / "p.npz").string(), p);
    return d;
  }();
  static const bool cleanup = [] {
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(*dir, ignored);
    });
    return true;
  }();
  (void)cleanup;
  return *dir;
}

// The parser opens paths relative to the current folder; libFuzzer's own paths (corpus,
// artifacts) are relative to the starting one, so the switch lasts one input only.
class InScratchFolder {
 public:
  InScratchFolder() : previous_(std::filesystem::current_path()) {
    std::filesystem::current_path(scratch_folder());
  }
  ~InScratchFolder() { std::filesystem::current_path(previous_); }
  InScratchFolder(const InScratchFolder&) = delete;
  InScratchFolder& operator=(const InScratchFolder&) = delete;

 private:
  std::filesystem::path previous_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace bnscope;
  fuzz::limit_memory_for_fuzzing();
  std::vector<std::string> args(1);
  for (std::size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n')
      args.emplace_back();
    else
      args.back().push_back(c);
  }
  for (const std::string& a : args)
    if (a.find('/') != std::string::npos) return 0;
  const InScratchFolder in_scratch;
  try {
    app::ProblemArgs parsed = app::parse_problem_args(args);
    (void)prepare(parsed.problem);
  } catch (const Error&) {
  }
  return 0;
}
