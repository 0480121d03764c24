#!/usr/bin/env bash
# Build and run the C++ tests under sanitizers, each in its own build tree:
#   scripts/sanitize.sh address    AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer)
#   scripts/sanitize.sh thread     ThreadSanitizer
#   scripts/sanitize.sh            both
# Any report fails the run (halt_on_error, -fno-sanitize-recover).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(address thread)
for mode in "${modes[@]}"; do
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
