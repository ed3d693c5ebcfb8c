#!/usr/bin/env python3
"""Times PyTorch and TensorFlow CPU batch-norm backward on the shapes of tests/bench/bench_cases.h
(the list below is a copy of it; keep them in step) and writes one JSON record per case.

Inputs and parameters are allocated once per case; only the backward call is timed (median of
--reps after a warm-up). Threads are pinned with --threads for both frameworks. Names match
bnscope_bench ("32x56x56x256/NHWC/train/float32") so scripts/peer_merge.py joins them.

  .venv-peers/bin/python scripts/peer_bench.py --threads 2 --out peers.json [--only torch]
                                              [--case 32x56x56x64/NHWC/train/float32 ...]
"""
import argparse
import json
import os
import statistics
import sys
import time

RESNET = [(32, 112, 112, 64), (32, 56, 56, 64), (32, 56, 56, 256), (32, 28, 28, 512),
          (32, 14, 14, 1024), (32, 7, 7, 2048)]
SMALL_C = [(32, 224, 224, 1), (32, 224, 224, 3), (32, 112, 112, 16), (32, 56, 56, 17)]
BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


def cases(selected=()):
    """Every case, or only those named in `selected` (--case)."""
    for s, nchw, mode, dt in all_cases():
        if not selected or name(s, nchw, mode, dt) in selected:
            yield s, nchw, mode, dt


def all_cases():
    for s in RESNET:
        for nchw in (False, True):
            for dt in ("float32", "bfloat16", "float16"):
                yield s, nchw, "train", dt
            yield s, nchw, "freeze", "float32"
    for s in RESNET:
        yield s, False, "global", "float32"
    for s in SMALL_C:
        for mode in ("train", "freeze"):
            yield s, False, mode, "float32"


def name(s, nchw, mode, dt):
    n, h, w, c = s
    dims = f"{n}x{c}x{h}x{w}" if nchw else f"{n}x{h}x{w}x{c}"
    return f"{dims}/{'NCHW' if nchw else 'NHWC'}/{mode}/{dt}"


def timed(fn, reps, budget_s):
    fn()
    times = []
    start = time.perf_counter()
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > budget_s and len(times) >= 3:
            break
    return statistics.median(times)


def bench_torch(args, out):
    import torch
    torch.set_num_threads(args.threads)
    aten = torch.ops.aten
    # With the vector target its kernels dispatch to (ATEN_CPU_CAPABILITY can cap it).
    version = f"{torch.__version__} {torch.backends.cpu.get_cpu_capability()}"
    for s, nchw, mode, dt in cases(args.case):
        n, h, w, c = s
        dtype = getattr(torch, dt)
        fmt = torch.contiguous_format if nchw else torch.channels_last
        x = (torch.rand(n, c, h, w) * 4 - 1).to(dtype).contiguous(memory_format=fmt)
        dy = (torch.rand(n, c, h, w) * 2 - 1).to(dtype).contiguous(memory_format=fmt)
        gamma = torch.rand(c) + 0.5
        mean = torch.rand(c) * 0.2 + 0.9
        var = torch.rand(c) * 0.2 + 1.2
        invstd = 1.0 / torch.sqrt(var + 1e-3)
        train = mode == "train"

        def run():
            # The aten op behind BatchNorm's backward; train=False is the frozen/global-stats path.
            # Its out= overload into preallocated tensors was measured slower (it computes into
            # fresh tensors and copies), so the functional call is PyTorch's fastest form.
            return aten.native_batch_norm_backward(dy, x, gamma, mean, var,
                                                   mean if train else None,
                                                   invstd if train else None, train, 1e-3,
                                                   [True, True, True])
        record(out, "torch", version, s, nchw, mode, dt, run, args)


def bench_tf(args, out):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    onednn = os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default")
    version = f"{tf.__version__} eager oneDNN={onednn}"
    if os.environ.get("ONEDNN_MAX_CPU_ISA"):
        version += f" max ISA {os.environ['ONEDNN_MAX_CPU_ISA']}"
    for s, nchw, mode, dt in cases(args.case):
        n, h, w, c = s
        dtype = getattr(tf, dt)
        shape = (n, c, h, w) if nchw else (n, h, w, c)
        x = tf.cast(tf.random.uniform(shape, -1, 3), dtype)
        dy = tf.cast(tf.random.uniform(shape, -1, 1), dtype)
        gamma = tf.random.uniform((c,), 0.5, 1.5)
        mean = tf.random.uniform((c,), 0.9, 1.1)
        var = tf.random.uniform((c,), 1.2, 1.4)
        fmt = "NCHW" if nchw else "NHWC"
        if mode == "global":
            xg, dyg = tf.cast(x, tf.float32), tf.cast(dy, tf.float32)

            def run():
                return tf.raw_ops.BatchNormWithGlobalNormalizationGrad(
                    t=xg, m=mean, v=var, gamma=gamma, backprop=dyg, variance_epsilon=1e-3,
                    scale_after_normalization=True)
        else:
            def run():
                return tf.raw_ops.FusedBatchNormGradV3(
                    y_backprop=dy, x=x, scale=gamma, reserve_space_1=mean, reserve_space_2=var,
                    reserve_space_3=mean, epsilon=1e-3, data_format=fmt,
                    is_training=mode == "train")
        record(out, "tensorflow", version, s, nchw, mode, dt, run, args)


def record(out, peer, version, s, nchw, mode, dt, run, args):
    key = name(s, nchw, mode, dt)
    entry = {"peer": peer, "version": version, "name": key, "threads": args.threads}
    try:
        t = timed(run, args.reps, args.budget)
        elems = s[0] * s[1] * s[2] * s[3]
        entry.update(ms=t * 1e3, GBps=3 * elems * BYTES[dt] / t / 1e9)
    except Exception as e:  # an unsupported dtype/layout in this peer: recorded, not fatal
        entry["error"] = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
    out.append(entry)
    print(f"{peer:10s} {key:40s} " + (f"{entry['ms']:9.2f} ms" if "ms" in entry
                                       else "skipped: " + entry["error"]), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per case at most")
    ap.add_argument("--only", choices=["torch", "tensorflow"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--case", action="append", default=[],
                    help="time only this case (its name as in the table); may be repeated")
    args = ap.parse_args()
    known = {name(*c) for c in all_cases()}
    unknown = [c for c in args.case if c not in known]
    if unknown:
        ap.error(f"unknown case {unknown[0]} (expected a name such as {next(iter(sorted(known)))})")
    out = []
    if args.only in (None, "torch"):
        bench_torch(args, out)
    if args.only in (None, "tensorflow"):
        bench_tf(args, out)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
