#!/usr/bin/env bash
# Build mxffi with CUDA on a GPU machine and run its tests there. The machine has CUDA (nvcc),
# PyTorch, CuPy, Cython, scikit-build-core, CMake, Ninja and pytest, but none of the Debian
# development packages mxffi builds with and no network: those come from .carry/, made here
# beforehand by scripts/device_carry.sh. docs/cuda.md ("Running the GPU tests") says how to run
# it through the device tool.
#
# Steps: a virtual environment over the machine's Python (its packages visible), the carried
# wheels installed in it, one configure and build (pip install -e, scikit-build-core) of
# libmxffi, the Cython extension and the C++ tests with MXFFI_USE_CUDA=ON, finding DLPack,
# dmlc-core, GoogleTest, OpenBLAS and Highway in .carry/root only (the script fails when CMake
# picked up any other copy); then ctest, the GPU tests (tests/python/test_cuda*.py), and with
# --all the whole Python suite, with --bench benchmarks/bench_cuda.py. Every step runs even when
# one before it failed (the build excepted); the exit status is 1 when any failed. Before the
# tests, `import mxffi` is tried alone: when it fails, the log gets a native backtrace of it
# (gdb or cuda-gdb, where there is one), and the Python steps run with the ctypes backend
# (MXFFI_FFI=ctypes), so the CUDA code still runs.
#
# usage: scripts/gpu_test.sh [--all] [--bench] [--deps-only] [--wheel WHEEL]
#   --deps-only  stop after checking, with a configure of its own (build-gpu/deps, no CUDA, no
#                Python: seconds), that CMake finds every dependency in .carry/root
#   --wheel W    install the wheel W (built elsewhere for this machine's Python and GPU:
#                scripts/gpu_wheel.sh) instead of building here; ctest is skipped (it needs
#                the build tree)
# environment:
#   MXFFI_GPU_PYTHON   the interpreter the venv is made from (/opt/torch/.venv/bin/python3)
#   MXFFI_BUILD_DIR    the build tree (build-gpu); the venv is made in it (venv/)
#   MXFFI_USE_CUDA     ON (OFF or AUTO to try the script on a machine without nvcc)
#   CMAKE_CUDA_ARCHITECTURES  90 (Hopper: H100, H200)
#   MXFFI_GPU_TESTS    pytest's arguments for the GPU tests (tests/python/test_cuda*.py), e.g.
#                      "tests/python/test_cpp_jit.py -k cuda" for mxffi.cpp's CUDA build
#   OUT                where the logs go (the device tool's output folder); else build-gpu/logs
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
run_all=0
run_bench=0
deps_only=0
wheel=""
while [ $# -gt 0 ]; do
  a=$1
  shift
  case "$a" in
    --wheel) wheel=${1:?gpu_test.sh: --wheel needs a path}; shift ;;
    --all) run_all=1 ;;
    --bench) run_bench=1 ;;
    --deps-only) deps_only=1 ;;
    -h | --help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu_test.sh: unknown argument '$a'; see --help" >&2; exit 2 ;;
  esac
