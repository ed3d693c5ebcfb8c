// .npz reading: the archive reader, every member by name, and a saved problem. The reader takes
// paths only, so each input goes to one temporary file per process.

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fuzz_input.h"
#include "io/npz.h"
#include "ops/problem_io.h"
#include "tensor/error.h"

namespace {

const std::string& scratch_path() {
  static const std::string path = (std::filesystem::temp_directory_path() /
                                   ("bnscope-fuzz-npz-" + std::to_string(::getpid()) + ".npz"))
                                      .string();
  return path;
}

template <class F>
void tolerate_errors(F&& f) {
  try {
    f();
  } catch (const bnscope::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace bnscope;
  fuzz::limit_memory_for_fuzzing();
  const std::string& path = scratch_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  tolerate_errors([&] { (void)read_npz(path); });
  std::vector<std::string> names;
  tolerate_errors([&] { names = npz_members(path); });
  for (const std::string& name : names) {
    tolerate_errors([&] { (void)npz_has_member(path, name); });
    tolerate_errors([&] { (void)read_npz_bytes(path, name); });
    tolerate_errors([&] { (void)read_npz_member(path, name); });
  }
  tolerate_errors([&] { (void)load_problem(path); });
  // Inputs that are not archives still exercise the problem.json reader directly.
  if (size < 2 || data[0] != 'P' || data[1] != 'K')
    tolerate_errors([&] {
      (void)problem_from_json(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    });
  Problem p;
  tolerate_errors([&] { (void)add_npz_inputs(p, path); });
  std::filesystem::remove(path);
  return 0;
}
