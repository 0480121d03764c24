#!/usr/bin/env bash
# Build everything and run every test: the C++ GoogleTest suites, the C99 header check, the
# documentation example and the outside consumer project through ctest, then pytest for the
# Python tests once tests/python exists.
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
if [ -d tests/python ] && ls tests/python/test_*.py > /dev/null 2>&1; then
  echo "== pytest"
  python3 -m pytest -q tests/python
fi
