#!/usr/bin/env bash
# The main job: install mxffi with pip (the C++ core, the Cython extension, headers and the
# CMake package) into a virtual environment (scripts/venv.sh), then run `python -m mxffi`: a tour
# of calls, callbacks and errors across the boundary, ending with the call-latency table against
# ctypes and numpy. The install prints a line of progress at least every 30 seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# shellcheck source=scripts/venv.sh
source scripts/venv.sh
# shellcheck source=scripts/progress.sh
source scripts/progress.sh
echo "== pip install ."
run_with_progress "pip install numpy" build-demo/pip-numpy.log \
  python3 -m pip install --disable-pip-version-check "numpy>=1.24"
run_with_progress "pip install ." build-demo/pip-install.log \
  python3 -m pip install -v --disable-pip-version-check .
echo "== python -m mxffi"
python3 -m mxffi "$@"
