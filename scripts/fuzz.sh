#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a fixed time, one after another in
# one process each (the machine is shared).
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 600)
# New corpus entries go to a scratch folder, not the committed seeds; crashes are written to
# build-fuzz/artifacts/<target>/ and belong, once fixed, in tests/fuzz/regressions/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-600}"
BUILD="${BNSCOPE_FUZZ_BUILD:-build-fuzz}"
SCRATCH="${BNSCOPE_FUZZ_SCRATCH:-$BUILD/fuzz-scratch}"
TARGETS=(npy npz cli_args run_cpu)

CC="${CC:-clang-14}" CXX="${CXX:-clang++-14}" cmake -S . -B "$BUILD" -G Ninja -DBNSCOPE_FUZZ=ON \
  -DBNSCOPE_BUILD_GUI=OFF -DBNSCOPE_BUILD_GPU=OFF -DBNSCOPE_BUILD_BENCHMARKS=OFF >/dev/null
ninja -C "$BUILD" "${TARGETS[@]/#/fuzz_}"

export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "$SCRATCH/$t" "$BUILD/artifacts/$t"
  echo "== fuzz_$t for ${SECONDS_PER_TARGET}s"
  # The scratch folder comes first so that it receives the new entries; the seeds are read only.
  if ! "$BUILD/tests/fuzz/fuzz_$t" "$SCRATCH/$t" "tests/fuzz/corpus/$t" -max_total_time="$SECONDS_PER_TARGET" \
    -max_len=4096 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts/$t/"; then
    echo "fuzz_$t found a failure; see $BUILD/artifacts/$t/" >&2
    status=1
  fi
done
exit $status
