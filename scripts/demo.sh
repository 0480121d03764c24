#!/usr/bin/env bash
# The main job, until the Python frontend lands: install mxffi (headers, libmxffi, CMake
# package) into ./_install, run the C++ example that registers functions and calls them
# through the C ABI, then print the call-cost table (callgrind instructions per call and
# Google Benchmark nanoseconds per call through MXFFIFuncCall).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh libbenchmark-dev valgrind
echo "== build and install into ./_install"
mkdir -p build
cmake -S . -B build -G Ninja -DMXFFI_BUILD_TESTS=OFF > build/configure.log 2>&1 ||
  { cat build/configure.log; exit 1; }
cmake --build build -j "$(nproc)" > /dev/null
cmake --install build --prefix _install > /dev/null
echo "== docs/examples/register_api.cc"
./build/mxffi_example
echo "== call cost through MXFFIFuncCall"
bash scripts/bench_callgrind.sh --gbench
