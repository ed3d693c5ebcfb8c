"""Real mismatches made by the frameworks with their own defaults: TensorFlow (and PyTorch where it
is installed) compute a layer's gradients with their epsilon, bnscope's problem has another, and
`bnscope-cli diff --against` must name the epsilon cause with the epsilon the framework used."""

import json

import numpy as np
import pytest

SHAPE = (8, 6, 6, 16)  # N, H, W, C


def _inputs(seed=5):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(SHAPE) * rng.uniform(0.05, 0.3, SHAPE[-1]) +
         rng.uniform(-1, 1, SHAPE[-1])).astype(np.float32)
    dy = rng.standard_normal(SHAPE).astype(np.float32)
    scale = rng.uniform(0.5, 1.5, SHAPE[-1]).astype(np.float32)
    return x, dy, scale


def _diff(run_cli, tmp_path, inputs, outputs, eps, data_format):
    np.savez(tmp_path / "inputs.npz", **inputs)
    ref = tmp_path / "ref"
    ref.mkdir()
    for name, value in outputs.items():
        np.save(ref / f"{name}.npy", value)
    out = tmp_path / "diff.json"
    r = run_cli("diff", "--op", "FusedBatchNormGradV2", "--inputs", tmp_path / "inputs.npz",
                "--attr", f"epsilon={eps}", "--attr", f"data_format={data_format}",
                "--attr", "is_training=true", "--backends", "cpu", "--against", ref,
                "--allow-missing", "--json", out)
    assert r.returncode == 1, r.stdout + r.stderr
    return json.loads(out.read_text()), r.stdout


def _check_epsilon(report, stdout, used):
    causes = report["causes"]
    assert causes, stdout
    first = causes[0]
    assert first["code"] == "epsilon-mismatch", stdout
    assert abs(first["fitted"] - used) <= 0.1 * used, stdout
    assert first["resolves"], stdout


def test_tensorflow_epsilon_is_named_with_its_value(run_cli, tmp_path):
    tf = pytest.importorskip("tensorflow")
    x, dy, scale = _inputs()
    mean = x.mean(axis=(0, 1, 2))
    var = x.var(axis=(0, 1, 2))  # biased: what the forward op saves for its gradient
    keras_eps = 1e-3  # Keras' BatchNormalization default; the problem says PyTorch's 1e-5
    dx, dscale, doffset, _, _ = tf.raw_ops.FusedBatchNormGradV2(
        y_backprop=dy, x=x, scale=scale, reserve_space_1=mean, reserve_space_2=var,
        epsilon=keras_eps, data_format="NHWC", is_training=True)
    inputs = dict(y_backprop=dy, x=x, scale=scale, reserve_space_1=mean, reserve_space_2=var)
    outputs = dict(x_backprop=dx.numpy(), scale_backprop=dscale.numpy(),
                   offset_backprop=doffset.numpy())
    report, stdout = _diff(run_cli, tmp_path, inputs, outputs, 1e-5, "NHWC")
    _check_epsilon(report, stdout, keras_eps)
    assert "Keras" in report["causes"][0]["title"], stdout


def test_pytorch_epsilon_is_named_with_its_value(run_cli, tmp_path):
    try:
        import torch
    except ImportError as e:
        pytest.skip(f"PyTorch is not installed in this environment ({e})")
    x, dy, scale = _inputs(7)
    x_nchw = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    dy_nchw = np.ascontiguousarray(dy.transpose(0, 3, 1, 2))
    xt = torch.tensor(x_nchw, requires_grad=True)
    w = torch.tensor(scale, requires_grad=True)
    b = torch.zeros(SHAPE[-1], requires_grad=True)
    y = torch.nn.functional.batch_norm(xt, None, None, w, b, training=True)  # eps 1e-5
    y.backward(torch.tensor(dy_nchw))
    mean = x.mean(axis=(0, 1, 2))
    var = x.var(axis=(0, 1, 2))
    inputs = dict(y_backprop=dy_nchw, x=x_nchw, scale=scale, reserve_space_1=mean,
                  reserve_space_2=var)
    outputs = dict(x_backprop=xt.grad.numpy(), scale_backprop=w.grad.numpy(),
                   offset_backprop=b.grad.numpy())
    report, stdout = _diff(run_cli, tmp_path, inputs, outputs, 1e-3, "NCHW")
    _check_epsilon(report, stdout, 1e-5)
    assert "PyTorch" in report["causes"][0]["title"], stdout
