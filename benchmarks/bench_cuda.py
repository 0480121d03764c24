"""mxffi on a CUDA GPU: memory bandwidth of elementwise ops and of dense -> csr, csr x dense
against CuPy, and the latency of a small allocation.

What is measured. float32 values throughout; inputs are drawn on the GPU by PyTorch's generator
and reach mxffi through DLPack (no copy); every statement makes a fresh output.

    copy              the device-to-device copy bandwidth: cudaMemcpyAsync of 256 MiB
                      (--mib) on the legacy default stream (CuPy's runtime binding; torch's
                      copy_, the same call, without CuPy); bytes = read + written. The
                      reference of the bandwidth rows below.
    add, multiply,    mxffi.np.<op>(a, b) of two 256 MiB arrays;
    maximum           bytes = 3 x 256 MiB (each input read once, the output written once)
    negative, exp     mxffi.np.<op>(a); bytes = 2 x 256 MiB
    multiply scalar   mxffi.np.multiply(a, 2.5); bytes = 2 x 256 MiB
    dense -> csr      mxffi.nd.sparse.cast_storage(d, "csr") of a square dense array of
                      256 MiB with a fraction 0.01 or 0.1 of its values nonzero; bytes = the
                      dense array read once + the csr parts (data, indices, indptr) written once
    csr x dense       mxffi.nd.sparse.dot(a, b) next to CuPy's a @ b (cupyx.scipy.sparse,
                      cuSPARSE): an N x N csr array (int32 indices) at density D times a dense
                      N x 64 array, for (N, D) = (100k, 1e-4), (100k, 1e-3), (1M, 1e-5)
    zeros((3,4))      latency of mxffi.np.zeros((3,4), device="cuda"),
                      torch.zeros((3,4), device="cuda") and cupy.zeros((3,4)), each with its
                      library's default dtype: per call with no synchronization in the loop
                      (what the caller waits for), and with one synchronization after the calls
                      (the GPU work too), over 2,000 calls (200 with --quick)

Every mxffi result is checked once against PyTorch's (CuPy's for csr x dense) before any timing:
elementwise results and csr parts must be equal (exp within 1e-5 relative), csr x dense within
1e-5 relative in the Frobenius norm. A wrong or failing mxffi call is "error" (its gate
ERROR), is not timed, and makes the script exit 1. A function mxffi does not have yet (looked
up by name: mxffi.np.exp, NDArray.to, ...) is "missing", and so is its gate.

How. Each statement is warmed up, then calibrated to samples of at least 20 ms (5 ms with
--quick); 21 rounds (5 with --quick; --rounds) each take one sample of every cell in a fresh
random order. A sample is the time of its calls between two torch.cuda.synchronize() calls
(perf_counter), divided by the number of calls; the copy is timed with CUDA events around its
calls instead. A figure is the median over rounds. Bandwidths are in GB/s (1e9 bytes).

Gates (``--check`` exits 1 when one fails or is missing):

    elementwise ops (each row)        >= 80% of the measured copy bandwidth
    dense -> csr (each density)       >= 50% of the measured copy bandwidth
    csr x dense (each size)           mxffi's time <= 1.5x CuPy's

Without a usable GPU (no device, a build of mxffi without CUDA, no PyTorch with CUDA) nothing
is measured: the script prints why and the table with every cell "missing", writes --json, and
exits 0 (1 with --check, whose gates could not be measured).

Usage:
    python benchmarks/bench_cuda.py [--quick] [--check] [--json PATH] [--write-docs]
        [--mib M] [--rounds R] [--seed S] [--from-json PATH]

--write-docs replaces the section between the "bench_cuda.py" markers of docs/benchmarks.md
(appending it when absent). scripts/gpu_test.sh --bench runs it on a GPU machine, saving its
figures to bench_cuda.json; --from-json PATH reports such a saved run instead of measuring
(--check and --write-docs as for a run here), so a GPU machine's figures go into the docs
without the docs travelling back.
"""

import argparse
import gc
import itertools
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import mxffi

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_call_latency import (  # noqa: E402 - benchmarks/ is not a package
    cpu_name,
    package_versions,
    write_section,
)

