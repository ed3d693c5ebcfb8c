#include "plugin/plugin_backend.h"

#include <chrono>

#include "ops/outputs.h"
#include "plugin/plugin_library.h"
#include "tensor/error.h"

namespace bnscope {

namespace {

class InProcessTransport : public PluginTransport {
 public:
  explicit InProcessTransport(std::unique_ptr<PluginLibrary> lib) : lib_(std::move(lib)) {
    info_ = lib_->info();
    if (info_.device == BNSCOPE_DEVICE_CUDA)
      info_.unavailable =
          "a CUDA plugin runs only in the helper process, which owns its device buffers, not "
          "in bnscope's own process";
  }
  const PluginInfo& info() const override { return info_; }
  std::string where() const override { return "in bnscope's own process, without crash isolation"; }
  std::string supports(const CallSpec& spec, const RunContext&) override {
    const AbiCall call(spec, {}, {});
    return lib_->supports(*call.get());
  }
  std::vector<PhaseTiming> run(const CallSpec& spec, const Prepared& p, Result& result,
                               const RunContext&) override {
    std::vector<void*> in, out;
    // The ABI hands inputs as const tensors; the pointer is non-const only for the C struct.
    for (const Tensor& t : p.inputs) in.push_back(const_cast<void*>(t.raw()));
    for (OutputTensor& o : result.outputs) out.push_back(o.tensor.raw());
    const AbiCall call(spec, in, out);
    const auto start = std::chrono::steady_clock::now();
    lib_->run(*call.get());
    return {{"kernel:run",
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), -1}};
  }

 private:
  std::unique_ptr<PluginLibrary> lib_;
  PluginInfo info_;
};

class PluginBackend : public Backend {
 public:
  explicit PluginBackend(std::unique_ptr<PluginTransport> t) : transport_(std::move(t)) {
    const PluginInfo& info = transport_->info();
    name_ = info.name;
    description_ = (info.description.empty() ? std::string("kernel plugin") : info.description) +
                   " (plugin " + info.version + ", " + info.device_name() + ")";
  }
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return description_; }
  std::string unavailable_reason() const override {
    const std::string& why = transport_->info().unavailable;
    return why.empty() ? std::string() : "plugin " + name_ + ": " + why;
  }
  // The plugin, its version, device and library: what a report's machine table names.
  std::string code_path() const override {
    const PluginInfo& info = transport_->info();
    return "plugin " + info.name + " " + info.version + " (" + info.device_name() +
           ", plugin ABI " + std::to_string(info.abi_version) + ") from " + info.path + ", run " +
           transport_->where();
  }
  std::string unsupported_reason(const Prepared& p) const override {
    const PluginInfo& info = transport_->info();
    if (std::string why = undeclared_reason(info, p); !why.empty()) return why;
    const PluginKernelInfo* k = info.kernel_for(p.op->name);
    if (!k->has_supports) return {};
    try {
      return transport_->supports(make_call_spec(p, 0), RunContext{});
    } catch (const Error& e) {
      return e.what();
    }
  }
  void run(const Prepared& p, Result& result, const RunContext& ctx) override {
    allocate_outputs(p, result);
    result.backend = name_;
    const CallSpec spec = make_call_spec(p, ctx.threads);
    for (PhaseTiming& t : transport_->run(spec, p, result, ctx)) result.timings.push_back(t);
  }

 private:
  std::unique_ptr<PluginTransport> transport_;
  std::string name_, description_;
};

}  // namespace

std::unique_ptr<PluginTransport> make_in_process_transport(const std::string& path) {
  return std::make_unique<InProcessTransport>(PluginLibrary::load(path));
}

std::unique_ptr<Backend> make_plugin_backend(std::unique_ptr<PluginTransport> transport) {
  return std::make_unique<PluginBackend>(std::move(transport));
}

}  // namespace bnscope
