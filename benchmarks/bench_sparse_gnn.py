"""The graph neural network kernels of mxffi.nd.sparse next to scipy.sparse and torch.sparse:
the GNN part of bench_sparse.py (which runs it after its own table; see --gnn there).

What is timed, on a generated power-law graph of N nodes and about E edges (csr adjacency
matrix, rows the destination nodes; float32 values in [0.5, 1.5), int32 indices for mxffi and
scipy, int64 for torch, which its CSR kernels want) with F = 64 features per node:

    op         mxffi (mxsp.*)             scipy     torch
    spmm-sum   spmm(adj, x)               adj @ x   torch.sparse.mm(adj, x, reduce="sum")
    spmm-mean  spmm(adj, x, "mean")       -         torch.sparse.mm(adj, x, reduce="mean")
    spmm-max   spmm(adj, x, "max")        -         torch.sparse.mm(adj, x, reduce="amax")
    sddmm      sddmm(adj, a, b)           -         torch.sparse.sampled_addmm(adj, a, bt, beta=0)

(scipy has no reduction but the sum and no sddmm; torch's amax returns the values only, where
mxffi also returns the edge id of each maximum; torch's sampled_addmm does not multiply by the
stored values, mxffi's sddmm does, one multiply per edge more, and takes b as (N, F) where torch
takes its transpose (F, N), made contiguous once before timing.)

The graph: each edge's destination and source are drawn independently as floor(N * u**2.5) for
uniform u, then the node ids are shuffled, so node k (before shuffling) has about k**-0.6 times
the edges of node 0: a few rows with very many entries and a long tail of short and empty rows,
as in real graphs. Duplicate edges are summed (scipy's canonical form), so nnz is a little below
E. Sizes (--gnn): small N = 100,000, E = 1,600,000 (the default); large N = 1,000,000, E =
16,000,000; quick N = 2,000, E = 32,000 (with --quick).

Threads: mxffi MXFFI_NUM_THREADS (2 in bench_sparse.py), torch.set_num_threads(2), scipy one.
Each statement is calibrated to samples of at least target_s, then run in rounds (21 by
default) in a fresh random order each round. A figure is GFLOP/s = 2 * nnz * F / the median time
per call, with the spread: half the interquartile range of the rounds' times over the median.
Every mxffi result is checked against scipy's or torch's first.
"""

import random
import statistics
import time

import numpy as np
import scipy.sparse as sp

import mxffi
import mxffi.nd.sparse as mxsp

SIZES = {"quick": (2_000, 32_000), "small": (100_000, 1_600_000), "large": (1_000_000, 16_000_000)}
FEATURES = 64
DASH = "–"
# (op, baseline): the least mxffi throughput over the baseline's that passes.
GATES = {
    ("spmm-sum", "scipy"): 2.0,
    ("spmm-sum", "torch"): 1.0,
    ("spmm-max", "torch"): 1.0,
    ("sddmm", "torch"): 1.0,
}
OPS = ["spmm-sum", "spmm-mean", "spmm-max", "sddmm"]
SIDES = ["mxffi", "scipy", "torch"]


