#include "report/report.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>

#include "backends/backend.h"
#include "io/crc32.h"
#include "profile/clock.h"

namespace bnscope {

namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\"");
  const auto e = s.find_last_not_of(" \t\"\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The value after the first "KEY<sep>" line of a text file, or empty.
std::string file_field(const char* path, const std::string& key, char sep) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    const auto at = line.find(sep);
    if (at != std::string::npos && trim(line.substr(0, at)) == key)
      return trim(line.substr(at + 1));
  }
  return {};
}

}  // namespace

std::string utc_now_iso8601() {
  return iso8601_utc(std::chrono::system_clock::now());
}

MachineInfo describe_machine() {
  MachineInfo m;
  m.cpu_model = file_field("/proc/cpuinfo", "model name", ':');
  if (m.cpu_model.empty()) m.cpu_model = file_field("/proc/cpuinfo", "Model", ':');
  m.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
  const std::string mem = file_field("/proc/meminfo", "MemTotal", ':');  // "NNN kB"
  if (!mem.empty()) m.memory_bytes = std::strtoull(mem.c_str(), nullptr, 10) * 1024;
  m.os = file_field("/etc/os-release", "PRETTY_NAME", '=');
  utsname u{};
  if (uname(&u) == 0) {
    m.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
    m.hostname = u.nodename;
  }
  if (const Backend* cpu = BackendRegistry::instance().find("cpu"))
    m.cpu_code_path = cpu->code_path();
  return m;
}

ProblemInfo describe_problem(const Problem& problem) {
  ProblemInfo info;
  info.op = problem.op;
  info.convention = std::string(convention_name(problem.convention));
  if (const OpSpec* op = find_op(problem.op)) {
    for (const AttrSpec& a : op->attrs) {
      auto it = problem.attrs.find(std::string(a.name));
      std::string v = it != problem.attrs.end() ? attr_value_text(it->second)
                      : a.required()            ? std::string("(unset)")
                                                : std::string(a.default_value);
      info.attrs.emplace_back(std::string(a.name), v);
    }
    std::vector<const std::pair<const std::string, Tensor>*> given;
    for (const ArgSpec& in : op->inputs)
      if (auto it = problem.inputs.find(std::string(in.name)); it != problem.inputs.end())
        given.push_back(&*it);
    // CRC-32 rather than a serial hash such as FNV-1a (4 cycles a byte, one chain per input):
    // parts on every core, joined, at memory speed; what zlib.crc32(array.tobytes()) gives.
    for (std::size_t k = 0; k < given.size(); ++k) {
      const Tensor& t = given[k]->second;
      const std::uint32_t crc = crc32_update(
          0, std::span<const std::byte>(static_cast<const std::byte*>(t.raw()), t.nbytes()));
      char hex[12];
      std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(crc));
      info.inputs.push_back(
          {given[k]->first, given[k]->second.dtype(), given[k]->second.shape(), hex});
    }
    const std::string x(op->data_input());
    const DType t = problem.dtype                 ? *problem.dtype
                    : problem.inputs.count(x) > 0 ? problem.inputs.at(x).dtype()
                                                  : DType::F32;
    info.dtype = std::string(tf_dtype_name(t));
    if (op->has_modes()) info.mode = std::string(mode_name(attr_bool(problem, "is_training")));
  }
  return info;
}

std::string_view bnscope_version() {
  return BNSCOPE_VERSION;
}

Report new_report(std::string title) {
  Report r;
  r.title = std::move(title);
  r.created = utc_now_iso8601();
  r.version = std::string(bnscope_version());
  r.machine = describe_machine();
  return r;
}

void add_devices(Report& report) {
  std::vector<std::string> backends;
  for (const Profile& p : report.profiles) backends.push_back(p.backend);
  for (const Comparison& c : report.diff.comparisons) {
    backends.push_back(c.reference);  // a file's name where --against gave one: no backend
    backends.push_back(c.candidate);
  }
  std::vector<std::string>& devices = report.machine.devices;
  for (const std::string& name : backends) {
    const Backend* b = BackendRegistry::instance().find(name);
    const std::string d = b ? b->device() : std::string();
    if (!d.empty() && std::find(devices.begin(), devices.end(), d) == devices.end())
      devices.push_back(d);
  }
}

void set_verdict(Report& report, const PipelineResult& result) {
  report.notes = result.notes;
  report.has_diff = result.has_diff;
  report.diff = result.diff;
  report.causes = result.causes;
}

}  // namespace bnscope
