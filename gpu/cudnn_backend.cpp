#include "cudnn_backend.h"

#include <climits>
#include <mutex>

#include "channel_io.h"
#include "cuda_backend.h"
#include "cuda_runtime_impl.h"
#include "cudnn_dims.h"
#include "cudnn_legacy.h"
#include "cudnn_phases.h"
#include "device_memory.h"
#include "device_query.h"
#include "kernel_phases.h"
#include "kernel_runner.h"
#include "ops/bn_math.h"
#include "ops/outputs.h"
#include "phase_timer.h"
#include "reserve_convert.h"
#include "tensor/error.h"

namespace bnscope::gpu {

namespace {

std::string shape_text(const Prepared& p) {
  return shape_str(p.inputs[0].shape());
}

void note(Result& r, std::string code, std::string message, std::string subject = {}) {
  r.notes.push_back({NoteKind::Info, std::move(code), std::move(message), std::move(subject), -1});
}

void note_transposed(Result& r) {
  note(r, "cudnn-nchw",
       "NHWC data transposed to NCHW for cuDNN and the result transposed back, as TensorFlow does "
       "outside TF_USE_CUDNN_BATCHNORM_SPATIAL_PERSISTENT with 16-bit V3 data");
}

// TensorFlow's NHWC-to-NCHW round trip around cuDNN (cudnn_takes_nhwc): a no-op when cuDNN takes
// the data as it is.
class LayoutRoundTrip {
 public:
  LayoutRoundTrip(const Prepared& p, bool persistent)
      : on_(p.channels_last && !cudnn_takes_nhwc(p, persistent)),
        d_(cudnn_dims(p)),
        element_(dtype_size(p.t)) {}
  bool on() const { return on_; }
  // The buffer as cuDNN takes it: NHWC data transposed to NCHW, else b itself.
  DeviceBuffer to_cudnn(DeviceBuffer b, DeviceRuntime& rt, Stream s, PhaseHooks& hooks) const {
    if (!on_) return b;
    DeviceBuffer out(rt, b.bytes());
    rt.kernels().transpose(element_, b.get(), out.get(), d_.n, d_.h * d_.w, d_.c, s, hooks);
    return out;
  }
  // cuDNN's NCHW result written back as NHWC into b (the output buffer).
  void from_cudnn(const DeviceBuffer& nchw, DeviceBuffer& b, DeviceRuntime& rt, Stream s,
                  PhaseHooks& hooks) const {
    rt.kernels().transpose(element_, nchw.get(), b.get(), d_.n, d_.c, d_.h * d_.w, s, hooks);
  }

 private:
  bool on_;
  CudnnDims d_;
  std::size_t element_;
};

class CudnnBackend : public Backend {
 public:
  std::string_view name() const override { return "cudnn"; }
  std::string_view description() const override {
    return "cuDNN's batch-norm calls as TensorFlow's GPU kernels make them";
  }
  std::string unavailable_reason() const override {
    if (const std::string& why = device_status().problem; !why.empty()) return why;
    const std::size_t v = cudnnGetVersion();
    if (v / 10000 != CUDNN_MAJOR)
      return "cuDNN library " + std::to_string(v) +
             " does not match the headers bnscope was "
             "built with (major version " +
             std::to_string(CUDNN_MAJOR) + ")";
    return {};
  }
  std::string device() const override { return usable_device_summary(); }
  std::vector<PhaseInfo> phase_plan(const Prepared& p, int) const override {
    if (!unavailable_reason().empty()) return {};  // no device to plan for
    if (p.op->is_grad && !p.is_training) return kernel_phases(p, plan_for(cuda_runtime(), p));
    return cudnn_phases(p, persistent_mode_requested());
  }

  std::string unsupported_reason(const Prepared& p) const override {
    const OpSpec& op = *p.op;
    if (op.family == OpFamily::GlobalNorm)
      return "TensorFlow runs " + std::string(op.name) +
             " on GPU with Eigen kernels, not cuDNN; use backend cuda";
    if (std::string why = cuda_unsupported_reason(p); !why.empty()) return why;
    const CudnnDims d = cudnn_dims(p);
    for (std::int64_t v : {d.n, d.c, d.h, d.w})
      if (v > INT_MAX)
        return "cuDNN tensor descriptors take int dimensions; " + shape_text(p) +
               " has one over 2^31 - 1";
    return {};
  }

