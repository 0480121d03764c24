#!/usr/bin/env bash
# Build here the wheel that `scripts/gpu_test.sh --wheel` installs on a GPU machine, so that a
# device run spends its minutes on the tests instead of a build (about 200 s there). The wheel
# has CUDA on with kernels for sm_90 (CMAKE_CUDA_ARCHITECTURES), no libdw (that machine has
# none), and is built for the GPU machine's Python minor version, 3.12: MXFFI_WHEEL_PYTHON
# names an interpreter of it (default: pyenv's newest 3.12). Its venv, with numpy, Cython and
# scikit-build-core from PyPI, and its build tree go to build-gpu-wheel/ (MXFFI_WHEEL_VENV and
# MXFFI_WHEEL_BUILD_DIR name others); the wheel goes to .carry/, which scripts/device_carry.sh
# made beforehand, and is named on stdout's last line.
#
# usage: scripts/gpu_wheel.sh
#   then: run(command="bash scripts/gpu_test.sh --bench --wheel .carry/<wheel>", carry=[".carry"])
set -euo pipefail
cd "$(dirname "$0")/.."
py=${MXFFI_WHEEL_PYTHON:-}
if [ -z "$py" ]; then
  for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12.*/bin/python3; do
    if [ -x "$p" ]; then py=$p; fi  # the last one the glob lists
  done
fi
if [ -z "$py" ] || ! "$py" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))'; then
  echo "gpu_wheel.sh: no Python 3.12 (set MXFFI_WHEEL_PYTHON)" >&2
  exit 1
fi
[ -d .carry ] || { echo "gpu_wheel.sh: run scripts/device_carry.sh first" >&2; exit 1; }
venv=${MXFFI_WHEEL_VENV:-build-gpu-wheel/venv}
build=${MXFFI_WHEEL_BUILD_DIR:-build-gpu-wheel/build}
if [ ! -x "$venv/bin/python" ]; then
  "$py" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check numpy Cython scikit-build-core \
    cmake ninja
fi
venv_bin=$(cd "$venv/bin" && pwd)
export PATH="$venv_bin:$PATH"
rm -f .carry/mxffi-*.whl
"$venv/bin/pip" wheel -q --disable-pip-version-check --no-build-isolation --no-deps \
  -w .carry -Cbuild-dir="$build" -Ccmake.define.MXFFI_USE_CUDA=ON \
  -Ccmake.define.CMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}" \
  -Ccmake.define.MXFFI_USE_LIBDW=OFF -Ccmake.define.MXFFI_BUILD_TESTS=OFF .
for w in .carry/mxffi-*.whl; do
  du -h "$w"
done
echo "$w"
