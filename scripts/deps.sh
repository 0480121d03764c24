#!/usr/bin/env bash
# Install the system packages mxffi builds with, if any is missing (Debian 12).
# usage: scripts/deps.sh [extra packages...]
set -euo pipefail
pkgs=(cmake ninja-build g++ libgtest-dev libgmock-dev libdlpack-dev libdmlc-dev libopenblas-dev
  liblapacke-dev libkissfft-dev libsleef-dev libhwy-dev ccache libclang-common-14-dev abigail-tools
  libdw-dev pkg-config "$@")
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
  # shellcheck source=scripts/progress.sh
  source "$(dirname "$0")/progress.sh"
  run_with_progress "apt-get update" "${TMPDIR:-/tmp}/mxffi-apt.log" $SUDO apt-get update
  run_with_progress "apt-get install" "${TMPDIR:-/tmp}/mxffi-apt.log" \
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y "${filtered[@]}"
fi
