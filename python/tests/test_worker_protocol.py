"""The worker's side of the protocol, driven as bnscope drives it: framed JSON on two pipes,
tensors in shared-memory segments named by path, and inputs it already holds named by version
only (not sent again)."""

import json
import mmap
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


class Worker:
    def __init__(self, *argv, env=None):
        self.req_r, self.req_w = os.pipe()
        self.rep_r, self.rep_w = os.pipe()
        env = dict(os.environ, **(env or {}), BNSCOPE_IPC_IN=str(self.req_r),
                   BNSCOPE_IPC_OUT=str(self.rep_w), PYTHONPATH=PYTHON_DIR)
        self.proc = subprocess.Popen([sys.executable, "-m", "bnscope_worker", *argv], env=env,
                                     pass_fds=(self.req_r, self.rep_w), stderr=subprocess.PIPE)
        os.close(self.req_r)
        os.close(self.rep_w)

    def ask(self, msg):
        body = json.dumps(msg).encode()
        os.write(self.req_w, struct.pack("<I", len(body)) + body)
        n = struct.unpack("<I", self._read(4))[0]
        return json.loads(self._read(n))

    def _read(self, n):
        out = b""
        while len(out) < n:
            chunk = os.read(self.rep_r, n - len(out))
            assert chunk, "worker closed its channel"
            out += chunk
        return out

    def close(self):
        os.close(self.req_w)  # end of input: the worker leaves
        assert self.proc.wait(timeout=30) == 0
        os.close(self.rep_r)


class Segment:
    count = 0

    def __init__(self, array):
        Segment.count += 1
        self.id = Segment.count
        self.fd = os.memfd_create(f"test-{self.id}")
        self.size = max(array.nbytes, 1)
        os.ftruncate(self.fd, self.size)
        self.map = mmap.mmap(self.fd, self.size)
        self.array = np.frombuffer(self.map, dtype=array.dtype, count=array.size).reshape(
            array.shape)
        self.array[...] = array

    def describe(self, name, version, send=True):
        # bfloat16 is held as its 16 bits: dtype_name says what they are
        dtype = getattr(self, "dtype_name", str(self.array.dtype))
        d = {"name": name, "dtype": dtype, "shape": list(self.array.shape), "version": version}
        if send:
            d.update(seg=self.id, path=f"/proc/{os.getpid()}/fd/{self.fd}", bytes=self.size)
        return d


def test_held_inputs_are_named_by_version_only():
    rng = np.random.default_rng(5)
    n, h, w, c = 3, 4, 5, 6
    x = rng.standard_normal((n, h, w, c), dtype=np.float32)
    dy = rng.standard_normal((n, h, w, c), dtype=np.float32)
    scale = rng.standard_normal(c, dtype=np.float32)
    mean = x.mean(axis=(0, 1, 2), dtype=np.float64).astype(np.float32)
    inv = (1 / np.sqrt(x.var(axis=(0, 1, 2), dtype=np.float64) + 1e-3)).astype(np.float32)
    inputs = {"y_backprop": dy, "x": x, "scale": scale, "reserve_space_1": mean,
              "reserve_space_2": inv, "reserve_space_3": np.zeros(0, np.float32)}
    segs = {k: Segment(v) for k, v in inputs.items()}
    out = Segment(np.zeros_like(x))
    worker = Worker("torch", "cpu")
    try:
        hello = worker.ask({"cmd": "hello"})
        assert hello["ok"] and hello["version"] == torch.__version__
        request = {"cmd": "run", "op": "FusedBatchNormGradV3",
                   "attrs": {"epsilon": 1e-3, "data_format": "NHWC", "is_training": True},
                   "convention": "inv_std", "threads": 0,
                   "output_order": ["x_backprop", "scale_backprop", "offset_backprop",
                                    "reserve_space_4", "reserve_space_5"],
                   "outputs": [out.describe("x_backprop", 0)]}
        first = worker.ask(dict(request, inputs=[s.describe(k, 1) for k, s in segs.items()]))
        assert first["ok"], first
        t = {k: torch.from_numpy(v) for k, v in inputs.items()}
        gi, _, _ = torch.ops.aten.native_batch_norm_backward(
            t["y_backprop"].permute(0, 3, 1, 2), t["x"].permute(0, 3, 1, 2), t["scale"], None,
            None, t["reserve_space_1"], t["reserve_space_2"], True, 1e-3, [True, True, True])
        want = gi.permute(0, 2, 3, 1).contiguous().numpy()
        assert out.array.tobytes() == want.tobytes()

        out.array[...] = 0
        # The same inputs by version alone: the worker's own copies are used.
        again = worker.ask(dict(request,
                                inputs=[s.describe(k, 1, send=False) for k, s in segs.items()]))
        assert again["ok"], again
        assert out.array.tobytes() == want.tobytes()

        stale = worker.ask(dict(request,
                                inputs=[s.describe(k, 2, send=False) for k, s in segs.items()]))
        assert not stale["ok"] and "was never sent" in stale["error"]
    finally:
        worker.close()


