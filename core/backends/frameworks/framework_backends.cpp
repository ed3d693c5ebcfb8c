#include "backends/frameworks/framework_backends.h"

#include <unistd.h>

#include <algorithm>
#include <mutex>

#include "backends/frameworks/framework_worker.h"
#include "backends/frameworks/python_choice.h"
#include "backends/frameworks/python_probe.h"
#include "tensor/error.h"

namespace bnscope {
namespace {

struct Variant {
  const char* name;
  const char* framework;  // the worker's name for it
  const char* variant;
  const char* description;
  bool gpu;
  std::vector<std::pair<std::string, std::string>> env;
};

// The CPU variants hide any GPU so TensorFlow neither initializes CUDA nor takes device memory.
const std::vector<Variant>& variants() {
  static const std::vector<Variant> v = {
      {"tf",
       "tensorflow",
       "default",
       "TensorFlow's raw op as it runs by default on this machine (oneDNN or Eigen by CPU)",
       false,
       {{"CUDA_VISIBLE_DEVICES", "-1"}}},
      {"tf-eigen",
       "tensorflow",
       "eigen",
       "TensorFlow's Eigen CPU kernel (TF_ENABLE_ONEDNN_OPTS=0)",
       false,
       {{"TF_ENABLE_ONEDNN_OPTS", "0"}, {"CUDA_VISIBLE_DEVICES", "-1"}}},
      {"tf-onednn",
       "tensorflow",
       "onednn",
       "TensorFlow's oneDNN CPU kernel (TF_ENABLE_ONEDNN_OPTS=1)",
       false,
       {{"TF_ENABLE_ONEDNN_OPTS", "1"}, {"CUDA_VISIBLE_DEVICES", "-1"}}},
      {"tf-xla",
       "tensorflow",
       "xla",
       "TensorFlow's raw op compiled by XLA (tf.function(jit_compile=True)) on the CPU",
       false,
       {{"CUDA_VISIBLE_DEVICES", "-1"}}},
      {"tf-gpu", "tensorflow", "gpu", "TensorFlow's GPU kernel (cuDNN) on the first GPU", true, {}},
      {"torch",
       "torch",
       "cpu",
       "PyTorch's aten native_batch_norm(_backward) on the CPU (NHWC as channels_last)",
       false,
       {{"CUDA_VISIBLE_DEVICES", ""}}},
      {"torch-cuda",
       "torch",
       "cuda",
       "PyTorch's aten native_batch_norm(_backward) on the first CUDA device",
       true,
       {}},
  };
  return v;
}

bool nvidia_device_present() {
  return ::access("/dev/nvidiactl", F_OK) == 0 || ::access("/dev/nvidia0", F_OK) == 0 ||
         ::access("/dev/dxg", F_OK) == 0;
}

class FrameworkBackend : public Backend {
 public:
  explicit FrameworkBackend(const Variant& v)
      : v_(v), worker_({v.name, v.framework, v.variant, v.env}) {}

  std::string_view name() const override { return v_.name; }
  std::string_view description() const override { return v_.description; }
  bool tensorflow() const { return std::string_view(v_.framework) == "tensorflow"; }
  const char* framework_name() const { return tensorflow() ? "TensorFlow" : "PyTorch"; }

  std::string unavailable_reason() const override {
    const std::string python = framework_python();
    {
      std::lock_guard lock(mu_);
      const WorkerInfo& info = worker_.info();
      if (!info.unavailable.empty() && python == started_python_) return info.unavailable;
    }
    const PythonProbe& probe = probe_python(python);
    if (!probe.problem.empty()) return probe.problem;
    if (!probe.numpy) return "no numpy in " + probe.executable + " (pip install numpy)";
    if (tensorflow() && !probe.tensorflow)
      return "no tensorflow in " + probe.executable + " (pip install tensorflow-cpu)";
    if (!tensorflow() && !probe.torch)
      return "no torch in " + probe.executable + " (pip install torch)";
    if (v_.gpu && !nvidia_device_present())
      return std::string("no GPU visible to ") + framework_name() + " (no NVIDIA device here)";
    return {};
  }

  std::string device() const override {
    std::lock_guard lock(mu_);
    return v_.gpu ? worker_.info().device : std::string();
  }

  // "TensorFlow 2.21.0, CPU, oneDNN"; what the worker reported once started, else what is known.
  std::string code_path() const override {
    std::lock_guard lock(mu_);
    const WorkerInfo& i = worker_.info();
    if (i.version.empty())
      return std::string(framework_name()) + " in " + framework_python() + " (not started yet)";
    return i.framework + " " + i.version + ", " + i.device + ", " + i.kernel_path;
  }

  std::string unsupported_reason(const Prepared& p) const override {
    const OpSpec& op = *p.op;
    if (!tensorflow()) {
      if (op.family == OpFamily::GlobalNorm)
        return std::string("PyTorch has no ") + std::string(op.name) + " kernel";
      return {};
    }
    const auto& types = v_.gpu ? op.gpu_types : op.cpu_types;
    if (std::find(types.begin(), types.end(), p.t) == types.end())
      return "TensorFlow registers no " + std::string(v_.gpu ? "GPU" : "CPU") + " kernel of " +
             std::string(op.name) + " for T=" + std::string(tf_dtype_name(p.t));
    return {};
  }

  void run(const Prepared& p, Result& result, const RunContext& ctx) override {
    std::lock_guard lock(mu_);
    started_python_ = framework_python();
    worker_.run(p, result, ctx);
  }

 private:
  Variant v_;
  mutable std::mutex mu_;
  mutable FrameworkWorker worker_;
  std::string started_python_;
};

}  // namespace

std::vector<std::unique_ptr<Backend>> make_framework_backends() {
  std::vector<std::unique_ptr<Backend>> out;
  for (const Variant& v : variants()) out.push_back(std::make_unique<FrameworkBackend>(v));
  return out;
}

}  // namespace bnscope
