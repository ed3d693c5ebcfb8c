#!/usr/bin/env bash
# The GPU checks of one machine with a device, in one go and in about 8 minutes of device time:
#   1. selftest --backend all        every backend (cuda, cudnn, cuda-emu) against cpu-reference
#   2. bench --backends cuda,cudnn   ResNet-50's batch-norm shapes at N=32, f32/f16/bf16, both
#                                    layouts and modes; the roofline of each case is a
#                                    device-to-device copy of its bytes, measured in the same run
#   3. profile --counters            cuda on a layer held on chip (single pass) and on one that
#                                    is not (two passes), with hardware counters where allowed
# Everything goes to one log (device, driver, commit and date first) and the bench to JSON.
# Build first (this needs no device): cmake --preset release -DBNSCOPE_BUILD_GPU=ON && cmake
# --build --preset release; then run this on the device machine.
# Usage: scripts/gpu_checks.sh [path/to/bnscope-cli]   (LOG=..., OUT_DIR=... to place outputs)
set -uo pipefail
cd "$(dirname "$0")/.."
CLI=${1:-${CLI:-build/release/app/cli/bnscope-cli}}
OUT_DIR=${OUT_DIR:-.}
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
LOG=${LOG:-$OUT_DIR/gpu_checks_$STAMP.log}
mkdir -p "$OUT_DIR"
if [ ! -x "$CLI" ]; then
  echo "gpu_checks: no bnscope-cli at $CLI (build it first, or pass its path)" >&2
  exit 2
fi

failed=0
# step NAME SECONDS CMD...: runs CMD under a time limit, logs its output and its exit status.
step() {
  local name=$1 limit=$2
  shift 2
  echo "=== $name (limit ${limit}s): $*" | tee -a "$LOG"
  local start=$SECONDS
  timeout --signal=INT --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$LOG"
  local rc=${PIPESTATUS[0]}
  echo "=== $name: exit $rc after $((SECONDS - start)) s" | tee -a "$LOG"
  [ "$rc" -eq 0 ] || failed=1
}

{
  echo "bnscope GPU checks, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory,compute_cap \
      --format=csv,noheader
  else
    echo "nvidia-smi: not found"
  fi
} | tee "$LOG"

step selftest 150 "$CLI" selftest --backend all
# The selftest checks every backend's results; the bench times them (--no-check keeps the 72
# cases of 100 M values within the budget).
step bench 300 "$CLI" bench --backends cuda,cudnn --shapes resnet50 \
  --dtypes float32,float16,bfloat16 --no-check --json "$OUT_DIR/gpu_bench_$STAMP.json"
# 16x28x28x256 f32 (25.7 MB of x and dy) fits on an H100/H200's chip; 32x56x56x256 (205 MB)
# does not.
step profile-on-chip 45 "$CLI" profile --backend cuda --counters --shape 16,28,28,256
step profile-two-pass 45 "$CLI" profile --backend cuda --counters --shape 32,56,56,256
echo "log: $LOG" | tee -a "$LOG"
exit $failed
