#!/usr/bin/env bash
# Build everything once and run every test. One configure and build, by pip through
# scikit-build-core, makes libmxffi, the Cython extension and the C++ tests in one build tree
# (build/): the package is installed from it (editable, with its test extras), then ctest runs
# the C++ GoogleTest suites, the C99 header check, the documentation example and the outside
# consumer project from it, then pytest runs the Python suite on each core.
# Everything Python is installed into a virtual environment (scripts/venv.sh: .venv, or
# $MXFFI_VENV), so a stock Debian python3 works and checkouts side by side do not share an
# installed mxffi.
# usage: scripts/test.sh            (build dir: build/, or $MXFFI_BUILD_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# shellcheck source=scripts/venv.sh
source scripts/venv.sh
build=${MXFFI_BUILD_DIR:-build}
# The build requirements are installed here and the build isolation is skipped, so that the
# build tree and ccache make a second run incremental.
python3 -m pip install -q --disable-pip-version-check "scikit-build-core>=0.10" "cython>=3.0" \
  "numpy>=1.24" "pytest>=7"
echo "== configure, build and pip install -e .[test] ($build)"
# -Cbuild-dir moves the editable build from pyproject's build-py/{wheel_tag} into $build, and
# MXFFI_BUILD_TESTS adds the C++ tests to it, so ctest runs from the tree the package came from:
# every source, the CUDA kernels among them, is compiled once.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
mkdir -p "$build"
python3 -m pip install -v --disable-pip-version-check --no-build-isolation -e ".[test]" \
  -Cbuild-dir="$build" -Ccmake.define.MXFFI_BUILD_TESTS=ON > "$build/pip-install.log" 2>&1 ||
  { tail -n 200 "$build/pip-install.log"; exit 1; }
grep -E "^\s*-- (mxffi|The CUDA compiler)" "$build/pip-install.log" || true
echo "== ctest"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
# PyTorch for the DLPack tests: 2.13.0 is the CPU build this machine keeps (others pull CUDA).
python3 -c "import torch" 2> /dev/null ||
  python3 -m pip install -q --disable-pip-version-check "torch==2.13.0"
echo "== pytest (Cython core)"
python3 -m pytest -q tests/python
echo "== pytest (ctypes core: the same suite on the reference implementation)"
MXFFI_FFI=ctypes python3 -m pytest -q tests/python
