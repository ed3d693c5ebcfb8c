#!/usr/bin/env python3
"""Merges bnscope_bench, bnscope_onednn_bench (Google Benchmark JSON) and scripts/peer_bench.py
output into one markdown table: our time, effective GB/s (minimum-traffic model), fraction of
the same-run copy bandwidth, and speedups t_peer / t_ours per peer, plus the goal summaries
and a verdict per goal.

  python3 scripts/peer_merge.py --ours ours.json [--onednn onednn.json] [--peers peers.json]
                                [--ours-1thread ours_1thread.json]
                                [--meta "machine, date, load"] > peer_table.md

Each of the JSON options may be given once per round of a repeated run: a case then takes its
fastest median over the rounds, for every implementation alike, and fractions of the copy
bandwidth divide by the fastest copy of the rounds. On a shared machine a neighbour's burst
can slow one whole case for seconds; the best of a few rounds is what the code can do.
Where the benchmark also probed the copy right after each case (frac_copy_adj, bench_util.h),
the table adds that fraction (frac_adj: the best over the rounds) and the goal figures are given
against it too, beside the verdicts, which stay on frac_copy; so are each round's, its times
against its own probe.

--ours-1thread: bnscope_bench again with BNSCOPE_BENCH_THREADS=1 (the large shapes); adds the
"Thread scaling" section, one-thread time against the main run's.

--cli: `bnscope-cli bench --json` over the same shapes with the same threads; adds the section
that compares its times with the Google Benchmark target's, case by case, and a verdict on
whether the two agree within the benchmark's own spread between rounds.

--losses FILE: writes the cases a peer won (speed-up <= 1), [{"case", "peer"}], for
scripts/peer_alternate.py to time again alternating; --alternated FILE: what it measured, as a
section of its own and one more verdict per peer beside the run's.
"""
import argparse
import json
import math
import re
import statistics
import sys


def best_of(rounds):
    """Per case the row with the smallest ms over the rounds; frac_copy is recomputed against the
    largest copy bandwidth any round measured."""
    rows, context, adjacent = {}, {}, {}
    for r, ctx in rounds:
        context = context or ctx
        for key, row in r.items():
            if key not in rows or row["ms"] < rows[key]["ms"]:
                rows[key] = dict(row)
            # Each round's fraction against its own adjacent probe: the best, like the times.
            if row.get("frac_copy_adj"):
                adjacent[key] = max(row["frac_copy_adj"], adjacent.get(key, 0.0))
    for key, row in rows.items():
        row["frac_copy_adj"] = adjacent.get(key)
    copies = [row["copy_GBps"] for r, _ in rounds for row in r.values() if row.get("copy_GBps")]
    # Each round's own probe: a spread between rounds says the machine was shared.
    context = dict(context, copy_by_round=[
        next((row["copy_GBps"] for row in r.values() if row.get("copy_GBps")), None)
        for r, _ in rounds])
    if copies:
        for row in rows.values():
            row["copy_GBps"] = max(copies)
            if row.get("GBps"):
                row["frac_copy"] = row["GBps"] / max(copies)
    return rows, context


def gbench_rounds(paths, prefix):
    return best_of([gbench(p, prefix) for p in paths or []])


def gbench(path, prefix):
    """name -> {ms, GBps, frac_copy, copy_GBps}; the median aggregate when repetitions ran."""
    with open(path) as f:
        data = json.load(f)
    rows, context = {}, data.get("context", {})
    for b in data["benchmarks"]:
        agg = b.get("aggregate_name")
        if agg not in (None, "median"):
            continue
        name = re.sub(r"/real_time(_median)?$", "", b.get("run_name", b["name"]))
        if not name.startswith(prefix + "/"):
            continue
        key = name[len(prefix) + 1:]
        if agg is None and key in rows:
            continue  # keep the first plain run when there is no aggregate
        unit = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1.0}[b.get("time_unit", "ms")]
        rows[key] = {"ms": b["real_time"] * unit * 1e3, "GBps": b.get("GBps"),
                     "frac_copy": b.get("frac_copy"), "copy_GBps": b.get("copy_GBps"),
                     "frac_copy_adj": b.get("frac_copy_adj"),
                     "threads": b.get("threads"), "label": b.get("label", "")}
    return rows, context


