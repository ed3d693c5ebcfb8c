#include "plugin/plugin_helper.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "ipc/json_channel.h"
#include "ipc/shared_memory.h"
#include "plugin/plugin_protocol.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr milliseconds kDescribeLimit{30000};
constexpr milliseconds kSendLimit{10000};

// "SIGSEGV" from "killed by SIGSEGV (Segmentation fault)"; the description itself otherwise.
std::string how_it_ended(const std::string& exit) {
  const std::string killed = "killed by ";
  if (exit.rfind(killed, 0) == 0) {
    const std::string rest = exit.substr(killed.size());
    return rest.substr(0, rest.find(' '));
  }
  return exit.empty() ? std::string("ended") : exit;
}

std::string last_line(const std::string& text) {
  std::string s = text;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  const std::size_t nl = s.rfind('\n');
  return clip_for_message(nl == std::string::npos ? s : s.substr(nl + 1), 200);
}

class HelperTransport : public PluginTransport {
 public:
  explicit HelperTransport(std::string path) : path_(std::move(path)) {
    spec_.argv = {plugin_host_program(), path_};
    spec_.what = "plugin helper for " + path_;
    // A helper built with AddressSanitizer would turn the plugin's SIGSEGV into a report and
    // exit status 1; the crash message names the signal, so the helper dies of it instead.
    const char* asan = std::getenv("ASAN_OPTIONS");
    spec_.env.push_back({"ASAN_OPTIONS", std::string(asan && *asan ? std::string(asan) + ":" : "") +
                                             "handle_segv=0:handle_sigbus=0:handle_sigfpe=0"});
    start_and_describe();
  }
  ~HelperTransport() override { child_.stop(milliseconds(500)); }

  const PluginInfo& info() const override { return info_; }
  std::string where() const override {
    return "in the helper process " + fs::path(spec_.argv[0]).filename().string();
  }

  std::string supports(const CallSpec& spec, const RunContext& ctx) override {
    std::lock_guard lock(mutex_);
    JsonValue req = JsonValue::object();
    req.add("request", JsonValue::of(std::string("supports")));
    req.add("call", call_spec_json(spec));
    const JsonValue reply = exchange(req, "supports() of " + spec.variant, ctx);
    return reply.at("why").string;
  }

  std::vector<PhaseTiming> run(const CallSpec& spec, const Prepared& p, Result& result,
                               const RunContext& ctx) override {
    std::lock_guard lock(mutex_);
    namespace pp = plugin_protocol;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<ipc::SharedMemory> segments;
    JsonValue list;
    list.kind = JsonValue::Kind::Array;
    auto add = [&](const void* data, std::size_t bytes, const std::string& tag, bool output) {
      ipc::SharedMemory m = ipc::SharedMemory::create(pp::segment_size(bytes), tag);
      const std::size_t offset = pp::data_offset(bytes);
      if (output) std::memset(m.data(), pp::kCanary, offset);
      if (bytes) std::memcpy(m.data() + offset, data, bytes);
      JsonValue s = JsonValue::object();
      s.add("path", JsonValue::of(m.path()));
      s.add("size", JsonValue::of(static_cast<double>(m.size())));
      s.add("offset", JsonValue::of(static_cast<double>(offset)));
      list.items.push_back(std::move(s));
      segments.push_back(std::move(m));
    };
    for (std::size_t i = 0; i < p.inputs.size(); ++i)
      add(p.inputs[i].raw(), p.inputs[i].nbytes(), "bnscope-in-" + spec.inputs[i].name, false);
    for (const OutputTensor& o : result.outputs)
      add(o.tensor.raw(), o.tensor.nbytes(), "bnscope-out-" + o.name, true);
    JsonValue req = JsonValue::object();
    req.add("request", JsonValue::of(std::string("run")));
    req.add("call", call_spec_json(spec));
    req.add("segments", std::move(list));
    const auto t1 = std::chrono::steady_clock::now();
    const std::string stage = "run() of " + spec.variant;
    const JsonValue reply = exchange(req, stage, ctx);
    const auto t2 = std::chrono::steady_clock::now();
    const std::size_t first_out = p.inputs.size();
    for (std::size_t i = 0; i < result.outputs.size(); ++i) {
      OutputTensor& o = result.outputs[i];
      const ipc::SharedMemory& m = segments[first_out + i];
      const std::size_t bytes = o.tensor.nbytes(), offset = pp::data_offset(bytes);
      for (std::size_t b = 0; b < offset; ++b)
        if (static_cast<unsigned char>(m.data()[b]) != pp::kCanary)
          throw Error(ErrorCode::Internal,
                      "plugin " + info_.name + " wrote before the start of output " + o.name +
                          " (" + std::to_string(offset - b) + " bytes before it) in " + stage);
      if (bytes && o.defined) std::memcpy(o.tensor.raw(), m.data() + offset, bytes);
    }
    const auto t3 = std::chrono::steady_clock::now();
    using secs = std::chrono::duration<double>;
    const JsonValue* s = reply.find("seconds");
    return {{"upload", secs(t1 - t0).count(), -1},
            {"kernel:run", s ? s->number : secs(t2 - t1).count(), -1},
            {"download", secs(t3 - t2).count(), -1}};
  }