SCRIPT = "benchmarks/bench_cuda.py"  # names this script's section of docs/benchmarks.md
MISSING = "missing"
DASH = "–"
DEVICE = "cuda:0"
DENSITIES = (0.01, 0.1)
DOT_SIZES = ((100_000, 1e-4), (100_000, 1e-3), (1_000_000, 1e-5))
DOT_SIZES_QUICK = ((20_000, 1e-3),)
WIDTH = 64  # columns of csr x dense's dense operand
ZEROS_CALLS = 2000
# (kind, limit): elementwise and dense -> csr as a fraction of the copy bandwidth (at least);
# csr x dense as mxffi's time over CuPy's (at most).
GATES = {"elemwise": 0.80, "to_csr": 0.50, "dot": 1.5}
# (name, np function, number of array inputs, extra arguments, torch reference)
ELEMWISE = [
    ("add", "add", 2, (), "add"),
    ("multiply", "multiply", 2, (), "mul"),
    ("maximum", "maximum", 2, (), "maximum"),
    ("negative", "negative", 1, (), "neg"),
    ("exp", "exp", 1, (), "exp"),
    ("multiply scalar", "multiply", 1, (2.5,), "mul"),
]


def log(msg):
    print(f"==> {msg}", file=sys.stderr, flush=True)


# --- What this machine has. -------------------------------------------------------------------


def why_no_gpu():
    """Why nothing can be measured here ("" when a GPU can be used by mxffi and PyTorch)."""
    reasons = []
    if not mxffi.cuda.is_available():
        # The library's own reason, which also covers a build without CUDA.
        reasons.append(f"mxffi: {mxffi.cuda.unavailable_reason() or 'no CUDA device'}")
    try:
        import torch
    except ImportError as e:
        reasons.append(f"PyTorch is not installed ({e})")
    else:
        if not torch.cuda.is_available():
            build = "a CPU-only build" if torch.version.cuda is None else "no usable device"
            reasons.append(
                f"PyTorch {torch.__version__}: torch.cuda.is_available() is False ({build})"
            )
    return "; ".join(reasons)


def import_cupy():
    """(cupy, cupyx.scipy.sparse), or (None, why) when CuPy cannot be used."""
    try:
        import cupy
        import cupyx.scipy.sparse as cusp

        cupy.cuda.runtime.getDeviceCount()
        return cupy, cusp
    except Exception as e:  # noqa: BLE001 - any failure means no CuPy reference
        return None, f"CuPy is not usable ({type(e).__name__}: {e})"


def lookup(obj, name, what):
    """obj.<name>, or (None, why missing)."""
    fn = getattr(obj, name, None)
    return (fn, None) if fn is not None else (None, f"{what} does not exist")


# --- Moving arrays between PyTorch and mxffi. ----------------------------------------------


def to_mx(t):
    """A CUDA torch.Tensor as an mxffi array on the same memory (DLPack)."""
    return mxffi.np.from_dlpack(t)


def to_torch(x):
    """An mxffi array on the GPU as a torch.Tensor (DLPack; a copy through the host when the
    array cannot be exported)."""
    import torch

    try:
        return torch.from_dlpack(x)
    except Exception:  # noqa: BLE001 - an exporter that refuses: compare through the host
        return torch.from_numpy(np.asarray(x.asnumpy())).to(DEVICE)


def on_gpu(x, what):
    dev = x.__dlpack_device__()
    if tuple(dev) != (2, 0):
        raise AssertionError(f"{what}: the mxffi result is on device {tuple(dev)}, not cuda:0")


# --- Cells: {name: dict(kind, run, reference, check, bytes, why missing)}. ----------------------


