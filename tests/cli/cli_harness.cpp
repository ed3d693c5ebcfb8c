#include "cli_harness.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "io/npy.h"

namespace bnscope::test {

namespace {
std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
}  // namespace

TempDir::TempDir() {
  std::random_device rd;
  dir_ = std::filesystem::temp_directory_path() / ("bnscope-cli-test-" + std::to_string(rd()));
  std::filesystem::create_directories(dir_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string TempDir::path(const std::string& name) const {
  return (dir_ / name).string();
}

std::vector<std::string> TempDir::files(const std::string& sub) const {
  std::vector<std::string> out;
  const auto root = dir_ / sub;
  if (!std::filesystem::exists(root)) return out;
  for (const auto& e : std::filesystem::directory_iterator(root))
    if (e.is_regular_file()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

CliRun run_cli(const std::vector<std::string>& args) {
  TempDir io;
  std::string cmd = quote(BNSCOPE_CLI);
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " >" + quote(io.path("out")) + " 2>" + quote(io.path("err")) + " </dev/null";
  const int raw = std::system(cmd.c_str());
  CliRun r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(io.path("out"));
  r.err = slurp(io.path("err"));
  return r;
}

std::vector<std::string> input_flags(const Problem& p, const TempDir& dir) {
  std::vector<std::string> flags;
  for (const auto& [name, t] : p.inputs) {
    write_npy(dir.path(name + ".npy"), t);
    flags.insert(flags.end(), {"--input", name + "=" + dir.path(name + ".npy")});
  }
  return flags;
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<std::string> with_input(std::vector<std::string> args, const std::string& name,
                                    const std::string& path) {
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--input" && args[i + 1].rfind(name + "=", 0) == 0) {
      args[i + 1] = name + "=" + path;
      return args;
    }
  return with(std::move(args), {"--input", name + "=" + path});
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace bnscope::test
