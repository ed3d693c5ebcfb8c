"""The framework backends (tf, tf-eigen, tf-onednn, torch) against the frameworks run directly:
the bytes bnscope-cli returns are the bytes TensorFlow's raw op or PyTorch's aten kernel returns
in a process configured the same way."""

import json
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

GRAD_OUTPUTS = ("x_backprop", "scale_backprop", "offset_backprop")

# The raw op in a fresh process: TF_ENABLE_ONEDNN_OPTS only counts before TensorFlow's import.
TF_DIRECT = textwrap.dedent("""
    import json, sys, zipfile
    import numpy as np
    import tensorflow as tf
    problem, out = sys.argv[1], sys.argv[2]
    spec = json.loads(zipfile.ZipFile(problem).read("problem.json"))
    data = np.load(problem)
    def tensor(a):  # bfloat16 is stored as its 16 bits (numpy has no bfloat16)
        if a.dtype.kind == "V":
            return tf.bitcast(tf.constant(a.view(np.uint16)), tf.bfloat16)
        return tf.constant(a)
    def array(t):
        return (tf.bitcast(t, tf.uint16) if t.dtype == tf.bfloat16 else t).numpy()
    names = [k[:-4] for k in zipfile.ZipFile(problem).namelist() if k.endswith(".npy")]
    inputs = {k: tensor(data[k]) for k in names}
    op = getattr(tf.raw_ops, spec["op"])
    if len(sys.argv) > 3 and sys.argv[3] == "xla":
        r = tf.function(lambda kw: op(**kw, **spec["attrs"]), jit_compile=True)(inputs)
    else:
        r = op(**inputs, **spec["attrs"])
    np.savez(out, **{k: array(v) for k, v in r._asdict().items()})
""")


def env_for(variant):
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="-1", TF_CPP_MIN_LOG_LEVEL="2")
    env.pop("TF_ENABLE_ONEDNN_OPTS", None)
    if variant == "tf-eigen":
        env["TF_ENABLE_ONEDNN_OPTS"] = "0"
    elif variant == "tf-onednn":
        env["TF_ENABLE_ONEDNN_OPTS"] = "1"
    return env


@pytest.fixture()
def cli(bnscope_cli):
    env = dict(os.environ, BNSCOPE_PYTHON=sys.executable)

    def run(*args, **kw):
        return subprocess.run([bnscope_cli, *map(str, args)], capture_output=True, text=True,
                              env=kw.get("env", env))

    return run


def make_problem(cli, path, *args):
    r = cli("sample", "--seed", "3", "--out", path, *args)
    assert r.returncode == 0, r.stderr
    return path