def power_law_graph(n, edges, seed):
    """A canonical scipy csr matrix (n x n, float32 values, int32 indices); see the docstring."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    dst = perm[(n * rng.random(edges) ** 2.5).astype(np.int64)]
    src = perm[(n * rng.random(edges) ** 2.5).astype(np.int64)]
    vals = (rng.random(edges) + 0.5).astype(np.float32)
    a = sp.coo_matrix((vals, (dst, src)), shape=(n, n)).tocsr()
    a.sum_duplicates()
    a.sort_indices()
    a.indices = a.indices.astype(np.int32, copy=False)
    a.indptr = a.indptr.astype(np.int32, copy=False)
    return a


def _torch():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(2)
    return torch


def make_cells(n, edges, seed):
    """({op: {side: statement}}, {op: check}, nnz, why torch is missing or None)."""
    adj = power_law_graph(n, edges, seed)
    rng = np.random.default_rng(seed + 1)
    x = rng.standard_normal((n, FEATURES)).astype(np.float32)
    a = rng.standard_normal((n, FEATURES)).astype(np.float32)
    b = rng.standard_normal((n, FEATURES)).astype(np.float32)
    m = mxsp.csr_matrix(adj, idx_dtype="int32")
    xm, am, bm = mxffi.np.array(x), mxffi.np.array(a), mxffi.np.array(b)
    cells = {op: {} for op in OPS}
    cells["spmm-sum"]["mxffi"] = lambda: mxsp.spmm(m, xm)
    cells["spmm-mean"]["mxffi"] = lambda: mxsp.spmm(m, xm, reduce="mean")
    cells["spmm-max"]["mxffi"] = lambda: mxsp.spmm(m, xm, reduce="max")
    cells["sddmm"]["mxffi"] = lambda: mxsp.sddmm(m, am, bm)
    cells["spmm-sum"]["scipy"] = lambda: adj @ x
    torch = _torch()
    missing = None if torch is not None else "torch is not installed"
    if torch is not None:
        t = torch.sparse_csr_tensor(
            torch.from_numpy(adj.indptr.astype(np.int64)),
            torch.from_numpy(adj.indices.astype(np.int64)),
            torch.from_numpy(adj.data),
            size=adj.shape,
        )
        xt, at = torch.from_numpy(x), torch.from_numpy(a)
        bt = torch.from_numpy(b).T.contiguous()
        for op, reduce in (("spmm-sum", "sum"), ("spmm-mean", "mean"), ("spmm-max", "amax")):
            cells[op]["torch"] = lambda reduce=reduce: torch.sparse.mm(t, xt, reduce=reduce)
        cells["sddmm"]["torch"] = lambda: torch.sparse.sampled_addmm(t, at, bt, beta=0.0)

    def close(got, want, what):
        if not np.allclose(got, want, rtol=1e-4, atol=1e-4):
            raise AssertionError(f"{what}: the mxffi result differs from the baseline's")

    def check_spmm(op, got, side, want):
        values = got[0] if isinstance(got, tuple) else got
        w = want.numpy() if side == "torch" else want
        close(values.asnumpy(), w, f"{op} against {side}")

    def check_sddmm(op, got, side, want):
        close(got.data.asnumpy(), adj.data * want.values().numpy(), f"{op} against {side}")

    checks = {op: check_spmm for op in OPS[:3]}
    checks["sddmm"] = check_sddmm
    return cells, checks, adj.nnz, missing


def measure(cells, rounds, target_s, seed, log):
    """{(op, side): [seconds per call, one per round]}."""
    jobs = [(op, side) for op in cells for side in cells[op]]
    calls = {}
    for op, side in jobs:
        t0 = time.perf_counter()
        cells[op][side]()  # also warms the statement up
        calls[op, side] = max(1, int(target_s / max(time.perf_counter() - t0, 1e-9)))
    rng = random.Random(seed)
    times = {job: [] for job in jobs}
    for r in range(rounds):
        rng.shuffle(jobs)
        for op, side in jobs:
            f, k = cells[op][side], calls[op, side]
            t0 = time.perf_counter()
            for _ in range(k):
                f()
            times[op, side].append((time.perf_counter() - t0) / k)
        log(f"gnn round {r + 1}/{rounds}")
    return times


def summarize(times, nnz):
    """{(op, side): (GFLOP/s of the median, spread as a fraction of the median)}."""
    out = {}
    for key, ts in times.items():
        med = statistics.median(ts)
        q = statistics.quantiles(ts, n=4) if len(ts) > 1 else [med, med, med]
        out[key] = (2.0 * nnz * FEATURES / med / 1e9, (q[2] - q[0]) / 2 / med)
    return out


def gate_results(res, errors):
    out = {}
    for (op, side), limit in GATES.items():
        mx, ref = res.get((op, "mxffi")), res.get((op, side))
        if op in errors:
            out[op, side] = (limit, None, "ERROR")
        elif mx is None or ref is None:
            out[op, side] = (limit, None, "MISSING")
        else:
            ratio = mx[0] / ref[0]
            out[op, side] = (limit, ratio, "PASS" if ratio >= limit else "FAIL")
    return out


def table(res, gates, errors):
    def cell(op, side):
        if side == "mxffi" and op in errors:
            return "error"
        r = res.get((op, side))
        return DASH if r is None else f"{r[0]:.2f} ±{r[1] * 100:.0f}%"

    def ratio(op, side):
        mx, ref = res.get((op, "mxffi")), res.get((op, side))
        return DASH if mx is None or ref is None else f"{mx[0] / ref[0]:.2f}x"

    rows = [
        "| GNN op | mxffi GFLOP/s | scipy GFLOP/s | torch GFLOP/s | vs scipy | vs torch | gates |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for op in OPS:
        g = [f"{side} >= {lim:.1f}x {v}" for (o, side), (lim, _, v) in gates.items() if o == op]
        rows.append(
            f"| {op} | {cell(op, 'mxffi')} | {cell(op, 'scipy')} | {cell(op, 'torch')} | "
            f"{ratio(op, 'scipy')} | {ratio(op, 'torch')} | {'; '.join(g) or DASH} |"
        )
    return "\n".join(rows)


def run(size, rounds, target_s, seed, log):
    """Make the graph, check, time; returns (markdown, gates, a JSON-ready record)."""
    n, edges = SIZES[size]
    log(f"gnn: making a power-law graph of {n:,} nodes and {edges:,} edges ({size})")
    cells, checks, nnz, missing = make_cells(n, edges, seed)
    if missing:
        log(f"gnn: torch columns missing ({missing})")
    errors = {}
    for op in OPS:
        got = cells[op]["mxffi"]()
        for side in ("scipy", "torch"):
            if side in cells[op]:
                try:
                    checks[op](op, got, side, cells[op][side]())
                except Exception as e:  # noqa: BLE001 - a wrong result is reported, not timed
                    errors[op] = f"{type(e).__name__}: {e}"
        if op in errors:
            log(f"gnn {op}: ERROR, not timed ({errors[op]})")
            del cells[op]["mxffi"]
    times = measure(cells, rounds, target_s, seed, log)
    res = summarize(times, nnz)
    gates = gate_results(res, errors)
    head = (
        f"GNN kernels: power-law graph, {n:,} nodes, {nnz:,} stored edges, {FEATURES} float32 "
        f"features; mxffi and torch 2 threads, scipy 1; median GFLOP/s (2 * nnz * F / time) "
        f"over {rounds} interleaved rounds, ± half the interquartile range."
    )
    record = {
        "size": size,
        "nodes": n,
        "nnz": nnz,
        "errors": errors,
        "gflops": {f"{op}:{side}": v for (op, side), v in res.items()},
        "samples": {f"{op}:{side}": v for (op, side), v in times.items()},
    }
    return head + "\n\n" + table(res, gates, errors), gates, record
