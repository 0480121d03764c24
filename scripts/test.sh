#!/usr/bin/env bash
# Build everything and run every test: the C++ GoogleTest suites, the C99 header check, the
# documentation example and the outside consumer project through ctest; then installs the Python
# package (editable, with its test extras) and runs pytest.
# usage: scripts/test.sh            (build dir: build/)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=${MXFFI_BUILD_DIR:-build}
echo "== configure and build ($build)"
mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DMXFFI_BUILD_TESTS=ON > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)"
echo "== ctest"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
echo "== pip install -e .[test]"
# The build requirements are installed here and the build isolation is skipped, so that the
# editable build directory (build-py/) and ccache make a second run incremental.
python3 -m pip install -q --disable-pip-version-check "scikit-build-core>=0.10" "cython>=3.0" \
  "numpy>=1.24" "pytest>=7"
python3 -m pip install -q --disable-pip-version-check --no-build-isolation -e ".[test]"
# PyTorch for the DLPack tests: 2.13.0 is the CPU build this machine keeps (others pull CUDA).
python3 -c "import torch" 2> /dev/null ||
  python3 -m pip install -q --disable-pip-version-check "torch==2.13.0"
echo "== pytest (Cython core)"
python3 -m pytest -q tests/python
echo "== pytest (ctypes core: the same suite on the reference implementation)"
MXFFI_FFI=ctypes python3 -m pytest -q tests/python