def test_a_missing_framework_is_unavailable_at_hello():
    worker = Worker("no-such-framework", "cpu")
    try:
        r = worker.ask({"cmd": "hello"})
        assert not r["ok"] and "unknown framework" in r["unavailable"]
    finally:
        worker.close()


def grad_inputs(seed=5, shape=(8, 16, 16, 32)):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape, dtype=np.float32)
    c = shape[-1]
    return {"y_backprop": rng.standard_normal(shape, dtype=np.float32), "x": x,
            "scale": rng.standard_normal(c, dtype=np.float32),
            "reserve_space_1": x.mean(axis=(0, 1, 2), dtype=np.float64).astype(np.float32),
            "reserve_space_2": (1 / np.sqrt(x.var(axis=(0, 1, 2), dtype=np.float64) + 1e-3)
                                ).astype(np.float32),
            "reserve_space_3": np.zeros(0, np.float32)}


def aten_x_backprop(inputs):
    t = {k: torch.from_numpy(v) for k, v in inputs.items()}
    gi, _, _ = torch.ops.aten.native_batch_norm_backward(
        t["y_backprop"].permute(0, 3, 1, 2), t["x"].permute(0, 3, 1, 2), t["scale"], None, None,
        t["reserve_space_1"], t["reserve_space_2"], True, 1e-3, [True, True, True])
    return gi.permute(0, 2, 3, 1).contiguous().numpy().tobytes()


GRAD_REQUEST = {"cmd": "run", "op": "FusedBatchNormGradV3",
                "attrs": {"epsilon": 1e-3, "data_format": "NHWC", "is_training": True},
                "convention": "inv_std", "threads": 0,
                "output_order": ["x_backprop", "scale_backprop", "offset_backprop",
                                 "reserve_space_4", "reserve_space_5"]}


def test_segments_named_at_start_are_mapped_while_the_framework_imports():
    inputs = grad_inputs()
    # x's bytes are written only after the worker has mapped its segment, as bnscope may still
    # be writing while the worker maps: the run reads what is there when it is sent.
    segs = {k: Segment(np.zeros_like(v) if k == "x" else v) for k, v in inputs.items()}
    big = [segs["x"], segs["y_backprop"]]
    spec = ";".join(f"{s.id}:{s.size}:/proc/{os.getpid()}/fd/{s.fd}" for s in big)
    spec += f";999:4096:/nonexistent/segment"  # not there: left to the run, which never names it
    out = Segment(np.zeros_like(inputs["x"]))
    worker = Worker("torch", "cpu", env={"BNSCOPE_WORKER_PREFETCH": spec})
    try:
        hello = worker.ask({"cmd": "hello"})
        assert hello["ok"] and hello["prefetched"] == sorted(s.id for s in big)
        segs["x"].array[...] = inputs["x"]
        r = worker.ask(dict(GRAD_REQUEST, outputs=[out.describe("x_backprop", 0)],
                            inputs=[s.describe(k, 1) for k, s in segs.items()]))
        assert r["ok"], r
        assert out.array.tobytes() == aten_x_backprop(inputs)
    finally:
        worker.close()