def elemwise_cells(torch, n):
    cells = {}
    a_t = torch.randn(n, device=DEVICE, dtype=torch.float32)
    b_t = torch.randn(n, device=DEVICE, dtype=torch.float32)
    a, b = to_mx(a_t), to_mx(b_t)
    for name, fn_name, arity, extra, ref in ELEMWISE:
        fn, why = lookup(mxffi.np, fn_name, f"mxffi.np.{fn_name}")
        args = (a, b)[:arity] + extra
        targs = (a_t, b_t)[:arity] + extra
        exact = name != "exp"
        fn_ref = getattr(torch, ref)

        def check(out, fn_ref=fn_ref, targs=targs, exact=exact, what=name):
            on_gpu(out, what)
            got, want = to_torch(out), fn_ref(*targs)
            if got.shape != want.shape or got.dtype != want.dtype:
                raise AssertionError(
                    f"{what}: {got.dtype}{tuple(got.shape)}, torch's "
                    f"{want.dtype}{tuple(want.shape)}"
                )
            if exact and not torch.equal(got, want):
                raise AssertionError(f"{what}: values differ from torch's")
            if not exact and not torch.allclose(got, want, rtol=1e-5, atol=0):
                raise AssertionError(f"{what}: values differ from torch's by more than 1e-5")

        cells[name] = {
            "kind": "elemwise",
            "size": f"{arity} x {n * 4 >> 20} MiB",
            "run": None if why else (lambda fn=fn, args=args: fn(*args)),
            "check": check,
            "bytes": (arity + 1) * n * 4,
            "missing": why,
        }
    return cells


def to_csr_cells(torch, n):
    cells = {}
    side = int(round(n**0.5))
    cast, why = lookup(getattr(mxffi.nd, "sparse", None), "cast_storage", "cast_storage")
    for d in DENSITIES:
        mask = torch.rand(side, side, device=DEVICE) < d
        d_t = torch.where(
            mask, torch.randn(side, side, device=DEVICE), torch.zeros((), device=DEVICE)
        )
        del mask
        dense = to_mx(d_t)

        def check(out, d_t=d_t, what=f"dense -> csr at {d:g}"):
            want = d_t.to_sparse_csr()
            for part, ref in (
                ("indptr", want.crow_indices()),
                ("indices", want.col_indices()),
                ("data", want.values()),
            ):
                x = getattr(out, part)
                on_gpu(x, f"{what}: {part}")
                got = to_torch(x)
                if not torch.equal(got.to(ref.dtype), ref):
                    raise AssertionError(f"{what}: {part} differs from torch's to_sparse_csr()")

        def nbytes(out, side=side):
            idx = np.dtype(str(out.indices.dtype)).itemsize
            return side * side * 4 + out.nnz * (4 + idx) + (side + 1) * idx

        cells[f"dense -> csr@{d:g}"] = {
            "kind": "to_csr",
            "size": f"{side} x {side}, density {d:g}",
            "run": None if why else (lambda dense=dense: cast(dense, "csr")),
            "check": check,
            "bytes": nbytes,
            "missing": why,
        }
    return cells


