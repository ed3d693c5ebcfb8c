#!/usr/bin/env python3
"""Writes the golden cases under tests/golden/data from real TensorFlow (tensorflow-cpu).

Run from anywhere: python3 tests/golden/make_golden.py
It creates .golden-venv at the repository root when needed, installs tensorflow-cpu and numpy
into it, then runs the generator twice in fresh processes, once with TF_ENABLE_ONEDNN_OPTS=0
(Eigen kernels, the stored contract) and once with oneDNN on, and reports where the two differ.
Findings about TensorFlow's behaviour (the spec's UNCONFIRMED items) go to findings.json.

Case format (one .npz per case, written uncompressed so any zip reader can open it):
  <input>.npy      every input by its TensorFlow argument name
  out_<name>.npy   every output TensorFlow defines (uninitialized ones are left out)
  case.json        op, attrs, dtype, member dtypes, TensorFlow version, oneDNN flag and, for
                   cases TensorFlow refuses, expected_error instead of outputs
numpy has no bfloat16: bfloat16 tensors are stored as float32 holding exact bfloat16 values, and
case.json's "member_dtypes" gives each member's TensorFlow dtype.
"""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(ROOT, ".golden-venv")
DATA = os.path.join(HERE, "data")
FINDINGS = os.path.join(HERE, "findings.json")

EPS = 0.001
# TensorFlow's own test shapes (nn_fused_batchnorm_test.py), written in NHWC / NDHWC order.
SHAPES_4D = [(1, 1, 6, 1), (1, 1, 6, 2), (1, 2, 1, 6), (5, 7, 11, 4), (1, 1, 1, 1), (0, 7, 11, 4)]
SHAPE_5D = (1, 2, 6, 1, 3)


# ----------------------------------------------------------------------------- driver


