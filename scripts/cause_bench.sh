#!/usr/bin/env bash
# What the cause search costs: `bnscope-cli diff --against` on one ResNet-50 layer
# (FusedBatchNormGradV3, 32x56x56x256 float32, NHWC, training) whose saved outputs were made with
# epsilon 0.01 while the problem has 0.001 (every channel fails), with the full cause search and
# with --no-causes. The goal: the search at most 3x the diff without it.
#   bash scripts/cause_bench.sh [bnscope-cli] [work-dir]     (env: RUNS=5 SHAPE=32,56,56,256)
# Prints the median wall seconds of each over RUNS runs (warm page cache), their ratio and the
# cause line the search printed.
set -euo pipefail
export LC_ALL=C
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLI="${1:-$ROOT/build/release/app/cli/bnscope-cli}"
WORK="${2:-$(mktemp -d "${TMPDIR:-/tmp}/bnscope-cause-bench.XXXXXX")}"
RUNS="${RUNS:-5}"
SHAPE="${SHAPE:-32,56,56,256}"
mkdir -p "$WORK"

"$CLI" sample --shape "$SHAPE" --attr epsilon=0.001 --out "$WORK/layer.npz" >/dev/null
"$CLI" run --problem "$WORK/layer.npz" --attr epsilon=0.01 --backend cpu --out "$WORK/ref" \
  --quiet

# Wall seconds of one diff (exit status 1: the outputs disagree, as they must).
once() {
  local t0 t1 rc=0
  t0=$EPOCHREALTIME
  "$CLI" diff --problem "$WORK/layer.npz" --backends cpu --against "$WORK/ref" "$@" \
    >"$WORK/.out" 2>&1 || rc=$?
  t1=$EPOCHREALTIME
  [ "$rc" -eq 1 ] || { cat "$WORK/.out" >&2; echo "diff exited $rc, expected 1" >&2; exit 2; }
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.6f\n", b - a}'
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

once >/dev/null  # warm the page cache
plain=$(for _ in $(seq "$RUNS"); do once --no-causes; done | median)
full=$(for _ in $(seq "$RUNS"); do once; done | median)
once >/dev/null
cause=$(grep -A2 "likely cause" "$WORK/.out" | head -3 || true)
echo "| case | diff --no-causes (s) | diff with causes (s) | ratio (goal <= 3) |"
echo "|---|---|---|---|"
awk -v s="$SHAPE" -v p="$plain" -v f="$full" \
  'BEGIN {printf "| FusedBatchNormGradV3 %s float32 NHWC, epsilon 0.01 vs 0.001 | %.3f | %.3f | %.2f |\n", s, p, f, f / p}'
echo
echo "$cause"