def cli_bench(path):
    """`bnscope-cli bench --json`: key (as the benchmark names it) -> {ms, frac_copy, copy_GBps,
    frac_copy_adj (against the copy probed right after the case, where the CLI took one)}."""
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for p in data.get("profiles", []):
        if p.get("backend") != "cpu" or not p.get("kernel_seconds"):
            continue
        mode = "train" if p.get("is_training") else "freeze"
        key = "/".join(["x".join(map(str, p["shape"])), p["data_format"], mode, p["dtype"]])
        copy = p.get("roofline_gbps")
        after = p.get("copy_after_gbps") or 0
        rows[key] = {"ms": p["kernel_seconds"] * 1e3, "GBps": p.get("achieved_gbps"),
                     "frac_copy": p.get("roofline_fraction"), "copy_GBps": copy,
                     "frac_copy_adj": p["achieved_gbps"] / after
                     if after > 0 and p.get("achieved_gbps") else None}
    return rows, {}


def round_spread(paths, prefix):
    """Per case the slowest round's median over the fastest's: how far the benchmark moves
    between rounds of the same run, the yardstick for a gap to another program."""
    rounds = [gbench(p, prefix)[0] for p in paths or []]
    spread = {}
    for key in rounds[0] if len(rounds) > 1 else {}:
        ms = [r[key]["ms"] for r in rounds if key in r]
        if len(ms) > 1:
            spread[key] = max(ms) / min(ms)
    return spread