def dot_cells(torch, cupy_mod, sizes, seed):
    import scipy.sparse as sp

    cells = {}
    cupy, cusp = cupy_mod
    dot, why = lookup(getattr(mxffi.nd, "sparse", None), "dot", "mxffi.nd.sparse.dot")
    if not why and not hasattr(mxffi.np.ndarray, "to"):
        why = "NDArray.to (a copy to the GPU) does not exist"
    rng = np.random.default_rng(seed)
    for n, d in sizes:
        k = int(round(d * n * n))
        a = sp.coo_matrix(
            (rng.random(k, dtype=np.float32) + 0.5, (rng.integers(0, n, k), rng.integers(0, n, k))),
            shape=(n, n),
        ).tocsr()
        a.sum_duplicates()
        a.indices, a.indptr = a.indices.astype(np.int32), a.indptr.astype(np.int32)
        b_t = torch.randn(n, WIDTH, device=DEVICE, dtype=torch.float32)
        a_mx = None if why else mxffi.nd.sparse.csr_matrix(a).to(DEVICE)
        b_mx = to_mx(b_t)
        if cupy is not None:
            a_cp, b_cp = cusp.csr_matrix(a), cupy.from_dlpack(b_t)
            ref = lambda a_cp=a_cp, b_cp=b_cp: a_cp @ b_cp  # noqa: E731
        else:
            a_cp = None
            a_t = torch.sparse_csr_tensor(
                torch.from_numpy(a.indptr).to(DEVICE, torch.int64),
                torch.from_numpy(a.indices).to(DEVICE, torch.int64),
                torch.from_numpy(a.data).to(DEVICE),
                size=(n, n),
            )
            ref = lambda a_t=a_t, b_t=b_t: a_t @ b_t  # noqa: E731

        def check(out, ref=ref, what=f"csr x dense at {n:,}, {d:g}"):
            on_gpu(out, what)
            got = to_torch(out)
            want = torch.from_dlpack(ref()) if cupy is not None else ref()
            if got.shape != want.shape:
                raise AssertionError(f"{what}: shape {tuple(got.shape)}, {tuple(want.shape)}")
            err = float(torch.linalg.norm((got - want).double()) / torch.linalg.norm(want.double()))
            if not err <= 1e-5:
                raise AssertionError(f"{what}: relative error {err:.3g} > 1e-5")

        cells[f"csr x dense@{n},{d:g}"] = {
            "kind": "dot",
            "size": f"{n:,}^2 at {d:g} (nnz {a.nnz:,}) x {WIDTH}",
            "run": None if why else (lambda a_mx=a_mx, b_mx=b_mx: dot(a_mx, b_mx)),
            "reference": ref if cupy is not None else None,
            "check": check,
            "missing": why,
        }
    return cells


# --- Timing. ---------------------------------------------------------------------------------


def timed(sync, f, calls):
    """Seconds per call of f over calls calls, between two synchronizations."""
    sync()
    t0 = time.perf_counter()
    for _ in itertools.repeat(None, calls):
        f()
    sync()
    return (time.perf_counter() - t0) / calls


