#!/usr/bin/env bash
# Instructions per C ABI call (callgrind), with the project's gates; optionally wall time
# per call (Google Benchmark).
#
# Usage: scripts/bench_callgrind.sh [--gbench] [--gbench-only] [--no-build] [--help]
#   (no flag)      configure + build build-bench (Release, benchmarks on, tests off), then for
#                  each case run `mxffi_bench_call --callgrind <case> N` under callgrind for
#                  N and 2N calls and print (I(2N) - I(N)) / N instructions per call.
#                  Exits 1 when a gate fails: nop > 60 or add_int > 120 instructions/call;
#                  then it also prints `callgrind_annotate --inclusive=no` of the 2N run of
#                  each failing case (the hottest functions, self cost).
#   --gbench       afterwards also run the Google Benchmark timing:
#                    mxffi_bench_call --benchmark_min_time=$GBENCH_MIN_TIME \
#                      --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#   --gbench-only  only the Google Benchmark timing (no callgrind, no gates).
#   --no-build     use the existing build-bench as is.
# Environment: BUILD_DIR (default <repo>/build-bench), CALLS (N, default 100000),
#   GBENCH_MIN_TIME (seconds, default 0.5).
# The callgrind outputs stay in $BUILD_DIR/callgrind/<case>.<calls>.out.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-bench}"
CALLS="${CALLS:-100000}"
GBENCH_MIN_TIME="${GBENCH_MIN_TIME:-0.5}"
CASES=(nop add_int sum3)
# Gates: maximum instructions per call; a case without a gate is only reported.
declare -A GATE=([nop]=60 [add_int]=120)

do_build=1
do_callgrind=1
do_gbench=0
for arg in "$@"; do
  case "$arg" in
    --gbench) do_gbench=1 ;;
    --gbench-only) do_gbench=1; do_callgrind=0 ;;
    --no-build) do_build=0 ;;
    -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $arg (try --help)" >&2; exit 2 ;;
  esac
done

say() { printf '==> %s\n' "$*"; }
run() { printf '+ %s\n' "$*"; "$@"; }

# --- Tools: install libbenchmark-dev / valgrind only when dpkg says they are missing. -------
if command -v dpkg >/dev/null 2>&1; then
  missing=()
  for pkg in libbenchmark-dev valgrind; do
    if ! dpkg -s "$pkg" >/dev/null 2>&1; then missing+=("$pkg"); fi
  done
  if ((${#missing[@]})); then
    say "installing missing packages: ${missing[*]}"
    sudo_cmd=()
    if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
    run "${sudo_cmd[@]}" apt-get update
    run "${sudo_cmd[@]}" apt-get install -y "${missing[@]}"
  else
    say "libbenchmark-dev and valgrind are installed"
  fi
else
  say "no dpkg: assuming Google Benchmark and valgrind are installed"
fi

# --- Build. ---------------------------------------------------------------------------------
if ((do_build)); then
  generator=()
  if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
  if [[ -f "$BUILD_DIR/CMakeCache.txt" ]]; then generator=(); fi  # keep the existing one
  say "configuring and building $BUILD_DIR (Release)"
  run cmake -S "$ROOT" -B "$BUILD_DIR" "${generator[@]}" -DMXFFI_BUILD_TESTS=OFF \
    -DMXFFI_BUILD_BENCHMARKS=ON -DCMAKE_BUILD_TYPE=Release
  run cmake --build "$BUILD_DIR" --target mxffi_bench_call -j "$(nproc 2>/dev/null || echo 2)"
fi
BENCH="$BUILD_DIR/benchmarks/mxffi_bench_call"
if [[ ! -x "$BENCH" ]]; then
  echo "error: $BENCH not found (build first, or drop --no-build)" >&2
  exit 1
fi

status=0

# --- Callgrind: instructions per call. ------------------------------------------------------
# Total instructions of a callgrind output file: its `totals:` line, else its `summary:` line.
total_instructions() {
  local file="$1" n
  n="$(awk '/^totals:/ {print $2; exit}' "$file")"
  if [[ -z "$n" ]]; then n="$(awk '/^summary:/ {print $2; exit}' "$file")"; fi
  if [[ -z "$n" ]]; then
    echo "error: no totals:/summary: line in $file" >&2
    return 1
  fi
  echo "$n"
}

if ((do_callgrind)); then
  out_dir="$BUILD_DIR/callgrind"
  mkdir -p "$out_dir"
  calls2=$((2 * CALLS))
  declare -A PER_CALL=()
  failed=()
  for c in "${CASES[@]}"; do
    declare -A total=()
    for n in "$CALLS" "$calls2"; do
      out="$out_dir/$c.$n.out"
      say "callgrind: $c, $n calls"
      run valgrind --tool=callgrind --callgrind-out-file="$out" -q "$BENCH" --callgrind "$c" "$n"
      total[$n]="$(total_instructions "$out")"
      echo "    total instructions: ${total[$n]}"
    done
    PER_CALL[$c]="$(awk -v a="${total[$CALLS]}" -v b="${total[$calls2]}" -v n="$CALLS" \
      'BEGIN {printf "%.2f", (b - a) / n}')"
    unset total
  done

  echo
  echo "Instructions per call through MXFFIFuncCall (callgrind, (I(2N) - I(N)) / N, N = $CALLS):"
  printf '%-10s %18s %8s  %s\n' case instructions/call gate result
  for c in "${CASES[@]}"; do
    gate="${GATE[$c]:-}"
    verdict="-"
    if [[ -n "$gate" ]]; then
      if awk -v x="${PER_CALL[$c]}" -v g="$gate" 'BEGIN {exit !(x > g)}'; then
        verdict="FAIL"
        failed+=("$c")
      else
        verdict="ok"
      fi
    fi
    printf '%-10s %18s %8s  %s\n' "$c" "${PER_CALL[$c]}" "${gate:--}" "$verdict"
  done

  if ((${#failed[@]})); then
    status=1
    echo
    say "gates failed: ${failed[*]}; the hottest functions of each 2N run (self cost):"
    for c in "${failed[@]}"; do
      out="$out_dir/$c.$calls2.out"
      echo
      say "$c ($calls2 calls): $out"
      run callgrind_annotate --inclusive=no "$out" >"$out.annotate"
      sed -n '1,60p' "$out.annotate"
    done
  else
    echo
    say "gates passed (nop <= ${GATE[nop]}, add_int <= ${GATE[add_int]} instructions/call)"
  fi
fi

# --- Google Benchmark: wall time per call. --------------------------------------------------
if ((do_gbench)); then
  echo
  say "Google Benchmark timing (one iteration = one call; see the _median rows)"
  run "$BENCH" --benchmark_min_time="$GBENCH_MIN_TIME" --benchmark_repetitions=5 \
    --benchmark_report_aggregates_only=true
else
  echo
  echo "For wall time per call: $0 --gbench   (or run"
  echo "  $BENCH --benchmark_min_time=$GBENCH_MIN_TIME --benchmark_repetitions=5 --benchmark_report_aggregates_only=true)"
fi

exit "$status"
