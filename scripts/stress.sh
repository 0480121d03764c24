#!/usr/bin/env bash
# Thread stress: tests/python/test_stress.py (8 Python threads, every kind of call, arrays, C++
# threads calling back) with MXFFI_STRESS_ITERS iterations per thread (default 5000, against 500
# in the regular suite), on the Cython core (the array layer needs it).
#
# usage: scripts/stress.sh [pytest options...]
#   MXFFI_STRESS_ITERS   iterations per thread (default 5000)
#   PYTHON               the interpreter with mxffi installed from this checkout (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
export MXFFI_STRESS_ITERS=${MXFFI_STRESS_ITERS:-5000}
"$python" -c "import mxffi; print('== stress: mxffi', mxffi.__version__, 'from', mxffi.__file__)"
echo "== stress: $MXFFI_STRESS_ITERS iterations x 8 threads"
start=$SECONDS
"$python" -m pytest -q -p no:cacheprovider tests/python/test_stress.py "$@"
echo "== stress: passed in $((SECONDS - start)) s"
