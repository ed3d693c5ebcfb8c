"""Captures of tiny models: what the manifest says, that bnscope opens and agrees with every layer
file, and that the fused-op captures are TensorFlow's own tensors (re-running the op on them gives
the recorded outputs bit for bit)."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

import models
from bnscope_capture import capture
from bnscope_capture.problem_file import read_problem

GRAD_OUTPUTS = ("x_backprop", "scale_backprop", "offset_backprop")


@pytest.fixture(scope="module")
def keras3_capture(tmp_path_factory):
    x, y = models.batch()
    return capture(models.keras3_cnn(), x, y, tmp_path_factory.mktemp("k3") / "cap")


@pytest.fixture(scope="module", params=["float32", "mixed_float16"])
def fused_capture(request, tmp_path_factory):
    x, y = models.batch()
    out = tmp_path_factory.mktemp("tk_" + request.param) / "cap"
    return request.param, capture(models.tf_keras_cnn(request.param), x, y, out)


def layer_files(result):
    return [os.path.join(result.dir, l["file"]) for l in result.manifest["layers"]]


def test_keras3_manifest(keras3_capture):
    m = json.load(open(os.path.join(keras3_capture.dir, "manifest.json")))
    assert m == keras3_capture.manifest
    assert m["bnscope_capture"] == 1
    assert m["tensorflow"] == tf.__version__
    assert m["keras"].startswith("3.")
    assert m["model"] == "k3_cnn"
    assert m["device"].startswith("CPU")
    assert m["loss_scale"] == 1.0  # the model's own policy is float32: fit() scales nothing
    by_name = {l["name"]: l for l in m["layers"]}
    assert list(by_name) == ["bn_nhwc", "bn_nchw", "bn_nhwc_f16"]
    assert [l["index"] for l in m["layers"]] == [0, 1, 2]
    for l in m["layers"]:
        assert l["captured"] == "keras_autodiff"
        assert l["op"] == "FusedBatchNormGradV3"
        assert l["convention"] == "variance"
        assert os.path.isfile(os.path.join(keras3_capture.dir, l["file"]))
    assert by_name["bn_nhwc"]["data_format"] == "NHWC"
    assert by_name["bn_nchw"]["data_format"] == "NCHW"
    assert by_name["bn_nchw"]["shapes"]["x"] == [4, 4, 8, 8]
    # Mixed precision keeps the dtypes TensorFlow ran: half data, float statistics.
    f16 = by_name["bn_nhwc_f16"]
    assert f16["dtype_policy"] == "mixed_float16"
    assert f16["dtypes"]["x"] == "float16"
    assert f16["dtypes"]["y_backprop"] == "float16"
    assert f16["dtypes"]["out_x_backprop"] == "float16"
    assert f16["dtypes"]["scale"] == "float32"
    assert by_name["bn_nhwc"]["dtypes"]["x"] == "float32"
    assert sorted(os.listdir(keras3_capture.dir)) == sorted(
        ["manifest.json"] + [l["file"] for l in m["layers"]])


def test_keras3_files_hold_the_layer_problem(keras3_capture):
    for l, path in zip(keras3_capture.manifest["layers"], layer_files(keras3_capture)):
        meta, inputs, expected = read_problem(path)
        assert meta["op"] == "FusedBatchNormGradV3"
        assert meta["attrs"]["is_training"] is True
        assert meta["attrs"]["data_format"] == l["data_format"]
        assert meta["attrs"]["epsilon"] == pytest.approx(1e-3)
        assert set(expected) == set(GRAD_OUTPUTS)
        # A capture of vanishing gradients would agree with anything.
        assert np.abs(inputs["y_backprop"]).max() > 1e-4
        assert np.abs(expected["x_backprop"]).max() > 1e-4
        c = inputs["scale"].shape[0]
        axis = -1 if l["data_format"] == "NHWC" else 1
        x = inputs["x"].astype(np.float64)
        reduce = tuple(i for i in range(4) if i != axis % 4)
        # The recorded statistics are the batch's (biased variance, the variance convention).
        np.testing.assert_allclose(inputs["reserve_space_1"], x.mean(axis=reduce), atol=1e-3)
        np.testing.assert_allclose(inputs["reserve_space_2"], x.var(axis=reduce), rtol=1e-2,
                                   atol=1e-3)
        # offset_backprop is the upstream gradient summed per channel.
        np.testing.assert_allclose(expected["offset_backprop"],
                                   inputs["y_backprop"].astype(np.float64).sum(axis=reduce),
                                   rtol=1e-3, atol=1e-5)
        assert expected["scale_backprop"].shape == (c,)


def test_fused_capture_is_bit_exact(fused_capture):
    policy, result = fused_capture
    # Under mixed_float16 compile wraps the optimizer in a LossScaleOptimizer: fit()'s loss
    # scale, so the half gradients are the ones training sees.
    assert result.manifest["loss_scale"] == (2.0 ** 15 if policy == "mixed_float16" else 1.0)
    layers = result.manifest["layers"]
    assert [l["name"] for l in layers] == ["bn_nhwc", "bn_nchw"]
    assert [l["data_format"] for l in layers] == ["NHWC", "NCHW"]
    for l, path in zip(layers, layer_files(result)):
        assert l["captured"] == "fused_op"
        assert l["op"] == "FusedBatchNormGradV3"
        assert l["dtypes"]["x"] == ("float16" if policy == "mixed_float16" else "float32")
        meta, inputs, expected = read_problem(path)
        assert np.abs(inputs["y_backprop"]).max() > 1e-4
        with tf.device("/CPU:0"):
            raw = getattr(tf.raw_ops, meta["op"])
            outs = raw(**{k: tf.constant(v) for k, v in inputs.items()}, **meta["attrs"])
        for name, got in zip(GRAD_OUTPUTS, outs[:3]):
            got = got.numpy()
            assert got.dtype == expected[name].dtype, name
            assert got.tobytes() == expected[name].tobytes(), f"{l['name']} {name} differs"


def test_bnscope_runs_every_layer_file(keras3_capture, fused_capture, run_cli, tmp_path):
    for result in (keras3_capture, fused_capture[1]):
        for path in layer_files(result):
            out = tmp_path / os.path.basename(path)
            r = run_cli("run", "--problem", path, "--out", out)
            assert r.returncode == 0, r.stderr
            assert (out / "x_backprop.npy").is_file()
            # The recorded outputs are the reference `diff --against` reads from the same file.
            r = run_cli("diff", "--problem", path, "--against", path, "--backends", "cpu")
            assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("backend", ["cpu", "cpu-reference"])
def test_sweep_agrees_with_tensorflow(keras3_capture, fused_capture, run_cli, backend):
    for result in (keras3_capture, fused_capture[1]):
        r = run_cli("sweep", result.dir, "--against", "tf", "--backends", backend)
        assert r.returncode == 0, r.stdout + r.stderr
        assert f"{len(result.manifest['layers'])} agree, 0 disagree, 0 broken" in r.stdout


def test_layers_filter(tmp_path):
    x, y = models.batch()
    r = capture(models.keras3_cnn(), x, y, tmp_path / "cap", layers="nchw$")
    assert [l["name"] for l in r.manifest["layers"]] == ["bn_nchw"]
    assert r.manifest["layers"][0]["index"] == 0


def test_mixed_bfloat16_keeps_bfloat16(tmp_path, run_cli):
    import keras

    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    try:
        model = models.keras3_cnn("k3_bf16")
    finally:
        keras.mixed_precision.set_global_policy("float32")
    x, y = models.batch()
    r = capture(model, x, y, tmp_path / "cap")
    dtypes = {l["name"]: l["dtypes"]["x"] for l in r.manifest["layers"]}
    # The layers without their own policy took the global one; bn_nhwc_f16 keeps mixed_float16.
    assert dtypes == {"bn_nhwc": "bfloat16", "bn_nchw": "bfloat16", "bn_nhwc_f16": "float16"}
    s = run_cli("sweep", r.dir, "--backends", "cpu")
    assert s.returncode == 0, s.stdout + s.stderr


def test_keras2_saved_model_from_the_command_line(tmp_path, run_cli):
    from bnscope_capture.cli import main

    saved = tmp_path / "saved"
    models.tf_keras_cnn().save(saved, save_format="tf")
    x, y = models.batch()
    np.savez(tmp_path / "batch.npz", x=x, y=y)
    out = tmp_path / "cap"
    assert main(["--model", str(saved), "--batch", str(tmp_path / "batch.npz"), "--out",
                 str(out), "--device", "cpu"]) == 0
    m = json.load(open(out / "manifest.json"))
    assert [l["captured"] for l in m["layers"]] == ["fused_op", "fused_op"]
    assert m["keras"].startswith("2.")
    s = run_cli("sweep", out)
    assert s.returncode == 0, s.stdout + s.stderr


def assert_local_gradients(result):
    """Every layer file's recorded outputs are the gradients of that call alone."""
    for l, path in zip(result.manifest["layers"], layer_files(result)):
        meta, inputs, expected = read_problem(path)
        local = models.local_gradients(meta, inputs)
        # Sums that cancel (beta's gradient ahead of another batch norm) keep float32 rounding.
        dy = np.abs(inputs["y_backprop"].astype(np.float64))
        c = meta["attrs"]["data_format"].index("C")
        rounding = 1e-6 * dy.sum(axis=tuple(i for i in range(dy.ndim) if i != c)).max()
        assert np.abs(local["x_backprop"]).max() > 1e-4, l["name"]
        for name, got in expected.items():
            want = local[name]
            err = np.abs(got.astype(np.float64) - want).max()
            tol = 1e-4 * np.abs(want).max() + rounding
            assert err <= tol, f"{l['name']} {name}: off by {err:.3g} (max |{name}| " \
                f"{np.abs(want).max():.3g})"