def cli_agreement(ours, cli, spread):
    """Markdown lines: per case both programs' times and fractions, then the summary and its
    verdict line."""
    cols = ["shape", "layout", "mode", "dtype", "benchmark ms", "CLI ms", "CLI / benchmark",
            "benchmark frac_copy", "CLI frac_copy", "benchmark frac_adj", "CLI frac_adj"]
    out = ["", "## `bnscope-cli bench` against the Google Benchmark target", "",
           "The same cases with the same threads, each program with its own copy probe (the "
           "CLI's 256 MiB, the benchmark's 1 GiB), data (sampled normal, a uniform fill) and "
           "statistic (median of single calls, median of repetitions of back-to-back calls). "
           "frac_adj: against the copy each program probed right after the case, so that the "
           "two programs' times of one case, taken minutes apart, are each set against the "
           "bandwidth of their own minute.",
           "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    ratios, adjusted = [], []
    for key, c in cli.items():
        b = ours.get(key)
        if not b:
            continue
        ratios.append((key, c["ms"] / b["ms"]))
        if b.get("frac_copy_adj") and c.get("frac_copy_adj"):
            # > 1: the CLI slower than the benchmark for the bandwidth of its minute.
            adjusted.append((key, b["frac_copy_adj"] / c["frac_copy_adj"]))
        out.append("| " + " | ".join(key.split("/") + [
            fmt(b["ms"], 3), fmt(c["ms"], 3), fmt(ratios[-1][1]), fmt(b.get("frac_copy")),
            fmt(c.get("frac_copy")), fmt(b.get("frac_copy_adj")), fmt(c.get("frac_copy_adj"))])
            + " |")
    if not ratios:
        return out + ["", "* no case in common"], None
    g = geomean([r for _, r in ratios])
    lo, hi = min(ratios, key=lambda kr: kr[1]), max(ratios, key=lambda kr: kr[1])
    noise = geomean([spread[k] for k, _ in ratios if k in spread])
    summary = (f"CLI / benchmark time geomean {fmt(g)}, from {fmt(lo[1])} ({lo[0]}) to "
               f"{fmt(hi[1])} ({hi[0]}) over {len(ratios)} cases")
    # Where both programs probed the copy right after each case, the agreement is judged on the
    # times set against those probes: a shared host moves its bandwidth between the minutes the
    # two programs ran a case in, and that is no difference between the programs.
    a = geomean([r for _, r in adjusted]) if len(adjusted) == len(ratios) else float("nan")
    if not math.isnan(a):
        summary += (f"; against the copy each probed right after the case {fmt(a)} over "
                    f"{len(adjusted)} cases")
    if math.isnan(noise):
        return out + ["", f"* {summary}; one round, so no spread to judge it by"], None
    summary += f"; the benchmark's own spread between rounds: geomean {fmt(noise)}"
    out += ["", f"* {summary}"]
    # Agreement within noise: the systematic part of the gap (its geomean) no larger than how far
    # the benchmark itself moves between rounds of the same run.
    judged = g if math.isnan(a) else a
    met = 1 / noise <= judged <= noise
    return out, f"* `bnscope-cli bench` agrees with the benchmark within its round-to-round " \
                f"spread: {'met' if met else 'NOT met'} ({summary})"


def alternated(entries, losses):
    """Markdown lines of the re-timed cases and the verdict lines, one per peer that won a case
    in the run (`losses`: [(case, peer)]); a loss missing from `entries` counts as not timed."""
    cols = ["shape", "layout", "mode", "dtype", "peer", "bnscope ms", "peer ms", "speed-up"]
    def rounds(in_process):
        return max((len(e.get("ours_ms", [])) for e in entries
                    if bool(e.get("in_process")) == in_process), default=0)
    how = []
    if rounds(True):
        how.append(f"oneDNN in bnscope's process, windows of back-to-back calls of each in turn, "
                   f"{rounds(True)} rounds")
    if rounds(False):
        how.append(f"the Python peers one case per process, {rounds(False)} rounds")
    out = ["", "## The cases a peer won, timed again alternating", "",
           f"bnscope and the peer in turn ({'; '.join(how) or 'none timed'}; "
           "scripts/peer_alternate.py); medians. Speed-up = peer time / our time.", "",
           "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    by_peer = {}
    for case, peer in losses:
        if not any(e["case"] == case and e["peer"] == peer for e in entries):
            entries = entries + [{"case": case, "peer": peer, "error": "not in the re-timing"}]
    for e in entries:
        ours, theirs = e.get("ours_ms"), e.get("peer_ms")
        x = statistics.median(theirs) / statistics.median(ours) if ours and theirs else None
        by_peer.setdefault(e["peer"], []).append((e["case"], x))
        out.append("| " + " | ".join(e["case"].split("/") + [
            e["peer"], fmt(statistics.median(ours) if ours else None, 3),
            fmt(statistics.median(theirs) if theirs else None, 3),
            fmt(x) if x else "not timed: " + e.get("error", "?")]) + " |")
    verdicts = []
    for peer, xs in by_peer.items():
        slower = [f"{k} {fmt(x)}x" for k, x in xs if x is not None and x <= 1.0]
        untimed = [k for k, x in xs if x is None]
        met = not slower and not untimed
        detail = (f"{len(xs) - len(untimed)} of {len(xs)} re-timed" +
                  (f"; not faster: {', '.join(slower)}" if slower else "")
                  + (f"; not timed: {', '.join(untimed)}" if untimed else ""))
        verdicts.append(f"* faster than {peer} on every case, the run's losses timed again "
                        f"alternating: {'met' if met else 'NOT met'} ({detail})")
    return out, verdicts


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


# The shapes of the thread-scaling goal: the two largest ResNet-50 layers, NHWC and NCHW names.
LARGE_SHAPES = ("32x112x112x64", "32x64x112x112", "32x56x56x256", "32x256x56x56")
SCALING_GOAL = 1.7


def thread_scaling(ours, one_thread):
    """Markdown lines: per case the one-thread and main-run times and their ratio, then the goal."""
    threads = next((int(r["threads"]) for r in ours.values() if r.get("threads")), 2)
    cols = ["shape", "layout", "mode", "dtype", "1-thread ms", f"{threads}-thread ms", "speedup"]
    out = ["", "## Thread scaling", "",
           f"The same cases on one thread (BNSCOPE_BENCH_THREADS=1) against the main run on "
           f"{threads}; speedup = 1-thread time / {threads}-thread time.", "",
           "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    large = []
    for key, r in one_thread.items():
        many = ours.get(key, {}).get("ms")
        speedup = r["ms"] / many if many else None
        if speedup and key.split("/")[0] in LARGE_SHAPES:
            large.append(speedup)
        out.append("| " + " | ".join(key.split("/") + [fmt(r["ms"], 3), fmt(many, 3),
                                                       fmt(speedup)]) + " |")
    times = lambda x: fmt(x) + "x" if large else fmt(None)
    out += ["", f"* {threads} threads vs 1 on the large shapes: min "
                f"{times(min(large) if large else None)}, geomean {times(geomean(large))} "
                f"(goal >= {SCALING_GOAL}x)"]
    # The copy probe of each run bounds how much a memory-bound kernel can gain from threads.
    copy = lambda rows: next((r["copy_GBps"] for r in rows.values() if r.get("copy_GBps")), None)
    if copy(ours) and copy(one_thread):
        out.append(f"* the copy bandwidth itself: {fmt(copy(one_thread))} GB/s on 1 thread, "
                   f"{fmt(copy(ours))} GB/s on {threads} "
                   f"({fmt(copy(ours) / copy(one_thread))}x)")
    return out


SMALL_C = re.compile(r".*x(1|3|16|17)/NHWC/")


def goals(ours, speed, extra=()):
    """Markdown lines: the goal figures (geometric means over the ResNet-50 shapes, worst cases,
    speed-ups over each peer), then the verdict, each goal met or not with the cases that miss
    it, and the figures in the order of README's table of hosts, so a new host's row is copied
    rather than retyped."""
    resnet = [(k, r["frac_copy"]) for k, r in ours.items()
              if r.get("frac_copy") and not SMALL_C.match(k)]

    # A peer's own fraction of the copy bandwidth on a case: no implementation can be more than
    # 1/that faster than it there (they move the same minimum bytes).
    def peer_frac(key, ratio):
        return ours[key]["frac_copy"] / ratio

    out = ["", "## Goals (geometric means over the ResNet-50 N=32 shapes, both layouts)", ""]
    verdict, figures = [], {}

    def judge(goal, met, detail):
        verdict.append(f"* {goal}: {'met' if met else 'NOT met'} ({detail})")

    fractions = fraction_figures(ours, "frac_copy")
    for dt, mark in (("float32", 0.55), ("bfloat16", 0.5), ("float16", 0.5)):
        if dt not in fractions:
            continue
        figures[dt] = fractions[dt]
        name = "f32" if dt == "float32" else dt
        out.append(f"* training {name} frac_copy geomean: {fmt(figures[dt])} (goal >= {mark})")
        judge(f"training {dt} geomean >= {mark}", figures[dt] >= mark, fmt(figures[dt]))
    for mode in ("freeze", "global"):
        if mode not in fractions:
            continue
        g, worst = fractions[mode]
        figures[mode] = f"{fmt(g)} ({fmt(worst)})"
        out.append(f"* {mode} frac_copy geomean {fmt(g)}, worst {fmt(worst)} (goal >= 0.85)")
        low = [k for k, f in resnet if f"/{mode}/" in k and f < 0.7]
        judge(f"{mode} geomean >= 0.85, none under 0.7", g >= 0.85 and not low,
              f"{fmt(g)}, worst {fmt(worst)}" + (f"; under 0.7: {', '.join(low)}" if low else ""))
    for p, rs in speed.items():
        if not rs:
            continue
        key, x = min(rs, key=lambda kr: kr[1])
        figures[p] = f"{fmt(x)}x"
        out.append(f"* vs {p}: geomean {fmt(geomean([r for _, r in rs]))}x, worst {fmt(x)}x "
                   f"({key}, where {p} itself runs at {fmt(peer_frac(key, x))} of copy bandwidth)")
        slower = [f"{k} {fmt(r)}x" for k, r in rs if r <= 1.0]
        judge(f"faster than {p} on every case", not slower,
              f"worst {fmt(x)}x" + (f"; not faster: {', '.join(slower)}" if slower else ""))
    # The 10x goal holds only where PyTorch is more than 10x from the copy bound: nothing that
    # streams from memory can gain more than that bound over it.
    small = [(k, x, 1 / peer_frac(k, x)) for k, x in speed["torch"] if SMALL_C.match(k)]
    if small:
        out.append("* vs PyTorch on small-C channels-last (goal >= 10x; in brackets PyTorch's "
                   "time over the time a copy of the minimum bytes takes at the measured copy "
                   "bandwidth, the most an implementation that streams from memory can gain): " +
                   ", ".join(f"{k} {x:.1f}x ({room:.1f}x)" for k, x, room in small))
        apply = [(k, x) for k, x, room in small if room > 10]
        short = [f"{k} {x:.1f}x" for k, x in apply if x < 10]
        judge("small-C channels-last >= 10x PyTorch where PyTorch is > 10x from the bound",
              not short, f"{len(apply)} cases apply, {len(small) - len(apply)} exempt" +
              (f"; short: {', '.join(short)}" if short else ""))
    out += adjacent_figures(ours)
    out += list(extra)
    cells = [" / ".join(fmt(figures.get(dt)) for dt in ("float32", "bfloat16", "float16"))]
    cells += [figures.get(k, "—") for k in ("freeze", "global", "onednn", "torch", "tensorflow")]
    row = f"| {cells[0]} | {cells[1]} | {cells[2]} | {' / '.join(cells[3:])} |"
    return out + ["", "## Verdict", ""] + verdict + [
        "", "For README's table of hosts (training f32 / bf16 / f16 | inference (worst) | "
        f"global (worst) | worst vs oneDNN / PyTorch / TF): {row}"]


def fraction_figures(ours, field):
    """{training dtype: geomean, mode: (geomean, worst)} of one fraction over the ResNet-50 cases."""
    resnet = [(k, r[field]) for k, r in ours.items() if r.get(field) and not SMALL_C.match(k)]
    figures = {}
    for dt in ("float32", "bfloat16", "float16"):
        fs = [f for k, f in resnet if k.endswith(f"/train/{dt}")]
        if fs:
            figures[dt] = geomean(fs)
    for mode in ("freeze", "global"):
        fs = [f for k, f in resnet if f"/{mode}/" in k]
        if fs:
            figures[mode] = (geomean(fs), min(fs))
    return figures


def adjacent_figures(ours):
    """Markdown lines: the fraction goals' figures against the copy probed right after each case,
    in the order of README's table of hosts; nothing when the benchmark took no such probe."""
    f = fraction_figures(ours, "frac_copy_adj")
    if not f:
        return []
    train = " / ".join(fmt(f.get(dt)) for dt in ("float32", "bfloat16", "float16"))
    modes = ", ".join(f"{m} {fmt(f[m][0])} (worst {fmt(f[m][1])})"
                      for m in ("freeze", "global") if m in f)
    return ["* against the copy probed right after each case (frac_adj; the verdicts below use "
            f"frac_copy): training f32 / bf16 / f16 {train}" + (f"; {modes}" if modes else "")]


def round_figures(paths):
    """Markdown line: the fraction goals' figures of each round alone, its times against its own
    copy probe; nothing for one round. The table divides each case's best time over the rounds by
    the best probe: where one round's probe met a burst of the host's memory that its cases did
    not, every fraction reads low against it, which this line shows."""
    if len(paths) < 2:
        return []
    parts = []
    for i, path in enumerate(paths, 1):
        rows, _ = gbench_rounds([path], "cpu")
        f = fraction_figures(rows, "frac_copy")
        copy = next((r["copy_GBps"] for r in rows.values() if r.get("copy_GBps")), None)
        train = " / ".join(fmt(f.get(dt)) for dt in ("float32", "bfloat16", "float16"))
        modes = ", ".join(f"{m} {fmt(f[m][0])} (worst {fmt(f[m][1])})"
                          for m in ("freeze", "global") if m in f)
        parts.append(f"round {i} (copy {fmt(copy)} GB/s) training f32 / bf16 / f16 {train}" +
                     (f", {modes}" if modes else ""))
    return ["* each round against its own copy probe (the verdicts below use the table's): " +
            "; ".join(parts)]


def fmt(x, digits=2):
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True, action="append")
    ap.add_argument("--onednn", action="append")
    ap.add_argument("--peers", action="append")
    ap.add_argument("--ours-1thread", action="append",
                    help="bnscope_bench JSON run with BNSCOPE_BENCH_THREADS=1")
    ap.add_argument("--cli", action="append", help="bnscope-cli bench --json of the same cases")
    ap.add_argument("--meta", default="")
    ap.add_argument("--html", help="also write the table as a self-contained HTML page here")
    ap.add_argument("--losses", help="write the cases a peer won here (JSON)")
    ap.add_argument("--alternated", help="scripts/peer_alternate.py's JSON of those cases")
    args = ap.parse_args()
    ours, context = gbench_rounds(args.ours, "cpu")
    onednn = gbench_rounds(args.onednn, "onednn")[0]
    peers, versions = {}, {}
    for path in args.peers or []:
        with open(path) as f:
            for e in json.load(f):
                versions.setdefault(e["peer"], e.get("version", "?"))
                if "ms" in e:
                    times = peers.setdefault(e["peer"], {})
                    times[e["name"]] = min(e["ms"], times.get(e["name"], math.inf))
    rounds = len(args.ours)
    out = ["# bnscope cpu backend vs peers (batch-norm backward)", ""]
    if args.meta:
        out += [args.meta, ""]
    if versions:
        out += ["Python peers: " + ", ".join(f"{k} {v}" for k, v in sorted(versions.items())) + ".",
                ""]
    copy = next((r["copy_GBps"] for r in ours.values() if r.get("copy_GBps")), None)
    if rounds > 1:
        by_round = ", ".join(fmt(c) for c in context.get("copy_by_round", []))
        out += [f"Best median of {rounds} rounds per case and implementation; copy bandwidth: "
                f"the best of the rounds (by round: {by_round} GB/s).", ""]
    out += [f"Copy bandwidth (same run, NT copy, R+W): {fmt(copy)} GB/s. Host: "
            f"{context.get('host_name', '?')}, {context.get('num_cpus', '?')} CPUs. "
            "Speedup = peer time / our time (> 1: we are faster); oneDNN best = the faster of "
            "its plain and nChw16c layouts (reorders not timed).", ""]
    cols = ["shape", "layout", "mode", "dtype", "ms", "GB/s", "frac_copy", "frac_adj",
            "vs oneDNN", "vs oneDNN best", "vs PyTorch", "vs TensorFlow"]
    out += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    speed = {"onednn": [], "torch": [], "tensorflow": []}
    for key, r in ours.items():
        shape, layout, mode, dtype = key.split("/")
        od = onednn.get(key, {}).get("ms")
        blocked = onednn.get(key.replace("/NCHW/", "/NCHW16c/"), {}).get("ms") if layout == "NCHW" else None
        best = min(x for x in (od, blocked) if x) if (od or blocked) else None
        ratios = {"onednn": od / r["ms"] if od else None,
                  "onednn_best": best / r["ms"] if best else None,
                  "torch": peers.get("torch", {}).get(key, 0) / r["ms"] or None,
                  "tensorflow": peers.get("tensorflow", {}).get(key, 0) / r["ms"] or None}
        for p in ("torch", "tensorflow"):
            if ratios[p]:
                speed[p].append((key, ratios[p]))
        if ratios["onednn"]:
            speed["onednn"].append((key, ratios["onednn"]))
        out.append("| " + " | ".join([shape, layout, mode, dtype, fmt(r["ms"], 3), fmt(r["GBps"]),
                                      fmt(r["frac_copy"]), fmt(r.get("frac_copy_adj")),
                                      fmt(ratios["onednn"]),
                                      fmt(ratios["onednn_best"]), fmt(ratios["torch"]),
                                      fmt(ratios["tensorflow"])]) + " |")

    out += goals(ours, speed, round_figures(args.ours))
    losses = [(k, p) for p, rs in speed.items() for k, x in rs if x <= 1.0]
    if args.losses:
        with open(args.losses, "w") as f:
            json.dump([{"case": k, "peer": p} for k, p in losses], f, indent=1)
    if args.alternated:
        with open(args.alternated) as f:
            section, verdicts = alternated(json.load(f), losses)
        at = next(i for i, l in enumerate(out) if l.startswith("For README's table"))
        out[at - 1:at - 1] = verdicts
        out += section
    if args.cli:
        section, verdict = cli_agreement(ours, best_of([cli_bench(p) for p in args.cli])[0],
                                         round_spread(args.ours, "cpu"))
        if verdict:  # beside the other verdicts, before the hosts-table row
            at = next(i for i, l in enumerate(out) if l.startswith("For README's table"))
            out.insert(at - 1, verdict)
        out += section
    if args.ours_1thread:
        out += thread_scaling(ours, gbench_rounds(args.ours_1thread, "cpu")[0])
    print("\n".join(out))
    if args.html:
        with open(args.html, "w") as f:
            f.write(to_html(out))
    return 0


def to_html(lines):
    """The markdown above as one page: table rows become <tr>, the rest paragraphs/list items."""
    esc = lambda s: s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    body, in_table = [], False
    for line in lines:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(set(c) <= {"-"} for c in cells):
                continue
            tag = "th" if not in_table else "td"
            if not in_table:
                body.append("<table>")
                in_table = True
            body.append("<tr>" + "".join(f"<{tag}>{esc(c)}</{tag}>" for c in cells) + "</tr>")
            continue
        if in_table:
            body.append("</table>")
            in_table = False
        if line.startswith("# "):
            body.append(f"<h1>{esc(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{esc(line[3:])}</h2>")
        elif line.startswith("* "):
            body.append(f"<li>{esc(line[2:])}</li>")
        elif line:
            body.append(f"<p>{esc(line)}</p>")
    if in_table:
        body.append("</table>")
    style = ("body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}")
    return ("<!doctype html><html><head><meta charset='utf-8'><title>bnscope peers</title>"
            f"<style>{style}</style></head><body>" + "\n".join(body) + "</body></html>\n")


if __name__ == "__main__":
    sys.exit(main())