done
[ -z "$wheel" ] || wheel=$(realpath "$wheel")
carry=$root/.carry
python=${MXFFI_GPU_PYTHON:-/opt/torch/.venv/bin/python3}
build=${MXFFI_BUILD_DIR:-build-gpu}
case "$build" in /*) ;; *) build=$root/$build ;; esac
logs=${OUT:-$build/logs}
use_cuda=${MXFFI_USE_CUDA:-ON}
arch=${CMAKE_CUDA_ARCHITECTURES:-90}
mkdir -p "$build" "$logs"
summary=$logs/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }

# device_carry.sh packs what it carries into one archive; it is unpacked here once.
if [ -f "$carry/carry.tar.xz" ] && [ ! -e "$carry/root" ]; then
  echo "== unpacking $carry/carry.tar.xz"
  if command -v xz > /dev/null; then
    tar -C "$carry" -xJf "$carry/carry.tar.xz"
  else
    "$python" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2], filter="tar")' \
      "$carry/carry.tar.xz" "$carry"
  fi || { echo "gpu_test.sh: could not unpack $carry/carry.tar.xz" >&2; exit 1; }
fi
for need in "$carry/root/usr/include/dlpack/dlpack.h" "$carry/root/usr/include/dmlc/parameter.h" \
  "$carry/root/usr/lib/x86_64-linux-gnu/libgtest.a" \
  "$carry/root/usr/lib/x86_64-linux-gnu/libopenblas.so" \
  "$carry/root/usr/include/lapacke.h" "$carry/root/usr/include/kissfft/kissfft.hh" \
  "$carry/root/usr/include/x86_64-linux-gnu/sleef.h" \
  "$carry/root/usr/include/hwy/highway.h" \
  "$carry/root/usr/lib/x86_64-linux-gnu/libhwy_contrib.so.1"; do
  [ -e "$need" ] || { note "gpu_test.sh: $need is missing: run scripts/device_carry.sh here" \
    "and carry .carry"; exit 1; }
done
[ -x "$python" ] || { note "gpu_test.sh: no interpreter at $python (MXFFI_GPU_PYTHON)"; exit 1; }
# cmake and ninja may be the interpreter's own (pip packages) rather than the system's.
export PATH="$(dirname "$python"):$PATH"

# The carried prefix comes first for every find_package, find_library and find_path; the
# libraries it holds are found at run time through LD_LIBRARY_PATH (the installed package's
# RPATH names only its own folder). libgfortran, which OpenBLAS needs, is added only where the
# machine has none.
prefix=$carry/root/usr
libdir=$prefix/lib/x86_64-linux-gnu
export CMAKE_PREFIX_PATH="$prefix${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
ld=$libdir:$libdir/openblas-pthread
if ! /sbin/ldconfig -p 2> /dev/null | grep -q 'libgfortran\.so\.5 '; then
  ld=$ld:$carry/fallback/usr/lib/x86_64-linux-gnu
fi
export LD_LIBRARY_PATH="$ld${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
export PYTHONUNBUFFERED=1

{
  echo "date: $(date -u)"
  echo "host: $(uname -srm)"
  command -v nvidia-smi > /dev/null && nvidia-smi -L
  command -v nvcc > /dev/null && nvcc --version | tail -n 2
  echo "python: $python ($("$python" --version 2>&1))"
  cmake --version | head -n 1
  echo "CMAKE_PREFIX_PATH=$CMAKE_PREFIX_PATH"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  cat "$carry/MANIFEST" 2> /dev/null
} > "$logs/env.txt" 2>&1
cat "$logs/env.txt"

# Every dependency must come from the carried prefix: a copy found elsewhere would make this
# run test a build that the carried packages do not describe. Checked in a tree's CMake cache
# and on its compile lines (the carried headers' folder, ahead of the system's).
check_deps() {
  local tree=$1 bad=0 var val
  for var in dlpack_DIR dmlc_DIR GTest_DIR hwy_DIR MXFFI_OPENBLAS_LIB MXFFI_CBLAS_INCLUDE \
    MXFFI_LAPACKE_LIB MXFFI_LAPACKE_INCLUDE MXFFI_KISSFFT_INCLUDE \
    MXFFI_SLEEF_LIB MXFFI_SLEEF_INCLUDE; do
    val=$(sed -n "s/^$var:[A-Z]*=//p" "$tree/CMakeCache.txt")
    case "$val" in
      "$carry"/*) echo "found $var=$val" ;;
      *) note "dependency: $var='$val' is not in $carry"; bad=1 ;;
    esac
  done
  if ! grep -q -- "-isystem $prefix/include" "$tree/compile_commands.json"; then
    note "dependency: the compile lines in $tree do not include $prefix/include"
    bad=1
  fi
  return $bad
}

echo "== dependencies from $carry"
if ! cmake -S . -B "$build/deps" -G Ninja -DMXFFI_USE_CUDA=OFF -DMXFFI_BUILD_TESTS=ON \
  -DMXFFI_BUILD_PYTHON=OFF > "$build/deps.log" 2>&1; then
  cat "$build/deps.log"
  note "dependencies: the configure FAILED ($build/deps.log)"
  exit 1
fi
check_deps "$build/deps" || { note "dependencies: FAILED"; exit 1; }
note "dependencies: every one from $carry"
[ $deps_only -eq 0 ] || exit 0

# A venv made from a venv's interpreter sees the base installation's packages, not that venv's:
# a .pth file adds the interpreter's own site-packages (torch, cupy, numpy, Cython, ...). Where
# the interpreter has no ensurepip, the venv is made without pip and the interpreter's pip
# installs into it (pip --python); where no venv can be made at all, mxffi is installed into
# the interpreter's own environment (the machine is given back afterwards).
venv=$build/venv
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv --system-site-packages "$venv" > /dev/null 2>&1 ||
    { rm -rf "$venv"; "$python" -m venv --without-pip --system-site-packages "$venv"; } ||
    rm -rf "$venv"
  if [ -x "$venv/bin/python" ]; then
    "$python" -c 'import site; print("\n".join(site.getsitepackages()))' \
      > "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/_mxffi_base_site.pth"
  fi
fi
if [ -x "$venv/bin/python" ]; then
  py=$venv/bin/python
  pip=("$py" -m pip)
  "$py" -m pip --version > /dev/null 2>&1 || pip=("$python" -m pip --python "$py")
else
  note "venv: none could be made; installing into $python's environment"
  py=$python
  pip=("$py" -m pip)
fi
"$py" -c 'import numpy, Cython, scikit_build_core, pytest' ||
  { note "python: $py lacks a package the build or the tests need"; exit 1; }
shopt -s nullglob
wheels=("$carry"/wheels/*.whl)
if [ ${#wheels[@]} -gt 0 ]; then
  "${pip[@]}" install -q --disable-pip-version-check --no-index --no-deps \
    --find-links "$carry/wheels" "${wheels[@]}" || { note "carried wheels: FAILED"; exit 1; }
fi

if [ -n "$wheel" ]; then
  echo "== pip install $wheel"
  "${pip[@]}" install -q --disable-pip-version-check --no-index --no-deps --force-reinstall \
    "$wheel" > "$logs/build.log" 2>&1 || { cat "$logs/build.log"; note "wheel: FAILED"; exit 1; }
  note "wheel: installed $(basename "$wheel")"
else
  echo "== configure, build and pip install -e . (MXFFI_USE_CUDA=$use_cuda, sm_$arch, $build)"
  start=$(date +%s)
  if ! "${pip[@]}" install -v --disable-pip-version-check --no-build-isolation --no-index \
    --no-deps -e . -Cbuild-dir="$build" -Ccmake.define.MXFFI_BUILD_TESTS=ON \
    -Ccmake.define.MXFFI_USE_CUDA="$use_cuda" -Ccmake.define.CMAKE_CUDA_ARCHITECTURES="$arch" \
    > "$logs/build.log" 2>&1; then
    tail -n 100 "$logs/build.log"
    note "build: FAILED ($logs/build.log)"
    exit 1
  fi
  note "build: ok in $(($(date +%s) - start)) s"
  grep -E "^\s*-- (mxffi|The CUDA compiler)" "$logs/build.log"

  check_deps "$build" || { note "dependencies: FAILED"; exit 1; }
fi

failed=0
step() {  # step NAME LOG COMMAND...: run, log, record
  local name=$1 log=$2
  shift 2
  echo "== $name"
  local t=$(date +%s)
  "$@" 2>&1 | tee "$log" | tail -n 25
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ]; then
    note "$name: ok in $(($(date +%s) - t)) s"
  else
    note "$name: FAILED (exit $rc; $log)"
    failed=1
  fi
}
if [ -z "$wheel" ]; then
  step ctest "$logs/ctest.log" ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
fi

# import mxffi alone first (from outside the tree, as the tests do): a crash there would
# otherwise show only as every later step failing.
echo "== import mxffi"
import_check='import mxffi, mxffi.np; print(mxffi.__file__, "devices:", mxffi.cuda.device_count())'
if (cd "$logs" && "$py" -X faulthandler -c "$import_check") > "$logs/import.log" 2>&1; then
  note "import: ok ($(tail -n 1 "$logs/import.log"))"
else
  note "import: FAILED ($logs/import.log); the Python steps run with MXFFI_FFI=ctypes"
  tail -n 30 "$logs/import.log"
  dbg=$(command -v gdb || command -v cuda-gdb || true)
  if [ -n "$dbg" ]; then
    (cd "$logs" && timeout 120 "$dbg" -q -batch -ex run -ex bt -ex 'info sharedlibrary' \
      --args "$py" -c 'import mxffi') > "$logs/import_bt.log" 2>&1
    echo "-- native backtrace ($dbg; $logs/import_bt.log):"
    grep -E '^#|signal|SIG' "$logs/import_bt.log" | head -n 40
  fi
  export MXFFI_FFI=ctypes
  if (cd "$logs" && "$py" -X faulthandler -c "$import_check") > "$logs/import_ctypes.log" 2>&1
  then
    note "import (ctypes): ok"
  else
    note "import (ctypes): FAILED"
    tail -n 20 "$logs/import_ctypes.log"
  fi
fi
if [ -n "${MXFFI_GPU_TESTS:-}" ]; then
  read -r -a gpu_tests <<< "$MXFFI_GPU_TESTS"
else
  gpu_tests=(tests/python/test_cuda*.py)
fi
step "pytest GPU tests" "$logs/pytest_cuda.log" "$py" -m pytest -q -rs "${gpu_tests[@]}"
if [ $run_all -eq 1 ]; then
  step "pytest all" "$logs/pytest_all.log" "$py" -m pytest -q -rs tests/python
fi
if [ $run_bench -eq 1 ]; then
  step "bench_cuda" "$logs/bench_cuda.log" "$py" benchmarks/bench_cuda.py --check \
    --json "$logs/bench_cuda.json"
fi
echo "== summary"
cat "$summary"
exit $failed
