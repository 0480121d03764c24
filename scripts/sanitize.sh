#!/usr/bin/env bash
# Build and run the tests under sanitizers (and valgrind), each mode in its own build tree:
#   scripts/sanitize.sh address        C++ tests with AddressSanitizer + UndefinedBehaviorSanitizer
#                                      and LeakSanitizer (a leak fails the run)
#   scripts/sanitize.sh thread         C++ tests with ThreadSanitizer
#   scripts/sanitize.sh leaks          C++ tests of a plain Debug build under valgrind memcheck:
#                                      a definite or indirect leak, or any memory error, fails
#   scripts/sanitize.sh python         the address mode, then the whole Python suite against an
#                                      address;undefined build of the package (in
#                                      build-san-python/venv), the sanitizer runtimes preloaded
#                                      into the interpreter (leak detection off: the interpreter
#                                      keeps memory until exit)
#   scripts/sanitize.sh python-thread  tests/python/test_stress.py against a thread build of the
#                                      package (in build-san-python-thread/venv), libtsan preloaded;
#                                      MXFFI_STRESS_ITERS (default 200) sets its iterations
#   scripts/sanitize.sh                address and thread
# Any report fails the run (halt_on_error, -fno-sanitize-recover); pytest captures at the sys
# level only (--capture=sys), so that a report, which ends the process, still reaches the log.
# Nothing is suppressed but what scripts/sanitize/tsan.supp lists for python-thread, each entry
# commented: frames of code not built with ThreadSanitizer, never one of mxffi's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
supp="$PWD/scripts/sanitize"
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(address thread)
[[ " ${modes[*]} " == *" python "* && " ${modes[*]} " != *" address "* ]] && modes=(address "${modes[@]}")

# install_package VENV BUILD_DIR SANITIZERS: build the package with MXFFI_SANITIZE into its own
# virtual environment (not editable: the sanitized build must not replace the developer's). The
# environment sees python3's site-packages (numpy, scipy, pytest, the build backend) through a
# plain path entry, not --system-site-packages: that would also run their .pth hooks, and an
# editable mxffi installed there would then shadow the sanitized one.
install_package() {
  local venv=$1 build=$2 san=$3
  echo "== install a $san build of the package into $venv"
  # The test extras come too (ml_dtypes, hypothesis, scikit-learn, ...): the suite imports them.
  # One made by an earlier version of this script, with --system-site-packages: start afresh.
  if grep -qs "include-system-site-packages = true" "$venv/pyvenv.cfg"; then rm -rf "$venv"; fi
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    python3 -c 'import site; print("\n".join(site.getsitepackages()))' \
      > "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/system-site.pth"
  fi
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation \
    -C build-dir="$build" -C cmake.build-type=Debug -C "cmake.define.MXFFI_SANITIZE=$san" ".[test]"
}

# cpp_build DIR SANITIZERS: a Debug build of the library and its C++ tests.
cpp_build() {
  local build=$1 san=$2
  mkdir -p "$build"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMXFFI_SANITIZE="$san" \
    -DMXFFI_BUILD_TESTS=ON > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
  cmake --build "$build" -j "$(nproc)"
}

for mode in "${modes[@]}"; do
  start=$SECONDS
  case "$mode" in
    address | thread)
      san="address;undefined"
      [ "$mode" = thread ] && san=thread
      build="build-san-$mode"
      echo "== $mode: build with MXFFI_SANITIZE=$san ($build)"
      cpp_build "$build" "$san"
      echo "== $mode: ctest"
      ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1 \
      UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -E consumer_project
      ;;
    leaks)
      build=build-leaks
      echo "== leaks: plain Debug build ($build)"
      cpp_build "$build" ""
      bash scripts/deps.sh valgrind
      vg=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect
        --show-leak-kinds=definite,indirect --error-exitcode=1 --num-callers=30)
      echo "== leaks: C++ tests under valgrind memcheck"
      MXFFI_NUM_THREADS=2 "${vg[@]}" "$build/tests/mxffi_cpp_tests" --gtest_brief=1
      echo "== leaks: C test and docs example under valgrind memcheck"
      "${vg[@]}" "$build/tests/mxffi_c_api_test"
      "${vg[@]}" "$(find "$build" -name mxffi_example -type f -perm -u+x | head -n 1)"
      ;;
    python)
      venv=build-san-python/venv
      install_package "$venv" build-san-python/build "address;undefined"
      echo "== python: the whole pytest suite, ASan and UBSan runtimes preloaded"
      # allocator_may_return_null: an impossible allocation (the tests ask for one to check the
      # MemoryError) gets NULL, as from the C library, instead of ASan stopping the process.
      MXFFI_SANITIZED=address \
      LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
      ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1:allocator_may_return_null=1 \
      UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 MXFFI_NUM_THREADS=2 \
        "$venv/bin/python" -m pytest -q -p no:cacheprovider --capture=sys tests/python
      ;;
    python-thread)
      venv=build-san-python-thread/venv
      install_package "$venv" build-san-python-thread/build thread
      echo "== python-thread: tests/python/test_stress.py, libtsan preloaded"
      MXFFI_SANITIZED=thread MXFFI_STRESS_ITERS="${MXFFI_STRESS_ITERS:-200}" \
      LD_PRELOAD="$(gcc -print-file-name=libtsan.so)" \
      TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions="$supp/tsan.supp" \
      MXFFI_NUM_THREADS=2 \
        "$venv/bin/python" -m pytest -q -p no:cacheprovider --capture=sys tests/python/test_stress.py
      ;;
    *)
      echo "unknown mode $mode (address, thread, leaks, python or python-thread)"
      exit 2
      ;;
  esac
  echo "== $mode: passed in $((SECONDS - start)) s"
done
echo "== sanitizers: no reports"
