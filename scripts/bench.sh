#!/usr/bin/env bash
# Install what the call-latency benchmark needs, install mxffi from this checkout, and run
# benchmarks/bench_call_latency.py (which builds benchmarks/latency into build-bench/latency).
#
# usage: scripts/bench.sh [--no-install] [bench_call_latency.py options...]
#   scripts/bench.sh                     full run: tables, plot, callgrind gates
#   scripts/bench.sh --quick             smoke run (about a minute once built)
#   scripts/bench.sh --write-docs --check   rewrite its section of docs/benchmarks.md; exit 1 on a failed gate
#   --no-install   skip the system and pip installs; run with python3 as it is
#
# Everything Python goes into a virtual environment of its own, build-bench/venv: nothing is
# installed into the system's Python (Debian 12 refuses that, PEP 668), and the mxffi measured
# is the one built from this checkout, not an editable or older install of the system's.
# System packages (valgrind, the C++ toolchain, dlpack headers) come from scripts/deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

install=1
args=()
for a in "$@"; do
  case "$a" in
    --no-install) install=0 ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$a") ;;
  esac
done

if ((install)); then
  bash scripts/deps.sh valgrind
  venv=build-bench/venv
  if [ ! -x "$venv/bin/python" ]; then
    echo "== creating $venv"
    mkdir -p build-bench
    if ! python3 -m venv "$venv"; then
      # Debian ships venv's pip bootstrap separately.
      bash scripts/deps.sh python3-venv
      rm -rf "$venv"
      python3 -m venv "$venv"
    fi
  fi
  py="$venv/bin/python"
  pip=("$py" -m pip install -q --disable-pip-version-check)
  # The peers are pinned: the gates are ratios to them, so a new release must not move them
  # unseen. torch (the CPU build kept on disk) gives the torch.Tensor shapes.
  echo "== pip install: the bindings (pinned), numpy, torch, matplotlib, mxffi's build requirements"
  "${pip[@]}" "scikit-build-core>=0.10" "cython>=3.0" "numpy>=1.24" pybind11==3.1.0 \
    nanobind==3.1.0 cffi==2.0.0 apache-tvm-ffi==0.1.15.post2 torch==2.13.0 matplotlib
  echo "== pip install . (mxffi from this checkout)"
  "${pip[@]}" --no-build-isolation .
else
  py=python3
fi

echo "== $py benchmarks/bench_call_latency.py ${args[*]}"
exec "$py" benchmarks/bench_call_latency.py "${args[@]}"
