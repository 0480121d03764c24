#!/usr/bin/env bash
# Build and run the C++ tests under sanitizers, each in its own build tree:
#   scripts/sanitize.sh address    AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer)
#   scripts/sanitize.sh thread     ThreadSanitizer
#   scripts/sanitize.sh python     the Python sparse and np tests against an address;undefined
#                                  build of the package (in build-san-python/venv), with the
#                                  sanitizer runtimes preloaded into the interpreter
#   scripts/sanitize.sh            address and thread
# Any report fails the run (halt_on_error, -fno-sanitize-recover).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(address thread)
for mode in "${modes[@]}"; do
  if [ "$mode" = python ]; then
    venv=build-san-python/venv
    echo "== python: install an address;undefined build into $venv"
    [ -x "$venv/bin/python" ] || python3 -m venv --system-site-packages "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation \
      -C build-dir=build-san-python/build -C cmake.build-type=Debug \
      -C "cmake.define.MXFFI_SANITIZE=address;undefined" .
    echo "== python: pytest (leak detection off: the interpreter keeps memory until exit)"
    LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
    ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 MXFFI_NUM_THREADS=2 \
      "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/python/test_sparse*.py \
      tests/python/test_np_init.py
    continue
  fi
  case "$mode" in
    address) san="address;undefined" ;;
    thread) san="thread" ;;
    *) echo "unknown mode $mode (address or thread)"; exit 2 ;;
  esac
  build="build-san-$mode"
  echo "== $mode: build with MXFFI_SANITIZE=$san ($build)"
  mkdir -p "$build"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMXFFI_SANITIZE="$san" \
    -DMXFFI_BUILD_TESTS=ON > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
  cmake --build "$build" -j "$(nproc)"
  echo "== $mode: ctest"
  ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -E consumer_project
done
echo "== sanitizers: no reports"
