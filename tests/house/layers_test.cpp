// The layers core/README.md states, checked on the sources: each core room includes only the
// rooms its README lists before it; core names no front end (Qt, CUDA, views/, app/, gpu/) and
// spells no CLI flag in a message; nothing above the backends reads the cpu backend's own files.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace bnscope::test {

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = BNSCOPE_SOURCE_DIR;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every C++ source under a folder of the repository.
std::vector<fs::path> sources(const std::string& folder) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(kRoot / folder))
    if (e.is_regular_file() && (e.path().extension() == ".h" || e.path().extension() == ".cpp"))
      out.push_back(e.path());
  return out;
}

std::vector<std::string> includes(const fs::path& p) {
  static const std::regex inc(R"re(^\s*#\s*include\s*[<"]([^>"]+)[>"])re");
  std::vector<std::string> out;
  std::istringstream in(read(p));
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, inc)) out.push_back(m[1]);
  return out;
}

// The rooms in the order core/README.md lists them ("## tensor/", "## io/", ...).
std::vector<std::string> room_order() {
  std::vector<std::string> out;
  std::istringstream in(read(kRoot / "core/README.md"));
  static const std::regex heading(R"(^## ([a-z_]+)/)");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, heading)) out.push_back(m[1]);
  return out;
}

std::string shown(const fs::path& p) {
  return fs::relative(p, kRoot).string();
}

}  // namespace

TEST(House, EachCoreRoomIncludesOnlyTheRoomsBeforeIt) {
  const std::vector<std::string> order = room_order();
  ASSERT_GE(order.size(), 8u) << "core/README.md lists its rooms as '## room/' headings";
  std::map<std::string, std::size_t> rank;
  for (std::size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
  for (const std::string& room : order)
    for (const fs::path& f : sources("core/" + room))
      for (const std::string& inc : includes(f)) {
        const std::string first = inc.substr(0, inc.find('/'));
        if (inc.find('/') == std::string::npos || !rank.count(first)) continue;
        EXPECT_LE(rank[first], rank[room])
            << shown(f) << " includes " << inc << ": " << first << "/ comes after " << room << "/";
      }
}

TEST(House, CoreNamesNoFrontEnd) {
  for (const fs::path& f : sources("core"))
    for (const std::string& inc : includes(f)) {
      EXPECT_NE(inc.rfind("Q", 0), 0u) << shown(f) << " includes Qt's " << inc;
      EXPECT_EQ(inc.find("cuda"), std::string::npos) << shown(f) << " includes " << inc;
      for (const char* above : {"views/", "app/", "gpu/"})
        EXPECT_NE(inc.rfind(above, 0), 0u) << shown(f) << " includes " << inc;
    }
}

TEST(House, NothingAboveTheBackendsReadsTheCpuBackendsFiles) {
  for (const char* folder : {"views", "app", "core/report", "core/analysis", "core/profile"})
    for (const fs::path& f : sources(folder))
      for (const std::string& inc : includes(f))
        EXPECT_EQ(inc.find("backends/cpu/"), std::string::npos) << shown(f) << " includes " << inc;
}

// A string literal in core that spells a CLI flag ("--against X"): core's messages name options
// through ErrorParts, and each front end words them.
TEST(House, CoreMessagesSpellNoCliFlag) {
  static const std::regex flag(R"re("[^"\n]*--[a-z][a-z-]*[^"\n]*")re");
  for (const fs::path& f : sources("core")) {
    std::istringstream in(read(f));
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      const std::size_t comment = line.find("//");
      const std::string code = comment == std::string::npos ? line : line.substr(0, comment);
      std::smatch m;
      if (std::regex_search(code, m, flag))
        ADD_FAILURE() << shown(f) << ":" << line_no << " spells a flag: " << m[0];
    }
  }
}

}  // namespace bnscope::test
