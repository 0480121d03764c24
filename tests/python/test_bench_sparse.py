"""benchmarks/bench_sparse.py runs end to end on tiny matrices and prints its table."""

import os
import re
import subprocess
import sys

import mxffi.nd.sparse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPS = ["dense -> csr", "csr -> dense", "csr x dense", "csr.T x dense", "csr + csr", "csr * csr"]


def _csr_result(op):
    a = mxffi.nd.sparse.csr_matrix([[1.0, 0.0], [0.0, 2.0]])
    return isinstance(a + a if op == "+" else a * a, mxffi.nd.sparse.CSRNDArray)


def test_quick_run_prints_the_table(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "benchmarks", "bench_sparse.py"),
            "--quick",
            "--check",
            "--size=48",
            "--densities=0.05,0.01",
            "--rounds=2",
            f"--out-dir={tmp_path}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode in (0, 1), out.stderr
    rows = {}
    for line in out.stdout.splitlines():
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cols) == 8 and re.fullmatch(r"[0-9.]+", cols[1]):
            rows[cols[0], float(cols[1])] = cols
    ops = OPS + ["2x^2 + 3x", "csr x csr"]
    # The power-law graph's G @ G is one cell, at the graph's own density.
    graph = [k for k in rows if k[0] == "graph x graph"]
    assert len(graph) == 1 and 0 < graph[0][1] < 1, out.stdout
    assert set(rows) == {(op, d) for op in ops for d in (0.05, 0.01)} | set(graph), out.stdout
    number = re.compile(r"[0-9][0-9,.]*")
    exists = {
        "dense -> csr": True,
        "csr -> dense": True,
        "csr x dense": hasattr(mxffi.nd.sparse, "dot"),
        "csr.T x dense": hasattr(mxffi.nd.sparse, "dot"),
        "csr + csr": _csr_result("+"),
        "csr * csr": _csr_result("*"),
        "2x^2 + 3x": hasattr(mxffi.nd.sparse, "quadratic"),
        "csr x csr": True,
        "graph x graph": True,
    }
    for (op, _), cols in rows.items():
        mx, ref, ratio = cols[3], cols[4], cols[5]
        assert number.fullmatch(ref), cols  # scipy is timed in every cell
        if exists[op]:
            assert number.fullmatch(mx) and re.fullmatch(r"[0-9.]+x", ratio), cols
        else:
            assert (mx, ratio) == ("missing", "–"), cols
    gates = {k: v[7] for k, v in rows.items() if v[6] != "–"}
    assert set(gates) == {("csr x dense", 0.01), ("dense -> csr", 0.01), *graph}
    for (op, d), verdict in gates.items():
        assert verdict in (("PASS", "FAIL") if exists[op] else ("MISSING",)), (op, d, verdict)
    # The GNN kernels' table (bench_sparse_gnn.py, a tiny graph with --quick): 7 columns.
    gnn = {}
    for line in out.stdout.splitlines():
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cols) == 7 and cols[0] in ("spmm-sum", "spmm-mean", "spmm-max", "sddmm"):
            gnn[cols[0]] = cols
    assert set(gnn) == {"spmm-sum", "spmm-mean", "spmm-max", "sddmm"}, out.stdout
    for cols in gnn.values():
        assert re.fullmatch(r"[0-9.]+ ±[0-9]+%", cols[1]), cols  # mxffi is timed in every row
    assert re.fullmatch(r"[0-9.]+ ±[0-9]+%", gnn["spmm-sum"][2])  # scipy's adj @ x
    verdicts = re.findall(
        r">= [0-9.]+x (PASS|FAIL|MISSING|ERROR)", " ".join(c[6] for c in gnn.values())
    )
    assert len(verdicts) == 4, gnn
    passed = all(g == "PASS" for g in gates.values()) and all(v == "PASS" for v in verdicts)
    assert out.returncode == (0 if passed else 1)
    assert (tmp_path / "results.json").exists()
