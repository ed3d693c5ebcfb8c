// bnscope-plugin-host: the helper process a kernel plugin is loaded and run in, so that a crash,
// an abort, a hang or an out-of-bounds write in the plugin ends this process and not bnscope.
// Speaks plugin/plugin_protocol.h on the channel of ipc/child_process.h (requests on fd 3,
// replies on fd 4). Usage: bnscope-plugin-host PLUGIN.so (started by bnscope).

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cuda_device.h"
#include "io/json_value.h"
#include "plugin/plugin_library.h"
#include "plugin/plugin_protocol.h"
#include "tensor/error.h"

namespace {

using namespace bnscope;

int fd_from_env(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

bool read_exact(int fd, char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t w = ::write(fd, s.data() + done, s.size() - done);
    if (w <= 0) return false;
    done += static_cast<std::size_t>(w);
  }
  return true;
}

bool read_message(int fd, std::string& out) {
  unsigned char h[4];
  if (!read_exact(fd, reinterpret_cast<char*>(h), 4)) return false;
  const std::uint32_t n =
      h[0] | (h[1] << 8) | (h[2] << 16) | (static_cast<std::uint32_t>(h[3]) << 24);
  if (n > (64u << 20)) return false;
  out.resize(n);
  return read_exact(fd, out.data(), n);
}

bool send_message(int fd, const JsonValue& v) {
  const std::string s = dump_json(v);
  const auto n = static_cast<std::uint32_t>(s.size());
  std::string frame{static_cast<char>(n), static_cast<char>(n >> 8), static_cast<char>(n >> 16),
                    static_cast<char>(n >> 24)};
  return write_all(fd, frame + s);
}

JsonValue failure(const std::string& why) {
  JsonValue v = JsonValue::object();
  v.add("ok", JsonValue::of(false));
  v.add("error", JsonValue::of(why));
  return v;
}

JsonValue success() {
  JsonValue v = JsonValue::object();
  v.add("ok", JsonValue::of(true));
  return v;
}

// A segment mapped with an inaccessible page after it (plugin_protocol.h).
class Mapping {
 public:
  Mapping(const std::string& path, std::size_t size, bool writable) : size_(size + page()) {
    void* base = ::mmap(nullptr, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) fail("cannot reserve " + std::to_string(size_) + " bytes");
    base_ = static_cast<std::byte*>(base);
    const int fd = ::open(path.c_str(), writable ? O_RDWR : O_RDONLY);
    if (fd < 0) fail("cannot open shared memory " + path);
    void* p = ::mmap(base_, size, writable ? PROT_READ | PROT_WRITE : PROT_READ,
                     MAP_SHARED | MAP_FIXED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) fail("cannot map shared memory " + path);
  }
  ~Mapping() { ::munmap(base_, size_); }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  std::byte* data() const { return base_; }

