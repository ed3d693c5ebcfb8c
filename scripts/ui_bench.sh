#!/usr/bin/env bash
# The app on one ResNet-50 layer (FusedBatchNormGradV3, 32x56x56x256 float32, NHWC, training):
# runs bnscope_ui_bench RUNS times, each a fresh process driving the main window offscreen
# (open, is_training, data_format, Esc, Diff, Profile), and prints a markdown table of the
# medians with the ratios the goals are stated in: the first view against `bnscope-cli run` of the
# same problem, each toggle against the cpu kernel's median, peak RSS against the input and
# output bytes, all measured in the same process run after run.
#   bash scripts/ui_bench.sh [bnscope_ui_bench] [extra flags]     (env: RUNS=5)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BENCH="${1:-$ROOT/build/release/tests/bench/bnscope_ui_bench}"
shift || true
RUNS="${RUNS:-5}"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/bnscope-ui-bench.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT
for i in $(seq "$RUNS"); do
  QT_QPA_PLATFORM=offscreen "$BENCH" --cli-reps 3 "$@" >"$OUT/run$i.txt" 2>/dev/null
done
python3 - "$OUT" "$RUNS" <<'EOF'
import re, statistics, sys, glob
out, runs = sys.argv[1], int(sys.argv[2])
steps, kernel, cli, data = {}, [], [], None
order = []
for path in sorted(glob.glob(out + "/run*.txt")):
    for line in open(path):
        m = re.match(r"step (\S+)\s+(.*)", line)
        if m:
            name, fields = m.group(1), dict(kv.split("=") for kv in m.group(2).split() if "=" in kv)
            if name not in steps:
                steps[name] = []
                order.append(name)
            steps[name].append(fields)
        elif line.startswith("kernel_ms"):
            kernel.append(float(line.split()[1]))
        elif line.startswith("cli_run_s"):
            cli.append(float(line.split()[1]))
        elif line.startswith("data_mb"):
            data = float(line.split()[1])
med = statistics.median
k, c = med(kernel), med(cli)
print(f"runs: {runs}; cpu kernel median {k:.1f} ms; bnscope-cli run median {c:.3f} s; "
      f"inputs + outputs {data:.0f} MiB\n")
print("| step | s | / kernel | / CLI run | longest UI stall ms | peak RSS MiB | / data |")
print("|---|---|---|---|---|---|---|")
for name in order:
    rows = steps[name]
    s = med(float(r["seconds"]) for r in rows)
    stall = med(float(r["stall_ms"]) for r in rows)
    rss = [float(r["peak_rss_mb"]) for r in rows if "peak_rss_mb" in r]
    rss_text = f"{med(rss):.1f} | {med(rss) / data:.3f}" if rss else "- | -"
    print(f"| {name} | {s:.3f} | {s * 1000 / k:.1f}x | {s / c:.2f}x | {stall:.0f} | {rss_text} |")
EOF
