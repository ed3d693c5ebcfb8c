#pragma once
// Runs the built bnscope-cli binary and captures its exit status, stdout and stderr.

#include <filesystem>
#include <string>
#include <vector>

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

}  // namespace bnscope::test
