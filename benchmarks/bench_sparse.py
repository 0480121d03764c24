"""mxffi.nd.sparse next to scipy.sparse: conversions, csr x dense, csr x csr and elementwise ops.

What is timed. One statement per cell and side, on N x N matrices (N = 10000, --size) at
densities 0.001, 0.01 and 0.1 (--densities), float64 values and int32 indices on both sides:

    to_csr     dense -> csr   mxffi.nd.sparse.csr_matrix(D, idx_dtype="int32")
                              scipy.sparse.csr_matrix(D)
    to_dense   csr -> dense   a.tostype("default")  /  A.toarray()
    dot        csr x dense    mxffi.nd.sparse.dot(a, b)  /  A @ B, B dense N x 64
    dot_t      csr.T x dense  mxffi.nd.sparse.dot(a, b, transpose_a=True)  /  A.T @ B
    add        csr + csr      a + c  /  A + C
    mul        csr * csr      a * c  /  A.multiply(C)
    quadratic  2x^2 + 3x      mxffi.nd.sparse.quadratic(a, a=2, b=3, c=0)
                              scipy: Y = A.copy(); Y.data *= 2 * Y.data + 3 (the same values,
                              computed on the stored values of a copy; A.multiply(A) * 2 + A * 3
                              would be three sparse ops and a slower baseline)
    spgemm     csr x csr      a @ c  /  A @ C, only at densities up to 20 / N (denser products
                              are nearly dense and take seconds)
    graph      graph x graph  g @ g  /  G @ G: G the adjacency of a power-law graph of N nodes
                              (fixed seed; out-degrees 8 x Zipf(2.1) capped at N / 10,
                              targets Zipf(1.8) over a shuffled node order, so both in- and
                              out-degrees have heavy tails; repeated edges summed; values in
                              [0.5, 1.5)); its density is the graph's, about 6 / N

A and C are random csr matrices with about density * N * N values each, drawn independently; D
is A.toarray() (numpy, shared with mxffi through DLPack, so both sides read the same memory);
the mxffi csr arrays are made from A and C, keeping their int32 indices. Every statement makes
a fresh output on both sides, and every mxffi result is checked once against scipy's before
any timing (csr parts must match exactly for the conversions).

A cell whose mxffi function does not exist yet is "missing" (looked up with getattr; for add
and mul, an mxffi "a + c" whose result is not csr, i.e. the dense fallback, counts as missing)
and its gate as MISSING; only scipy's side is timed. An mxffi call that raises or whose result
differs from scipy's is "error" (its gate ERROR), is not timed, and makes the script exit 1.

How. mxffi runs its kernels on MXFFI_NUM_THREADS threads (default 2 here), scipy on one
(OPENBLAS_NUM_THREADS defaults to 1; scipy.sparse's kernels are single-threaded anyway); both
are set before numpy or mxffi load. Each statement is calibrated to samples of at least 50 ms
(5 ms with --quick; at least one call), then 21 rounds (3 with --quick; --rounds) each run
every (cell, side) once in a fresh random order, with the garbage collector off. A figure is
the median over rounds of a sample's time per call; the ratio is scipy_time / mxffi_time (>1:
mxffi is faster). Below the table, each cell's spread over the rounds (quartiles, extremes).

Gates (``--check`` exits 1 when one fails or is missing):

    csr x dense (dot) at density 0.01     ratio >= 1.5
    dense -> csr (to_csr) at density 0.01 ratio >= 1.0
    csr x csr (spgemm) at density 0.001   ratio >= 1.5
    graph x graph (graph)                 ratio >= 1.5

GNN kernels (bench_sparse_gnn.py, --gnn small|large|none; small by default, a tiny graph with
--quick, none with --cells): spmm with sum, mean and max, and sddmm on a generated power-law
graph, in GFLOP/s next to scipy (one thread) and torch.sparse (two threads), in a table of their
own after the one above. Gates: spmm-sum >= 2x scipy and >= 1.0x torch, spmm-max >= 1.0x
torch, sddmm >= 1.0x torch's sampled_addmm.

Usage:
    python benchmarks/bench_sparse.py [--quick] [--check] [--write-docs] [--size N]
        [--densities D,...] [--cells NAME,...] [--rounds R] [--seed S] [--gnn SIZE]

It prints the machine and the table, writes build-bench/sparse/results.json (every sample)
and, when matplotlib is installed, build-bench/sparse/sparse.png (--out-dir names another
folder); --write-docs replaces the section between the "bench_sparse.py" markers of
docs/benchmarks.md (appending it when absent) and copies the plot to docs/benchmarks/sparse.png.
--cells=to_csr,dot@0.01 measures only the cells named (an op name takes all its densities; no
--write-docs).

Noise. Both sides' large outputs (csr -> dense) are backed by transparent huge pages (numpy
asks for them; mxffi too), so their page faults are few and cheap, until the kernel has no free
2 MiB pages and compacts memory in the fault: then a call takes ten times as long, on either
side. On a busy shared machine such samples come in runs; more rounds make the median robust.
"""