def copy_sampler(torch, cupy, nbytes):
    """(sampler(calls) -> seconds per copy, what is copied)."""
    src = torch.randn(nbytes // 4, device=DEVICE, dtype=torch.float32)
    dst = torch.empty_like(src)
    if cupy is not None:
        rt = cupy.cuda.runtime
        ptrs = (dst.data_ptr(), src.data_ptr())

        def one():
            rt.memcpyAsync(ptrs[0], ptrs[1], nbytes, rt.memcpyDeviceToDevice, 0)

        how = "cudaMemcpyAsync (CuPy)"
    else:

        def one():
            dst.copy_(src)

        how = "torch copy_"
    one()
    torch.cuda.synchronize()
    if not torch.equal(dst, src):
        raise AssertionError("copy: the destination differs from the source")

    def sample(calls):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        for _ in itertools.repeat(None, calls):
            one()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / calls

    return sample, how


def measure(samplers, rounds, target_s, seed):
    """{name: [seconds per call, one per round]} over randomized interleaved rounds."""
    calls = {}
    for name, sample in samplers.items():
        sample(1)  # warm up: module load, allocator pools, cuSPARSE handles
        one = sample(1)
        calls[name] = max(1, int(target_s / max(one, 1e-9)))
    rng = random.Random(seed)
    order = list(samplers)
    times = {name: [] for name in order}
    gc.collect()
    gc.disable()
    try:
        for r in range(rounds):
            rng.shuffle(order)
            for name in order:
                times[name].append(samplers[name](calls[name]))
            log(f"round {r + 1}/{rounds}")
    finally:
        gc.enable()
    return times, calls


def zeros_latency(torch, cupy, calls, rounds, seed):
    """{library: (median us per call without a sync, with one sync after the calls)} and the
    check of mxffi's result."""
    sync = torch.cuda.synchronize
    fns = {"torch": lambda: torch.zeros((3, 4), device="cuda")}
    if cupy is not None:
        fns["cupy"] = lambda: cupy.zeros((3, 4))
    zeros, why = lookup(mxffi.np, "zeros", "mxffi.np.zeros")
    if zeros is not None:
        out = zeros((3, 4), device="cuda")
        on_gpu(out, "zeros((3,4))")
        got = to_torch(out)
        if tuple(got.shape) != (3, 4) or bool(got.any()):
            raise AssertionError("zeros((3,4)): the mxffi result is not a (3, 4) array of zeros")
        fns["mxffi"] = lambda: zeros((3, 4), device="cuda")

    def loop(f, n, with_sync):
        sync()
        t0 = time.perf_counter()
        for _ in itertools.repeat(None, n):
            f()
        if with_sync:
            sync()
        return (time.perf_counter() - t0) / n

    for f in fns.values():
        loop(f, calls, True)
    rng = random.Random(seed)
    jobs = [(lib, s) for lib in fns for s in (False, True)]
    samples = {job: [] for job in jobs}
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            rng.shuffle(jobs)
            for lib, s in jobs:
                samples[lib, s].append(loop(fns[lib], calls, s))
    finally:
        gc.enable()
    out = {
        lib: tuple(statistics.median(samples[lib, s]) * 1e6 for s in (False, True)) for lib in fns
    }
    return out, samples


# --- Report. ---------------------------------------------------------------------------------


def fmt_t(s):
    if s is None:
        return DASH
    if s >= 1:
        return f"{s:.2f} s"
    return f"{s * 1e3:#.3g} ms" if s >= 1e-4 else f"{s * 1e6:#.3g} us"


def verdict(ok, missing, error):
    return "ERROR" if error else MISSING.upper() if missing else "PASS" if ok else "FAIL"


def rows_of(res):
    """The table's rows: [cell, size, mxffi, reference, figure, gate, result]."""
    copy = res.get("copy") or {}
    copy_bw = copy.get("gbps")
    rows = [
        [
            "copy (device to device)",
            f"{res['mib']} MiB",
            DASH,
            f"{fmt_t(copy['s'])}, {copy['how']}" if copy_bw else DASH,
            f"{copy_bw:,.0f} GB/s" if copy_bw else MISSING,
            DASH,
            DASH,
        ]
    ]
    for name, c in res["cells"].items():
        if c["kind"] in ("elemwise", "to_csr"):
            limit = GATES[c["kind"]]
            frac = c["gbps"] / copy_bw if c.get("gbps") and copy_bw else None
            mx = (
                "error"
                if c["error"]
                else MISSING
                if c["missing"] or not c.get("s")
                else (f"{fmt_t(c['s'])}, {c['gbps']:,.0f} GB/s")
            )
            fig = f"{frac:.0%} of copy" if frac is not None else DASH
            ok = frac is not None and frac >= limit
            rows.append(
                [
                    name,
                    c["size"],
                    mx,
                    "copy",
                    fig,
                    f">= {limit:.0%}",
                    verdict(ok, frac is None, c["error"]),
                ]
            )
        else:
            limit = GATES["dot"]
            ratio = c["s"] / c["ref_s"] if c.get("s") and c.get("ref_s") else None
            mx = (
                "error"
                if c["error"]
                else MISSING
                if c["missing"] or not c.get("s")
                else fmt_t(c["s"])
            )
            ref = f"CuPy {fmt_t(c['ref_s'])}" if c.get("ref_s") else f"CuPy {MISSING}"
            fig = f"{ratio:.2f}x CuPy's time" if ratio is not None else DASH
            ok = ratio is not None and ratio <= limit
            rows.append(
                [
                    name,
                    c["size"],
                    mx,
                    ref,
                    fig,
                    f"<= {limit:g}x",
                    verdict(ok, ratio is None, c["error"]),
                ]
            )
    z = res.get("zeros") or {}
    for lib in ("mxffi", "torch", "cupy"):
        v = z.get(lib)
        fig = f"{v[0]:.2f} us per call, {v[1]:.2f} us with a sync" if v else MISSING
        rows.append(
            [
                f"zeros((3,4)) {lib}",
                "(3, 4)",
                fig if lib == "mxffi" else DASH,
                fig if lib != "mxffi" else DASH,
                DASH,
                DASH,
                DASH,
            ]
        )
    return rows


def table(rows):
    head = ["cell", "size", "mxffi", "reference", "figure", "gate", "result"]
    lines = ["| " + " | ".join(head) + " |", "| --- | --- | ---: | ---: | ---: | --- | --- |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def gate_failures(rows):
    return [r[0] for r in rows if r[6] not in ("PASS", DASH)]


def machine(torch):
    pkgs = package_versions(("mxffi", "torch", "cupy-cuda13x", "cupy-cuda12x", "numpy", "scipy"))
    gpu = "no GPU"
    if torch is not None and torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        gpu = f"{p.name} ({p.total_memory / 2**30:.0f} GiB), CUDA {torch.version.cuda}"
    return f"{gpu}; {cpu_name()}; CPython {platform.python_version()}; {pkgs}"


def empty_results(mib, reason, torch):
    """The results of a run that measured nothing: every cell missing."""
    cells = {}
    for name, _, arity, _, _ in ELEMWISE:
        cells[name] = {"kind": "elemwise", "size": f"{arity} x {mib} MiB"}
    side = int(round((mib * 2**20 // 4) ** 0.5))
    for d in DENSITIES:
        cells[f"dense -> csr@{d:g}"] = {"kind": "to_csr", "size": f"{side} x {side}, density {d:g}"}
    for n, d in DOT_SIZES:
        cells[f"csr x dense@{n},{d:g}"] = {"kind": "dot", "size": f"{n:,}^2 at {d:g} x {WIDTH}"}
    for c in cells.values():
        c.update(missing=reason, error=None)
    return {"mib": mib, "skipped": reason, "machine": machine(torch), "cells": cells}


def run_gpu(args, torch):
    cupy, cusp = import_cupy()
    if cupy is None:
        log(f"{cusp}: copies with torch, no CuPy column")
    n = args.mib * 2**20 // 4
    rounds = args.rounds or (5 if args.quick else 21)
    target_s = 0.005 if args.quick else 0.02
    torch.manual_seed(args.seed)
    log(f"making the inputs: {args.mib} MiB per operand")
    cells = {}
    cells.update(elemwise_cells(torch, n))
    cells.update(to_csr_cells(torch, n))
    sizes = DOT_SIZES_QUICK if args.quick else DOT_SIZES
    cells.update(dot_cells(torch, (cupy, cusp), sizes, args.seed))
    copy_sample, how = copy_sampler(torch, cupy, n * 4)
    sync = torch.cuda.synchronize
    for name, c in cells.items():
        c["error"] = None
        if c["missing"]:
            log(f"{name}: {MISSING} ({c['missing']})")
            continue
        try:
            out = c["run"]()
            sync()
            c["check"](out, what=name)
            if callable(c.get("bytes")):
                c["bytes"] = c["bytes"](out)
            del out
        except Exception as e:  # noqa: BLE001 - a wrong or failing call is reported, not timed
            c["error"], c["run"] = f"{type(e).__name__}: {e}", None
            log(f"{name}: ERROR, not timed ({c['error']})")
    samplers = {"copy": copy_sample}
    for name, c in cells.items():
        if c["run"] and not c["missing"]:
            samplers[name] = lambda calls, f=c["run"]: timed(sync, f, calls)
        if c.get("reference"):
            samplers[name + ":cupy"] = lambda calls, f=c["reference"]: timed(sync, f, calls)
    log(f"checked every result; timing {rounds} rounds of samples of >= {target_s * 1e3:g} ms")
    times, calls = measure(samplers, rounds, target_s, args.seed)
    med = {k: statistics.median(v) for k, v in times.items()}
    copy_s = med["copy"]
    res = {
        "mib": args.mib,
        "skipped": None,
        "machine": machine(torch),
        "rounds": rounds,
        "target_s": target_s,
        "copy": {"s": copy_s, "gbps": 2 * n * 4 / copy_s / 1e9, "how": how},
        "cells": {},
    }
    for name, c in cells.items():
        s = med.get(name)
        entry = {"kind": c["kind"], "size": c["size"], "missing": c["missing"], "error": c["error"]}
        entry["s"] = s
        if c["kind"] != "dot":
            entry["bytes"] = c["bytes"] if isinstance(c["bytes"], int) else None
            entry["gbps"] = entry["bytes"] / s / 1e9 if s and entry["bytes"] else None
        else:
            entry["ref_s"] = med.get(name + ":cupy")
        res["cells"][name] = entry
    zcalls = 200 if args.quick else ZEROS_CALLS
    res["zeros"], zsamples = zeros_latency(torch, cupy, zcalls, rounds, args.seed)
    res["samples"] = {k: v for k, v in times.items()}
    res["calls_per_sample"] = calls
    res["zeros_samples"] = {
        f"{lib}:{'sync' if s else 'nosync'}": v for (lib, s), v in zsamples.items()
    }
    return res


def write_docs(args, res, table_md):
    command = " ".join(["python benchmarks/bench_cuda.py", *args.argv])
    section = [
        "## mxffi on a CUDA GPU",
        "",
        "Bandwidth of elementwise ops and of dense -> csr as a share of the measured",
        "device-to-device copy bandwidth (bytes = the minimum traffic: each input read once,",
        "the output written once), csr x dense next to CuPy (cuSPARSE), and the latency of a",
        "small allocation next to PyTorch and CuPy; the docstring of `benchmarks/bench_cuda.py`",
        "says what is timed and how. Every mxffi result is checked against PyTorch's (CuPy's",
        "for csr x dense) first.",
        "",
        "```",
        command,
        "```",
        "",
        f"Machine: {res['machine']}.",
        "",
        table_md,
        "",
        "Gates (`--check` exits 1 when one fails or is missing): each elementwise op at least",
        "80% of the copy bandwidth, dense -> csr at least 50%, csr x dense at most 1.5x CuPy's",
        "time.",
        "",
    ]
    write_section(SCRIPT, section)
    log("wrote the CUDA section of docs/benchmarks.md")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a smoke run: 5 rounds, 5 ms samples")
    p.add_argument("--check", action="store_true", help="exit 1 when a gate fails or is missing")
    p.add_argument("--json", type=Path, default=None, help="write every figure to this file")
    p.add_argument("--write-docs", action="store_true", help="rewrite docs/benchmarks.md section")
    p.add_argument("--mib", type=int, default=256, help="MiB per operand (256)")
    p.add_argument("--rounds", type=int, default=None, help="timing rounds (21; quick 5)")
    p.add_argument("--seed", type=int, default=12345, help="seed of the data and round order")
    p.add_argument(
        "--from-json",
        type=Path,
        default=None,
        help="report a run saved with --json (on a GPU machine: scripts/gpu_test.sh --bench) "
        "instead of measuring; with --write-docs, record it",
    )
    args = p.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else list(argv)
    t_start = time.time()
    reason = None
    if args.from_json:
        res = json.loads(args.from_json.read_text())
        args.argv = res.get("argv", [])  # the docs show the command that measured it
    else:
        reason = why_no_gpu()
        try:
            import torch
        except ImportError:
            torch = None
        if reason:
            print(f"bench_cuda.py: nothing measured: no GPU to measure on: {reason}.")
            res = empty_results(args.mib, reason, torch)
        else:
            res = run_gpu(args, torch)
    rows = rows_of(res)
    table_md = table(rows)
    print(f"Machine: {res['machine']}.\n")
    print(table_md)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({**res, "argv": args.argv, "rows": rows}, indent=1))
        log(f"wrote {args.json}")
    if args.write_docs and reason:
        log("--write-docs: nothing measured, docs/benchmarks.md left as it is")
    elif args.write_docs:
        write_docs(args, res, table_md)
    log(f"done in {time.time() - t_start:.0f} s")
    errors = [name for name, c in res["cells"].items() if c.get("error")]
    if errors:
        log(f"mxffi results wrong or failing: {', '.join(errors)}")
    failed = gate_failures(rows)
    if args.check and failed:
        log(f"--check: gates not passed: {', '.join(failed)}")
    return 1 if errors or (args.check and failed) else 0


if __name__ == "__main__":
    sys.exit(main())
