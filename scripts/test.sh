#!/usr/bin/env bash
# Build everything once and run every test. One configure and build, by pip through
# scikit-build-core, makes libmxffi, the Cython extension and the C++ tests in one build tree
# (build/): the package is installed from it (editable, with its test extras), then ctest runs
# the C++ GoogleTest suites, the C99 header check, the fuzz corpora, the documentation example
# and the outside consumer project from it, the C ABI check compares libmxffi's C surface with
# the committed baseline (scripts/abi_check.sh: libabigail's abidiff, on the debug info that
# -DMXFFI_ABI_DEBUG_INFO=ON gives the files defining the C ABI), then pytest runs the Python
# suite on the Cython core and the call-path suite (tests/python/conftest.py, CTYPES_SUITE) on
# the ctypes core, and the array API standard's own suite runs against mxffi.np with the
# committed xfails file, strict (scripts/array_api.sh --check; skipped where the suite is not
# beside the checkout).
# Everything Python is installed into a virtual environment (scripts/venv.sh: .venv, or
# $MXFFI_VENV), so a stock Debian python3 works and checkouts side by side do not share an
# installed mxffi.
#
# Which build is tested: MXFFI_USE_CUDA (AUTO, ON or OFF; AUTO turns CUDA on where nvcc is
# found). In CI (CI=true) it defaults to OFF, built with nvcc hidden from PATH: the build a
# machine without nvcc gets. There, where nvcc exists, the CUDA configuration is then compiled
# as well (sm_90 only, build-cuda/, its own venv .venv-cuda) and its CUDA test files run: they
# skip without a GPU, except the checks that every op has a CUDA kernel and that CUDA calls fail
# cleanly without a device.
# usage: scripts/test.sh            (build dir: build/, or $MXFFI_BUILD_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh valgrind  # valgrind: test_np_linalg.py runs libmxffi under it
# shellcheck source=scripts/progress.sh
source scripts/progress.sh
build=${MXFFI_BUILD_DIR:-build}
cuda_mode=${MXFFI_USE_CUDA:-}
if [ -z "$cuda_mode" ]; then
  if [ "${CI:-}" = true ]; then cuda_mode=OFF; else cuda_mode=AUTO; fi
fi
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
pip_q=(-q --disable-pip-version-check)

# A PATH whose folders hold no nvcc: a folder holding nvcc is replaced by a shim folder of links
# to everything else in it.
path_without_nvcc() {
  local shims out="" dir entry
  shims=$(mktemp -d)
  IFS=: read -r -a dirs <<< "$PATH"
  for dir in "${dirs[@]}"; do
    if [ -e "$dir/nvcc" ]; then
      mkdir -p "$shims/$(echo "$dir" | tr / _)"
      for entry in "$dir"/*; do
        [ "$(basename "$entry")" = nvcc ] || ln -sf "$entry" "$shims/$(echo "$dir" | tr / _)/"
      done
      dir=$shims/$(echo "$dir" | tr / _)
    fi
    out=${out:+$out:}$dir
  done
  echo "$out"
}

# install_package VENV BUILD_DIR CUDA_MODE [extra pip args]: pip install this checkout into VENV,
# building in BUILD_DIR (the build requirements come from the venv, no isolation, so that the
# build tree and ccache make a second run incremental).
install_package() {
  local venv=$1 dir=$2 mode=$3
  shift 3
  (
    export MXFFI_VENV=$venv
    # shellcheck source=scripts/venv.sh
    source scripts/venv.sh
    python3 -m pip install "${pip_q[@]}" "scikit-build-core>=0.10" "cython>=3.0" "numpy>=1.24" \
      "pytest>=7"
    mkdir -p "$dir"
    run_with_progress "pip install ($dir, MXFFI_USE_CUDA=$mode)" "$dir/pip-install.log" \
      python3 -m pip install -v --disable-pip-version-check --no-build-isolation \
      -Cbuild-dir="$dir" -Ccmake.define.MXFFI_USE_CUDA="$mode" "$@"
    grep -E "^\s*-- (mxffi|The CUDA compiler)" "$dir/pip-install.log" || true
  )
}

echo "== configure, build and pip install -e .[test] ($build, MXFFI_USE_CUDA=$cuda_mode)"
# -Cbuild-dir moves the editable build from pyproject's build-py/{wheel_tag} into $build, and
# MXFFI_BUILD_TESTS adds the C++ tests to it, so ctest runs from the tree the package came from.
if [ "$cuda_mode" = OFF ]; then
  PATH=$(path_without_nvcc) install_package "${MXFFI_VENV:-$PWD/.venv}" "$build" OFF \
    -e ".[test]" -Ccmake.define.MXFFI_BUILD_TESTS=ON -Ccmake.define.MXFFI_ABI_DEBUG_INFO=ON
  ! grep -q "The CUDA compiler identification" "$build/pip-install.log" ||
    { echo "CUDA was configured in a build meant to be CPU-only"; exit 1; }
else
  install_package "${MXFFI_VENV:-$PWD/.venv}" "$build" "$cuda_mode" \
    -e ".[test]" -Ccmake.define.MXFFI_BUILD_TESTS=ON -Ccmake.define.MXFFI_ABI_DEBUG_INFO=ON
fi
# shellcheck source=scripts/venv.sh
source scripts/venv.sh
echo "== ctest"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
echo "== C ABI check (abidiff against abi/libmxffi.abi; scripts/abi_check.sh)"
bash scripts/abi_check.sh "$build/libmxffi.so"
# PyTorch for the DLPack tests: 2.13.0 is the CPU build this machine keeps (others pull CUDA).
python3 -c "import torch" 2> /dev/null ||
  run_with_progress "pip install torch" "$build/pip-torch.log" \
    python3 -m pip install "${pip_q[@]}" "torch==2.13.0"
echo "== pytest (Cython core)"
python3 -m pytest -q tests/python
echo "== pytest (ctypes core: the call-path suite on the reference implementation)"
MXFFI_FFI=ctypes python3 -m pytest -q tests/python
echo "== the array API suite against mxffi.np (scripts/array_api.sh --check: strict xfails)"
bash scripts/array_api.sh --check

if [ "${CI:-}" = true ] && [ "$cuda_mode" = OFF ] && command -v nvcc > /dev/null; then
  echo "== the CUDA configuration: compile (sm_90) and run its CUDA test files (build-cuda/)"
  install_package "$PWD/.venv-cuda" build-cuda ON . \
    -Ccmake.define.CMAKE_CUDA_ARCHITECTURES=90
  # The installed package, not the checkout's python/ folder, is what these tests import.
  "$PWD/.venv-cuda/bin/python3" -m pytest -q -p no:cacheprovider tests/python/test_cuda*.py
fi