import os

# Before numpy, scipy or mxffi load: each sizes its thread pool once, at load time.
os.environ.setdefault("MXFFI_NUM_THREADS", "2")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import mxffi  # noqa: E402
import mxffi.nd.sparse as mxsp  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_call_latency import (  # noqa: E402 - benchmarks/ is not a package
    DOCS_MD,
    cpu_name,
    package_versions,
    write_section,
)

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "build-bench" / "sparse"
DOCS_PNG = ROOT / "docs" / "benchmarks" / "sparse.png"
SCRIPT = "benchmarks/bench_sparse.py"  # names this script's section of docs/benchmarks.md
MISSING = "missing"
DASH = "–"
WIDTH = 64  # columns of the dense operand of dot

# (op, label, what mxffi calls, what scipy calls)
OPS = [
    ("to_csr", "dense -> csr", 'csr_matrix(D, idx_dtype="int32")', "csr_matrix(D)"),
    ("to_dense", "csr -> dense", 'a.tostype("default")', "A.toarray()"),
    ("dot", "csr x dense", "dot(a, b)", "A @ B"),
    ("dot_t", "csr.T x dense", "dot(a, b, transpose_a=True)", "A.T @ B"),
    ("add", "csr + csr", "a + c", "A + C"),
    ("mul", "csr * csr", "a * c", "A.multiply(C)"),
    (
        "quadratic",
        "2x^2 + 3x",
        "quadratic(a, a=2, b=3, c=0)",
        "Y = A.copy(); Y.data *= 2 * Y.data + 3",
    ),
    ("spgemm", "csr x csr", "a @ c", "A @ C"),
    ("graph", "graph x graph", "g @ g", "G @ G"),
]
OP_KEYS = [o[0] for o in OPS]
OP_LABEL = {o[0]: o[1] for o in OPS}
# (op, density): the least scipy_time / mxffi_time that passes (density None: the op's one cell).
GATES = {("dot", 0.01): 1.5, ("to_csr", 0.01): 1.0, ("spgemm", 0.001): 1.5, ("graph", None): 1.5}
# csr x csr is measured at densities up to this many values per row on average.
SPGEMM_MAX_ROW = 20


def gate_of(key):
    """The gate of a measured (op, density) cell, or None."""
    return GATES.get(key, GATES.get((key[0], None)))


def log(msg):
    print(f"==> {msg}", file=sys.stderr, flush=True)


# --- Inputs and statements. ------------------------------------------------------------------


def random_csr(rng, n, density):
    """A canonical scipy csr matrix, float64 values in [0.5, 1.5) (sums of duplicates above)
    and int32 indices, with about density * n * n values."""
    k = int(round(density * n * n))
    rows = rng.integers(0, n, k, dtype=np.int32)
    cols = rng.integers(0, n, k, dtype=np.int32)
    vals = rng.random(k) + 0.5
    a = sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
    a.sum_duplicates()
    a.sort_indices()
    a.indices = a.indices.astype(np.int32, copy=False)
    a.indptr = a.indptr.astype(np.int32, copy=False)
    return a


