#!/usr/bin/env bash
# Compile cost per translation unit: a fresh build of libmxffi and the Cython module (no tests)
# with /usr/bin/time as the compiler launcher, then a table of the CPU seconds (user +
# system) and the maximum resident memory of every compile, the largest first, and the totals.
# usage: scripts/compile_cost.sh [cpu|cuda] [jobs]   (default: cpu 1)
#   cpu   MXFFI_USE_CUDA=OFF: what a machine without nvcc builds
#   cuda  MXFFI_USE_CUDA=ON for one architecture (sm_90; CMAKE_CUDA_ARCHITECTURES overrides)
# The build tree is build-cost-<mode>/; the raw log is build-cost-<mode>/compile-cost.log.
# MXFFI_COST_CCACHE=ccache compiles through ccache (to fill a cache while measuring; every
# compile must then miss, or the figures measure the cache).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-cpu}
jobs=${2:-1}
dir=build-cost-$mode
rm -rf "$dir"
mkdir -p "$dir"
log=$PWD/$dir/compile-cost.log
launcher=$PWD/$dir/time-launcher.sh
cat > "$launcher" << LAUNCH
#!/usr/bin/env bash
# Runs one compile under /usr/bin/time, appending "cpu_s max_rss_kb source" to the log.
src=unknown
for a in "\$@"; do case "\$a" in *.cc|*.cpp|*.cu|*.c) src=\$a ;; esac; done
exec /usr/bin/time -a -o "$log" -f "%U %S %M \$src" \$MXFFI_COST_CCACHE "\$@"
LAUNCH
chmod +x "$launcher"
cuda=(-DMXFFI_USE_CUDA=OFF)
if [ "$mode" = cuda ]; then
  cuda=(-DMXFFI_USE_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES:-90}"
    "-DCMAKE_CUDA_COMPILER_LAUNCHER=$launcher")
fi
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMXFFI_BUILD_TESTS=OFF \
  -DMXFFI_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$(command -v python3)" \
  "-DCMAKE_C_COMPILER_LAUNCHER=$launcher" "-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher" \
  "${cuda[@]}" > "$dir/configure.log"
start=$(date +%s)
cmake --build "$dir" -j "$jobs" > "$dir/build.log"
echo "== $mode build, -j$jobs: $(($(date +%s) - start)) s wall"
python3 - "$log" "$PWD/" << 'PY'
import sys
rows = []
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) < 4 or not parts[0].replace(".", "").isdigit():
        continue
    user, sys_s, rss = float(parts[0]), float(parts[1]), int(parts[2])
    rows.append((user + sys_s, rss / 1024**2, parts[3].replace(sys.argv[2], "")))
rows.sort(reverse=True)
print(f"{'CPU s':>8} {'max RSS GB':>10}  translation unit")
for cpu, rss, src in rows:
    print(f"{cpu:8.1f} {rss:10.2f}  {src}")
print(f"{sum(r[0] for r in rows):8.1f} {max((r[1] for r in rows), default=0):10.2f}  "
      f"total of {len(rows)} units (largest RSS)")
PY
