#!/usr/bin/env bash
# Build the fuzz targets (tests/fuzz, see docs/fuzzing.md) and run each for a while:
#   scripts/fuzz.sh [--time SECONDS] [--parallel N] [--python PYTHON] [--no-build] [target...]
# Targets: fuzz_any_convert fuzz_sparse fuzz_dlpack fuzz_dtype_device (libFuzzer, clang with
# ASan + UBSan, built in build-fuzz/), fuzz_python_calls and fuzz_misbehaving_objects (atheris,
# against a plain build of the package installed into build-fuzz/venv, or against the
# interpreter --python names, which must have mxffi installed; atheris is added to it); all of
# them when none is named. --time is
# per target (default 60); --parallel runs that many targets at once (default 1); --no-build
# runs the targets as last built (and the --python interpreter as it is).
# Each run starts from a scratch copy of tests/fuzz/corpus/<target> under build-fuzz/runs/, so
# the committed corpus is never written. Prints executions per target; exits non-zero on any
# crash, with the path of the input that crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
all=(fuzz_any_convert fuzz_sparse fuzz_dlpack fuzz_dtype_device fuzz_python_calls
     fuzz_misbehaving_objects)
python_targets=" fuzz_python_calls fuzz_misbehaving_objects "
time=60
parallel=1
python=""
build_first=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time="$2"; shift 2 ;;
    --parallel) parallel="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    --no-build) build_first=0; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *)
      [[ " ${all[*]} " == *" $1 "* ]] || { echo "unknown target $1; one of: ${all[*]}"; exit 2; }
      targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

build=build-fuzz
mkdir -p "$build"
[ "$build_first" = 0 ] || bash scripts/deps.sh clang libclang-rt-14-dev
cpp=()
py=()
for t in "${targets[@]}"; do
  if [[ "$python_targets" == *" $t "* ]]; then py+=("$t"); else cpp+=("$t"); fi
done
if [ ${#cpp[@]} -gt 0 ] && [ "$build_first" = 1 ]; then
  echo "== building ${cpp[*]} in $build/"
  # CUDA off: the targets exercise host code, and the CUDA runtime adds nothing for them.
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DMXFFI_BUILD_FUZZERS=ON -DMXFFI_USE_CUDA=OFF \
    > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
  cmake --build "$build" -j 2 --target "${cpp[@]}"
fi
if [ ${#py[@]} -gt 0 ]; then
  if [ -z "$python" ] && [ "$build_first" = 0 ]; then
    python=$build/venv/bin/python
  elif [ -z "$python" ]; then
    venv=$build/venv
    echo "== installing the package into $venv"
    [ -x "$venv/bin/python" ] || python3 -m venv --system-site-packages "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation \
      -C build-dir="$build/python" .
    python=$venv/bin/python
  fi
  "$python" -c "import atheris" 2> /dev/null || [ "$build_first" = 0 ] ||
    "$python" -m pip install -q --disable-pip-version-check atheris
fi

stamp=$(date -u +%Y%m%d-%H%M%S)
runs=$build/runs/$stamp
mkdir -p "$runs"
# One kernel thread keeps a run to its own core on a shared machine; the fallback warnings of
# sparse ops would flood the logs.
export MXFFI_NUM_THREADS=${MXFFI_NUM_THREADS:-1} MXFFI_STORAGE_FALLBACK_LOG_VERBOSE=0
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local t=$1 dir=$runs/$1
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp tests/fuzz/corpus/"$t"/* "$dir/corpus/" 2> /dev/null || true
  local flags=(-max_total_time="$time" -print_final_stats=1 -timeout=60
               -artifact_prefix="$dir/artifacts/" "$dir/corpus")
  [ -f tests/fuzz/"$t".dict ] && flags=(-dict=tests/fuzz/"$t".dict "${flags[@]}")
  local rc=0
  if [[ "$python_targets" == *" $t "* ]]; then
    "$python" tests/fuzz/"$t".py "${flags[@]}" > "$dir/log" 2>&1 || rc=$?
  else
    "$build/tests/fuzz/$t" "${flags[@]}" > "$dir/log" 2>&1 || rc=$?
  fi
  echo "$rc" > "$dir/rc"
  echo "== $t done (exit $rc), log $dir/log"
}

echo "== running ${targets[*]} for ${time}s each, $parallel at a time; logs in $runs/"
active=0
for t in "${targets[@]}"; do
  run_one "$t" &
  active=$((active + 1))
  if [ "$active" -ge "$parallel" ]; then wait -n || true; active=$((active - 1)); fi
done
wait

failed=0
printf '\n%-20s %14s  %s\n' target executions result
for t in "${targets[@]}"; do
  dir=$runs/$t
  execs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$dir/log" | tail -1 | grep -o '[0-9]*$' || true)
  crashes=$(ls "$dir/artifacts" 2> /dev/null | sed "s|^|$dir/artifacts/|" || true)
  result=ok
  if [ "$(cat "$dir/rc")" != 0 ] || [ -n "$crashes" ]; then
    result="CRASH ${crashes:-(no input saved; see $dir/log)}"
    failed=1
  fi
  printf '%-20s %14s  %s\n' "$t" "${execs:-?}" "$result"
done
if [ "$failed" != 0 ]; then
  echo "== crashes found: reproduce with the target binary (or the .py) and the input path;"
  echo "   docs/fuzzing.md says how a crash becomes a regression test"
  exit 1
fi
echo "== no crashes"
