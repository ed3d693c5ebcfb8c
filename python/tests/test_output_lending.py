"""Output lending: the preloaded library hands a lent segment to the one allocation it is lent
to and to no other, and a worker that has it makes both frameworks' kernels write x_backprop
straight into bnscope's segment, with the same bytes as the framework's own call."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from test_worker_protocol import Segment, Worker, aten_x_backprop

MiB = 1 << 20

# Run with the library preloaded: libc's allocator entry points, as a framework calls them.
PRELUDE = textwrap.dedent("""
    import ctypes, json, mmap, sys
    sys.path.insert(0, sys.argv[1])
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    libc.malloc.argtypes = [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    libc.realloc.restype = ctypes.c_void_p
    libc.realloc.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.posix_memalign.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t,
                                    ctypes.c_size_t]
    libc.malloc_usable_size.restype = ctypes.c_size_t
    libc.malloc_usable_size.argtypes = [ctypes.c_void_p]
    libc.bnscope_lend.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.bnscope_lend_ordinal.argtypes = [ctypes.c_void_p]

    def aligned(n, align=64):
        p = ctypes.c_void_p()
        assert libc.posix_memalign(ctypes.byref(p), align, n) == 0
        return p.value

    SIZE = 3 << 20
    seg = mmap.mmap(-1, SIZE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(seg))
    out = {}
