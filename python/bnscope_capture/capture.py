"""capture(): one training step, every batch normalization in it as a bnscope problem file."""

import os
import platform
import re
from dataclasses import dataclass, field

import numpy as np

from . import autodiff, fused
from .errors import CaptureError
from .frameworks import (batch_norm_layers, keras_module_for, layer_policy, model_policy,
                         resolve_loss, tf)
from .output_folder import FORMAT_VERSION, StagedFolder
from .problem_file import dtype_name, write_problem

MIN_TF = (2, 16)
DEFAULT_LOSS_SCALE = 2.0 ** 15  # Keras 3's and tf_keras's LossScaleOptimizer initial_scale
AUTODIFF_OP = "FusedBatchNormGradV3"
# Keras 3 keeps the channel axis anywhere; bnscope's ops take NHWC/NCHW (4-D) or NDHWC/NCDHW
# (5-D). Lower ranks get unit spatial dimensions where they change nothing.
_CHANNELS_LAST = {2: "NHWC", 3: "NHWC", 4: "NHWC", 5: "NDHWC"}
_CHANNELS_FIRST = {3: "NCHW", 4: "NCHW", 5: "NCDHW"}


@dataclass
class CaptureResult:
    dir: str
    manifest: dict
    files: list = field(default_factory=list)  # absolute paths, manifest first


def check_tensorflow():
    t = tf()
    version = tuple(int(p) for p in re.findall(r"\d+", t.__version__)[:2])
    if version < MIN_TF:
        raise CaptureError(f"TensorFlow {t.__version__} is too old; bnscope-capture needs "
                           f">= {MIN_TF[0]}.{MIN_TF[1]}")
    return t


def device_scope(device):
    """(tf.device name, manifest description) for --device cpu|gpu, or TensorFlow's choice."""
    t = tf()
    gpus = t.config.list_physical_devices("GPU")
    if device not in (None, "cpu", "gpu"):
        raise CaptureError(f"--device {device}: expected cpu or gpu")
    if device == "gpu" and not gpus:
        raise CaptureError("--device gpu: TensorFlow sees no GPU (is this a tensorflow-cpu build?)")
    on_gpu = device == "gpu" or (device is None and bool(gpus))
    if on_gpu:
        details = t.config.experimental.get_device_details(gpus[0])
        return "/GPU:0", "GPU:0 " + details.get("device_name", "GPU"), True
    return "/CPU:0", "CPU " + (platform.processor() or platform.machine()), False


def _layout(shape, axis):
    rank = len(shape)
    if axis == rank - 1 and rank in _CHANNELS_LAST:
        fmt = _CHANNELS_LAST[rank]
        if rank == 2:
            return fmt, (shape[0], 1, 1, shape[1])
        if rank == 3:
            return fmt, (shape[0], 1, shape[1], shape[2])
        return fmt, tuple(shape)
    if axis == 1 and rank in _CHANNELS_FIRST:
        fmt = _CHANNELS_FIRST[rank]
        return fmt, (shape[0], shape[1], 1, shape[2]) if rank == 3 else tuple(shape)
    return None, None


def _autodiff_problem(rec):
    """A Keras autodiff record as a FusedBatchNormGradV3 problem (variance convention): training
    with the batch statistics, or frozen with the moving ones, as the layer ran."""
    fmt, shape = _layout(rec["x"].shape, rec["axis"])
    if fmt is None:
        raise CaptureError(f"channel axis {rec['axis']} of a rank-{rec['x'].ndim} input has no "
                           "data_format bnscope's ops take")
    # FusedBatchNormGradV3 takes scale and the statistics in U = float32 whatever x's dtype; where
    # TensorFlow ran them wider (a float64 layer) the manifest says what they were.
    ran = {"scale": rec["gamma"], "reserve_space_1": rec["mean"],
           "reserve_space_2": rec["variance"]}
    narrowed = {k: dtype_name(v) for k, v in ran.items() if v.dtype != np.float32}
    inputs = {
        "y_backprop": rec["dy"].reshape(shape),
        "x": rec["x"].reshape(shape),
        "scale": rec["gamma"].astype(np.float32),
        "reserve_space_1": rec["mean"].astype(np.float32),
        "reserve_space_2": rec["variance"].astype(np.float32),
        "reserve_space_3": np.zeros((), np.float32),
    }
    expected = {"x_backprop": rec["dx"].reshape(shape)}
    if rec["dgamma"] is not None:
        expected["scale_backprop"] = rec["dgamma"]
    if rec["dbeta"] is not None:
        expected["offset_backprop"] = rec["dbeta"]
    attrs = {"epsilon": rec["epsilon"], "data_format": fmt, "is_training": rec["is_training"]}
    extra = {}
    if shape != rec["x"].shape:
        extra["reshaped_from"] = list(rec["x"].shape)
    if narrowed:
        extra["float32_by_the_op"] = {
            "ran_in": narrowed,
            "why": "FusedBatchNormGradV3 takes scale and reserve_space_1/2 as float32 (U)"}
    return AUTODIFF_OP, attrs, "variance", inputs, expected, extra


