#!/usr/bin/env bash
# Installs what is missing, builds the Release preset with tests and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release
cmake --build --preset release
ctest --preset release