def test_a_layer_called_twice_gets_each_call_own_gradients(tmp_path):
    x, y = models.batch()
    r = capture(models.keras3_shared(), x, y, tmp_path / "cap")
    assert [l["name"] for l in r.manifest["layers"]] == [
        "bn_shared#0", "bn_shared#1", "bn_inner#0", "bn_inner#1"]
    # Without a tape of its own, call #1's gamma and beta gradients took in call #0's as well.
    assert_local_gradients(r)


def test_layers_in_inference_mode_are_frozen_problems(tmp_path, run_cli):
    x, y = models.batch()
    r = capture(models.keras3_frozen(), x, y, tmp_path / "cap")
    by_name = {l["name"]: l for l in r.manifest["layers"]}
    assert list(by_name) == ["bn_frozen", "bn_inference", "bn_live"]
    assert [l["is_training"] for l in by_name.values()] == [False, False, True]
    for l, path in zip(r.manifest["layers"], layer_files(r)):
        meta, inputs, _ = read_problem(path)
        assert meta["attrs"]["is_training"] is l["is_training"]
        if not l["is_training"]:
            # The moving statistics the layer normalized with, not the batch's.
            np.testing.assert_array_equal(inputs["reserve_space_1"], np.full(4, 0.5, np.float32))
            np.testing.assert_array_equal(inputs["reserve_space_2"], np.full(4, 3.0, np.float32))
    assert_local_gradients(r)
    s = run_cli("sweep", r.dir, "--backends", "cpu")
    assert s.returncode == 0, s.stdout + s.stderr