""")


def preloaded(lending_library, body):
    python_dir = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    r = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body) +
                        "\nprint(json.dumps(out))", python_dir],
                       env=dict(os.environ, LD_PRELOAD=lending_library),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_a_lent_block_goes_to_the_allocation_of_its_size_only(lending_library):
    out = preloaded(lending_library, """
        libc.bnscope_lend(base, SIZE, 0)
        other = libc.malloc(SIZE + 4096)   # another size: glibc's
        small = libc.malloc(64)
        taken = aligned(SIZE)              # the lent one
        second = aligned(SIZE)             # the block is taken: glibc's
        libc.bnscope_lend_end()
        out["other"] = other == base
        out["taken"] = taken == base
        out["second"] = second == base
        out["usable"] = libc.malloc_usable_size(taken)
        out["held"] = libc.bnscope_lent_held()
        libc.free(taken)                   # only marked returned: the mapping stays
        out["held_after_free"] = libc.bnscope_lent_held()
        seg[0:4] = b"live"                 # still this process's memory
        after = aligned(SIZE)              # the window is over: glibc's
        out["after_window"] = after == base
        for p in (other, small, second, after):
            libc.free(p)
    """)
    assert out == {"other": False, "taken": True, "second": False, "usable": 3 * MiB,
                   "held": 1, "held_after_free": 0, "after_window": False}


def test_the_allocation_named_by_its_ordinal_gets_the_block(lending_library):
    out = preloaded(lending_library, """
        libc.bnscope_lend(base, SIZE, 1)      # the second allocation of SIZE
        first = libc.malloc(SIZE)
        second = libc.malloc(SIZE)
        libc.bnscope_lend_end()
        out["first"] = first == base
        out["second"] = second == base
        out["ordinals"] = [libc.bnscope_lend_ordinal(first), libc.bnscope_lend_ordinal(second)]
        libc.free(first); libc.free(second)
    """)
    assert out == {"first": False, "second": True, "ordinals": [0, 1]}


def test_a_block_freed_inside_the_window_is_lent_again(lending_library):
    # A kernel's temporary of the output's size, freed before the output is allocated.
    out = preloaded(lending_library, """
        libc.bnscope_lend(base, SIZE, 0)
        temp = aligned(SIZE)
        libc.free(temp)
        output = aligned(SIZE)
        libc.bnscope_lend_end()
        out["temp"] = temp == base
        out["output"] = output == base
        libc.free(output)
    """)
    assert out == {"temp": True, "output": True}


def test_realloc_moves_a_lent_block_out_and_keeps_its_bytes(lending_library):
    out = preloaded(lending_library, """
        libc.bnscope_lend(base, SIZE, 0)
        p = libc.malloc(SIZE)
        libc.bnscope_lend_end()
        ctypes.memset(p, 7, SIZE)
        q = libc.realloc(p, SIZE * 2)
        out["moved"] = q != base
        out["bytes"] = ctypes.string_at(q + SIZE - 3, 3).hex()
        out["held"] = libc.bnscope_lent_held()
        libc.free(q)
    """)
    assert out == {"moved": True, "bytes": "070707", "held": 0}


def test_a_framework_that_keeps_a_lent_block_breaks_lending(lending_library):
    out = preloaded(lending_library, """
        import numpy as np
        from bnscope_worker.lending import Lending, LendingBroken
        view = np.frombuffer(seg, np.uint8)
        lending = Lending()
        with lending.window("k", [("x_backprop", view)]):
            temp = aligned(SIZE)
            libc.free(temp)
        lending.finish(0)                  # given back: fine
        with lending.window("k", [("x_backprop", view)]):
            kept = aligned(SIZE)           # a cache that outlives the call
        try:
            lending.finish(0)
            out["broken"] = ""
        except LendingBroken as e:
            out["broken"] = str(e)
    """)
    assert "kept 1 of the blocks lent for x_backprop" in out["broken"]


def test_an_output_in_another_outputs_segment_is_copied_out_first(lending_library):
    # Two outputs of one size, each allocated in the other's segment.
    out = preloaded(lending_library, """
        import numpy as np
        from bnscope_worker.lending import Lending
        other_map = mmap.mmap(-1, SIZE)
        a = np.frombuffer(seg, np.float32)
        b = np.frombuffer(other_map, np.float32)
        lending = Lending()
        with lending.window("k", [("a", a), ("b", b)]):
            pass
        value_of_a = b[:]                  # lies in b's segment
        value_of_a[:] = 1
        out["landed"] = lending.landed("k", "a", value_of_a)
        detached = lending.detached(value_of_a)
        out["copied"] = not np.shares_memory(detached, b)
        b[:] = 2                           # b's own output written into its segment
        out["kept"] = float(detached[0])
        out["own"] = lending.detached(np.ones(4, np.float32)).base is None
        lending.finish(0)
    """)
    assert out == {"landed": False, "copied": True, "kept": 1.0, "own": True}


def grad_problem(convention, shape=(8, 16, 16, 256)):
    """A 2 MiB training grad; reserve_space_2 in the framework's own convention (no conversion
    in the worker)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape, dtype=np.float32)
    dy = rng.standard_normal(shape, dtype=np.float32)
    var = x.var(axis=(0, 1, 2), dtype=np.float64)
    rs2 = var if convention == "variance" else 1 / np.sqrt(var + 1e-3)
    return {"y_backprop": dy, "x": x, "scale": rng.standard_normal(shape[-1], dtype=np.float32),
            "reserve_space_1": x.mean(axis=(0, 1, 2)).astype(np.float32),
            "reserve_space_2": rs2.astype(np.float32), "reserve_space_3": np.zeros(0, np.float32)}


def rerun_in_place(framework, variant, env, inputs, convention, dtype="float32"):
    """Four runs of the same request: the in_place list of each reply and x_backprop's bytes
    after each (the segment zeroed before every run). In half precision x and y_backprop are
    given in it (bfloat16 as its bits), the rest in float32."""
    segs = {k: Segment(v) for k, v in inputs.items()}
    for k in ("x", "y_backprop"):
        segs[k].dtype_name = dtype
    out = Segment(np.zeros_like(inputs["x"]))
    out.dtype_name = dtype
    worker = Worker(framework, variant, env=env)
    try:
        assert worker.ask({"cmd": "hello"})["ok"]
        request = {"cmd": "run", "op": "FusedBatchNormGradV3",
                   "attrs": {"epsilon": 1e-3, "data_format": "NHWC", "is_training": True},
                   "convention": convention, "threads": 0,
                   "output_order": ["x_backprop", "scale_backprop", "offset_backprop",
                                    "reserve_space_4", "reserve_space_5"],
                   "outputs": [out.describe("x_backprop", 0)]}
        placed, results = [], []
        for run in range(4):
            out.array[...] = 0
            r = worker.ask(dict(request, inputs=[s.describe(k, 1, send=run == 0)
                                                 for k, s in segs.items()]))
            assert r["ok"], r
            placed.append(r["in_place"])
            results.append(out.array.tobytes())
        return placed, results
    finally:
        worker.close()


