#!/usr/bin/env python3
"""Times again, alternating, the cases a peer won in a peer run, and writes both programs' times
per round. scripts/peer_merge.py --alternated puts them beside the run's verdicts.

On a shared machine the memory bandwidth other guests leave can move by 2x within seconds (the
Zen 5 EPYC, docs/performance-zen5-avx512.md), and a peer run times each program's cases minutes
apart, so a case can be won by whichever program met the quieter minute. oneDNN runs in
bnscope_onednn_bench's process beside bnscope, in windows of back-to-back calls that alternate
(its alternate/ cases, core/profile/alternation.h): both meet the same milliseconds. PyTorch and
TensorFlow, which live in Python, alternate with bnscope one process each, A B A B, a case at a
time, which leaves them the same seconds.

  python3 scripts/peer_alternate.py --losses losses.json --build BUILD --python VENV_PYTHON \\
                                    --out alternated.json [--rounds 3] [--in-process-rounds 8]
                                    [--threads 2]

losses.json: [{"case": "32x7x7x2048/NHWC/train/float32", "peer": "onednn"}, ...] as
scripts/peer_merge.py --losses writes it.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def gbench_ms(binary, prefix, case, env):
    """The median of 3 repetitions of one case of a Google Benchmark binary, in ms."""
    out = subprocess.run([binary, f"--benchmark_filter=^{prefix}/{case}/",
                          "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true",
                          "--benchmark_min_time=0.1", "--benchmark_format=json"],
                         env=env, check=True, capture_output=True, text=True).stdout
    medians = [b["real_time"] for b in json.loads(out)["benchmarks"]
               if b.get("aggregate_name") == "median"]
    if not medians:
        raise RuntimeError(f"{os.path.basename(binary)} ran no case named {prefix}/{case}")
    return medians[0]


def in_process_rounds(binary, case, rounds, env):
    """bnscope's and oneDNN's per-round times (ms) of one case from bnscope_onednn_bench's
    alternate/ case: each round one window of each, in one process."""
    out = subprocess.run([binary, f"--benchmark_filter=^alternate/{case}/",
                          "--benchmark_format=json"],
                         env=dict(env, BNSCOPE_ALT_ROUNDS=str(rounds), OMP_WAIT_POLICY="passive"),
                         check=True,
                         capture_output=True, text=True).stdout
    runs = json.loads(out)["benchmarks"]
    if not runs:
        raise RuntimeError(f"{os.path.basename(binary)} ran no case named alternate/{case}")
    if runs[0].get("error_occurred"):
        raise RuntimeError(runs[0].get("error_message", "not timed"))
    ours = [runs[0][f"ours_ms_r{k}"] for k in range(rounds)]
    theirs = [runs[0][f"onednn_ms_r{k}"] for k in range(rounds)]
    return ours, theirs


def python_peer_ms(python, peer, case, threads, env):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "peer.json")
        subprocess.run([python, os.path.join(HERE, "peer_bench.py"), "--only", peer, "--case",
                        case, "--threads", str(threads), "--out", path],
                       env=env, check=True, capture_output=True, text=True)
        with open(path) as f:
            entry = json.load(f)[0]
    if "ms" not in entry:
        raise RuntimeError(f"{peer} did not run {case}: {entry.get('error', '?')}")
    return entry["ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--losses", required=True)
    ap.add_argument("--build", required=True, help="the build folder with tests/bench")
    ap.add_argument("--python", required=True, help="the Python that has torch and tensorflow")
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=3, help="rounds of a Python peer's alternation")
    ap.add_argument("--in-process-rounds", type=int, default=8,
                    help="rounds of oneDNN's, a window of each program per round")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    with open(args.losses) as f:
        losses = json.load(f)
    env = dict(os.environ, BNSCOPE_BENCH_THREADS=str(args.threads),
               OMP_NUM_THREADS=str(args.threads))
    bench = os.path.join(args.build, "tests", "bench")
    ours = lambda case: gbench_ms(os.path.join(bench, "bnscope_bench"), "cpu", case, env)
    out = []
    for loss in losses:
        case, peer = loss["case"], loss["peer"]
        entry = {"case": case, "peer": peer, "ours_ms": [], "peer_ms": []}
        try:
            if peer == "onednn":
                entry["in_process"] = True
                entry["ours_ms"], entry["peer_ms"] = in_process_rounds(
                    os.path.join(bench, "bnscope_onednn_bench"), case, args.in_process_rounds, env)
            else:
                for _ in range(args.rounds):
                    entry["ours_ms"].append(ours(case))
                    entry["peer_ms"].append(
                        python_peer_ms(args.python, peer, case, args.threads, env))
        except (subprocess.CalledProcessError, RuntimeError, ValueError, KeyError) as e:
            entry["error"] = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        out.append(entry)
        if entry["ours_ms"] and entry["peer_ms"]:
            ratio = statistics.median(entry["peer_ms"]) / statistics.median(entry["ours_ms"])
            print(f"{peer:10s} {case:40s} {ratio:5.2f}x", flush=True)
        else:
            print(f"{peer:10s} {case:40s} not timed: {entry.get('error')}", flush=True)
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
