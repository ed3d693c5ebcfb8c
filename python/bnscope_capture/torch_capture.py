"""PyTorch models: every torch.nn.BatchNorm1d/2d/3d (and SyncBatchNorm in one process) call of one
training step as a FusedBatchNormGradV3 problem. The inputs are what the call saw (its input, the
gradient flowing into its output, its weight, and PyTorch's saved mean and 1/sqrt(var + eps),
stored in the inv_std convention); the reference outputs are PyTorch's own kernel,
torch.ops.aten.native_batch_norm_backward, on exactly those values. A channels_last input is stored
NHWC (NDHWC), any other NCHW (NCDHW); BatchNorm1d's (N, C) input as NHWC [N, 1, 1, C] and its
(N, C, L) input as NCHW [N, C, L, 1]."""

import os
import re

import numpy as np

from .errors import CaptureError
from .output_folder import StagedFolder
from .problem_file import write_problem

FORMAT_VERSION = 1


def _file_name(index, name):
    return f"layer_{index:03d}_{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.npz"


def _as_tf_layout(t, torch):
    """(tensor in bnscope's storage order, data_format)."""
    if t.dim() == 2:
        return t.reshape(t.shape[0], 1, 1, t.shape[1]), "NHWC"
    if t.dim() == 3:
        return t.unsqueeze(-1), "NCHW"
    if t.dim() == 4:
        if t.is_contiguous(memory_format=torch.channels_last) and not t.is_contiguous():
            return t.permute(0, 2, 3, 1), "NHWC"
        return t, "NCHW"
    if t.dim() == 5:
        if t.is_contiguous(memory_format=torch.channels_last_3d) and not t.is_contiguous():
            return t.permute(0, 2, 3, 4, 1), "NDHWC"
        return t, "NCDHW"
    raise CaptureError(f"a batch-norm input of rank {t.dim()}; expected 2 to 5")


def _default_loss(torch, out, y):
    f = torch.nn.functional
    if not y.is_floating_point():
        return f.cross_entropy(out, y)
    return f.mse_loss(out, y)


def capture_torch(model, x, y, out_dir, loss=None):
    """Runs one training step of `model` on (x, y) and writes its batch norms to out_dir.
    loss(output, y) -> scalar; default cross-entropy for integer y, else mean squared error."""
    try:
        import torch
    except ImportError:
        raise CaptureError("PyTorch is not installed in this Python (pip install torch)") from None
    stage = StagedFolder(out_dir)
    bn_types = (torch.nn.modules.batchnorm._BatchNorm,)
    modules = [(n, m) for n, m in model.named_modules() if isinstance(m, bn_types)]
    if not modules:
        raise CaptureError("the model has no torch.nn.BatchNorm1d/2d/3d or SyncBatchNorm layer")
    calls, handles = [], []

    def hooks(name, module):
        def forward(mod, inputs, output):
            rec = {"name": name, "module": mod, "x": inputs[0].detach().clone(),
                   "training": mod.training or not mod.track_running_stats}
            calls.append(rec)
            if output.requires_grad:
                output.register_hook(lambda g: rec.__setitem__("dy", g.detach().clone()))
        handles.append(module.register_forward_hook(forward))

    for name, module in modules:
        hooks(name, module)
    try:
        xt = torch.as_tensor(x) if not isinstance(x, torch.Tensor) else x
        yt = torch.as_tensor(y) if not isinstance(y, torch.Tensor) else y
        out = model(xt)
        value = (loss or (lambda o, t: _default_loss(torch, o, t)))(out, yt)
        value.backward()
    finally:
        for h in handles:
            h.remove()

    aten = torch.ops.aten
    seen = {}
    manifest = {"bnscope_capture": FORMAT_VERSION, "framework": "pytorch",
                "torch": torch.__version__, "device": str(xt.device), "model": type(model).__name__,
                "layers": [], "skipped": []}
    with stage:
        for index, rec in enumerate(calls):
            count = seen.get(rec["name"], 0)
            seen[rec["name"]] = count + 1
            name = f"{rec['name']}#{count}" if sum(c["name"] == rec["name"] for c in calls) > 1 \
                else rec["name"]
            if "dy" not in rec:
                manifest["skipped"].append({"name": name, "reason": "no gradient reached it"})
                continue
            m, x_, dy = rec["module"], rec["x"], rec["dy"]
            c = x_.shape[1]
            w = (m.weight.detach() if m.weight is not None
                 else torch.ones(c, dtype=torch.float32, device=x_.device))
            b = m.bias.detach() if m.bias is not None else torch.zeros_like(w)
            eps = float(np.float32(m.eps))
            if rec["training"]:
                _, mean, invstd = aten.native_batch_norm(x_, w, b, None, None, True, 0.0, eps)
                gi, gw, gb = aten.native_batch_norm_backward(dy, x_, w, None, None, mean, invstd,
                                                             True, eps, [True, True, True])
                rs1, rs2, convention = mean, invstd, "inv_std"
            else:
                rs1, rs2 = m.running_mean.detach(), m.running_var.detach()
                gi, gw, gb = aten.native_batch_norm_backward(dy, x_, w, rs1, rs2, None, None,
                                                             False, eps, [True, True, True])
                convention = "variance"
            xs, fmt = _as_tf_layout(x_, torch)
            dys, _ = _as_tf_layout(dy, torch)
            gis, _ = _as_tf_layout(gi, torch)
            arr = lambda t: t.detach().cpu().contiguous().numpy()
            inputs = {"y_backprop": arr(dys), "x": arr(xs), "scale": arr(w),
                      "reserve_space_1": arr(rs1), "reserve_space_2": arr(rs2),
                      "reserve_space_3": np.zeros((0,), np.float32)}
            expected = {"x_backprop": arr(gis), "scale_backprop": arr(gw),
                        "offset_backprop": arr(gb)}
            attrs = {"epsilon": eps, "data_format": fmt, "is_training": bool(rec["training"])}
            file = _file_name(index, name)
            write_problem(os.path.join(stage.path, file), "FusedBatchNormGradV3", attrs,
                          convention, inputs, expected)
            manifest["layers"].append({
                "index": index, "name": name, "captured": "torch_aten",
                "module": type(m).__name__, "op": "FusedBatchNormGradV3", "data_format": fmt,
                "convention": convention, "epsilon": eps, "is_training": bool(rec["training"]),
                "shapes": {k: list(v.shape) for k, v in inputs.items()},
                "dtypes": {k: str(v.dtype) for k, v in inputs.items()}, "file": file})
        if not manifest["layers"]:
            raise CaptureError("no batch normalization could be captured: " + "; ".join(
                f"{s['name']}: {s['reason']}" for s in manifest["skipped"]))
        stage.write_manifest(manifest)
    return manifest
