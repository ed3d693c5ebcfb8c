"""bnscope-capture --torch-model: a small CNN with BatchNorm2d (contiguous and channels_last) and an
MLP with BatchNorm1d, captured and swept: the torch backend reproduces the captured reference bit
for bit and bnscope's own backends agree within tolerance."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")

MODELS = textwrap.dedent("""
    import torch
    def cnn():
        torch.manual_seed(0)
        return torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
            torch.nn.Conv2d(8, 6, 3), torch.nn.BatchNorm2d(6), torch.nn.Flatten(),
            torch.nn.Linear(6 * 6 * 6, 5))
    def cnn_channels_last():
        return cnn().to(memory_format=torch.channels_last)
    def mlp():
        torch.manual_seed(1)
        return torch.nn.Sequential(torch.nn.Linear(10, 16), torch.nn.BatchNorm1d(16),
                                   torch.nn.ReLU(), torch.nn.Linear(16, 1))
""")


def capture(tmp_path, func, x, y):
    (tmp_path / "models.py").write_text(MODELS)
    np.savez(tmp_path / "batch.npz", x=x, y=y)
    out = tmp_path / ("cap_" + func)
    r = subprocess.run([sys.executable, "-m", "bnscope_capture.cli", "--torch-model",
                        f"{tmp_path / 'models.py'}:{func}", "--batch", str(tmp_path / "batch.npz"),
                        "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out, json.load(open(out / "manifest.json"))


def sweep(bnscope_cli, cap, backends):
    env = dict(os.environ, BNSCOPE_PYTHON=sys.executable)
    return subprocess.run([bnscope_cli, "sweep", str(cap), "--backends", backends],
                          capture_output=True, text=True, env=env)


@pytest.mark.parametrize("func,fmt", [("cnn", "NCHW"), ("cnn_channels_last", "NHWC")])
def test_cnn_batchnorm2d(tmp_path, bnscope_cli, func, fmt):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 8, 8), dtype=np.float32)
    if fmt == "NHWC":
        x = np.ascontiguousarray(x)  # the model's first conv gives channels_last activations
    y = rng.integers(0, 5, 4)
    cap, manifest = capture(tmp_path, func, x, y)
    assert manifest["framework"] == "pytorch" and manifest["torch"] == torch.__version__
    layers = manifest["layers"]
    assert [l["name"] for l in layers] == ["1", "4"]
    assert all(l["data_format"] == fmt and l["convention"] == "inv_std" for l in layers)
    assert layers[0]["shapes"]["x"] == ([4, 8, 8, 8])
    r = sweep(bnscope_cli, cap, "torch,cpu,cpu-reference")
    assert r.returncode == 0, r.stdout + r.stderr


def test_mlp_batchnorm1d(tmp_path, bnscope_cli):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 10), dtype=np.float32)
    y = rng.standard_normal((6, 1), dtype=np.float32)
    cap, manifest = capture(tmp_path, "mlp", x, y)
    (layer,) = manifest["layers"]
    assert layer["data_format"] == "NHWC" and layer["shapes"]["x"] == [6, 1, 1, 16]
    data = np.load(cap / layer["file"])
    assert data["out_scale_backprop"].shape == (16,) and data["x"].shape == (6, 1, 1, 16)
    # inv_std convention: PyTorch's saved 1/sqrt(var + eps) of the call's own input.
    x_in = data["x"].reshape(6, 16).astype(np.float64)
    np.testing.assert_allclose(data["reserve_space_2"],
                               1 / np.sqrt(x_in.var(axis=0) + layer["epsilon"]), rtol=1e-5)
    r = sweep(bnscope_cli, cap, "torch,cpu")
    assert r.returncode == 0, r.stdout + r.stderr
