# Sourced by the README's commands: make (once) and activate the virtual environment they install
# into, so that a stock Debian python3 (PEP 668: "externally-managed-environment") never stops
# pip. The environment sees the interpreter's own site-packages (--system-site-packages), so
# what a machine already has (numpy, scipy, the build tools) is not downloaded again.
# MXFFI_VENV names it (default: .venv in the checkout); python3 names the interpreter it is made
# from. After sourcing, `python3` and `pip` are the environment's.
# The checkout is where this file lies, not the working directory: sourced from a subfolder
# (tests/fuzz), a $PWD default made a second environment there.
mxffi_venv=${MXFFI_VENV:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv}
if [ ! -x "$mxffi_venv/bin/python3" ]; then
  echo "== creating the virtual environment $mxffi_venv"
  if ! python3 -m venv --system-site-packages "$mxffi_venv" > /dev/null 2>&1; then
    # Debian ships venv's pip bootstrap (and the headers a build needs) separately.
    bash scripts/deps.sh python3-venv python3-dev
    rm -rf "$mxffi_venv"
    python3 -m venv --system-site-packages "$mxffi_venv"
  fi
fi
# The Cython extension compiles against the interpreter's headers (Debian: python3-dev).
"$mxffi_venv/bin/python3" -c 'import os, sysconfig, sys
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
  bash scripts/deps.sh python3-dev
export VIRTUAL_ENV=$mxffi_venv
export PATH="$mxffi_venv/bin:$PATH"
hash -r