def power_law_graph(n, seed):
    """The scipy csr adjacency (int32 indices, canonical) of a power-law graph of n nodes."""
    rng = np.random.default_rng(seed)
    deg = np.minimum(rng.zipf(2.1, n) * 8, max(n // 10, 1))
    rows = np.repeat(np.arange(n, dtype=np.int64), deg)
    order = rng.permutation(n)
    cols = order[(rng.zipf(1.8, rows.size) - 1) % n]
    vals = rng.random(rows.size) + 0.5
    g = sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
    g.sum_duplicates()
    g.sort_indices()
    g.indices = g.indices.astype(np.int32, copy=False)
    g.indptr = g.indptr.astype(np.int32, copy=False)
    return g


def lookup(name):
    """mxffi.nd.sparse.<name>, or None when it does not exist (yet)."""
    try:
        return getattr(mxsp, name)
    except AttributeError:
        return None


def csr_operator(op):
    """None when mxffi's `a <op> c` of two csr arrays returns a csr array, else why it is
    missing (a dense result: the dense fallback, no csr kernel yet)."""
    small = mxsp.csr_matrix(sp.identity(3, format="csr"))
    try:
        out = small + small if op == "add" else small * small
    except Exception as e:  # noqa: BLE001 - any failure means there is no kernel to time
        return f"fails: {e}"
    if not isinstance(out, mxsp.CSRNDArray):
        return "no csr kernel: the dense fallback returns a dense array"
    return None


def make_cells(n, densities, seed):
    """{(op, density): (mxffi statement or None, scipy statement, check, why missing)},
    each statement a no-argument function returning its result."""
    rng = np.random.default_rng(seed)
    dot, quadratic = lookup("dot"), lookup("quadratic")
    why_op = {
        "add": csr_operator("add"),
        "mul": csr_operator("mul"),
        "dot": None if dot else "mxffi.nd.sparse.dot does not exist",
        "quadratic": None if quadratic else "mxffi.nd.sparse.quadratic does not exist",
    }
    why_op["dot_t"] = why_op["dot"]
    b_np = rng.random((n, WIDTH))
    b_mx = mxffi.np.array(b_np)
    cells = {}
    for d in densities:
        A, C = random_csr(rng, n, d), random_csr(rng, n, d)
        D = A.toarray()
        D_mx = mxffi.np.from_dlpack(D)
        a, c = mxsp.csr_matrix(A), mxsp.csr_matrix(C)
        assert str(a.indices.dtype) == "int32" and str(c.indices.dtype) == "int32"

        def sp_quadratic(A=A):
            Y = A.copy()
            Y.data *= 2 * Y.data + 3
            return Y

        stmts = {
            "to_csr": (
                lambda D_mx=D_mx: mxsp.csr_matrix(D_mx, idx_dtype="int32"),
                lambda D=D: sp.csr_matrix(D),
                check_csr_exact,
            ),
            "to_dense": (
                lambda a=a: a.tostype("default"),
                lambda A=A: A.toarray(),
                check_dense,
            ),
            "dot": (
                lambda a=a: dot(a, b_mx),
                lambda A=A: A @ b_np,
                check_dense,
            ),
            "dot_t": (
                lambda a=a: dot(a, b_mx, transpose_a=True),
                lambda A=A: A.T @ b_np,
                check_dense,
            ),
            "add": (lambda a=a, c=c: a + c, lambda A=A, C=C: A + C, check_csr_close),
            "mul": (lambda a=a, c=c: a * c, lambda A=A, C=C: A.multiply(C), check_csr_close),
            "quadratic": (
                lambda a=a: quadratic(a, a=2, b=3, c=0),
                sp_quadratic,
                check_csr_close,
            ),
        }
        stmts["spgemm"] = (lambda a=a, c=c: a @ c, lambda A=A, C=C: A @ C, check_csr_close)
        for op in OP_KEYS:
            if op == "graph" or (op == "spgemm" and d * n > SPGEMM_MAX_ROW):
                continue
            mx, ref, check = stmts[op]
            why = why_op.get(op)
            cells[op, d] = {
                "mxffi": None if why else mx,
                "scipy": ref,
                "check": check,
                "missing": why,
                "nnz": A.nnz,
            }
    G = power_law_graph(n, seed)
    g = mxsp.csr_matrix(G)
    cells["graph", round(G.nnz / n / n, 8)] = {
        "mxffi": lambda g=g: g @ g,
        "scipy": lambda G=G: G @ G,
        "check": check_csr_close,
        "missing": None,
        "nnz": G.nnz,
    }
    return cells


# --- Checks: each mxffi result once against scipy's. -------------------------------------------


def _as_csr(x, what):
    if not isinstance(x, mxsp.CSRNDArray):
        raise AssertionError(f"{what}: the mxffi result is {type(x).__name__}, not CSRNDArray")
    if str(x.indices.dtype) != "int32":
        raise AssertionError(f"{what}: the mxffi result has {x.indices.dtype} indices, not int32")
    return x.asscipy()


def check_csr_exact(got, want, what):
    g = _as_csr(got, what)
    want = want.tocsr()
    for part in ("indptr", "indices", "data"):
        if not np.array_equal(getattr(g, part), getattr(want, part)):
            raise AssertionError(f"{what}: {part} differs from scipy's")


def _canonical(m):
    m = m.tocsr().copy()
    m.eliminate_zeros()
    m.sum_duplicates()
    m.sort_indices()
    return m


def check_csr_close(got, want, what):
    g, w = _canonical(_as_csr(got, what)), _canonical(want)
    if g.shape != w.shape:
        raise AssertionError(f"{what}: shape {g.shape}, scipy's {w.shape}")
    for part in ("indptr", "indices"):
        if not np.array_equal(getattr(g, part), getattr(w, part)):
            raise AssertionError(f"{what}: {part} differs from scipy's")
    if not np.allclose(g.data, w.data, rtol=1e-12, atol=0):
        raise AssertionError(f"{what}: values differ from scipy's")


def check_dense(got, want, what):
    g = np.asarray(got.asnumpy())
    w = np.asarray(want.toarray() if sp.issparse(want) else want)
    if g.shape != w.shape or not np.allclose(g, w, rtol=1e-12, atol=1e-12):
        raise AssertionError(f"{what}: the mxffi result differs from scipy's")


# --- Timing. ---------------------------------------------------------------------------------


def sample(f, calls):
    t0 = time.perf_counter()
    for _ in range(calls):
        f()
    return (time.perf_counter() - t0) / calls


def measure(cells, rounds, target_s, seed):
    """{(op, density, side): [seconds per call, one per round]}."""
    jobs = [(key, side) for key, cell in cells.items() for side in ("mxffi", "scipy") if cell[side]]
    calls = {}
    for key, side in jobs:
        one = sample(cells[key][side], 1)  # also warms the statement up
        calls[key, side] = max(1, int(target_s / max(one, 1e-9)))
    rng = random.Random(seed)
    times = {job: [] for job in jobs}
    gc.collect()
    gc.disable()
    try:
        for r in range(rounds):
            rng.shuffle(jobs)
            for key, side in jobs:
                times[key, side].append(sample(cells[key][side], calls[key, side]))
            log(f"round {r + 1}/{rounds}")
    finally:
        gc.enable()
    return {(*key, side): v for (key, side), v in times.items()}, calls


# --- Report. ---------------------------------------------------------------------------------


def fmt_ms(s):
    if s is None:
        return DASH
    ms = s * 1e3
    return f"{ms:#.3g}" if ms < 100 else f"{ms:,.0f}"


def results(cells, raw):
    """{(op, density): dict(mxffi=, scipy=, ratio=, missing=, nnz=)} of medians."""
    out = {}
    for (op, d), cell in cells.items():
        mx, ref = raw.get((op, d, "mxffi")), raw.get((op, d, "scipy"))
        mx = statistics.median(mx) if mx else None
        ref = statistics.median(ref) if ref else None
        out[op, d] = {
            "mxffi": mx,
            "scipy": ref,
            "ratio": ref / mx if mx and ref else None,
            "missing": cell["missing"],
            "error": cell.get("error"),
            "nnz": cell["nnz"],
        }
    return out


def gate_results(res):
    out = {}
    for key in res:
        limit = gate_of(key)
        if limit is None:
            continue
        r = res[key]["ratio"]
        if res[key]["error"]:
            verdict = "ERROR"
        elif r is None:
            verdict = MISSING.upper()
        else:
            verdict = "PASS" if r >= limit else "FAIL"
        out[key] = (limit, r, verdict)
    return out


def table(res, gates):
    rows = [
        "| op | density | nnz | mxffi ms | scipy ms | scipy / mxffi | gate | result |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for op in OP_KEYS:
        for (o, d), r in res.items():
            if o != op:
                continue
            mx = MISSING if r["missing"] else "error" if r["error"] else fmt_ms(r["mxffi"])
            ratio = DASH if r["ratio"] is None else f"{r['ratio']:.2f}x"
            limit, _, verdict = gates.get((o, d), (None, None, DASH))
            gate = DASH if limit is None else f">= {limit:.1f}x"
            rows.append(
                f"| {OP_LABEL[op]} | {d:g} | {r['nnz']:,} | {mx} | {fmt_ms(r['scipy'])} | "
                f"{ratio} | {gate} | {verdict} |"
            )
    return "\n".join(rows)


def spread(raw):
    """Each timed cell's spread over rounds: the quartiles and extremes of its ms per call."""
    lines = ["Spread over rounds, ms per call (min / 25% / median / 75% / max):"]
    for (op, d, side), v in sorted(
        raw.items(), key=lambda kv: (OP_KEYS.index(kv[0][0]), kv[0][1:])
    ):
        q = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
        lines.append(
            f"  {OP_LABEL[op]} @ {d:g} {side}: "
            + " / ".join(fmt_ms(x) for x in (min(v), q[0], q[1], q[2], max(v)))
        )
    return "\n".join(lines)


def what_table():
    rows = ["| op | mxffi | scipy |", "| --- | --- | --- |"]
    rows += [f"| {label} | `{mx}` | `{ref}` |" for _, label, mx, ref in OPS]
    return "\n".join(rows)


def machine():
    pkgs = package_versions(("mxffi", "numpy", "scipy"))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{cpu_name()}, {os.cpu_count()} logical CPUs (load average {load} at the start); "
        f"CPython {platform.python_version()}; {pkgs}"
    )


def conditions(run):
    return (
        f"N = {run['size']}, dense operand N x {WIDTH}; float64 values, int32 indices. "
        f"Threads: MXFFI_NUM_THREADS={run['threads'][0]}, "
        f"OPENBLAS_NUM_THREADS={run['threads'][1]}, scipy single-threaded. "
        f"Median ms per call over {run['rounds']} randomized interleaved rounds of samples of "
        f"at least {run['target_s'] * 1e3:g} ms."
    )


def plot(res, path):
    """One bar per measured cell: scipy_time / mxffi_time on a log scale, gates marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    keys = [k for op in OP_KEYS for k in res if k[0] == op]
    if not keys:
        return False
    labels = [f"{OP_LABEL[op]}\n{d:g}" for op, d in keys]
    ratios = [res[k]["ratio"] or 0 for k in keys]
    cmap = plt.get_cmap("tab10")
    colors = [cmap(OP_KEYS.index(op) % 10) for op, _ in keys]
    fig, ax = plt.subplots(figsize=(max(8, 0.75 * len(keys) + 2), 5))
    xs = range(len(keys))
    ax.bar(
        [x for x, r in zip(xs, ratios, strict=True) if r],
        [r for r in ratios if r],
        color=[c for c, r in zip(colors, ratios, strict=True) if r],
    )
    for x, (k, r) in enumerate(zip(keys, ratios, strict=True)):
        if not r:
            why = "error" if res[k]["error"] else MISSING
            ax.text(x, 1, why, rotation=90, ha="center", va="bottom", fontsize=8)
        if gate_of(k) is not None:
            ax.plot([x - 0.4, x + 0.4], [gate_of(k)] * 2, color="black", lw=1.5)
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_yscale("log")
    measured = [r for r in ratios if r]
    ax.set_ylim(min([0.5, *measured]) / 1.3, max([4.0, *measured]) * 1.3)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylabel("scipy time / mxffi time (higher: mxffi faster), log scale")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_xlim(-0.6, len(keys) - 0.4)
    ax.grid(axis="y", alpha=0.3)
    ax.set_title("mxffi.nd.sparse vs scipy.sparse (black ticks: gates; dashed: parity)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def write_docs(run, table_md, png):
    """Replace (or append) this script's section of docs/benchmarks.md."""
    if png is not None:
        DOCS_PNG.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(png, DOCS_PNG)
    command = " ".join(["python benchmarks/bench_sparse.py", *run["argv"]])
    section = [
        "## mxffi.nd.sparse next to scipy.sparse",
        "",
        "Sparse conversions, csr x dense and elementwise csr ops on large random matrices; the",
        "docstring of `benchmarks/bench_sparse.py` says what is timed and how. Every mxffi",
        "result is checked against scipy's first. The ratio is scipy's time over mxffi's",
        "(above 1: mxffi is faster); mxffi uses two threads, scipy.sparse one. scipy's",
        "quadratic is computed on the stored values of a copy (`Y = A.copy();",
        "Y.data *= 2 * Y.data + 3`), not as `A.multiply(A) * 2 + A * 3`, which would be",
        f'three sparse ops. "{MISSING}" is an mxffi function not written yet (for `a + c`',
        "and `a * c`: one that only has the dense fallback).",
        "",
        what_table(),
        "",
        "```",
        command,
        "```",
        "",
        f"Machine: {run['machine']}.",
        "",
        conditions(run),
        "",
        table_md,
        "",
    ]
    if png is not None:
        section += [f"![sparse ops](benchmarks/{DOCS_PNG.name})", ""]
    else:
        section += [f"No plot: {run['no_plot']}.", ""]
    section += [
        "Gates (`--check` exits 1 when one fails or is missing): csr x dense at density 0.01",
        "at least 1.5x scipy's throughput, dense -> csr at density 0.01 at least 1.0x, csr x csr",
        "at density 0.001 and the power-law graph's G @ G at least 1.5x.",
        "Wall-clock times on a shared machine are noisy. Large fresh outputs (csr -> dense) are",
        "backed by transparent huge pages on both sides; when the kernel must compact memory to",
        "find them, a call takes up to ten times as long on either side, so those medians can",
        "swing between runs (results.json keeps every sample).",
        "",
    ]
    write_section(SCRIPT, section)
    log(f"wrote the sparse section of {DOCS_MD.relative_to(ROOT)}")


def select(cells, names):
    if names is None:
        return cells
    keep = {}
    for name in names:
        op, _, d = name.partition("@")
        hits = [k for k in cells if k[0] == op and (not d or k[1] == float(d))]
        if not hits:
            known = ", ".join(OP_KEYS)
            raise SystemExit(f"--cells: no cell {name!r}; ops: {known}, optionally @density")
        keep.update({k: cells[k] for k in hits})
    return keep


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a smoke run: 3 rounds, 5 ms samples")
    p.add_argument("--check", action="store_true", help="exit 1 when a gate fails or is missing")
    p.add_argument("--write-docs", action="store_true", help="rewrite docs/benchmarks.md section")
    p.add_argument("--size", type=int, default=10000, help="N of the N x N matrices (10000)")
    p.add_argument("--densities", default="0.001,0.01,0.1", help="comma-separated densities")
    p.add_argument("--cells", default=None, help="only these ops or op@density cells")
    p.add_argument("--rounds", type=int, default=None, help="timing rounds (21; quick 3)")
    p.add_argument("--seed", type=int, default=12345, help="seed of the data and round order")
    p.add_argument("--out-dir", type=Path, default=OUT_DIR, help="for results.json and the plot")
    p.add_argument(
        "--gnn",
        choices=["small", "large", "none"],
        default="small",
        help="the GNN kernels' graph (bench_sparse_gnn.py); small, quick with --quick",
    )
    args = p.parse_args(argv)
    if args.cells and args.write_docs:
        p.error("--cells measures part of the table; --write-docs needs all of it")
    densities = [float(d) for d in args.densities.split(",")]
    rounds = args.rounds or (3 if args.quick else 21)
    target_s = 0.005 if args.quick else 0.05
    t_start = time.time()
    run = {
        "argv": sys.argv[1:] if argv is None else list(argv),
        "size": args.size,
        "rounds": rounds,
        "target_s": target_s,
        "threads": (os.environ["MXFFI_NUM_THREADS"], os.environ["OPENBLAS_NUM_THREADS"]),
        "machine": machine(),
    }
    log(f"making the inputs: {args.size} x {args.size} at densities {densities}")
    cells = select(
        make_cells(args.size, densities, args.seed), args.cells and args.cells.split(",")
    )
    for (op, d), cell in cells.items():
        if cell["missing"]:
            log(f"{OP_LABEL[op]} at {d:g}: {MISSING} ({cell['missing']})")
            continue
        what = f"{OP_LABEL[op]} at density {d:g}"
        try:
            cell["check"](cell["mxffi"](), cell["scipy"](), what)
        except Exception as e:  # noqa: BLE001 - a wrong or failing call is reported, not timed
            cell["error"], cell["mxffi"] = f"{type(e).__name__}: {e}", None
            log(f"{what}: ERROR, not timed ({cell['error']})")
    log(f"checked every result; timing {rounds} rounds of samples of >= {target_s * 1e3:g} ms")
    raw, calls = measure(cells, rounds, target_s, args.seed)
    res = results(cells, raw)
    gates = gate_results(res)
    table_md = table(res, gates)
    print(f"Machine: {run['machine']}.\n")
    print(conditions(run) + "\n")
    print(table_md)
    print("\n" + spread(raw))
    args.out_dir.mkdir(parents=True, exist_ok=True)
    saved = {
        **{k: v for k, v in run.items()},
        "results": {f"{op}@{d:g}": r for (op, d), r in res.items()},
        "calls_per_sample": {f"{op}@{d:g}:{side}": n for ((op, d), side), n in calls.items()},
        "samples": {f"{op}@{d:g}:{side}": v for (op, d, side), v in raw.items()},
    }
    gnn_gates = {}
    if args.gnn != "none" and not args.cells:
        import bench_sparse_gnn

        gnn_md, gnn_gates, saved["gnn"] = bench_sparse_gnn.run(
            "quick" if args.quick else args.gnn, rounds, target_s, args.seed, log
        )
        print("\n" + gnn_md)
        table_md += "\n\n" + gnn_md
    (args.out_dir / "results.json").write_text(json.dumps(saved, indent=1))
    png = args.out_dir / "sparse.png"
    try:
        if not plot(res, png):
            png, run["no_plot"] = None, "nothing was measured"
    except ImportError as e:
        log(f"no plot ({e})")
        png, run["no_plot"] = None, f"matplotlib is not installed ({e})"
    if args.write_docs:
        write_docs(run, table_md, png)
    log(f"done in {time.time() - t_start:.0f} s")
    if args.check:
        for (op, d), (limit, r, verdict) in gates.items():
            log(
                f"gate {OP_LABEL[op]} at {d:g}: ratio {DASH if r is None else f'{r:.2f}'} "
                f">= {limit}: {verdict}"
            )
        for (op, side), (limit, r, verdict) in gnn_gates.items():
            log(f"gate {op} vs {side}: {DASH if r is None else f'{r:.2f}'} >= {limit}: {verdict}")
        if not gates:
            log("--check: no gated cell was measured")
    errors = [f"{op}@{d:g}" for (op, d), r in res.items() if r["error"]]
    errors += [f"gnn {op}" for op in (saved.get("gnn") or {}).get("errors", {})]
    if errors:
        log(f"mxffi results wrong or failing: {', '.join(errors)}")
    all_gates = [*gates.values(), *gnn_gates.values()]
    failed = args.check and any(g[2] != "PASS" for g in all_gates)
    return 1 if errors or failed else 0


if __name__ == "__main__":
    sys.exit(main())