def skipped_reasons(result):
    return {s["name"]: s["reason"] for s in result.manifest["skipped"]}


def test_masked_input_is_skipped(tmp_path):
    model, x = models.keras3_masked()
    r = capture(model, x, models.batch()[1], tmp_path / "cap")
    assert [l["name"] for l in r.manifest["layers"]] == ["bn_plain"]
    assert "masked input" in skipped_reasons(r)["bn_masked"]


@pytest.mark.parametrize("framework,options,reason", [
    ("keras", {"renorm": True}, "batch renormalization"),
    ("tf_keras", {"renorm": True}, "batch renormalization"),
    ("tf_keras", {"virtual_batch_size": 2}, "virtual batches"),
])
def test_variants_no_op_computes_are_skipped(tmp_path, framework, options, reason):
    model = models.with_special_bn(
        framework, lambda L: L.BatchNormalization(name="bn_special", **options))
    x, y = models.batch()
    r = capture(model, x, y, tmp_path / "cap")
    assert [l["name"] for l in r.manifest["layers"]] == ["bn_plain"]
    assert reason in skipped_reasons(r)["bn_special"]


def test_tf_keras_sync_batch_normalization(tmp_path):
    model = models.with_special_bn(
        "tf_keras", lambda L: L.experimental.SyncBatchNormalization(name="bn_sync"))
    x, y = models.batch()
    r = capture(model, x, y, tmp_path / "cap")
    # One replica: the batch's own statistics, through TensorFlow's autodiff.
    assert [(l["name"], l["captured"]) for l in r.manifest["layers"]] == [
        ("bn_sync", "keras_autodiff"), ("bn_plain", "fused_op")]
    assert_local_gradients(r)


