#!/usr/bin/env bash
# Installs what is missing, builds the Release preset with tests and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release
cmake --build --preset release
ctest --preset release
# The capture package (python/) in a virtual environment with tensorflow-cpu, against the CLI
# just built.
bash scripts/test_python.sh

# --- sanitizer job: the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer ---
# (asan preset: -O2 with line tables only (-g1) for the sanitizer reports, no GPU, no
# benchmarks; builds into build/asan.) This includes
# the fuzz replay tests, which feed every committed fuzz corpus and crash regression input.
# BNSCOPE_SKIP_ASAN=1 skips it for a quick local run.
if [[ "${BNSCOPE_SKIP_ASAN:-0}" != 1 ]]; then
  cmake --preset asan
  cmake --build --preset asan
  ctest --preset asan
fi