def test_torch_writes_x_backprop_into_the_segment_on_a_rerun(lending_library):
    pytest.importorskip("torch")
    inputs = grad_problem("inv_std")
    placed, results = rerun_in_place("torch", "cpu", {"LD_PRELOAD": lending_library}, inputs,
                                     "inv_std")
    # The first run writes a new segment; the second finds which allocation is the output
    # (PyTorch allocates a temporary of its size first); from the third on it lands in place.
    assert placed == [[], [], ["x_backprop"], ["x_backprop"]]
    want = aten_x_backprop(inputs)
    assert all(r == want for r in results)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_outputs_land_with_the_frameworks_bits(lending_library, dtype):
    torch = pytest.importorskip("torch")
    inputs = grad_problem("inv_std", shape=(8, 16, 16, 512))  # a 2 MiB x_backprop in half
    bits = {}
    for k in ("y_backprop", "x"):
        t = torch.from_numpy(inputs[k]).to(getattr(torch, dtype))
        bits[k] = (t.view(torch.int16).numpy().view(np.uint16) if dtype == "bfloat16"
                   else t.numpy())
    placed, results = rerun_in_place("torch", "cpu", {"LD_PRELOAD": lending_library},
                                     {**inputs, **bits}, "inv_std", dtype)
    assert placed[-1] == ["x_backprop"]
    t = {k: torch.from_numpy(v) for k, v in inputs.items()}
    for k in ("y_backprop", "x"):
        t[k] = t[k].to(getattr(torch, dtype))
    gi, _, _ = torch.ops.aten.native_batch_norm_backward(
        t["y_backprop"].permute(0, 3, 1, 2), t["x"].permute(0, 3, 1, 2), t["scale"], None, None,
        t["reserve_space_1"], t["reserve_space_2"], True, 1e-3, [True, True, True])
    want = gi.permute(0, 2, 3, 1).contiguous().view(torch.int16).numpy().tobytes()
    assert all(r == want for r in results)


def test_without_the_library_every_output_is_copied(lending_library):
    pytest.importorskip("torch")
    inputs = grad_problem("inv_std")
    placed, results = rerun_in_place("torch", "cpu", {}, inputs, "inv_std")
    assert placed == [[], [], [], []]
    assert all(r == aten_x_backprop(inputs) for r in results)


TF_X_BACKPROP = textwrap.dedent("""
    import sys, numpy as np, tensorflow as tf
    d = np.load(sys.argv[1])
    r = tf.raw_ops.FusedBatchNormGradV3(
        y_backprop=d["y_backprop"], x=d["x"], scale=d["scale"],
        reserve_space_1=d["reserve_space_1"], reserve_space_2=d["reserve_space_2"],
        reserve_space_3=d["reserve_space_3"], epsilon=1e-3, data_format="NHWC",
        is_training=True)
    sys.stdout.buffer.write(r.x_backprop.numpy().tobytes())
""")


@pytest.mark.parametrize("onednn", ["0", "1"])
def test_tensorflow_writes_x_backprop_into_the_segment_on_a_rerun(lending_library, onednn,
                                                                  tmp_path):
    pytest.importorskip("tensorflow")
    inputs = grad_problem("variance")
    env = {"LD_PRELOAD": lending_library, "TF_ENABLE_ONEDNN_OPTS": onednn}
    placed, results = rerun_in_place("tensorflow", "default", env, inputs, "variance")
    assert placed == [[], ["x_backprop"], ["x_backprop"], ["x_backprop"]]
    # TensorFlow itself, in a process configured as the worker's was before its import (the
    # oneDNN kernels, or Eigen's), without the library.
    np.savez(tmp_path / "p.npz", **inputs)
    direct = subprocess.run([sys.executable, "-c", TF_X_BACKPROP, str(tmp_path / "p.npz")],
                            env=dict(os.environ, TF_ENABLE_ONEDNN_OPTS=onednn),
                            capture_output=True, timeout=300)
    assert direct.returncode == 0, direct.stderr.decode()
    assert all(r == direct.stdout for r in results)
