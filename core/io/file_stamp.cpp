#include "io/file_stamp.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <vector>

namespace bnscope {

namespace {

bool stamp_of(const std::string& path, std::string& out) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  out += path + ' ' + std::to_string(st.st_size) + ' ' + std::to_string(st.st_mtim.tv_sec) + '.' +
         std::to_string(st.st_mtim.tv_nsec) + ' ' + std::to_string(st.st_ino) + '\n';
  return true;
}

}  // namespace

std::string file_stamp(const std::string& path) {
  std::error_code ec;
  std::string out;
  if (!std::filesystem::is_directory(path, ec)) return stamp_of(path, out) ? out : std::string();
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(path, ec))
    if (e.is_regular_file(ec)) files.push_back(e.path().string());
  if (ec) return {};
  std::sort(files.begin(), files.end());
  for (const std::string& f : files)
    if (!stamp_of(f, out)) return {};
  return out;
}

}  // namespace bnscope
