"""TensorFlow's raw ops, eagerly (tf, tf-eigen, tf-onednn, tf-gpu) or inside
tf.function(jit_compile=True) (tf-xla). Which CPU kernel runs is fixed by TF_ENABLE_ONEDNN_OPTS,
set by bnscope before this process imported TensorFlow."""

import json
import os
import re
import sys
import time

from .conventions import inv_std_to_variance, note, variance_to_inv_std
from .errors import Unavailable, Unsupported
from .lending import Lending
from .run_output import RunOutput


class TfRunner:
    framework = "TensorFlow"

    def __init__(self, variant):
        if Lending.preloaded():
            # oneDNN's allocator keeps large blocks in a pool of its own (a BFC allocator), so a
            # re-run's output reuses the last one's block and never asks for the lent segment.
            # The system allocator instead allocates each output, as Eigen's kernels do; what the
            # kernel computes does not change. A user's own setting wins.
            os.environ.setdefault("TF_ONEDNN_USE_SYSTEM_ALLOCATOR", "1")
        try:
            import tensorflow as tf
        except ImportError:
            raise Unavailable(f"no tensorflow in {sys.executable} (pip install tensorflow-cpu)")
        self.tf = tf
        self.variant = variant
        self.device = "/CPU:0"
        self.device_name = "CPU"
        if variant == "gpu":
            gpus = tf.config.list_physical_devices("GPU")
            if not gpus:
                raise Unavailable("no GPU visible to TensorFlow")
            self.device = "/GPU:0"
            details = tf.config.experimental.get_device_details(gpus[0])
            self.device_name = "GPU " + details.get("device_name", gpus[0].name)
        self.tensors = {}
        self.compiled = {}
        self._warm_up()

    def _warm_up(self):
        """TensorFlow makes its eager context and its device's state at the first op, 20-35 ms on
        the CPU (a GPU's context on a GPU): part of starting, done here, so that the first run's
        transfer and kernel time what they are named for. A failure is left to that run to
        report, with the op it ran."""
        import numpy as np
        try:
            self._make(np.zeros(1, np.float32), "float32")
            with self.tf.device(self.device):
                self.tf.bitcast(self.tf.zeros(1, self.tf.float32), self.tf.int32).numpy()
        except Exception:
            pass

    def kernel_path(self):
        if self.variant == "gpu":
            return "GPU kernels (cuDNN)"
        if self.variant == "xla":
            return "XLA (tf.function(jit_compile=True))"
        try:
            from tensorflow.python.util import _pywrap_util_port
            return "oneDNN" if _pywrap_util_port.IsMklEnabled() else "Eigen"
        except Exception:
            return "unknown"

    def describe(self):
        return {"framework": self.framework, "version": self.tf.__version__,
                "device": self.device_name, "kernel_path": self.kernel_path(),
                "python": sys.executable}

    def forget(self, name):
        for key in [k for k in self.tensors if k == name or k.startswith(name + "@")]:
            del self.tensors[key]

    def _make(self, arr, dtype):
        tf = self.tf
        with tf.device(self.device):
            t = None
            if self.device == "/CPU:0" and arr.size and arr.flags.writeable:
                # The shared segment itself, through DLPack: no copy of the bytes bnscope sent.
                try:
                    t = tf.experimental.dlpack.from_dlpack(arr.__dlpack__())
                except Exception:
                    t = None
            if t is None:
                t = tf.constant(arr)
            return tf.bitcast(t, tf.bfloat16) if dtype == "bfloat16" else t

    def _numpy(self, t):
        tf = self.tf
        if t.dtype == tf.bfloat16:
            t = tf.bitcast(t, tf.uint16)
        # _numpy() views the tensor's own buffer on the CPU; numpy() would copy it once more
        # before the copy into the shared segment.
        view = getattr(t, "_numpy", None)
        return view() if view is not None else t.numpy()

    def _call(self, op, attrs):
        fn = getattr(self.tf.raw_ops, op, None)
        if fn is None:
            raise Unsupported(f"TensorFlow {self.tf.__version__} has no raw op {op}")
        if self.variant != "xla":
            return lambda kw: fn(**kw, **attrs)
        key = op + json.dumps(attrs, sort_keys=True)
        if key not in self.compiled:
            self.compiled[key] = self.tf.function(lambda kw: fn(**kw, **attrs), jit_compile=True)
        return self.compiled[key]

    def run(self, op, attrs, convention, views, dtypes, threads, outputs, window):
        tf = self.tf
        notes = []
        t0 = time.perf_counter()
        training = attrs.get("is_training", True)
        wanted = "inv_std" if self.variant == "gpu" else "variance"
        kwargs = {}
        for name, view in views.items():
            key, arr = name, view
            if (name == "reserve_space_2" and op.startswith("FusedBatchNormGrad") and training
                    and convention != wanted):
                key = f"{name}@{wanted}"
                if dtypes[name] == "bfloat16":
                    raise Unsupported("converting a bfloat16 reserve_space_2 between conventions")
                eps = attrs["epsilon"]
                if key not in self.tensors:
                    conv = variance_to_inv_std if wanted == "inv_std" else inv_std_to_variance
                    arr = conv(view, eps).astype(view.dtype)
                notes.append(note("to_inv_std" if wanted == "inv_std" else "to_variance",
                                  "TensorFlow"))
            if key not in self.tensors:
                self.tensors[key] = self._make(arr, dtypes[name])
            kwargs[name] = self.tensors[key]
        transfer = time.perf_counter() - t0
        call = self._call(op, attrs)
        errors = (tf.errors.NotFoundError, tf.errors.UnimplementedError,
                  tf.errors.InvalidArgumentError, tf.errors.FailedPreconditionError)
        try:
            with tf.device(self.device), window():
                t1 = time.perf_counter()
                result = call(kwargs)
                if self.variant == "gpu":
                    tf.test.experimental.sync_devices()
                kernel = time.perf_counter() - t1
        except errors as e:
            text = re.sub(r"^\{\{[^}]*\}\}\s*", "", (e.message or str(e)).strip())
            msg = re.sub(r"\s*\[Op:[^\]]*\].*$", "", text).splitlines()
            raise Unsupported(f"TensorFlow {tf.__version__} on {self.device_name}: "
                              f"{msg[0] if msg else type(e).__name__}")
        except NotImplementedError as e:  # a graph (tf-xla's tf.function) refusing the op
            lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
            last = lines[-1].removeprefix("NotImplementedError: ") if lines else "not implemented"
            raise Unsupported(f"TensorFlow {tf.__version__} (XLA) on {self.device_name}: {last}")
        t2 = time.perf_counter()
        named = result._asdict() if hasattr(result, "_asdict") else None
        out = {}
        for i, name in enumerate(outputs["order"]):
            if name in outputs["wanted"]:
                value = named[name] if named is not None else result[i]
                out[name] = self._numpy(value)
        return RunOutput(out, kernel, transfer, time.perf_counter() - t2, notes)
