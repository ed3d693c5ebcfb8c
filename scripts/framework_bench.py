#!/usr/bin/env python3
"""The framework backends' cost over their own kernel, on the 32x56x56x256 float32 training grad.

    python3 scripts/framework_bench.py [--cli build/release/app/cli/bnscope-cli]
                                       [--python PYTHON] [--backends tf-onednn,tf-eigen,torch]

For each backend: the kernel's median time inside the worker, the same kernel's median in a plain
Python loop of the op (no bnscope), the whole re-run's median as bnscope sees it (request,
kernel, the output into shared memory, the answer) and what the re-run adds to the kernel (goal:
at most 30 %), also against the plain loop's; then the first run's transfer of the inputs, what
that run waits for once the worker has started (shared memory written and mapped, both begun
while the worker imports its framework, and the framework tensors made), against one copy of the
same bytes into fresh memory in this process (goal: at most one such copy). Prints a README row
at the end.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time


def profile(cli, python, problem, backend, warmup, reps, out):
    r = subprocess.run([cli, "profile", "--python", python, "--problem", problem, "--backend",
                        backend, "--warmup", str(warmup), "--reps", str(reps), "--no-copy-probe",
                        "--json", out], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{backend}: {r.stderr.strip()}")
    p = json.load(open(out))["profiles"][0]
    phases = {ph["phase"]: ph["stats"]["median"] for ph in p["phases"]}
    return p["wall"]["median"], phases


# The framework's own kernel in a plain process (no bnscope, no worker), on the same problem
# file: what a user's own loop of the op takes, the yardstick beside the worker's kernel time
# (whose output may land in a segment whose pages exist already).
PLAIN = {
    "tf": """
import numpy as np, sys, time, tensorflow as tf
d = np.load(sys.argv[1]); reps = int(sys.argv[2])
kw = {k: tf.constant(d[k]) for k in ("y_backprop", "x", "scale", "reserve_space_1",
                                     "reserve_space_2")}
kw["reserve_space_3"] = tf.constant(np.zeros(0, np.float32))
ts = []
for i in range(reps + 2):
    t = time.perf_counter()
    r = tf.raw_ops.FusedBatchNormGradV3(**kw, epsilon=1e-3, data_format="NHWC",
                                        is_training=True)
    ts.append(time.perf_counter() - t); del r
print(sorted(ts[2:])[reps // 2])
""",
    "torch": """
import numpy as np, sys, time, torch
d = np.load(sys.argv[1]); reps = int(sys.argv[2])
t = {k: torch.from_numpy(np.ascontiguousarray(d[k])) for k in ("y_backprop", "x", "scale",
                                                           "reserve_space_1", "reserve_space_2")}
dy, x = t["y_backprop"].permute(0, 3, 1, 2), t["x"].permute(0, 3, 1, 2)
inv = (1 / torch.sqrt(t["reserve_space_2"].double() + 1e-3)).float()
ts = []
for i in range(reps + 2):
    s = time.perf_counter()
    r = torch.ops.aten.native_batch_norm_backward(dy, x, t["scale"], None, None,
                                                  t["reserve_space_1"], inv, True, 1e-3,
                                                  [True, True, True])
    ts.append(time.perf_counter() - s); del r
print(sorted(ts[2:])[reps // 2])
""",
}
PLAIN_ENV = {"tf-onednn": {"TF_ENABLE_ONEDNN_OPTS": "1"}, "tf-eigen": {"TF_ENABLE_ONEDNN_OPTS": "0"},
             "tf": {}, "torch": {}}


def plain_kernel_seconds(python, problem, backend, reps):
    if backend not in PLAIN_ENV:
        return None
    code = PLAIN["torch" if backend == "torch" else "tf"]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", **PLAIN_ENV[backend])
    if backend == "torch":
        env["OMP_NUM_THREADS"] = str(os.cpu_count())
    r = subprocess.run([python, "-c", code, problem, str(reps)], capture_output=True, text=True,
                       env=env)
    if r.returncode != 0:
        sys.exit(f"{backend} (plain): {r.stderr.strip()[-500:]}")
    return float(r.stdout.strip().splitlines()[-1])


def fresh_copy_seconds(python, nbytes, reps=3):
    """One copy of nbytes into memory never touched before (a new process each time, so the
    allocator cannot hand back pages already faulted in): the median of `reps`."""
    code = ("import numpy as np, time\n"
            f"n={nbytes}//4\nsrc=np.ones(n,np.float32)\n"
            "t=time.perf_counter(); a=np.empty(n,np.float32); np.copyto(a,src)\n"
            "print(time.perf_counter()-t)\n")
    ts = sorted(float(subprocess.run([python, "-c", code], capture_output=True, text=True,
                                     check=True).stdout) for _ in range(reps))
    return ts[len(ts) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/release/app/cli/bnscope-cli")
    ap.add_argument("--python", default=os.environ.get("BNSCOPE_PYTHON", "python3"))
    ap.add_argument("--backends", default="tf-onednn,tf-eigen,torch")
    ap.add_argument("--reps", type=int, default=10)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        problem = os.path.join(tmp, "p.npz")
        subprocess.run([a.cli, "sample", "--shape", "32,56,56,256", "--out", problem],
                       check=True, capture_output=True)
        input_bytes = 2 * 32 * 56 * 56 * 256 * 4 + 3 * 256 * 4
        copy = fresh_copy_seconds(a.python, input_bytes)
        print(f"one copy of the inputs' {input_bytes / 1e6:.0f} MB into fresh memory: "
              f"{copy * 1e3:.1f} ms")
        print(f"{'backend':<10} {'kernel ms':>10} {'plain ms':>9} {'re-run ms':>10} "
              f"{'added':>7} {'vs plain':>9} {'first transfer ms':>18} {'x copy':>7}")
        rows = []
        for b in a.backends.split(","):
            wall, ph = profile(a.cli, a.python, problem, b, 2, a.reps, os.path.join(tmp, "r.json"))
            kernel = ph[f"kernel:{b}"]
            # The first run of a fresh worker: its start is outside every phase.
            _, first = profile(a.cli, a.python, problem, b, 0, 1, os.path.join(tmp, "f.json"))
            plain = plain_kernel_seconds(a.python, problem, b, a.reps)
            added = (wall - kernel) / kernel
            vs_plain = f"{(wall - plain) / plain * 100:+8.0f}%" if plain else f"{'-':>9}"
            print(f"{b:<10} {kernel * 1e3:10.1f} {plain * 1e3 if plain else 0:9.1f} "
                  f"{wall * 1e3:10.1f} {added * 100:6.0f}% {vs_plain} "
                  f"{first['upload'] * 1e3:18.1f} {first['upload'] / copy:6.2f}x")
            rows.append(f"{b} {kernel * 1e3:.1f} ms, re-run +{added * 100:.0f} %"
                        + (f" ({vs_plain.strip()} on the plain kernel)" if plain else "")
                        + f", first transfer {first['upload'] / copy:.2f} copies")
        host = platform.processor() or platform.machine()
        print(f"\n| {host}, {os.cpu_count()} CPUs | {datetime.date.today()} | "
              + "; ".join(rows) + " |")


if __name__ == "__main__":
    main()
