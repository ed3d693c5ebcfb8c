#pragma once
// Runs the built bnscope-cli binary and captures its exit status, stdout and stderr.

#include <filesystem>
#include <string>
#include <vector>

#include "ops/problem.h"

namespace bnscope::test {

struct CliRun {
  int status = -1;
  std::string out, err;
};

CliRun run_cli(const std::vector<std::string>& args);

// A fresh, empty directory removed when the test ends.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  std::string path(const std::string& name = "") const;
  std::vector<std::string> files(const std::string& sub = "") const;  // regular files, sorted

 private:
  std::filesystem::path dir_;
};

// Writes each input of p as DIR/NAME.npy and returns the --input flags that name them.
std::vector<std::string> input_flags(const Problem& p, const TempDir& dir);
// The whole file as bytes ("" when it cannot be read).
std::string slurp(const std::filesystem::path& p);
// args with NAME's --input set to PATH (replaced where given, added where not): an input is
// given once.
std::vector<std::string> with_input(std::vector<std::string> args, const std::string& name,
                                    const std::string& path);
// a followed by b: a command line from its parts.
std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b);

}  // namespace bnscope::test