  void run(const Prepared& p, Result& r, const RunContext& ctx) override {
    ctx.check_cancel();
    if (p.op->is_grad && !p.is_training) {
      run_cuda_kernels(p, r, name());
      note(r, "inference-grad-not-cudnn",
           "TensorFlow computes the is_training=false gradient with an Eigen GPU reduction, "
           "not cuDNN; bnscope ran its cuda kernel for it");
      return;
    }
    // cuDNN refuses a smaller epsilon; TensorFlow passes it unclamped and fails the launch. The
    // epsilon the Python API clamps to (and Apply fix sets) clears it once rounded to a float attr.
    static_assert(static_cast<float>(kCudnnMinEpsilon) >= CUDNN_BN_MIN_EPSILON);
    if (p.epsilon < CUDNN_BN_MIN_EPSILON)
      throw Error(ErrorCode::Internal, "cuDNN launch failure : input shape (" + shape_text(p) +
                                           "): epsilon " + std::to_string(p.epsilon) +
                                           " is below CUDNN_BN_MIN_EPSILON " +
                                           std::to_string(CUDNN_BN_MIN_EPSILON) +
                                           " (tf.nn.fused_batch_norm clamps epsilon to " +
                                           attr_value_text(AttrValue{kCudnnMinEpsilon}) + ")");
    allocate_outputs(p, r);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!handle_) handle_ = std::make_unique<CudnnHandle>();
    CudnnStream run{*handle_};
    const CudnnDims d = cudnn_dims(p);
    const BnTensors t(p.t, cudnn_takes_nhwc(p, persistent_mode_requested()), static_cast<int>(d.n),
                      static_cast<int>(d.c), static_cast<int>(d.h), static_cast<int>(d.w));
    if (p.op->is_grad)
      backward(p, r, t, run);
    else if (p.is_training)
      forward_training(p, r, t, run);
    else
      forward_inference(p, r, t, run);
  }

 private:
  static DeviceRuntime& rt() { return cuda_runtime(); }
  struct CudnnStream {
    explicit CudnnStream(CudnnHandle& h) : handle(h) { handle.set_stream(stream.get()); }
    CudnnHandle& handle;
    DeviceStream stream{cuda_runtime()};
  };

