#!/usr/bin/env bash
# Installs what is missing, builds the Release preset with tests and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --sanitizer
# The capture package's virtual environment downloads while the C++ build compiles.
mkdir -p build
bash scripts/test_python.sh --prepare >build/python-venv.log 2>&1 &
venv_job=$!
trap 'kill "$venv_job" 2>/dev/null || true' EXIT
cmake --preset release
cmake --build --preset release
# The framework backends' C++ tests run their workers in that environment: ready before ctest.
wait "$venv_job" || { cat build/python-venv.log >&2; echo "test.sh: preparing build/python-venv failed" >&2; exit 1; }
ctest --preset release
# The capture package (python/) in that environment, against the CLI just built.
bash scripts/test_python.sh

# --- sanitizer job: the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer ---
# (asan preset: clang, so that CI also compiles everything with a second compiler; -O1 (-O0 for
# the Qt views, the app and their tests: cmake/Sanitizers.cmake) with
# line tables only (-g1) for the sanitizer reports, no GPU, no
# benchmarks, a unity build (several sources per compiler run: file-local names must differ
# between the files of one target); builds into build/asan.) This includes
# the fuzz replay tests, which feed every committed fuzz corpus and crash regression input.
# BNSCOPE_SKIP_ASAN=1 skips it for a quick local run.
if [[ "${BNSCOPE_SKIP_ASAN:-0}" != 1 ]]; then
  cmake --preset asan
  cmake --build --preset asan
  ctest --preset asan
fi
