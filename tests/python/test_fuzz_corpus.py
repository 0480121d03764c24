"""The committed corpora of the atheris targets tests/fuzz/fuzz_python_calls.py and
tests/fuzz/fuzz_misbehaving_objects.py, replayed once by the ordinary test run (libFuzzer's
-runs=0: each input executed, nothing mutated), on the core the suite runs on, so every seed and
every past finding stays a regression test outside the fuzz build. The C++ targets' corpora are
replayed by ctest (tests/CMakeLists.txt)."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGETS = ["fuzz_python_calls", "fuzz_misbehaving_objects"]


@pytest.mark.parametrize("target", TARGETS)
def test_python_target_corpus_replays_without_a_finding(target):
    pytest.importorskip("atheris", reason="atheris (the test extra) is not installed")
    script = ROOT / "tests" / "fuzz" / f"{target}.py"
    corpus = ROOT / "tests" / "fuzz" / "corpus" / target
    inputs = sorted(p for p in corpus.iterdir() if p.is_file())
    assert inputs, f"no corpus in {corpus}"
    env = dict(os.environ, MXFFI_NUM_THREADS="1", MXFFI_STORAGE_FALLBACK_LOG_VERBOSE="0")
    proc = subprocess.run(
        [sys.executable, str(script), "-runs=0", str(corpus)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    # libFuzzer reports the inputs it read: all of them ran.
    assert f"{len(inputs)} files found" in proc.stderr, proc.stderr[-2000:]
