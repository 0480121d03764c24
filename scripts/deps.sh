#!/usr/bin/env bash
# Install the system packages mxffi builds with, if any is missing (Debian 12).
# usage: scripts/deps.sh [extra packages...]
set -euo pipefail
pkgs=(cmake ninja-build g++ libgtest-dev libgmock-dev libdlpack-dev libdmlc-dev libopenblas-dev
  libhwy-dev ccache "$@")
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p")
done
# cmake and ninja may come from pip instead of Debian; either will do.
filtered=()
for p in "${missing[@]}"; do
  case "$p" in
    cmake) command -v cmake > /dev/null || filtered+=("$p") ;;
    ninja-build) command -v ninja > /dev/null || filtered+=("$p") ;;
    *) filtered+=("$p") ;;
  esac
done
if [ ${#filtered[@]} -gt 0 ]; then
  echo "== installing system packages: ${filtered[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${filtered[@]}" > /dev/null
fi
