#!/usr/bin/env bash
# The main job: install mxffi with pip (the C++ core, the Cython extension, headers and the
# CMake package), then run `python -m mxffi`: a tour of calls, callbacks and errors across the
# boundary, ending with the call-latency table against ctypes and numpy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# shellcheck source=scripts/venv.sh
source scripts/venv.sh
echo "== pip install ."
python3 -m pip install -q --disable-pip-version-check "numpy>=1.24"
python3 -m pip install -q --disable-pip-version-check .
echo "== python -m mxffi"
python3 -m mxffi "$@"
