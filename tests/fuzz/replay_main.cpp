// Feeds every file under the given folders to the fuzz entry point, so the committed corpus and
// the crash regressions run as an ordinary test with any compiler.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include "fuzz_input.h"

namespace {

std::vector<std::uint8_t> read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::size_t files = 0;
  for (int i = 1; i < argc; ++i) {
    const fs::path root = argv[i];
    if (!fs::exists(root)) continue;  // a target may have no regressions yet
    std::vector<fs::path> paths;
    if (fs::is_directory(root)) {
      for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) paths.push_back(e.path());
    } else {
      paths.push_back(root);
    }
    for (const fs::path& p : paths) {
      const std::vector<std::uint8_t> data = read_all(p);
      std::cout << "replay " << p.string() << " (" << data.size() << " bytes)\n" << std::flush;
      LLVMFuzzerTestOneInput(data.data(), data.size());
      ++files;
    }
  }
  std::cout << files << " inputs replayed\n";
  if (files == 0) {
    std::cerr << "no inputs found: the corpus folders are missing\n";
    return 1;
  }
  return 0;
}