 private:
  void start_and_describe() {
    child_.start(spec_);
    JsonValue req = JsonValue::object();
    req.add("request", JsonValue::of(std::string("describe")));
    JsonValue reply;
    try {
      ipc::send_json(child_, req, kSendLimit);
      reply = ipc::receive_json(child_, kDescribeLimit);
    } catch (const ipc::ChildError& e) {
      throw translate(e, "bnscope_plugin_init()", path_);
    }
    if (!reply.find("ok") || !reply.at("ok").boolean) {
      const JsonValue* err = reply.find("error");
      throw Error(ErrorCode::InvalidArgument,
                  err ? err->string : "plugin " + path_ + ": the helper gave no reason");
    }
    const JsonValue* proto = reply.find("protocol");
    if (!proto || proto->number != plugin_protocol::kVersion)
      throw Error(ErrorCode::Unavailable,
                  spec_.argv[0] + " speaks plugin protocol " +
                      (proto ? std::to_string(static_cast<int>(proto->number)) : "?") +
                      ", this bnscope " + std::to_string(plugin_protocol::kVersion) +
                      ": use the helper installed with it");
    PluginInfo got = plugin_info_from_json(reply.at("plugin"));
    if (!info_.name.empty() && got.name != info_.name)
      throw Error(ErrorCode::Internal, "plugin " + path_ + " changed its name from " + info_.name +
                                           " to " + got.name + " on restart");
    info_ = std::move(got);
  }

  Error translate(const ipc::ChildError& e, const std::string& stage, const std::string& who) {
    const std::string tail = last_line(child_.output_tail());
    const std::string said = tail.empty() ? "" : " (its last output: " + tail + ")";
    switch (e.failure()) {
      case ipc::ChildFailure::Died:
        return Error(ErrorCode::Internal,
                     "plugin " + who + " crashed: " + how_it_ended(child_.exit_description()) +
                         " in " + stage + said);
      case ipc::ChildFailure::TimedOut:
        return Error(ErrorCode::Internal,
                     "plugin " + who + " did not return from " + stage + " within " +
                         std::to_string(limit_.count() / 1000.0).substr(0, 5) +
                         " s; its helper was stopped (BNSCOPE_PLUGIN_TIMEOUT sets the limit)");
      case ipc::ChildFailure::Cancelled:
        return Error(ErrorCode::Cancelled,
                     "run cancelled; plugin " + who + "'s helper was stopped in " + stage);
      default:
        return Error(e.code(), "plugin " + who + ": " + e.what());
    }
  }

  JsonValue exchange(const JsonValue& req, const std::string& stage, const RunContext& ctx) {
    if (!child_.running()) start_and_describe();  // the helper died in an earlier call
    limit_ = plugin_call_limit();
    JsonValue reply;
    try {
      ipc::send_json(child_, req, kSendLimit, ctx.cancel);
      reply = ipc::receive_json(child_, limit_, ctx.cancel);
    } catch (const ipc::ChildError& e) {
      if (child_.running()) child_.kill();
      throw translate(e, stage, info_.name);
    }
    const JsonValue* ok = reply.find("ok");
    if (!ok || !ok->boolean) {
      const JsonValue* err = reply.find("error");
      throw Error(ErrorCode::Internal,
                  err ? err->string : "plugin " + info_.name + " failed in " + stage);
    }
    return reply;
  }

  std::string path_;
  ipc::ChildSpec spec_;
  ipc::ChildProcess child_;
  PluginInfo info_;
  milliseconds limit_{60000};
  std::mutex mutex_;
};

}  // namespace

std::string plugin_host_program() {
  if (const char* e = std::getenv("BNSCOPE_PLUGIN_HOST"); e && *e) return e;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& p :
         {self.parent_path() / "bnscope-plugin-host",
          self.parent_path().parent_path() / "plugin_host" / "bnscope-plugin-host"})
      if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "bnscope-plugin-host";
}

std::chrono::milliseconds plugin_call_limit() {
  const char* e = std::getenv("BNSCOPE_PLUGIN_TIMEOUT");
  if (!e || !*e) return milliseconds(60000);
  char* end = nullptr;
  const double s = std::strtod(e, &end);
  if (end == e || *end || !(s > 0) || s > 1e6)
    fail("BNSCOPE_PLUGIN_TIMEOUT is '" + clip_for_message(e, 40) +
         "': expected a positive number of seconds");
  return milliseconds(static_cast<std::int64_t>(s * 1000 + 0.5));
}

std::unique_ptr<PluginTransport> make_helper_transport(const std::string& path) {
  return std::make_unique<HelperTransport>(path);
}

}  // namespace bnscope
