#!/usr/bin/env bash
# Installs the Debian 12 packages bnscope needs to build, test and run; skips what is present.
# Usage: scripts/setup.sh [--sanitizer | --peers]   (--sanitizer: also clang and its sanitizer
# runtimes, which the asan preset compiles with; --peers: also oneDNN, the peer scripts/peer_bench.sh
# measures in the same process)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev googletest libbenchmark-dev
  zlib1g-dev libhwy-dev
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev libimgui-dev
  xvfb xauth libgl1-mesa-dri
  python3 python3-venv python3-pip
)
case "${1:-}" in
  "") ;;
  --sanitizer) packages+=(clang libclang-rt-dev) ;;
  --peers) packages+=(libdnnl-dev) ;;
  *) echo "setup.sh: unknown option '$1' (expected --sanitizer, --peers or nothing)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