  void backward(const Prepared& p, Result& r, const BnTensors& t, CudnnStream& run) {
    const Stream s = run.stream.get();
    const auto c = static_cast<std::size_t>(p.channels());
    const bool persistent = persistent_mode_requested();
    PhaseTimer timer(rt(), p.op->name, name(), s);
    if (!p.reserve_is_inv_std())
      note(r, "reserve-converted",
           "reserve_space_2 converted from the variance to 1/sqrt(variance + epsilon) for cuDNN",
           "reserve_space_2");
    // TensorFlow's rule: the Ex call for V3 whenever reserve_space_3 is not a scalar.
    bool ex = p.op->version == 3 && p.in("reserve_space_3").rank() != 0;
    DeviceBuffer x, dy, scale, mean, inv_std, reserve;
    {
      PhaseScope phase(timer, "upload");
      x = upload(rt(), p.in("x"), s);
      dy = upload(rt(), p.in("y_backprop"), s);
      scale = upload_channel_input(rt(), p, "scale", false, s);
      mean = upload_channel_input(rt(), p, "reserve_space_1", false, s);
      inv_std = upload_channels(rt(), saved_inv_std(p), false, s);
      if (ex) reserve = upload(rt(), p.in("reserve_space_3"), s);
    }
    const LayoutRoundTrip layout(p, persistent);
    x = layout.to_cudnn(std::move(x), rt(), s, timer);
    dy = layout.to_cudnn(std::move(dy), rt(), s, timer);
    if (layout.on()) note_transposed(r);
    std::size_t workspace_bytes = 0;
    if (ex) {
      if (training_ex_reserve_bytes(run.handle, persistent, t) > reserve.bytes()) {
        ex = false;
        note(r, "reserve-space-3-small",
             "reserve_space_3 is smaller than this cuDNN's reserve space; ran the legacy "
             "cudnnBatchNormalizationBackward instead of the Ex call",
             "reserve_space_3");
      } else {
        workspace_bytes = backward_ex_workspace_bytes(run.handle, persistent, t);
      }
    }
    OutputTensor& dx_out = r.outputs[0];
    DeviceBuffer dx(rt(), dx_out.tensor.nbytes()), workspace(rt(), workspace_bytes);
    DeviceBuffer dx_nchw(rt(), layout.on() ? dx.bytes() : 0);
    ChannelResults results(rt(), c, false);
    BnBackward a;
    a.x = x.get();
    a.dy = dy.get();
    a.dx = layout.on() ? dx_nchw.get() : dx.get();
    a.scale = scale.get();
    a.dscale = results.make("scale_backprop");
    a.doffset = results.make("offset_backprop");
    a.epsilon = p.epsilon;
    a.saved_mean = mean.get();
    a.saved_inv_std = inv_std.get();
    a.workspace = workspace.get();
    a.workspace_bytes = workspace.bytes();
    a.reserve = reserve.get();
    a.reserve_bytes = reserve.bytes();
    timer.begin(ex ? "cudnnBatchNormalizationBackwardEx" : "cudnnBatchNormalizationBackward");
    batchnorm_backward(run.handle, persistent, ex, t, a);
    timer.end();
    if (layout.on()) layout.from_cudnn(dx_nchw, dx, rt(), s, timer);
    {
      PhaseScope phase(timer, "download");
      download(dx, dx_out.tensor, s);
      results.download(s);
    }
    timer.finish(r);
    results.store(r);
  }

  void forward_training(const Prepared& p, Result& r, const BnTensors& t, CudnnStream& run) {
    const Stream s = run.stream.get();
    const auto c = static_cast<std::size_t>(p.channels());
    const bool persistent = persistent_mode_requested();
    const bool ex = p.op->version == 3;  // only V3 hands TensorFlow a reserve-space allocator
    const bool blend = p.exponential_avg_factor != 1.0;
    PhaseTimer timer(rt(), p.op->name, name(), s);
    ChannelResults results(rt(), c, false);
    DeviceBuffer x, scale, offset;
    void* running_mean = nullptr;
    void* running_var = nullptr;
    {
      PhaseScope phase(timer, "upload");
      x = upload(rt(), p.in("x"), s);
      scale = upload_channel_input(rt(), p, "scale", false, s);
      offset = upload_channel_input(rt(), p, "offset", false, s);
      // TensorFlow pre-copies mean/variance into the outputs when blending, else zero-fills.
      const std::vector<double> zeros(c);
      running_mean = results.adopt(blend ? upload_channel_input(rt(), p, "mean", false, s)
                                         : upload_channels(rt(), zeros, false, s),
                                   "batch_mean");
      running_var = results.adopt(blend ? upload_channel_input(rt(), p, "variance", false, s)
                                        : upload_channels(rt(), zeros, false, s),
                                  "batch_variance");
    }
    const LayoutRoundTrip layout(p, persistent);
    x = layout.to_cudnn(std::move(x), rt(), s, timer);
    if (layout.on()) note_transposed(r);
    const std::size_t ws_bytes =
        ex ? forward_training_ex_workspace_bytes(run.handle, persistent, t) : 0;
    const std::size_t rs_bytes = ex ? training_ex_reserve_bytes(run.handle, persistent, t) : 0;
    OutputTensor& y_out = r.outputs[0];
    // The reserve buffer is padded to whole floats: reserve_space_3 is a float tensor.
    DeviceBuffer y(rt(), y_out.tensor.nbytes()), workspace(rt(), ws_bytes),
        reserve(rt(), (rs_bytes + 3) / 4 * 4);
    DeviceBuffer y_nchw(rt(), layout.on() ? y.bytes() : 0);
    BnForward a;
    a.x = x.get();
    a.y = layout.on() ? y_nchw.get() : y.get();
    a.scale = scale.get();
    a.offset = offset.get();
    a.epsilon = p.epsilon;
    a.factor = p.exponential_avg_factor;
    a.running_mean = running_mean;
    a.running_var = running_var;
    a.save_mean = results.make("reserve_space_1");
    a.save_inv_std = results.make("reserve_space_2");
    a.workspace = workspace.get();
    a.workspace_bytes = ws_bytes;
    a.reserve = reserve.get();
    a.reserve_bytes = rs_bytes;
    timer.begin(ex ? "cudnnBatchNormalizationForwardTrainingEx"
                   : "cudnnBatchNormalizationForwardTraining");
    batchnorm_forward_training(run.handle, persistent, ex, t, a);
    timer.end();
    if (layout.on()) layout.from_cudnn(y_nchw, y, rt(), s, timer);
    {
      PhaseScope phase(timer, "download");
      download(y, y_out.tensor, s);
      results.download(s);
      if (ex && rs_bytes > 0) {
        Tensor& rs3 = r.output("reserve_space_3").tensor;
        rs3.reset(DType::F32, {static_cast<std::int64_t>((rs_bytes + 3) / 4)});
        download(reserve, rs3, s);
      }
    }
    timer.finish(r);
    if (p.convention == ReserveConvention::Variance) {
      std::vector<double>& rs2 = results.values("reserve_space_2");
      rs2 = inv_std_to_variance(rs2, p.epsilon);
      note(r, "reserve-converted",
           "cuDNN saved 1/sqrt(variance + epsilon); reserve_space_2 shows it converted to the "
           "variance (1/r^2 - epsilon) because the problem uses the variance convention",
           "reserve_space_2");
    }
    results.store(r);
    if (ex && rs_bytes > 0)
      note(r, "reserve-space-3-opaque",
           "reserve_space_3 is cuDNN's opaque Ex reserve buffer (" + std::to_string(rs_bytes) +
               " bytes), as TensorFlow on GPU returns it",
           "reserve_space_3");
  }

