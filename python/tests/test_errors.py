"""Bad input: one clear line, exit status 2 from the command, and nothing left at --out."""

import os
import subprocess
import sys

import numpy as np
import pytest

import models
from bnscope_capture import CaptureError, capture


def assert_one_line(message, *parts):
    assert "\n" not in message.strip(), message
    for p in parts:
        assert p in message, message


def capture_fails(tmp_path, *parts, model=None, x=None, y=None, **kwargs):
    bx, by = models.batch()
    out = tmp_path / "cap"
    with pytest.raises(CaptureError) as e:
        capture(model if model is not None else models.keras3_cnn(),
                bx if x is None else x, by if y is None else y, out, **kwargs)
    assert_one_line(str(e.value), *parts)
    assert not out.exists()
    assert os.listdir(tmp_path) == [], "a partial capture was left behind"
    return str(e.value)


def test_model_without_batch_normalization(tmp_path):
    capture_fails(tmp_path, "no_bn", "no batch normalization", model=models.keras3_without_bn())


def test_batch_the_model_rejects(tmp_path):
    x = np.zeros((4, 5, 5, 7), np.float32)
    msg = capture_fails(tmp_path, "--batch", "rejects x of shape (4, 5, 5, 7)", x=x)
    assert len(msg) < 400


def test_loss_the_model_cannot_use(tmp_path):
    y = np.zeros((4, 3, 3), np.float32)
    capture_fails(tmp_path, "--loss mean_squared_error", "cannot be used", y=y,
                  loss="mean_squared_error")


def test_unknown_loss(tmp_path):
    capture_fails(tmp_path, "--loss no_such_loss", "not a Keras loss", loss="no_such_loss")


def test_uncompiled_model_needs_a_loss(tmp_path):
    import keras

    m = models.keras3_cnn()
    bare = keras.Model(m.inputs, m.outputs, name="bare")
    capture_fails(tmp_path, "not compiled", "--loss", model=bare)


def test_layers_matching_nothing(tmp_path):
    capture_fails(tmp_path, "--layers nothing", "bn_nhwc", layers="nothing")


def test_out_folder_not_empty(tmp_path):
    out = tmp_path / "cap"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    x, y = models.batch()
    with pytest.raises(CaptureError) as e:
        capture(models.keras3_cnn(), x, y, out)
    assert_one_line(str(e.value), "not empty")
    assert os.listdir(out) == ["keep.txt"]


def run_capture(*args):
    return subprocess.run([sys.executable, "-m", "bnscope_capture.cli", *map(str, args)],
                          capture_output=True, text=True)


def test_command_line_errors(tmp_path):
    model = tmp_path / "m.keras"
    models.keras3_cnn().save(model)
    x, y = models.batch()
    good = tmp_path / "batch.npz"
    np.savez(good, x=x, y=y)
    no_y = tmp_path / "no_y.npz"
    np.savez(no_y, x=x)
    extra = tmp_path / "extra.npz"
    np.savez(extra, x=x, y=y, w=y)
    single = tmp_path / "x.npy"
    np.save(single, x)
    out = tmp_path / "out"
    cases = [
        (["--model", tmp_path / "missing.keras", "--batch", good], "missing.keras"),
        (["--model", model, "--batch", tmp_path / "missing.npz"], "missing.npz: no such file"),
        (["--model", model, "--batch", no_y], "no member y"),
        (["--model", model, "--batch", extra], "unexpected member(s) w"),
        (["--model", model, "--batch", single], "a single array (.npy); expected an .npz"),
        (["--model", model, "--batch", good, "--device", "tpu"], "--device"),
    ]
    for args, part in cases:
        r = run_capture(*args, "--out", out)
        assert r.returncode == 2, (args, r.stderr)
        lines = [l for l in r.stderr.splitlines() if l.startswith("bnscope-capture:")]
        assert len(lines) == 1 and part in lines[0], r.stderr
        assert not out.exists()
    # The same files, well formed: a complete capture.
    r = run_capture("--model", model, "--batch", good, "--out", out)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(out))[-1] == "manifest.json"
    assert "wrote 3 layer(s)" in r.stdout


def test_inference_only_saved_model(tmp_path):
    model = tmp_path / "exported"
    models.keras3_cnn().export(str(model), verbose=False)
    x, y = models.batch()
    np.savez(tmp_path / "batch.npz", x=x, y=y)
    r = run_capture("--model", model, "--batch", tmp_path / "batch.npz", "--out", tmp_path / "o")
    assert r.returncode == 2, r.stderr
    lines = [l for l in r.stderr.splitlines() if l.startswith("bnscope-capture:")]
    assert len(lines) == 1 and "inference function only" in lines[0] and ".keras" in lines[0]


def test_graph_error_keeps_its_cause(tmp_path):
    import keras
    import tensorflow as tf

    L = keras.layers
    inp = keras.Input((models.SIZE, models.SIZE, models.CHANNELS))
    h = L.BatchNormalization(name="bn")(L.Conv2D(4, 3, name="conv")(inp))
    # A check that fails inside the training step's graph on every host. (A channels-first
    # convolution did so only where TensorFlow runs without oneDNN, whose kernels have one: it
    # turns oneDNN on by default on CPUs with AVX-512 VNNI or BF16, such as the Zen 5 EPYC.)
    h = L.Lambda(lambda t: tf.debugging.check_numerics(t, "activations hold a NaN"), name="check")(h)
    model = keras.Model(inp, L.Dense(models.CLASSES, activation="softmax")(L.Flatten()(h)),
                        name="nan")
    model.compile(loss="sparse_categorical_crossentropy")
    x = models.batch()[0].copy()
    x[0, 0, 0, 0] = np.nan
    # The graph error's cause, not its heading.
    msg = capture_fails(tmp_path, "the training step failed", "activations hold a NaN",
                        "Tensor had NaN values", model=model, x=x, device="cpu")
    assert "Graph execution error" not in msg


def test_multi_output_model(tmp_path):
    import keras

    m = models.keras3_cnn()
    two = keras.Model(m.inputs, [m.output, m.output * 2.0], name="two_out")
    two.compile(loss="mse")
    msg = capture_fails(tmp_path, "two_out", "2 outputs", "single-output", model=two, loss="mse")
    assert "'list' object" not in msg


def test_empty_batch(tmp_path):
    bx, by = models.batch()
    capture_fails(tmp_path, "--batch", "holds no sample", x=bx[:0], y=by[:0])


def test_all_nan_batch_is_captured_with_a_warning(tmp_path):
    bx, by = models.batch()
    r = capture(models.keras3_cnn(), np.full_like(bx, np.nan), by, tmp_path / "cap")
    assert any("all NaN" in w for w in r.manifest["warnings"]), r.manifest
