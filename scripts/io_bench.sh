#!/usr/bin/env bash
# End-to-end I/O benchmark of bnscope-cli on one ResNet-50 layer (FusedBatchNormGradV3,
# 32x56x56x256 float32, NHWC, training): `sample`, `run` and `report`, each against plain
# sequential I/O of the same bytes measured in the same session, with a warm page cache.
#   bash scripts/io_bench.sh [bnscope-cli] [work-dir]     (env: RUNS=5 SHAPE=32,56,56,256)
# Prints a markdown table: median wall seconds (bash's microsecond clock around each command; GNU
# time's own %e counts in 10 ms steps, a tenth of the plain I/O figure) and median peak RSS (GNU
# time) over RUNS runs.
# Plain I/O: `cat` of the input archive to /dev/null, and `dd ... conv=fsync` writing as many
# bytes as the command writes (bnscope fsyncs every file it writes before moving it into place).
set -euo pipefail
export LC_ALL=C  # a "." in $EPOCHREALTIME and awk's numbers
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLI="${1:-$ROOT/build/release/app/cli/bnscope-cli}"
WORK="${2:-$(mktemp -d "${TMPDIR:-/tmp}/bnscope-io-bench.XXXXXX")}"
RUNS="${RUNS:-5}"
SHAPE="${SHAPE:-32,56,56,256}"
TIME=/usr/bin/time
mkdir -p "$WORK"

# One measurement: "<wall seconds> <max RSS KiB>" of the command.
measure() {
  local t0 t1
  t0=$EPOCHREALTIME
  "$TIME" -f "%M" -o "$WORK/.time" "$@" >/dev/null 2>&1
  t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" -v m="$(cat "$WORK/.time")" 'BEGIN {printf "%.6f %s\n", b - a, m}'
}
# Median of the first (col=1) or second (col=2) field over RUNS measurements of the command.
runs_of() {  # "<median s> <median RSS MB>"
  local out; out="$(for _ in $(seq "$RUNS"); do measure "$@"; done)"
  local s m
  s="$(echo "$out" | awk '{print $1}' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')"
  m="$(echo "$out" | awk '{print $2}' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')"
  echo "$s $(awk -v k="$m" 'BEGIN {printf "%.0f", k/1024}')"
}
mib() { awk -v b="$1" 'BEGIN {printf "%d", (b + 1048575) / 1048576}'; }
mb() { awk -v b="$1" 'BEGIN {printf "%.0f", b / 1e6}'; }

P="$WORK/p.npz"
"$CLI" sample --shape "$SHAPE" --out "$P" >/dev/null
IN_BYTES="$(stat -c %s "$P")"
"$CLI" run --problem "$P" --out "$WORK/out" --quiet
OUT_BYTES="$(du -cb "$WORK"/out/*.npy | tail -1 | awk '{print $1}')"
"$CLI" report --problem "$P" --out "$WORK/rep" >/dev/null || true
REP_BYTES="$(du -cb "$WORK"/rep/* | tail -1 | awk '{print $1}')"
cat "$P" >/dev/null  # warm the page cache

read -r SAMPLE_S SAMPLE_MB <<<"$(runs_of "$CLI" sample --shape "$SHAPE" --out "$WORK/s.npz")"
read -r SAMPLE_IO_S _ <<<"$(runs_of bash -c "dd if=/dev/zero of='$WORK/plain.bin' bs=1M count=$(mib "$IN_BYTES") conv=fsync status=none")"
read -r RUN_S RUN_MB <<<"$(runs_of "$CLI" run --problem "$P" --out "$WORK/out" --quiet)"
read -r RUN_IO_S _ <<<"$(runs_of bash -c "cat '$P' >/dev/null && dd if=/dev/zero of='$WORK/plain.bin' bs=1M count=$(mib "$OUT_BYTES") conv=fsync status=none")"
read -r REP_S REP_MB <<<"$(runs_of "$CLI" report --problem "$P" --out "$WORK/rep")"

DATA=$((IN_BYTES + OUT_BYTES))
FLAGS="$(lscpu | sed -n 's/^Flags: *//p')"
has() { case " $FLAGS " in *" $1 "*) echo "$1" ;; esac; }
echo "host: $(lscpu | sed -n 's/^Model name: *//p') (family $(lscpu | sed -n 's/^CPU family: *//p') model $(lscpu | sed -n 's/^Model: *//p')), $(nproc) CPUs, $(lscpu | sed -n 's/^L2 cache: *//p') L2, $(lscpu | sed -n 's/^L3 cache: *//p') L3; $(has avx2) $(has avx512f) $(has pclmulqdq); $(date -u '+%Y-%m-%d %H:%M') UTC; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "problem: FusedBatchNormGradV3 $SHAPE float32 NHWC training; inputs $(mb "$IN_BYTES") MB, outputs $(mb "$OUT_BYTES") MB; $RUNS runs, medians"
echo
echo "| command | wall s | plain I/O s | ratio | goal | peak RSS MB | RSS / data | goal |"
echo "|---|---|---|---|---|---|---|---|"
awk -v s="$SAMPLE_S" -v io="$SAMPLE_IO_S" -v m="$SAMPLE_MB" -v d="$IN_BYTES" 'BEGIN {
  printf "| sample | %.3f | %.3f | %.2fx | <= 1.5x | %d | %.2f | - |\n", s, io, s/io, m, m*1048576/d }'
awk -v s="$RUN_S" -v io="$RUN_IO_S" -v m="$RUN_MB" -v d="$DATA" 'BEGIN {
  printf "| run | %.3f | %.3f | %.2fx | <= 1.5x | %d | %.2f | <= 1.2 |\n", s, io, s/io, m, m*1048576/d }'
awk -v s="$REP_S" -v r="$RUN_S" -v m="$REP_MB" -v d="$DATA" 'BEGIN {
  printf "| report | %.3f | (run: %.3f) | %.2fx of run | <= 3x | %d | %.2f | <= 1.5 |\n", s, r, s/r, m, m*1048576/d }'
rm -rf "$WORK"
