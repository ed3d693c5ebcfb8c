"""PyTorch's own batch-norm kernels: torch.ops.aten.native_batch_norm_backward for the gradient
ops, native_batch_norm for the forward ops, on the CPU (torch) or a CUDA device (torch-cuda).
NHWC data is passed as PyTorch's channels_last memory format (a permuted view, no copy).
PyTorch saves 1/sqrt(var + eps) where TensorFlow's CPU kernels keep the variance: a variance
reserve_space_2 is converted before the call and a saved one back after, each with a note."""

import sys
import time

from .conventions import inv_std_to_variance, note, variance_to_inv_std
from .errors import Unavailable, Unsupported
from .run_output import FROM_CHANNELS_FIRST, TO_CHANNELS_FIRST, RunOutput

TORCH_DTYPES = {"float16": "float16", "bfloat16": "bfloat16", "float32": "float32",
                "float64": "float64"}


class TorchRunner:
    framework = "PyTorch"

    def __init__(self, variant):
        try:
            import torch
        except ImportError:
            raise Unavailable(f"no torch in {sys.executable} (pip install torch)")
        self.torch = torch
        self.variant = variant
        self.device = "cpu"
        self.device_name = "CPU"
        if variant == "cuda":
            if not torch.cuda.is_available():
                raise Unavailable("no GPU visible to PyTorch")
            self.device = "cuda"
            self.device_name = "GPU " + torch.cuda.get_device_name(0)
        self.tensors = {}

    def describe(self):
        path = "aten native_batch_norm_backward / native_batch_norm"
        if self.variant == "cuda":
            path += " (cuDNN where PyTorch picks it)"
        return {"framework": self.framework, "version": self.torch.__version__,
                "device": self.device_name, "kernel_path": path, "python": sys.executable}

    def forget(self, name):
        for key in [k for k in self.tensors if k == name or k.startswith(name + "@")]:
            del self.tensors[key]

    def _make(self, arr, dtype):
        torch = self.torch
        t = torch.from_numpy(arr)  # the shared segment itself on the CPU
        if dtype == "bfloat16":
            t = t.view(torch.bfloat16)
        return t.to(self.device) if self.device != "cpu" else t

    def _numpy(self, t):
        torch = self.torch
        t = t.detach()
        if t.device.type != "cpu":
            t = t.cpu()
        if t.dtype == torch.bfloat16:
            return t.contiguous().view(torch.int16).numpy().view("uint16")
        return t.contiguous().numpy()

    def _held(self, name, views, dtypes, convert=None, eps=0.0):
        key = name if convert is None else f"{name}@{convert.__name__}"
        if key not in self.tensors:
            arr = views[name]
            if convert is not None:
                if dtypes[name] == "bfloat16":
                    raise Unsupported("converting a bfloat16 reserve_space_2 between conventions")
                arr = convert(arr, eps).astype(arr.dtype)
            self.tensors[key] = self._make(arr, dtypes[name])
        return self.tensors[key]

    def run(self, op, attrs, convention, views, dtypes, threads, outputs, window):
        torch = self.torch
        if op.startswith("BatchNormWithGlobalNormalization"):
            raise Unsupported(f"PyTorch has no {op} kernel")
        if threads > 0 and self.device == "cpu" and torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
        t0 = time.perf_counter()
        fmt = attrs.get("data_format", "NHWC")
        to_cf = TO_CHANNELS_FIRST.get(fmt)
        from_cf = FROM_CHANNELS_FIRST.get(fmt)
        logical = (lambda a: a.permute(to_cf)) if to_cf else (lambda a: a)
        back = (lambda a: a.permute(from_cf)) if from_cf else (lambda a: a)
        eps = float(attrs["epsilon"])
        training = attrs.get("is_training", True)
        notes = []
        aten = torch.ops.aten
        grad = op.startswith("FusedBatchNormGrad")
        try:
            if grad:
                dy = self._held("y_backprop", views, dtypes)
                x = self._held("x", views, dtypes)
                w = self._held("scale", views, dtypes)
                mean = self._held("reserve_space_1", views, dtypes)
                if training and convention == "variance":
                    var = self._held("reserve_space_2", views, dtypes, variance_to_inv_std, eps)
                    notes.append(note("to_inv_std", "PyTorch"))
                else:
                    var = self._held("reserve_space_2", views, dtypes)
                transfer = time.perf_counter() - t0
                t1 = time.perf_counter()
                with window():
                    if training:
                        gi, gw, gb = aten.native_batch_norm_backward(
                            logical(dy), logical(x), w, None, None, mean, var, True, eps,
                            [True, True, True])
                    else:
                        gi, gw, gb = aten.native_batch_norm_backward(
                            logical(dy), logical(x), w, mean, var, None, None, False, eps,
                            [True, True, True])
                    self._sync()
                kernel = time.perf_counter() - t1
                results = {"x_backprop": back(gi), "scale_backprop": gw, "offset_backprop": gb}
            else:
                x = self._held("x", views, dtypes)
                w = self._held("scale", views, dtypes)
                b = self._held("offset", views, dtypes)
                mean_in = self._held("mean", views, dtypes)
                var_in = self._held("variance", views, dtypes)
                transfer = time.perf_counter() - t0
                factor = float(attrs.get("exponential_avg_factor", 1.0))
                channels = w.shape[0]
                t1 = time.perf_counter()
                if training:
                    # PyTorch updates the running statistics in place with momentum = TF's
                    # exponential_avg_factor and the unbiased variance, as TF's batch_mean and
                    # batch_variance; no moving statistics given (factor 1) start from zeros.
                    if mean_in.numel() == channels:
                        run_mean, run_var = mean_in.clone(), var_in.clone()
                    else:
                        run_mean = torch.zeros(channels, dtype=w.dtype, device=w.device)
                        run_var = torch.zeros(channels, dtype=w.dtype, device=w.device)
                    with window():
                        y, save_mean, save_invstd = aten.native_batch_norm(
                            logical(x), w, b, run_mean, run_var, True, factor, eps)
                        self._sync()
                    kernel = time.perf_counter() - t1
                    rs2 = save_invstd
                    if convention == "variance":
                        rs2 = torch.from_numpy(inv_std_to_variance(self._numpy(save_invstd), eps))
                        notes.append({"code": "reserve-convention-converted",
                                      "subject": "reserve_space_2",
                                      "message": "reserve_space_2 is PyTorch's saved "
                                                 "1/sqrt(variance + epsilon) converted to the "
                                                 "variance (float64, rounded to float32)"})
                    results = {"y": back(y), "batch_mean": run_mean, "batch_variance": run_var,
                               "reserve_space_1": save_mean, "reserve_space_2": rs2}
                else:
                    with window():
                        y, _, _ = aten.native_batch_norm(logical(x), w, b, mean_in, var_in,
                                                         False, 0.0, eps)
                        self._sync()
                    kernel = time.perf_counter() - t1
                    # TensorFlow's inference kernels pass the given statistics through.
                    results = {"y": back(y), "batch_mean": mean_in, "batch_variance": var_in,
                               "reserve_space_1": mean_in, "reserve_space_2": var_in}
        except RuntimeError as e:
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise Unsupported(f"PyTorch {torch.__version__} on {self.device_name}: {first}")
        t2 = time.perf_counter()
        out = {}
        for name in outputs["wanted"]:
            if name not in results:
                raise Unsupported(f"PyTorch's kernel has no counterpart of {op}'s {name}")
            out[name] = self._numpy(results[name])
        return RunOutput(out, kernel, transfer, time.perf_counter() - t2, notes)

    def _sync(self):
        if self.device != "cpu":
            self.torch.cuda.synchronize()