def test_keras3_h5_from_the_command_line(tmp_path):
    from bnscope_capture.cli import main

    path = tmp_path / "m.h5"
    models.keras3_cnn().save(path)
    x, y = models.batch()
    np.savez(tmp_path / "batch.npz", x=x, y=y)
    out = tmp_path / "cap"
    assert main(["--model", str(path), "--batch", str(tmp_path / "batch.npz"), "--out",
                 str(out)]) == 0
    m = json.load(open(out / "manifest.json"))
    assert m["keras"].startswith("3.")
    assert [l["name"] for l in m["layers"]] == ["bn_nhwc", "bn_nchw", "bn_nhwc_f16"]


def test_shared_fused_layer_named_in_call_order(tmp_path):
    x, y = models.batch()
    model = models.tf_keras_shared()
    r = capture(model, x, y, tmp_path / "cap")
    assert [l["name"] for l in r.manifest["layers"]] == ["bn_shared#0", "bn_shared#1"]
    # Call #0 normalizes conv_a's output.
    conv_a = model.get_layer("conv_a")
    with tf.device("/CPU:0"):
        first = conv_a(tf.constant(x)).numpy()
    _, inputs, _ = read_problem(layer_files(r)[0])
    np.testing.assert_allclose(inputs["x"], first, rtol=1e-5, atol=1e-6)


def test_float64_layer_keeps_float64_data(tmp_path):
    import keras

    L = keras.layers
    keras.utils.set_random_seed(8)
    inp = keras.Input((models.SIZE, models.SIZE, models.CHANNELS), dtype="float64")
    h = L.Conv2D(4, 3, padding="same", dtype="float64")(inp)
    h = L.GlobalAveragePooling2D(dtype="float64")(L.BatchNormalization(name="bn64",
                                                                      dtype="float64")(h))
    model = keras.Model(inp, L.Dense(1, dtype="float64")(h), name="f64")
    model.compile(loss="mse")
    x = models.batch()[0].astype(np.float64)
    r = capture(model, x, np.ones((models.BATCH, 1)), tmp_path / "cap")
    l = r.manifest["layers"][0]
    assert l["dtypes"]["x"] == l["dtypes"]["y_backprop"] == l["dtypes"]["out_x_backprop"] == \
        "float64"
    # The op's U is float32: what TensorFlow ran in float64 is said.
    assert l["dtypes"]["scale"] == "float32"
    assert l["float32_by_the_op"]["ran_in"] == {
        "scale": "float64", "reserve_space_1": "float64", "reserve_space_2": "float64"}
