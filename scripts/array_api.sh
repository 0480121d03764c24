#!/usr/bin/env bash
# The array API standard's test suite (data-apis/array-api-tests) against mxffi.np, and against
# numpy with the same options in the same run, with a per-file table of both.
#
#   bash scripts/array_api.sh [--max-examples N] [--seed S] [--only mxffi|numpy] [--check]
#                             [--xfails FILE] [-- PYTEST_ARGS...]
#
# --check (what the test command runs): mxffi.np only, 20 examples a test (derandomized, no
# deadline), with the committed xfails file (tests/array_api/xfails.txt) strict, so a listed
# test that passes fails the run, and a listed id that names no collected test fails it too;
# without --check, both modules run without the xfails file and the table shows where mxffi
# stands against numpy. To regenerate the xfails file after a change:
#   ARRAY_API_XFAILS_OUT=tests/array_api/xfails.txt bash scripts/array_api.sh --only mxffi \
#     --max-examples 20
# (its comment lines come from HEADER in scripts/array_api_report.py; say in the commit which tests now pass).
#
# The suite is found in $ARRAY_API_TESTS_DIR, else ../shared/array-api-tests beside the
# checkout; where it is not, the script says so and exits 0. It needs hypothesis, ndindex and
# pytest-json-report (the test extras).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MAX_EXAMPLES=200
SEED=20241231
ONLY=""
CHECK=0
XFAILS="$ROOT/tests/array_api/xfails.txt"
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --max-examples) MAX_EXAMPLES="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    --check) CHECK=1; [ "$MAX_EXAMPLES" = 200 ] && MAX_EXAMPLES=20; shift ;;
    --xfails) XFAILS="$2"; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "array_api.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

SUITE="${ARRAY_API_TESTS_DIR:-$ROOT/../shared/array-api-tests}"
if [ ! -d "$SUITE/array_api_tests" ]; then
  echo "array_api.sh: the array API test suite is not at $SUITE (set ARRAY_API_TESTS_DIR); skipped"
  exit 0
fi
SUITE="$(cd "$SUITE" && pwd)"
PY="${PYTHON:-python}"
if ! "$PY" -c "import hypothesis, ndindex, pytest_jsonreport" 2>/dev/null; then
  echo "array_api.sh: the suite needs hypothesis, ndindex and pytest-json-report (pip install" \
    "hypothesis ndindex pytest-json-report: the test extras have them)" >&2
  exit 1
fi

OUT="$ROOT/build-array-api"
mkdir -p "$OUT"
modules=(mxffi.np numpy)
[ "$CHECK" = 1 ] && modules=(mxffi.np)
[ -n "$ONLY" ] && modules=("$([ "$ONLY" = mxffi ] && echo mxffi.np || echo "$ONLY")")

status=0
reports=()
for m in "${modules[@]}"; do
  work="$(mktemp -d)"  # the suite writes its hypothesis database where it runs
  args=("$SUITE/array_api_tests" -p no:cacheprovider -q -rN --tb=line
        --max-examples="$MAX_EXAMPLES" --hypothesis-seed="$SEED"
        --junitxml="$OUT/$m.xml")
  if [ "$CHECK" = 1 ]; then
    # strict: an unexpected pass fails, and so does an xfails id that names no test; the
    # examples are derandomized and untimed, so the same code gives the same outcome anywhere
    args+=(--xfails-file "$XFAILS" -o xfail_strict=true
           --hypothesis-derandomize --hypothesis-disable-deadline)
  elif [ -n "${ARRAY_API_XFAILS_OUT:-}" ]; then
    args+=(--hypothesis-derandomize --hypothesis-disable-deadline)
  fi
  echo "== array API suite against $m (max examples $MAX_EXAMPLES, seed $SEED)"
  rc=0
  (cd "$work" && PYTHONDONTWRITEBYTECODE=1 ARRAY_API_TESTS_MODULE="$m" \
     ARRAY_API_TESTS_VERSION=2024.12 "$PY" -m pytest "${args[@]}" "${EXTRA[@]}" \
     > "$OUT/$m.log" 2>&1) || rc=$?
  tail -3 "$OUT/$m.log"
  rm -rf "$work"
  [ "$rc" != 0 ] && [ "$m" = mxffi.np ] && status=$rc
  if [ "$CHECK" = 1 ] && grep -q "ids in xfails file don't match any collected tests" "$OUT/$m.log"; then
    echo "array_api.sh --check: $XFAILS lists ids that name no test:" >&2
    grep -A20 "ids in xfails file don't match" "$OUT/$m.log" | grep "^ *array_api_tests/" >&2 || true
    status=1
  fi
  reports+=("$m=$OUT/$m.xml")
done
"$PY" "$ROOT/scripts/array_api_report.py" "${reports[@]}"
if [ -n "${ARRAY_API_XFAILS_OUT:-}" ]; then
  # Regenerating the xfails file: every mxffi.np failure of this run, grouped by file.
  "$PY" "$ROOT/scripts/array_api_report.py" --xfails "$OUT/mxffi.np.xml" > "$ARRAY_API_XFAILS_OUT"
  echo "array_api.sh: wrote the failures of mxffi.np to $ARRAY_API_XFAILS_OUT"
fi
if [ "$CHECK" = 1 ]; then
  [ "$status" = 0 ] && echo "array_api.sh --check: passed" || \
    echo "array_api.sh --check: FAILED (exit $status); see $OUT/mxffi.np.log" >&2
  exit "$status"
fi
exit 0