 private:
  static std::size_t page() { return plugin_protocol::page_size(); }
  std::byte* base_ = nullptr;
  std::size_t size_;
};

// A CUDA plugin's call: the tensors copied to device buffers, run() on the helper's stream between
// two events, the outputs copied back.
double run_on_device(const PluginLibrary& lib, plugin_host::CudaDevice& dev, const CallSpec& spec,
                     const std::vector<void*>& in, const std::vector<void*>& out) {
  std::vector<void*> d_in, d_out;
  struct Buffers {
    plugin_host::CudaDevice& dev;
    std::vector<void*>& a;
    std::vector<void*>& b;
    ~Buffers() {
      for (void* p : a) dev.release(p);
      for (void* p : b) dev.release(p);
    }
  } buffers{dev, d_in, d_out};
  for (std::size_t i = 0; i < in.size(); ++i) {
    d_in.push_back(dev.alloc(spec.inputs[i].nbytes()));
    dev.upload(d_in.back(), in[i], spec.inputs[i].nbytes());
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    d_out.push_back(dev.alloc(spec.outputs[i].nbytes()));
    dev.upload(d_out.back(), out[i], spec.outputs[i].nbytes());  // undefined outputs keep NaN
  }
  const AbiCall call(spec, d_in, d_out, BNSCOPE_DEVICE_CUDA, dev.stream());
  const double seconds = dev.timed([&] { lib.run(*call.get()); },
                                   "plugin " + lib.info().name + "'s run() of " + spec.variant);
  for (std::size_t i = 0; i < out.size(); ++i)
    dev.download(out[i], d_out[i], spec.outputs[i].nbytes());
  return seconds;
}

JsonValue run(const PluginLibrary& lib, plugin_host::CudaDevice* dev, const JsonValue& req) {
  const CallSpec spec = call_spec_from_json(req.at("call"));
  const std::vector<JsonValue>& segs = req.at("segments").items;
  if (segs.size() != spec.inputs.size() + spec.outputs.size())
    fail("run: " + std::to_string(segs.size()) + " segments for " +
         std::to_string(spec.inputs.size() + spec.outputs.size()) + " tensors");
  std::vector<std::unique_ptr<Mapping>> maps;
  std::vector<void*> in, out;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const bool output = i >= spec.inputs.size();
    const auto size = static_cast<std::size_t>(segs[i].at("size").number);
    const auto offset = static_cast<std::size_t>(segs[i].at("offset").number);
    const CallTensor& t = output ? spec.outputs[i - spec.inputs.size()] : spec.inputs[i];
    if (offset + t.nbytes() != size)
      fail("run: segment of " + t.name + " does not end at its data");
    maps.push_back(std::make_unique<Mapping>(segs[i].at("path").string, size, output));
    (output ? out : in).push_back(maps.back()->data() + offset);
  }
  double seconds = 0;
  if (dev) {
    seconds = run_on_device(lib, *dev, spec, in, out);
  } else {
    const AbiCall call(spec, in, out);
    const auto t0 = std::chrono::steady_clock::now();
    lib.run(*call.get());
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  JsonValue v = success();
  v.add("seconds", JsonValue::of(seconds));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bnscope-plugin-host PLUGIN.so (started by bnscope)\n");
    return 2;
  }
  const int in = fd_from_env("BNSCOPE_IPC_IN", 3), out = fd_from_env("BNSCOPE_IPC_OUT", 4);
  std::unique_ptr<PluginLibrary> lib;
  std::unique_ptr<plugin_host::CudaDevice> cuda;  // for a CUDA plugin
  PluginInfo info;
  std::string text;
  while (read_message(in, text)) {
    JsonValue reply;
    try {
      const JsonValue req = parse_json(text, "plugin request");
      const std::string what = req.at("request").string;
      if (what == "describe") {
        if (!lib) {
          lib = PluginLibrary::load(argv[1]);
          info = lib->info();
          if (info.device == BNSCOPE_DEVICE_CUDA) {
            cuda = std::make_unique<plugin_host::CudaDevice>();
            info.unavailable = cuda->problem();
          }
        }
        reply = success();
        reply.add("protocol", JsonValue::of(static_cast<double>(plugin_protocol::kVersion)));
        reply.add("plugin", plugin_info_json(info));
      } else if (!lib) {
        reply = failure("plugin helper: '" + what + "' before describe");
      } else if (what == "supports") {
        const CallSpec spec = call_spec_from_json(req.at("call"));
        const AbiCall call(spec, {}, {});
        reply = success();
        reply.add("why", JsonValue::of(lib->supports(*call.get())));
      } else if (what == "run") {
        if (!info.unavailable.empty()) fail("plugin " + info.name + ": " + info.unavailable);
        reply = run(*lib, cuda.get(), req);
      } else {
        reply = failure("plugin helper: unknown request '" + clip_for_message(what, 40) + "'");
      }
    } catch (const std::exception& e) {
      reply = failure(e.what());
    }
    if (!send_message(out, reply)) return 1;
  }
  return 0;
}