def _describe(arrays, prefix=""):
    return ({prefix + k: list(v.shape) for k, v in arrays.items()},
            {prefix + k: dtype_name(v) for k, v in arrays.items()})


def _file_name(index, name):
    return f"layer_{index:03d}_{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.npz"


def loss_scale(model):
    """(scale, where it comes from): what fit() multiplies the loss by. The model's
    LossScaleOptimizer's current scale; else, under mixed_float16 (where compile wraps the
    optimizer in one), Keras's initial scale 2**15; else 1."""
    opt = getattr(model, "optimizer", None)
    if opt is not None and "LossScaleOptimizer" in type(opt).__name__:
        for attr in ("dynamic_scale", "loss_scale"):  # Keras 3 once built; tf_keras
            try:
                value = getattr(opt, attr)
            except (AttributeError, ValueError):
                continue
            if value is not None and not callable(value):
                return float(np.asarray(value)), "the model's LossScaleOptimizer"
        return float(getattr(opt, "initial_scale", DEFAULT_LOSS_SCALE)), \
            "the model's LossScaleOptimizer (initial scale)"
    if layer_policy(model) == "mixed_float16":
        return DEFAULT_LOSS_SCALE, "a LossScaleOptimizer's initial scale (mixed_float16)"
    return 1.0, None


def check_batch(x, y):
    """Refuses a batch that cannot make a training step; returns warnings (lines) about x."""
    xa = np.asarray(x)
    if xa.ndim == 0 or xa.shape[0] == 0:
        raise CaptureError(f"--batch: x of shape {xa.shape} holds no sample; expected at least "
                           "one row")
    if np.ndim(y) == 0 or np.shape(y)[0] != xa.shape[0]:
        raise CaptureError(f"--batch: y of shape {np.shape(y)} does not have x's {xa.shape[0]} "
                           "row(s)")
    warnings = []
    if xa.dtype.kind == "f" or xa.dtype.name == "bfloat16":
        bad = int(np.size(xa) - np.count_nonzero(np.isfinite(xa.astype(np.float32))))
        if bad == xa.size:
            warnings.append("x is all NaN or Inf: every captured gradient will be NaN")
        elif bad:
            warnings.append(f"x holds {bad} NaN or Inf value(s) of {xa.size}: gradients that "
                            "depend on them will be NaN")
    return warnings


