#!/usr/bin/env bash
# Peer comparison of the cpu backend: builds the benchmarks, runs ours, oneDNN, PyTorch and
# TensorFlow on the same shapes with the same thread count, ours again on one thread for the
# thread scaling, `bnscope-cli bench` on the ResNet-50 shapes (its agreement with the benchmark
# target), and writes peer_table.md.
#   bash scripts/peer_bench.sh [build-dir]     (env: THREADS=2 REPS=5 ROUNDS=2 OUT=<build-dir>/peer
#                                               PIN=1: pinned to THREADS cores where there are more;
#                                               SIMD=AVX2|SSE4: every program capped at that vector
#                                               target, a narrower host's code paths on this one)
# Every implementation runs ROUNDS times, one after the other; the table takes each case's best
# median over the rounds, for all alike (a neighbour on a shared machine can slow a whole case).
# The Python peers live in .venv-peers (created here: pip install torch tensorflow-cpu).
# Run on a quiet machine: the table reports the load average it was measured under. The cases a
# peer won are then timed again alternating with that peer, since on a shared machine the rounds
# of two programs can meet different minutes (scripts/peer_alternate.py): oneDNN in one process
# with bnscope, windows of calls of each in turn (8 rounds), the Python peers one case per
# process, ALT_ROUNDS times (default 3; 0: no re-timing at all).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$ROOT/build-bench}"
THREADS="${THREADS:-2}"
REPS="${REPS:-5}"
ROUNDS="${ROUNDS:-2}"
ALT_ROUNDS="${ALT_ROUNDS:-3}"
OUT="${OUT:-$BUILD/peer}"
mkdir -p "$OUT"

# Each program's own switch for its vector target: bnscope's Highway dispatch, oneDNN's JIT (in
# TensorFlow too) and PyTorch's kernels. Caches and bandwidth stay this host's.
if [ -n "${SIMD:-}" ]; then
  case "${SIMD^^}" in
    AVX3) ONEDNN_ISA=AVX512_CORE ATEN_CAP=avx512 ;;
    AVX2) ONEDNN_ISA=AVX2 ATEN_CAP=avx2 ;;
    SSE4) ONEDNN_ISA=SSE41 ATEN_CAP=default ;;
    *) echo "SIMD expects AVX3, AVX2 or SSE4, got '$SIMD'" >&2; exit 2 ;;
  esac
  export BNSCOPE_SIMD="${SIMD^^}" ONEDNN_MAX_CPU_ISA="$ONEDNN_ISA" ATEN_CPU_CAPABILITY="$ATEN_CAP"
fi

# On a host with more CPUs than THREADS, every program runs pinned to THREADS CPUs on distinct
# cores (the first of each core), the rest left idle: the figures are then those of a
# THREADS-CPU machine, and no program's threads migrate or meet its own idle workers on other
# CPUs. PIN=0 leaves the scheduler free.
if [ "${PIN:-1}" != 0 ] && [ -z "${BNSCOPE_PEER_PINNED:-}" ] && command -v taskset >/dev/null &&
   [ "$(nproc)" -gt "$THREADS" ]; then
  CPUS="$(lscpu -p=CPU,CORE | grep -v '^#' | sort -t, -k2,2n -u | head -n "$THREADS" |
          cut -d, -f1 | paste -sd,)"
  echo "pinned to CPUs $CPUS of $(nproc)"
  BNSCOPE_PEER_PINNED="$CPUS" exec taskset -c "$CPUS" bash "$0" "$@"
fi

bash "$ROOT/scripts/setup.sh" --peers
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBNSCOPE_BUILD_GUI=OFF \
  -DBNSCOPE_BUILD_GPU=OFF -DBNSCOPE_BUILD_BENCHMARKS=ON >/dev/null
ninja -C "$BUILD" bnscope_bench bnscope_onednn_bench bnscope_interactive_bench bnscope-cli

