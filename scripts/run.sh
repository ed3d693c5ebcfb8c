#!/usr/bin/env bash
# Installs what is missing, builds the Release preset and opens bnscope on the built-in sample.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release
cmake --build --preset release
if [ -x build/release/app/gui/bnscope ]; then
  if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec build/release/app/gui/bnscope "$@"
  fi
  echo "no display: running bnscope under xvfb-run for 10 seconds, then the CLI demo"
  timeout 10 xvfb-run -a build/release/app/gui/bnscope "$@" || true
fi
exec build/release/app/cli/bnscope-cli demo