def capture(model, x, y, out_dir, loss=None, device=None, layers=None):
    """Runs one training step of model on (x, y) and writes out_dir/manifest.json and one bnscope
    problem file per batch normalization. loss: a Keras loss name or object (default: the
    model's compiled loss); device: "cpu", "gpu" or None (TensorFlow's choice); layers: a regular
    expression the layer names must match. Returns a CaptureResult. Raises CaptureError on bad
    input, leaving nothing at out_dir."""
    t = check_tensorflow()
    stage = StagedFolder(out_dir)  # checks out_dir before any work
    pattern = None
    if layers:
        try:
            pattern = re.compile(layers)
        except re.error as e:
            raise CaptureError(f"--layers {layers}: not a regular expression ({e})") from None
    batch_warnings = check_batch(x, y)
    tf_device, device_text, on_gpu = device_scope(device)
    loss_fn, loss_name = resolve_loss(model, loss)
    scale, scale_source = loss_scale(model)
    bn_layers = batch_norm_layers(model)
    names = {l.name for l in bn_layers}

    with t.device(tf_device):
        xt, yt = t.convert_to_tensor(x), t.convert_to_tensor(y)
        fused_records = fused.run(model, xt, yt, loss_fn, loss_name, names, scale)
        fused_layers = {r["layer"].split("#")[0] for r in fused_records}
        if not bn_layers and not fused_records:
            raise CaptureError(f"model '{model.name}' has no batch normalization: no "
                               "BatchNormalization layer and no FusedBatchNormGrad op in its "
                               "training step")
        rest = [l for l in bn_layers if l.name not in fused_layers]
        if pattern:
            rest = [l for l in rest if pattern.search(l.name)]
        auto_records, skipped = (autodiff.run(model, rest, xt, yt, loss_fn, loss_name, scale)
                                 if rest else ([], []))
    if pattern:
        fused_records = [r for r in fused_records if pattern.search(r["layer"].split("#")[0])]
    order = {l.name: i for i, l in enumerate(bn_layers)}
    entries = []
    for r in fused_records:
        entries.append((order.get(r["layer"].split("#")[0], len(order)), "fused_op", r))
    for r in auto_records:
        entries.append((order.get(r["layer"].split("#")[0], len(order)), "keras_autodiff", r))
    entries.sort(key=lambda e: e[0])  # stable: graph or call order within a layer
    if not entries:
        all_names = sorted(names | fused_layers)
        if pattern:
            raise CaptureError(f"--layers {layers}: matches none of the batch-normalization "
                               f"layers ({', '.join(all_names)})")
        raise CaptureError("no batch normalization could be captured: " +
                           "; ".join(f"{s['name']}: {s['reason']}" for s in skipped))

    km = keras_module_for(model)
    manifest = {
        "bnscope_capture": FORMAT_VERSION,
        "tensorflow": t.__version__,
        "keras": getattr(km, "__version__", ""),
        "device": device_text,
        "model": model.name,
        "dtype_policy": model_policy(model),
        "loss": str(loss_name),
        "loss_scale": scale,
        **({"loss_scale_from": scale_source} if scale_source else {}),
        "layers": [],
        "skipped": skipped,
    }
    if batch_warnings:
        manifest["warnings"] = batch_warnings
    policies = {l.name: layer_policy(l) for l in bn_layers}
    with stage:
        for index, (_, how, r) in enumerate(entries):
            if how == "fused_op":
                op, attrs, inputs, expected = r["op"], r["attrs"], r["inputs"], r["outputs"]
                # What reserve_space_2 holds is the producer's: the variance on CPU, cuDNN's
                # 1/sqrt(var + eps) on GPU (spec 1.3); frozen mode always feeds the variance.
                convention = "inv_std" if on_gpu and attrs["is_training"] else "variance"
                extra = {"forward_op": r["forward"]}
            else:
                try:
                    op, attrs, convention, inputs, expected, extra = _autodiff_problem(r)
                except CaptureError as e:
                    manifest["skipped"].append({"name": r["layer"], "reason": str(e)})
                    continue
            name = r["layer"]
            file = _file_name(index, name)
            write_problem(os.path.join(stage.path, file), op, attrs, convention, inputs, expected)
            shapes, dtypes = _describe(inputs)
            out_shapes, out_dtypes = _describe(expected, "out_")
            manifest["layers"].append(dict({
                "index": index,
                "name": name,
                "captured": how,
                "op": op,
                "data_format": attrs["data_format"],
                "convention": convention,
                "epsilon": attrs["epsilon"],
                "is_training": attrs["is_training"],
                "dtype_policy": policies.get(name.split("#")[0], manifest["dtype_policy"]),
                "shapes": {**shapes, **out_shapes},
                "dtypes": {**dtypes, **out_dtypes},
                "file": file,
            }, **extra))
        if not manifest["layers"]:
            raise CaptureError("no batch normalization could be captured: " +
                               "; ".join(f"{s['name']}: {s['reason']}" for s in skipped))
        stage.write_manifest(manifest)
    out = stage.out_dir
    files = [os.path.join(out, "manifest.json")] + [
        os.path.join(out, l["file"]) for l in manifest["layers"]]
    return CaptureResult(dir=out, manifest=manifest, files=files)