def venv_python():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    probe = subprocess.run([py, "-c", "import tensorflow, numpy"], capture_output=True,
                           env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    if probe.returncode != 0:
        subprocess.check_call([py, "-m", "pip", "install", "-q", "tensorflow-cpu", "numpy"])
    return py


def fixed_entry(name):
    """A zip entry with a fixed timestamp, so regenerating unchanged cases changes no bytes."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    return info


def read_case(path):
    with zipfile.ZipFile(path) as z:
        meta = json.loads(z.read("case.json"))
        arrays = {}
        for n in z.namelist():
            if n.endswith(".npy"):
                import numpy as np

                arrays[n[:-4]] = np.load(io.BytesIO(z.read(n)))
    return meta, arrays


def compare_runs(eigen_dir, onednn_dir):
    """Returns one line per case where oneDNN's result differs from Eigen's."""
    import numpy as np

    diffs = []
    for name in sorted(os.listdir(eigen_dir)):
        if not name.endswith(".npz"):
            continue
        other = os.path.join(onednn_dir, name)
        if not os.path.exists(other):
            diffs.append(f"{name}: missing with oneDNN")
            continue
        ma, a = read_case(os.path.join(eigen_dir, name))
        mb, b = read_case(other)
        if ma.get("expected_error") != mb.get("expected_error"):
            diffs.append(f"{name}: error {ma.get('expected_error')!r} vs "
                         f"{mb.get('expected_error')!r}")
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                diffs.append(f"{name}: {k} only in {'Eigen' if k in a else 'oneDNN'}")
                continue
            if a[k].shape != b[k].shape:
                diffs.append(f"{name}: {k} shape {a[k].shape} vs {b[k].shape}")
                continue
            if a[k].size == 0:
                continue
            x, y = a[k].astype(np.float64), b[k].astype(np.float64)
            both_nan = np.isnan(x) & np.isnan(y)
            d = np.where(both_nan, 0.0, np.abs(x - y))
            if np.any(np.isnan(d)) or np.max(d) > 0:
                rel = float(np.nanmax(d / np.maximum(1.0, np.abs(x))))
                diffs.append(f"{name}: {k} max rel diff {rel:.3g}")
    return diffs


def driver():
    py = venv_python()
    if os.path.realpath(sys.prefix) != os.path.realpath(VENV):
        os.execv(py, [py, os.path.abspath(__file__)])  # the comparison needs numpy
    tmp = tempfile.mkdtemp(prefix="golden-")
    try:
        runs = {}
        for flag in ("0", "1"):
            out = os.path.join(tmp, "onednn" + flag)
            os.makedirs(out)
            env = dict(os.environ, TF_ENABLE_ONEDNN_OPTS=flag, TF_CPP_MIN_LOG_LEVEL="2")
            subprocess.check_call([py, os.path.abspath(__file__), "--worker", out], env=env)
            with open(os.path.join(out, "findings.json")) as f:
                runs[flag] = json.load(f)
        diffs = compare_runs(os.path.join(tmp, "onednn0"), os.path.join(tmp, "onednn1"))
        shutil.rmtree(DATA, ignore_errors=True)
        os.makedirs(DATA)
        src = os.path.join(tmp, "onednn0")
        for name in sorted(os.listdir(src)):
            if name.endswith(".npz"):
                shutil.copy(os.path.join(src, name), os.path.join(DATA, name))
        findings = {"stored": "TF_ENABLE_ONEDNN_OPTS=0", "eigen": runs["0"], "onednn": runs["1"],
                    "onednn_vs_eigen_differences": diffs}
        with open(FINDINGS, "w") as f:
            json.dump(findings, f, indent=1, sort_keys=True)
            f.write("\n")
        total = sum(os.path.getsize(os.path.join(DATA, n)) for n in os.listdir(DATA))
        print(f"{len(os.listdir(DATA))} cases, {total / 1e6:.2f} MB in {DATA}")
        print(f"{len(diffs)} differences between oneDNN and Eigen; see {FINDINGS}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------- worker


def worker(out_dir):
    import numpy as np
    import tensorflow as tf

    raw = tf.raw_ops
    onednn = os.environ.get("TF_ENABLE_ONEDNN_OPTS", "")
    findings = {"tf_version": tf.__version__, "numpy_version": np.__version__,
                "TF_ENABLE_ONEDNN_OPTS": onednn}
    tf_dtypes = {"float32": tf.float32, "float16": tf.float16, "bfloat16": tf.bfloat16}

    def kernel_message(e):
        """The kernel's own text, without eager mode's function-node prefix and op suffix."""
        msg = e.message if hasattr(e, "message") else str(e)
        msg = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", msg)
        msg = re.sub(r"\s*\[Op:[^\]]*\]( name: \S*)?\s*$", "", msg)
        msg = msg.split("\n\t; NodeDef:")[0]  # the framework's dump of the op definition
        return msg.strip()

    def to_numpy(t):
        """bfloat16 becomes float32 (exact); everything else keeps its dtype."""
        if t.dtype == tf.bfloat16:
            t = tf.cast(t, tf.float32)
        return t.numpy()

    def write_case(name, op, attrs, dtype, inputs, input_dtypes, outputs=None, error=None,
                   extra=None):
        members = {}
        member_dtypes = {}
        for k, v in inputs.items():
            members[k] = v
            member_dtypes[k] = input_dtypes[k]
        for k, (v, d) in (outputs or {}).items():
            members["out_" + k] = v
            member_dtypes["out_" + k] = d
        meta = {"op": op, "attrs": attrs, "dtype": dtype, "member_dtypes": member_dtypes,
                "tf_version": tf.__version__, "TF_ENABLE_ONEDNN_OPTS": onednn,
                "device": "CPU", "mode": "eager, tf.raw_ops"}
        if error is not None:
            meta.update(error)
        if extra:
            meta.update(extra)
        path = os.path.join(out_dir, name + ".npz")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
            for k, v in members.items():
                buf = io.BytesIO()
                np.lib.format.write_array(buf, np.asarray(v, order="C"), allow_pickle=False)
                z.writestr(fixed_entry(k + ".npy"), buf.getvalue())
            z.writestr(fixed_entry("case.json"), json.dumps(meta, indent=1, sort_keys=True))

    def run_op(op, attrs, inputs, in_dtypes):
        """Calls tf.raw_ops.<op>; returns (list of output tensors, None) or (None, error dict)."""
        tensors = {k: tf.constant(v, dtype=tf_dtypes[in_dtypes[k]]) for k, v in inputs.items()}
        try:
            outs = getattr(raw, op)(**tensors, **attrs)
            return list(outs) if isinstance(outs, (list, tuple)) else [outs], None
        except (tf.errors.OpError, TypeError, ValueError) as e:
            return None, {"expected_error": kernel_message(e), "tf_error_full": str(e),
                          "tf_error_type": type(e).__name__}

    def rng(seed=1):
        return np.random.RandomState(seed)

    def to_format(a, fmt):
        """a is NHWC / NDHWC; moves channels to axis 1 for NCHW / NCDHW."""
        if fmt in ("NCHW", "NCDHW"):
            return np.moveaxis(a, -1, 1).copy()
        return a

    def t_values(a, dtype):
        """Rounds float data to dtype so that the stored value is exactly what TensorFlow saw."""
        if dtype == "float16":
            return a.astype(np.float16)
        if dtype == "bfloat16":
            return tf.cast(tf.cast(a, tf.bfloat16), tf.float32).numpy()
        return a.astype(np.float32)

    def shape_tag(s):
        return "x".join(str(d) for d in s)

    def forward_names(version):
        names = ["y", "batch_mean", "batch_variance", "reserve_space_1", "reserve_space_2"]
        return names + (["reserve_space_3"] if version == 3 else [])

    def grad_names(version):
        tail = ["reserve_space_4", "reserve_space_5"] if version == 3 else \
            ["reserve_space_3", "reserve_space_4"]
        return ["x_backprop", "scale_backprop", "offset_backprop"] + tail

    def op_name(grad, version):
        base = "FusedBatchNormGrad" if grad else "FusedBatchNorm"
        return base + ("" if version == 1 else f"V{version}")

    def stat_dtype(version, dtype):
        return dtype if version == 1 else "float32"

    # ---- dtype registration on CPU (spec 2.1 / 3.1 kernel tables)
    registered = {}
    for version in (1, 2, 3):
        for grad in (False, True):
            op = op_name(grad, version)
            for dtype in ("float32", "float16", "bfloat16"):
                u = stat_dtype(version, dtype)
                c = np.ones([2], np.float32)
                x = np.ones([1, 1, 2, 2], np.float32)
                if grad:
                    ins = {"y_backprop": x, "x": x, "scale": c, "reserve_space_1": c,
                           "reserve_space_2": c}
                    dts = {"y_backprop": dtype, "x": dtype, "scale": u, "reserve_space_1": u,
                           "reserve_space_2": u}
                    if version == 3:
                        ins["reserve_space_3"] = np.zeros([], np.float32)
                        dts["reserve_space_3"] = "float32"
                else:
                    ins = {"x": x, "scale": c, "offset": c, "mean": c, "variance": c}
                    dts = {"x": dtype, "scale": u, "offset": u, "mean": u, "variance": u}
                _, err = run_op(op, {"epsilon": EPS, "is_training": True}, ins, dts)
                registered[(op, dtype)] = err is None
                findings.setdefault("cpu_kernel_dtypes", {})[f"{op} {dtype}"] = \
                    "runs" if err is None else err["tf_error_type"] + ": " + err["expected_error"]

    # ---- forward cases
    def forward_case(version, fmt, mode, dtype, shape):
        op = op_name(False, version)
        u = stat_dtype(version, dtype)
        r = rng()
        c = shape[-1]
        x = t_values(to_format(r.random_sample(shape).astype(np.float32), fmt), dtype)
        scale = r.random_sample([c]).astype(np.float32)
        offset = r.random_sample([c]).astype(np.float32)
        mean = r.random_sample([c]).astype(np.float32)
        var = r.random_sample([c]).astype(np.float32)
        stats = {k: t_values(v, u) for k, v in
                 dict(scale=scale, offset=offset, mean=mean, variance=var).items()}
        inputs = dict(x=x, **stats)
        dts = {"x": dtype, "scale": u, "offset": u, "mean": u, "variance": u}
        training = mode != "infer"
        factor = 0.6 if mode == "train_avg0.6" else 1.0
        attrs = {"epsilon": EPS, "data_format": fmt, "is_training": training,
                 "exponential_avg_factor": factor}
        outs, err = run_op(op, attrs, inputs, dts)
        name = f"{op}__{fmt}__{mode}__{dtype}__{shape_tag(shape)}"
        outputs = {}
        if outs is not None:
            names = forward_names(version)
            empty = x.size == 0
            for n, t in zip(names, outs):
                # Spec 9.3: never written by the CPU kernel, so not data.
                if n in ("reserve_space_1", "reserve_space_2") and (not training or empty):
                    continue
                outputs[n] = (to_numpy(t), dtype if n == "y" or version == 1 else "float32")
        write_case(name, op, attrs, dtype, inputs, dts, outputs, err,
                   {"shape_nhwc": list(shape)})
        return outs, inputs, err

    # ---- grad cases
    def grad_case(version, fmt, training, dtype, shape):
        op = op_name(True, version)
        u = stat_dtype(version, dtype)
        r = rng()
        c = shape[-1]
        x = t_values(to_format(r.random_sample(shape).astype(np.float32), fmt), dtype)
        dy = t_values(to_format((r.random_sample(shape) * 2 - 1).astype(np.float32), fmt), dtype)
        scale = t_values(r.random_sample([c]).astype(np.float32), u)
        pop_mean = t_values(r.random_sample([c]).astype(np.float32), u)
        pop_var = t_values(r.random_sample([c]).astype(np.float32), u)
        inputs = {"y_backprop": dy, "x": x, "scale": scale}
        dts = {"y_backprop": dtype, "x": dtype, "scale": u, "reserve_space_1": u,
               "reserve_space_2": u}
        fwd_op = op_name(False, version)
        if training:
            # The CPU forward op on the same x provides the reserve spaces (CPU convention).
            fwd, err = run_op(fwd_op, {"epsilon": EPS, "data_format": fmt, "is_training": True},
                              {"x": x, "scale": scale, "offset": np.zeros([c], np.float32),
                               "mean": pop_mean, "variance": pop_var},
                              {"x": dtype, "scale": u, "offset": u, "mean": u, "variance": u})
            assert err is None, err
            # An empty x leaves them uninitialized (spec 9.3); zeros keep the file deterministic.
            keep = x.size != 0
            inputs["reserve_space_1"] = to_numpy(fwd[3]) if keep else np.zeros([c], np.float32)
            inputs["reserve_space_2"] = to_numpy(fwd[4]) if keep else np.zeros([c], np.float32)
            if version == 3:
                inputs["reserve_space_3"] = to_numpy(fwd[5])
        else:
            # Freeze mode takes the population statistics, i.e. the forward's inputs 3 and 4.
            inputs["reserve_space_1"] = pop_mean
            inputs["reserve_space_2"] = pop_var
            if version == 3:
                inputs["reserve_space_3"] = np.zeros([], np.float32)
        if version == 3:
            dts["reserve_space_3"] = "float32"
        attrs = {"epsilon": EPS, "data_format": fmt, "is_training": training}
        outs, err = run_op(op, attrs, inputs, dts)
        mode = "train" if training else "infer"
        name = f"{op}__{fmt}__{mode}__{dtype}__{shape_tag(shape)}"
        outputs = {}
        if outs is not None:
            for n, t in zip(grad_names(version), outs):
                out_dtype = dtype if n == "x_backprop" or version == 1 else "float32"
                outputs[n] = (to_numpy(t), out_dtype)
        write_case(name, op, attrs, dtype, inputs, dts, outputs, err,
                   {"shape_nhwc": list(shape), "reserve_source":
                    f"{fwd_op} outputs 3-5 on the same x" if training else
                    "population mean/variance (the forward's inputs 3 and 4)"})
        return outs, err

    dtypes = ("float32", "float16", "bfloat16")
    for version in (1, 2, 3):
        variants = [(f, s) for f in ("NHWC", "NCHW") for s in SHAPES_4D]
        if version == 3:
            variants += [(f, SHAPE_5D) for f in ("NDHWC", "NCDHW")]
        for dtype in dtypes:
            if not registered[(op_name(False, version), dtype)]:
                continue
            for fmt, shape in variants:
                for mode in ("train", "train_avg0.6", "infer"):
                    forward_case(version, fmt, mode, dtype, shape)
        for dtype in dtypes:
            if not registered[(op_name(True, version), dtype)]:
                continue
            for fmt, shape in variants:
                for training in (True, False):
                    grad_case(version, fmt, training, dtype, shape)

    # ---- confirmations of spec items
    # reserve_space_3 of a CPU forward (spec 1.3) and uninitialized reserve spaces (spec 9.3).
    x = np.random.RandomState(2).random_sample([2, 3, 3, 4]).astype(np.float32)
    c4 = np.full([4], 0.5, np.float32)
    outs, _ = run_op("FusedBatchNormV3", {"epsilon": EPS, "is_training": True},
                     dict(x=x, scale=c4, offset=c4, mean=c4, variance=c4),
                     dict(x="float32", scale="float32", offset="float32", mean="float32",
                          variance="float32"))
    findings["v3_training_reserve_space_3"] = {"shape": list(outs[5].shape),
                                               "value": outs[5].numpy().tolist()}
    mom = x.reshape(-1, 4)
    findings["cpu_training_reserve_space_2_is_biased_variance"] = bool(np.allclose(
        outs[4].numpy(), mom.var(axis=0), rtol=1e-5))
    findings["cpu_training_batch_variance_is_bessel_corrected"] = bool(np.allclose(
        outs[2].numpy(), mom.var(axis=0, ddof=1), rtol=1e-5))
    seen = []
    for trial in range(3):
        outs, _ = run_op("FusedBatchNormV3", {"epsilon": EPS, "is_training": False},
                         dict(x=x, scale=c4, offset=c4, mean=c4 * (trial + 1), variance=c4),
                         dict(x="float32", scale="float32", offset="float32", mean="float32",
                              variance="float32"))
        seen.append({"reserve_space_1": outs[3].numpy().tolist(),
                     "reserve_space_2": outs[4].numpy().tolist(),
                     "reserve_space_3": outs[5].numpy().tolist(),
                     "reserve_space_3_shape": list(outs[5].shape)})
    findings["inference_reserve_spaces_observed"] = seen
    outs, _ = run_op("FusedBatchNormV3", {"epsilon": EPS, "is_training": True},
                     dict(x=np.zeros([0, 2, 2, 4], np.float32), scale=c4, offset=c4, mean=c4,
                          variance=c4),
                     dict(x="float32", scale="float32", offset="float32", mean="float32",
                          variance="float32"))
    findings["empty_training_forward_observed"] = {
        n: outs[i].numpy().tolist() for i, n in enumerate(forward_names(3)) if i > 0}

    # Eager mode goes by rank, not by the 2-D/3-D format name (spec 1.2); reserve_space_3 is
    # never validated (spec 3.2 step 6).
    r = rng()
    x5 = r.random_sample([1, 2, 6, 1, 3]).astype(np.float32)
    dy5 = (r.random_sample([1, 2, 6, 1, 3]) * 2 - 1).astype(np.float32)
    sc = r.random_sample([3]).astype(np.float32)
    f32 = "float32"
    fwd, _ = run_op("FusedBatchNormV3", {"epsilon": EPS, "data_format": "NDHWC",
                                         "is_training": True},
                    dict(x=x5, scale=sc, offset=sc, mean=sc, variance=sc),
                    dict(x=f32, scale=f32, offset=f32, mean=f32, variance=f32))
    misc = [("rank5_with_NHWC", "NHWC", x5, dy5, fwd[5].numpy()),
            ("rank4_with_NDHWC", "NDHWC", x5.reshape(1, 2, 6, 3), dy5.reshape(1, 2, 6, 3),
             fwd[5].numpy()),
            ("reserve_space_3_unvalidated", "NDHWC", x5, dy5,
             np.arange(7, dtype=np.float32))]
    for tag, fmt, xx, dyy, rs3 in misc:
        ins = {"y_backprop": dyy, "x": xx, "scale": sc, "reserve_space_1": fwd[3].numpy(),
               "reserve_space_2": fwd[4].numpy(), "reserve_space_3": rs3}
        dts = {k: f32 for k in ins}
        attrs = {"epsilon": EPS, "data_format": fmt, "is_training": True}
        outs, err = run_op("FusedBatchNormGradV3", attrs, ins, dts)
        outputs = {} if outs is None else {
            n: (o.numpy(), f32) for n, o in zip(grad_names(3), outs)}
        write_case(f"FusedBatchNormGradV3__{fmt}__train__float32__{tag}", "FusedBatchNormGradV3",
                   attrs, f32, ins, dts, outputs, err, {"note": tag})
        findings[f"eager_{tag}"] = "runs" if err is None else err["expected_error"]

    # ---- TensorFlow's kernel-level C++ tests (spec 8.1), run through the raw ops
    ones = lambda *s: np.ones(s, np.float32)  # noqa: E731
    def tfcc_case(tag, op, attrs, ins, names, skip=()):
        dts = {k: f32 for k in ins}
        outs, err = run_op(op, attrs, ins, dts)
        assert err is None, err
        outputs = {n: (o.numpy(), f32) for n, o in zip(names, outs) if n not in skip}
        fmt = attrs["data_format"]
        mode = "train" if attrs["is_training"] else "infer"
        write_case(f"{op}__{fmt}__{mode}__float32__tfcc_{tag}", op, attrs, f32, ins, dts, outputs,
                   None, {"note": "TensorFlow's fused_batch_norm_op_test.cc inputs (spec 8.1)"})
        findings[f"tfcc_{tag}_{mode}"] = {n: np.round(v[0].reshape(-1), 5).tolist()
                                   for n, v in outputs.items()}

    x81 = np.array([5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15], np.float32).reshape(1, 1, 6, 2)
    two = lambda a: np.array([a, a], np.float32)  # noqa: E731
    fb = {"epsilon": EPS, "data_format": "NHWC", "is_training": True,
          "exponential_avg_factor": 1.0}
    tfcc_case("training", "FusedBatchNorm", fb,
              dict(x=x81, scale=two(4), offset=two(2), mean=ones(0), variance=ones(0)),
              forward_names(1))
    tfcc_case("running_mean", "FusedBatchNorm", dict(fb, exponential_avg_factor=0.5),
              dict(x=x81, scale=two(4), offset=two(2), mean=two(6), variance=two(16)),
              forward_names(1))
    tfcc_case("inference_avg_factor", "FusedBatchNorm",
              dict(fb, is_training=False, exponential_avg_factor=0.5),
              dict(x=x81, scale=two(4), offset=two(2), mean=two(10), variance=two(11.67)),
              forward_names(1), skip=("reserve_space_1", "reserve_space_2"))
    tfcc_case("empty_input", "FusedBatchNorm", fb,
              dict(x=ones(1, 1, 0, 0), scale=ones(0), offset=ones(0), mean=ones(0),
                   variance=ones(0)),
              forward_names(1), skip=("reserve_space_1", "reserve_space_2"))
    dy86 = np.array([2, 2, 9, 9, -4, -4, 5, 5, 8, 8, 7, 7], np.float32).reshape(1, 1, 6, 2)
    x86 = np.array([1, 1, 7, 7, 4, 4, -3, -3, -11, -11, 13, 13], np.float32).reshape(1, 1, 6, 2)
    for training in (True, False):
        tfcc_case("grad_simple", "FusedBatchNormGrad",
                  {"epsilon": EPS, "data_format": "NHWC", "is_training": training},
                  dict(y_backprop=dy86, x=x86, scale=two(4), reserve_space_1=two(1.833),
                       reserve_space_2=two(57.472)), grad_names(1))

    # ---- validation errors (spec 3.2, 5, 8.2 and CVE-2021-41223), recorded as cases
    def error_case(tag, op, attrs, ins, dts, dtype="float32"):
        outs, err = run_op(op, attrs, ins, dts)
        if err is None:
            findings[f"error_{tag}"] = "TensorFlow accepted it"
            return
        write_case(f"{op}__error__{tag}", op, attrs, dtype, ins, dts, None, err)
        findings[f"error_{tag}"] = err["tf_error_type"] + ": " + err["expected_error"]

    g = {"epsilon": EPS, "data_format": "NHWC", "is_training": True}
    grad_dts = dict(y_backprop=f32, x=f32, scale=f32, reserve_space_1=f32, reserve_space_2=f32)
    grad_ok = dict(y_backprop=ones(2, 2, 2, 2), x=ones(2, 2, 2, 2), scale=ones(2),
                   reserve_space_1=ones(2), reserve_space_2=ones(2))
    for tag, k, v in [("dy_shape", "y_backprop", ones(2, 2, 2, 3)),
                      ("scale_count", "scale", ones(3)),
                      ("rs1_count", "reserve_space_1", ones(3)),
                      ("rs2_count", "reserve_space_2", ones(3)),
                      ("x_rank3", "x", ones(2, 2, 2)), ("dy_rank3", "y_backprop", ones(2, 2, 2)),
                      ("scale_rank2", "scale", ones(2, 1)),
                      ("rs1_rank2", "reserve_space_1", ones(2, 1)),
                      ("rs2_rank0", "reserve_space_2", np.ones([], np.float32))]:
        error_case(tag, "FusedBatchNormGradV2", g, dict(grad_ok, **{k: v}), grad_dts)
    # CVE-2021-41223's reproducer.
    error_case("cve_2021_41223", "FusedBatchNormGrad",
               {"epsilon": 1.0, "data_format": "NCHW", "is_training": True},
               dict(y_backprop=ones(1, 1, 3, 3), x=ones(1, 1, 1, 2), scale=ones(2),
                    reserve_space_1=ones(2), reserve_space_2=ones(3)), grad_dts)
    error_case("format_NDHWC_on_V2", "FusedBatchNormGradV2", dict(g, data_format="NDHWC"),
               grad_ok, grad_dts)

    fwd_dts = dict(x=f32, scale=f32, offset=f32, mean=f32, variance=f32)
    fwd_ok = dict(x=ones(2, 2, 2, 2), scale=ones(2), offset=ones(2), mean=ones(2),
                  variance=ones(2))
    f_train = {"epsilon": EPS, "data_format": "NHWC", "is_training": True,
               "exponential_avg_factor": 1.0}
    f_infer = dict(f_train, is_training=False)
    f_avg = dict(f_train, exponential_avg_factor=0.5)
    for tag, attrs, k, v in [("scale_count", f_train, "scale", ones(3)),
                             ("offset_count", f_train, "offset", ones(3)),
                             ("mean_empty_infer", f_infer, "mean", ones(0)),
                             ("variance_empty_infer", f_infer, "variance", ones(0)),
                             ("mean_empty_avg", f_avg, "mean", ones(0)),
                             ("variance_empty_avg", f_avg, "variance", ones(0)),
                             ("x_rank3", f_train, "x", ones(2, 2, 2)),
                             ("offset_rank2", f_train, "offset", ones(2, 1)),
                             ("mean_scalar_train", f_train, "mean", np.ones([], np.float32))]:
        error_case(tag, "FusedBatchNormV3", attrs, dict(fwd_ok, **{k: v}), fwd_dts)

    # ---- the deprecated global-normalization ops (spec 2.2, 3.7)
    t = np.array([1, 4, 2, 5, 3, 6, -1, -4, -2, -5, -3, -6], np.float32).reshape(1, 1, 6, 2)
    gl_attrs = {"variance_epsilon": EPS, "scale_after_normalization": False}
    m, v = np.array([10, 20], np.float32), np.array([0.25, 0.5], np.float32)
    gamma, beta = np.array([2, 3], np.float32), np.array([0.1, 0.6], np.float32)
    backprop = np.array([1, -1, 2, -2, 3, -3, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5],
                        np.float32).reshape(1, 1, 6, 2)
    for op, ins, names in [
            ("BatchNormWithGlobalNormalization", dict(t=t, m=m, v=v, beta=beta, gamma=gamma),
             ["result"]),
            ("BatchNormWithGlobalNormalizationGrad",
             dict(t=t, m=m, v=v, gamma=gamma, backprop=backprop),
             ["dx", "dm", "dv", "db", "dg"])]:
        dts = {k: f32 for k in ins}
        outs, err = run_op(op, gl_attrs, ins, dts)
        findings[f"eager_{op}"] = "runs" if err is None else \
            err["tf_error_type"] + ": " + err["expected_error"]
        outputs = {} if outs is None else {n: (o.numpy(), f32) for n, o in zip(names, outs)}
        extra = None
        if err is not None:
            # The GraphDef version TensorFlow names is its own producer version; bnscope has
            # no graph, so the test matches the version-independent parts.
            parts = re.split(r"(?<=GraphDef version) \d+", err["expected_error"])
            extra = {"expected_error_parts": [p.strip() for p in parts if p.strip()]}
        write_case(f"{op}__NHWC__infer__float32__1x1x6x2", op, gl_attrs, f32, ins, dts, outputs,
                   err, extra)

    with open(os.path.join(out_dir, "findings.json"), "w") as f:
        json.dump(findings, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
    else:
        driver()