  void forward_inference(const Prepared& p, Result& r, const BnTensors& t, CudnnStream& run) {
    const Stream s = run.stream.get();
    PhaseTimer timer(rt(), p.op->name, name(), s);
    const std::vector<double> mean = p.in("mean").to_doubles(), var = p.in("variance").to_doubles();
    DeviceBuffer x, scale, offset, mean_b, var_b;
    {
      PhaseScope phase(timer, "upload");
      x = upload(rt(), p.in("x"), s);
      scale = upload_channel_input(rt(), p, "scale", false, s);
      offset = upload_channel_input(rt(), p, "offset", false, s);
      mean_b = upload_channels(rt(), mean, false, s);
      var_b = upload_channels(rt(), var, false, s);
    }
    OutputTensor& y_out = r.outputs[0];
    DeviceBuffer y(rt(), y_out.tensor.nbytes());
    BnForward a;
    a.x = x.get();
    a.y = y.get();
    a.scale = scale.get();
    a.offset = offset.get();
    a.epsilon = p.epsilon;
    a.est_mean = mean_b.get();
    a.est_var = var_b.get();
    timer.begin("cudnnBatchNormalizationForwardInference");
    batchnorm_forward_inference(run.handle, t, a);
    timer.end();
    {
      PhaseScope phase(timer, "download");
      download(y, y_out.tensor, s);
    }
    timer.finish(r);
    r.output("batch_mean").tensor.set_doubles(mean);
    r.output("batch_variance").tensor.set_doubles(var);
    note(r, "gpu-inference-stats",
         "cuDNN's inference call does not write batch_mean/batch_variance; TensorFlow on GPU "
         "holds the inputs there only when exponential_avg_factor != 1 (else uninitialized); "
         "shown as copies of mean/variance");
  }

  std::mutex mutex_;
  std::unique_ptr<CudnnHandle> handle_;
};

}  // namespace

std::unique_ptr<Backend> make_cudnn_backend() {
  return std::make_unique<CudnnBackend>();
}

}  // namespace bnscope::gpu
