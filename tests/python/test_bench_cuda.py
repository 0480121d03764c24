"""benchmarks/bench_cuda.py: without a GPU it says why, measures nothing and exits as documented;
its table applies the gates at their limits."""

import json
import os
import subprocess
import sys

import pytest

import mxffi

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "benchmarks", "bench_cuda.py")
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import bench_cuda  # noqa: E402 - benchmarks/ is not a package


def _torch_has_gpu():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


no_gpu = pytest.mark.skipif(
    mxffi.cuda.is_available() and _torch_has_gpu(),
    reason="a GPU is here: bench_cuda.py would measure (scripts/gpu_test.sh --bench runs it)",
)


def _rows(stdout):
    rows = {}
    for line in stdout.splitlines():
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cols) == 7 and cols[0] not in ("cell", "---"):
            rows[cols[0]] = cols
    return rows


@no_gpu
def test_without_a_gpu_it_says_why_and_exits_0(tmp_path):
    out = subprocess.run(
        [sys.executable, SCRIPT, f"--json={tmp_path / 'r.json'}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith("bench_cuda.py: nothing measured: no GPU to measure on: "), first
    if not mxffi.cuda.is_available():
        assert mxffi.cuda.unavailable_reason() in first
    rows = _rows(out.stdout)
    gated = {k: v for k, v in rows.items() if v[5] != "–"}
    names = [e[0] for e in bench_cuda.ELEMWISE] + ["dense -> csr@0.01", "dense -> csr@0.1"]
    names += [f"csr x dense@{n},{d:g}" for n, d in bench_cuda.DOT_SIZES]
    assert sorted(gated) == sorted(names), out.stdout
    assert all(v[6] == "MISSING" and v[4] == "–" for v in gated.values()), out.stdout
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["skipped"] and saved["skipped"] in first
    assert all(c["missing"] == saved["skipped"] for c in saved["cells"].values())


@no_gpu
def test_without_a_gpu_check_exits_1(capsys):
    assert bench_cuda.main(["--check"]) == 1
    assert "no GPU to measure on" in capsys.readouterr().out


def _result(copy_gbps, elemwise_gbps, csr_gbps, dot_ratio, error=None):
    mib = 256
    cells = {
        "add": {"kind": "elemwise", "size": "2 x 256 MiB", "missing": None, "error": error},
        "dense -> csr@0.01": {"kind": "to_csr", "size": "8192 x 8192", "missing": None},
        "csr x dense@100000,0.0001": {"kind": "dot", "size": "100k", "missing": None},
    }
    cells["add"].update(s=1e-3, gbps=elemwise_gbps)
    cells["dense -> csr@0.01"].update(s=1e-3, gbps=csr_gbps, error=None)
    cells["csr x dense@100000,0.0001"].update(s=dot_ratio, ref_s=1.0, error=None)
    return {
        "mib": mib,
        "copy": {"s": 1e-4, "gbps": copy_gbps, "how": "cudaMemcpyAsync (CuPy)"},
        "cells": cells,
        "zeros": {"mxffi": (3.0, 4.0), "torch": (5.0, 6.0)},
    }


@pytest.mark.parametrize(
    ("elemwise", "csr", "dot", "want"),
    [
        (2400.0, 1500.0, 1.5, ("PASS", "PASS", "PASS")),  # each at its limit
        (2399.0, 1499.0, 1.51, ("FAIL", "FAIL", "FAIL")),  # each just past it
        (3000.0, 200.0, 0.5, ("PASS", "FAIL", "PASS")),
    ],
)
def test_gates_at_their_limits(elemwise, csr, dot, want):
    rows = bench_cuda.rows_of(_result(3000.0, elemwise, csr, dot))
    got = {r[0]: r[6] for r in rows}
    assert (got["add"], got["dense -> csr@0.01"], got["csr x dense@100000,0.0001"]) == want
    assert got["copy (device to device)"] == "–"
    failed = bench_cuda.gate_failures(rows)
    assert failed == [
        n
        for n, v in zip(
            ["add", "dense -> csr@0.01", "csr x dense@100000,0.0001"], want, strict=True
        )
        if v != "PASS"
    ]


def test_an_error_or_no_copy_bandwidth_is_not_a_pass():
    rows = {r[0]: r for r in bench_cuda.rows_of(_result(3000.0, 2900.0, 2000.0, 1.0, "boom"))}
    assert rows["add"][6] == "ERROR" and rows["add"][2] == "error"
    rows = {r[0]: r for r in bench_cuda.rows_of(_result(None, 2900.0, 2000.0, 1.0))}
    assert rows["add"][6] == "MISSING" and rows["dense -> csr@0.01"][6] == "MISSING"
    assert rows["copy (device to device)"][4] == "missing"
    table = bench_cuda.table(bench_cuda.rows_of(_result(3000.0, 2900.0, 2000.0, 1.0)))
    assert (
        "| add | 2 x 256 MiB | 1.00 ms, 2,900 GB/s | copy | 97% of copy | >= 80% | PASS |" in table
    )