if [ ! -x "$ROOT/.venv-peers/bin/python" ]; then
  python3 -m venv "$ROOT/.venv-peers"
  "$ROOT/.venv-peers/bin/pip" install -q torch tensorflow-cpu numpy
fi

LOAD_BEFORE="$(uptime)"
export BNSCOPE_BENCH_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS"
# The host first: the speed tables are per host (README), and a figure means nothing without it.
# The probes on one thread as well: how far a second thread moves each kind of traffic bounds the
# thread scaling of the passes that move it.
"$BUILD/tests/bench/bnscope_bench" --host >"$OUT/host.txt"
BNSCOPE_BENCH_THREADS=1 "$BUILD/tests/bench/bnscope_bench" --host >"$OUT/host_1thread.txt"
HOST="$(python3 - "$OUT/host.txt" "$OUT/host_1thread.txt" <<'PY'
import subprocess, sys, datetime
read_ctx = lambda f: dict(l.split(": ", 1) for l in open(f).read().splitlines() if ": " in l)
ctx, one = read_ctx(sys.argv[1]), read_ctx(sys.argv[2])
lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
field = lambda k: next((l.split(":", 1)[1].strip() for l in lscpu.splitlines() if l.startswith(k + ":")), "?")
flags = field("Flags").split()
ext = [f for f in ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_bf16", "amx_tile") if f in flags]
print(f"Host: {field('Model name')} (family {field('CPU family')}, model {field('Model')}), {field('CPU(s)')} CPUs")
print(f"Vector extensions: {' '.join(ext)}; dispatched target {ctx.get('simd_target', '?')}")
print(f"Caches: {ctx.get('caches', '?')}")
print(f"Copy bandwidth ({ctx.get('threads', '?')} threads, non-temporal copy): {float(ctx.get('copy_GBps', 'nan')):.1f} GB/s")
print(f"Read bandwidth ({ctx.get('threads', '?')} threads, two arrays read side by side, no stores): {float(ctx.get('read_GBps', 'nan')):.1f} GB/s")
print(f"Stream bandwidth ({ctx.get('threads', '?')} threads, two arrays read, their sum written non-temporally: a single sweep's traffic): {float(ctx.get('stream_GBps', 'nan')):.1f} GB/s")
gb = lambda c, k: float(c.get(k, 'nan'))
print("Probes on 1 thread -> " + ctx.get('threads', '?') + ": " + ", ".join(
    f"{name} {gb(one, k):.1f} -> {gb(ctx, k):.1f} GB/s ({gb(ctx, k) / gb(one, k):.2f}x)"
    for name, k in (("copy", "copy_GBps"), ("read", "read_GBps"), ("stream", "stream_GBps"))))
import os
if os.environ.get("BNSCOPE_SIMD"):
    print(f"Vector target capped at {os.environ['BNSCOPE_SIMD']} in every program (BNSCOPE_SIMD, "
          f"ONEDNN_MAX_CPU_ISA={os.environ['ONEDNN_MAX_CPU_ISA']}, "
          f"ATEN_CPU_CAPABILITY={os.environ['ATEN_CPU_CAPABILITY']}); caches and bandwidth are this host's")
if os.environ.get("BNSCOPE_PEER_PINNED"):
    print(f"Pinned to CPUs {os.environ['BNSCOPE_PEER_PINNED']} (one per core), the others idle")
print(f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; load average {' '.join(open('/proc/loadavg').read().split()[:3])}")
PY
)"
echo "$HOST"
GB=(--benchmark_repetitions="$REPS" --benchmark_report_aggregates_only=true
    --benchmark_format=json --benchmark_min_time=0.1)
# Thread scaling (goal: 2 threads >= 1.7x one thread): the two largest ResNet-50 layers again,
# both layouts, train and freeze, float32, on one thread.
LARGE='^cpu/32x(112x112x64|64x112x112|56x56x256|256x56x56)/(NHWC|NCHW)/(train|freeze)/float32'
MERGE_ARGS=()
for round in $(seq 1 "$ROUNDS"); do
  R="$OUT/round$round"
  mkdir -p "$R"
  "$BUILD/tests/bench/bnscope_bench" --benchmark_filter='^cpu/' "${GB[@]}" >"$R/ours.json"
  BNSCOPE_BENCH_THREADS=1 "$BUILD/tests/bench/bnscope_bench" --benchmark_filter="$LARGE" \
    "${GB[@]}" >"$R/ours_1thread.json"
  "$BUILD/tests/bench/bnscope_onednn_bench" "${GB[@]}" >"$R/onednn.json"
  # The CLI on the cases the benchmark has (training in every dtype, inference in float32), each
  # checked against cpu-reference on this host before it is timed.
  for cli_case in "training float32,bfloat16,float16" "inference float32"; do
    read -r modes dtypes <<<"$cli_case"
    "$BUILD/app/cli/bnscope-cli" bench --backends cpu --shapes resnet50 --formats NHWC,NCHW \
      --modes "$modes" --dtypes "$dtypes" --threads "$THREADS" --reps 20 --warmup 3 \
      --json "$R/cli_$modes.json" >"$R/cli_$modes.txt" ||
      echo "bnscope-cli bench: a case disagrees with cpu-reference, see $R/cli_$modes.txt" >&2
    if [ -s "$R/cli_$modes.json" ]; then MERGE_ARGS+=(--cli "$R/cli_$modes.json"); fi
  done
  "$ROOT/.venv-peers/bin/python" "$ROOT/scripts/peer_bench.py" --threads "$THREADS" \
    --out "$R/peers.json"
  MERGE_ARGS+=(--ours "$R/ours.json" --onednn "$R/onednn.json" --peers "$R/peers.json"
               --ours-1thread "$R/ours_1thread.json")
done
"$BUILD/tests/bench/bnscope_interactive_bench" "${GB[@]}" >"$OUT/interactive.json"
META="$(echo "$HOST" | tr '\n' ' ') Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(lscpu | sed -n 's/^Model name: *//p'), \
$(nproc) CPUs, $THREADS threads; oneDNN $(dpkg-query -W -f='${Version}' libdnnl-dev 2>/dev/null || echo '?'), \
Highway $(dpkg-query -W -f='${Version}' libhwy-dev 2>/dev/null || echo '?'), $(g++ --version | head -1). Load before: ${LOAD_BEFORE##*load average: }; after: \
$(uptime | sed 's/.*load average: //'). Interactive toggle+rerun (default.npz, cpu): \
$(python3 -c "import json,sys; b=[x for x in json.load(open(sys.argv[1]))['benchmarks'] if x.get('aggregate_name')=='median']; print('%.2f ms median' % b[0]['ms_per_toggle'])" "$OUT/interactive.json"). \
Walks and stores as the cpu backend's planner gives them for this host (core/backends/cpu/planner.h)."
if [ "$ALT_ROUNDS" -gt 0 ]; then
  python3 "$ROOT/scripts/peer_merge.py" "${MERGE_ARGS[@]}" --losses "$OUT/losses.json" >/dev/null
  python3 "$ROOT/scripts/peer_alternate.py" --losses "$OUT/losses.json" --build "$BUILD" \
    --python "$ROOT/.venv-peers/bin/python" --rounds "$ALT_ROUNDS" --threads "$THREADS" \
    --out "$OUT/alternated.json"
  MERGE_ARGS+=(--alternated "$OUT/alternated.json")
fi
python3 "$ROOT/scripts/peer_merge.py" "${MERGE_ARGS[@]}" --meta "$META" \
  --html "$OUT/peer_table.html" >"$OUT/peer_table.md"
echo "wrote $OUT/peer_table.md and $OUT/peer_table.html"
# The verdict on the terminal too: whether this host meets the goals is the first thing to know.
sed -n '/^## Verdict/,/^For README/p' "$OUT/peer_table.md"
