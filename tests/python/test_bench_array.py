"""benchmarks/bench_array.py runs end to end (--quick, no callgrind) and prints its tables; its
gates fail on a missing or slower cell."""

import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "benchmarks", "bench_array.py")

# The array layer needs the Cython core (under MXFFI_FFI=ctypes importing mxffi.np raises).
pytest.importorskip("mxffi.np", exc_type=ImportError)


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, os.path.dirname(SCRIPT))
    try:
        import bench_array

        yield bench_array
    finally:
        sys.path.remove(os.path.dirname(SCRIPT))


def test_quick_run_prints_every_cell(tmp_path, bench):
    out_json = tmp_path / "results.json"
    out = subprocess.run(
        [
            sys.executable,
            SCRIPT,
            "--quick",
            "--no-callgrind",
            "--check",
            "--rounds=2",
            "--large-threads=1",
            f"--json={out_json}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode in (0, 1), out.stderr
    res = json.loads(out_json.read_text())
    rows = {}
    for line in out.stdout.splitlines():
        m = re.match(r"\| `([^`]+)`[^|]* \|(.*)\|$", line)
        if m:
            rows[m.group(1)] = [c.strip() for c in m.group(2).split("|")]
    small = {bench.LABEL[k]: k for k in bench.CELL_KEYS}
    assert set(small) <= set(rows), out.stdout
    number = re.compile(r"[0-9][0-9,]*")
    for label, key in small.items():
        cols = rows[label]
        if key in res["missing"]:
            what, why = res["missing"][key]
            assert what in ("missing", "wrong") and why, (key, why)
            assert cols[4] == what.upper() and cols[5] == what, cols
            assert number.fullmatch(cols[6].lstrip("-")), cols  # numpy is timed all the same
            assert f"- `{label}`: {what}: {why}" in out.stdout
        else:
            # Timed on both sides; no callgrind, so no instruction count and no verdict.
            assert number.fullmatch(cols[5].lstrip("-")), cols
            assert number.fullmatch(cols[6].lstrip("-")), cols
            assert cols[0] == cols[1] == cols[4] == "–", cols
    # The attributes and basic indexing exist on every build of the array type.
    for key in ("shape", "strides", "dtype", "device", "ndim", "size", "T", "getitem_slice"):
        assert key not in res["missing"], res["missing"][key]
    large = res["large_times"]["1"]
    for fw in ("mxffi", "numpy"):
        assert large[f"{fw}|add_f32"] > 0 and large[f"{fw}_minflt|add_f32"] >= 0
    verdicts = re.findall(r"^(PASS|FAIL): fresh add, 1 thread", out.stdout, re.M)
    assert len(verdicts) == 2, out.stdout
    # --check: without callgrind the small gates are not measured, but a missing (or wrong)
    # cell fails its gate all the same; the large gates are measured.
    for key, (what, _) in res["missing"].items():
        assert re.search(rf"^{what.upper()}: {re.escape(bench.LABEL[key])}: ", out.stdout, re.M)
    passed = verdicts == ["PASS", "PASS"] and not res["missing"]
    assert out.returncode == (0 if passed else 1), out.stdout


def test_gates(bench):
    instr = {("mxffi", "shape"): 10.0, ("numpy", "shape"): 10.0}
    instr |= {("mxffi", "T"): 160.0, ("numpy", "T"): 100.0}
    instr |= {("mxffi", "strides"): 11.0, ("numpy", "strides"): 10.0}
    missing = {"less": ("missing", "TypeError: no np.less")}
    gates = bench.gate_results(instr, missing, ["shape", "strides", "T", "less", "ndim"])
    assert gates == {
        "shape": (1.0, 1.0, "PASS"),
        "strides": (1.0, 1.1, "FAIL"),
        "T": (1.5, 1.6, "FAIL"),
        "less": (1.5, None, "MISSING"),
    }
    times = {1: {("mxffi", "add_f32"): 9.0, ("numpy", "add_f32"): 9.5}}
    times[1] |= {("ratio", "add_f32"): 1.05, ("mxffi_minflt", "add_f32"): 0.0}
    times[1] |= {("numpy_minflt", "add_f32"): 20.0}
    assert bench.large_gates(times) == {
        "speed": (1.0, 1.05, "PASS"),
        "faults": (20.0, 0.0, "PASS"),
    }
    times[1][("mxffi_minflt", "add_f32")] = 9766.0
    times[1][("ratio", "add_f32")] = 0.25
    assert bench.large_gates(times) == {
        "speed": (1.0, 0.25, "FAIL"),
        "faults": (20.0, 9766.0, "FAIL"),
    }


def test_results_are_checked_against_numpy(bench):
    import numpy as np

    assert bench.same(np.float64(1.0).dtype, np.dtype("float64")) is None
    assert bench.same((3, 4), (3, 4)) is None
    assert bench.same((3, 4), (4, 3)) == "returned tuple (3, 4), numpy tuple (4, 3)"
    assert bench.same(3, 3.0) == "returned int 3, numpy float 3.0"
    got = bench.values("mxffi", "f64")["a"]
    want = bench.values("numpy", "f64")["a"]
    assert bench.same(got, want) is None
    assert "numpy float32[3, 4]" in bench.same(got, want.astype(np.float32))
    assert "returned ndarray" in bench.same(want, want)