def run_backend(cli, backend, problem, out):
    r = cli("run", "--backend", backend, "--problem", problem, "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    return {f[:-4]: np.load(os.path.join(out, f)) for f in os.listdir(out)}, r.stderr


CASES = {
    "grad-nhwc-training": ("--shape", "4,7,5,16"),
    "grad-nchw-training": ("--shape", "3,5,6,8", "--attr", "data_format=NCHW"),
    "grad-nhwc-inference": ("--shape", "3,5,6,8", "--attr", "is_training=false"),
    "grad-v2-bfloat16": ("--op", "FusedBatchNormGradV2", "--dtype", "bfloat16",
                         "--shape", "2,4,4,8"),
}


@pytest.mark.parametrize("variant", ["tf", "tf-eigen", "tf-onednn"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_tensorflow_backends_return_tensorflows_bytes(cli, tmp_path, variant, case):
    pytest.importorskip("tensorflow")
    problem = make_problem(cli, tmp_path / "p.npz", *CASES[case])
    got, notes = run_backend(cli, variant, problem, tmp_path / "out")
    direct = tmp_path / "direct.npz"
    r = subprocess.run([sys.executable, "-c", TF_DIRECT, str(problem), str(direct)],
                       env=env_for(variant), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want = np.load(direct)
    for name in GRAD_OUTPUTS:
        assert got[name].dtype.itemsize == want[name].dtype.itemsize
        assert got[name].shape == want[name].shape
        assert got[name].tobytes() == want[name].tobytes(), f"{variant} {name}"
    path = {"tf-eigen": "Eigen", "tf-onednn": "oneDNN"}.get(variant, "")
    assert f"{variant} ran TensorFlow" in notes and path in notes, notes


def test_tf_xla_returns_the_compiled_ops_bytes(cli, tmp_path):
    pytest.importorskip("tensorflow")
    problem = make_problem(cli, tmp_path / "p.npz", "--shape", "4,7,5,16")
    got, notes = run_backend(cli, "tf-xla", problem, tmp_path / "out")
    direct = tmp_path / "direct.npz"
    r = subprocess.run([sys.executable, "-c", TF_DIRECT, str(problem), str(direct), "xla"],
                       env=env_for("tf-xla"), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want = np.load(direct)
    for name in GRAD_OUTPUTS:
        assert got[name].tobytes() == want[name].tobytes(), name
    assert "XLA" in notes


def test_what_tensorflow_refuses_is_unsupported(cli, tmp_path):
    pytest.importorskip("tensorflow")
    problem = make_problem(cli, tmp_path / "p.npz", "--shape", "2,3,4,4", "--attr",
                           "data_format=NCHW", "--attr", "is_training=false")
    r = cli("run", "--backend", "tf-eigen", "--problem", problem, "--out", tmp_path / "out")
    assert r.returncode == 3, r.stderr
    assert "unsupported: TensorFlow" in r.stderr and "only support NHWC" in r.stderr, r.stderr
    assert "function_node" not in r.stderr


def test_tensorflow_forward_op_bytes(cli, tmp_path):
    pytest.importorskip("tensorflow")
    problem = make_problem(cli, tmp_path / "p.npz", "--op", "FusedBatchNormV3", "--shape",
                           "3,4,5,8")
    got, _ = run_backend(cli, "tf-eigen", problem, tmp_path / "out")
    direct = tmp_path / "direct.npz"
    r = subprocess.run([sys.executable, "-c", TF_DIRECT, str(problem), str(direct)],
                       env=env_for("tf-eigen"), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want = np.load(direct)
    for name in ("y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"):
        assert got[name].tobytes() == want[name].tobytes(), name


def load_inputs(problem):
    data = np.load(problem)
    spec = json.loads(zipfile.ZipFile(problem).read("problem.json"))
    return {k: data[k] for k in data.files if k != "problem.json"}, spec


@pytest.mark.parametrize("convention", ["inv_std", "variance"])
@pytest.mark.parametrize("layout", ["NHWC", "NCHW"])
def test_torch_returns_atens_bytes(cli, tmp_path, convention, layout):
    torch = pytest.importorskip("torch")
    problem = make_problem(cli, tmp_path / "p.npz", "--shape", "4,6,5,12", "--convention",
                           convention, "--attr", f"data_format={layout}")
    got, notes = run_backend(cli, "torch", problem, tmp_path / "out")
    inputs, spec = load_inputs(problem)
    eps = spec["attrs"]["epsilon"]
    t = {k: torch.from_numpy(v) for k, v in inputs.items()}
    to_cf = (lambda a: a.permute(0, 3, 1, 2)) if layout == "NHWC" else (lambda a: a)
    saved = t["reserve_space_2"]
    if convention == "variance":  # PyTorch's forward: 1/sqrt(var + eps) in double, then float
        saved = torch.rsqrt(saved.double() + float(np.float32(eps))).float()
        assert "converted from the variance" in notes
    gi, gw, gb = torch.ops.aten.native_batch_norm_backward(
        to_cf(t["y_backprop"]), to_cf(t["x"]), t["scale"], None, None, t["reserve_space_1"],
        saved, True, float(np.float32(eps)), [True, True, True])
    if layout == "NHWC":
        gi = gi.permute(0, 2, 3, 1)
    want = {"x_backprop": gi.contiguous().numpy(), "scale_backprop": gw.numpy(),
            "offset_backprop": gb.numpy()}
    for name in GRAD_OUTPUTS:
        assert got[name].tobytes() == want[name].tobytes(), name


def test_torch_has_no_global_normalization(cli, tmp_path):
    pytest.importorskip("torch")
    problem = make_problem(cli, tmp_path / "p.npz", "--op", "BatchNormWithGlobalNormalizationGrad",
                           "--shape", "2,3,3,4")
    r = cli("run", "--backend", "torch", "--problem", problem, "--out", tmp_path / "out")
    assert r.returncode == 3, r.stderr
    assert "PyTorch has no BatchNormWithGlobalNormalizationGrad kernel" in r.stderr


def test_a_python_without_tensorflow_says_so(cli, tmp_path, bnscope_cli):
    # The same interpreter with tensorflow hidden from its import system.
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(textwrap.dedent("""
        import sys
        class _Hide:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] == "tensorflow":
                    raise ModuleNotFoundError(name)
        sys.meta_path.insert(0, _Hide())
    """))
    wrapper = tmp_path / "python-without-tf"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="$PYTHONPATH:{blocker}" exec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    problem = make_problem(cli, tmp_path / "p.npz", "--shape", "2,3,3,4")
    r = subprocess.run([bnscope_cli, "run", "--python", str(wrapper), "--backend", "tf-eigen",
                        "--problem", str(problem), "--out", str(tmp_path / "out")],
                       capture_output=True, text=True)
    assert r.returncode == 3, r.stderr
    assert f"no tensorflow in {sys.executable} (pip install tensorflow-cpu)" in r.stderr, r.stderr
    listing = subprocess.run([bnscope_cli, "--python", str(wrapper), "--help"],
                             capture_output=True, text=True).stdout
    assert "no tensorflow in" in listing and "no GPU visible to PyTorch" in listing


def test_diff_runs_the_frameworks_beside_bnscope(cli, tmp_path):
    pytest.importorskip("tensorflow")
    r = cli("diff", "--shape", "4,6,6,16", "--backends", "tf-eigen,tf-onednn,cpu,cpu-reference")
    assert r.returncode in (0, 1), r.stderr
    for name in ("tf-eigen vs cpu-reference", "tf-onednn vs cpu-reference", "cpu vs cpu-reference"):
        assert name in r.stdout
