#!/usr/bin/env bash
# The Python package's tests (capture and the framework worker): a virtual environment under
# build/ with tensorflow-cpu, tf-keras, torch
# and the package itself, then pytest against the built bnscope-cli (BNSCOPE_CLI). Run after the
# release build. Any pytest failure fails the script, and so does a run that collects no tests
# (pytest's exit status 5).
#   bash scripts/test_python.sh            the venv (made if missing), the package, the tests
#   bash scripts/test_python.sh --prepare  only the venv and its dependencies (no CLI needed), so
#                                          the download can overlap the build
set -euo pipefail
cd "$(dirname "$0")/.."

venv=build/python-venv
python=${PYTHON:-python3}
mkdir -p build
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "tensorflow-cpu>=2.16" tf-keras torch pytest
[[ "${1:-}" == --prepare ]] && exit 0

cli=${BNSCOPE_CLI:-$PWD/build/release/app/cli/bnscope-cli}
[ -x "$cli" ] || { echo "test_python.sh: $cli is not built; run the release build first" >&2; exit 2; }
# Not editable: the tests see the package as a user's pip install gives it. No build isolation:
# the venv's own setuptools builds it, without fetching one per run; its in-tree build folder is
# cleared first so no stale copy of a module is packaged.
rm -rf python/build python/*.egg-info
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
  --no-build-isolation ./python

export BNSCOPE_CLI=$cli
export TF_CPP_MIN_LOG_LEVEL=2
# From the repository root, where no bnscope_capture folder sits on the path: the tests import the
# installed package.
"$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
