#!/usr/bin/env bash
# Soak: tests/soak/soak.py making a million checked calls (--calls N for another count) across
# every argument kind, arrays and sparse arrays included (so on the Cython core, which the array
# layer needs), and failing if resident memory grows by 5 MB or more after the warm-up. Prints
# calls/s and the RSS figures.
#
# usage: scripts/soak.sh [--calls N] [--max-growth-mb M]
#   PYTHON   the interpreter with mxffi installed from this checkout (default: python3)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
"$python" -c "import mxffi; print('== soak: mxffi', mxffi.__version__, 'from', mxffi.__file__)"
"$python" tests/soak/soak.py "$@"
echo "== soak: passed"
