"""The Python guide's examples run and still do what docs/python.md shows."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_python_tour_example_runs():
    # A fresh interpreter: the example registers globals and must not depend on test state.
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, "docs", "examples", "python_tour.py")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "python_tour: ok"
