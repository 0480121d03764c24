"""What small mxffi.np calls cost next to numpy and apache-tvm-ffi, in one process.

What is timed. One statement per cell, called with its arguments in locals:

    zeros((3,4))                     mxffi.np.zeros / numpy.zeros / tvm-ffi "mxb_np.zeros"
    zeros((3,4), dtype='float64')    the same with the dtype as a keyword (positional for
                                     tvm-ffi, whose functions take no keywords)
    ones((3,4))                      mxffi.np.ones / numpy.ones
    add(a, b)                        mxffi.np.add / numpy.add, two float64 (3,4) arrays
    tensordot(a, b, axes=1)          mxffi.np.tensordot against numpy.dot(a, b) on the same
                                     float64 data: (3,4)x(4,3), 64x64 and 512x512
    sum(x, axis=0)                   mxffi.np.sum / numpy.sum, a float64 (3,4) array
    concat([a, b]), stack([a, b])    mxffi.np.concat / numpy.concatenate, and stack, of two
                                     float64 (3,4) arrays (a Python list of them)
    cumulative_sum(x, axis=1)        mxffi.np.cumulative_sum / numpy.cumulative_sum, (3,4)
    diff(x)                          mxffi.np.diff / numpy.diff, a float64 (3,4) array
    sort(x), argsort(x)              mxffi.np.sort / numpy.sort (argsort the same), a float64
                                     (3,4) array along its last axis
    searchsorted(a, v)               a sorted float64 (12,) array, 4 float64 values
    unique_values(x)                 an int64 (3,4) array of values 0..4 (numpy 2.3+ hashes
                                     and returns them unordered; mxffi sorts them)
    tensor_first_f64(t)              a CPU torch.Tensor (float64, (3,4)) passed to a function
                                     that takes a tensor and returns its first element:
                                     mxffi's registered "testing.tensor_first_f64" (DLTensor*)
                                     and tvm-ffi's "mxb_np.tensor_first_f64" (ffi::TensorView)
                                     with the same body; numpy has no such call

mxffi arrays for the mxffi rows, numpy arrays for numpy, the same values in both. Every mxffi
row calls the public function object (``mxffi.np.zeros`` etc., the registered global itself)
through its C vectorcall slot; nothing in mxffi knows about the benchmark. The column
"MXFFIFuncCall / call" counts, from callgrind's call graph, how many times MXFFIFuncCall runs
per statement (a tuple argument such as the shape becomes an Array through one more call, to
"container.array"). The tvm-ffi functions are global functions of libmxb_tvm_ffi_np.so
(benchmarks/latency/tvm_ffi_np.cc), registered when tvm_ffi.load_module loads it and fetched
with tvm_ffi.get_global_func; its zeros allocates with ffi::Tensor::FromNDAlloc (malloc),
zeroes the bytes and returns the tensor. Every result is checked once against numpy first.

How. Each cell is a compiled ``for _ in itertools.repeat(None, n): f(x0, ...)`` loop of its own
(bench_call_latency.py's make_loop), with the garbage collector off. Time: each cell is
calibrated to about 10 ms per sample (2 ms with --quick; at least one call), then 51 rounds
(5) each time every cell once in a fresh random order; a figure is the median ns per call
less an empty loop's. Instructions: one ``valgrind --tool=callgrind`` process runs every cell
N and 2N times between CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT
(latency/callgrind_client.c through ctypes); (I(2N) - I(N)) / N less the empty loop's is the
cost of one call. N = 10000 (500 with --quick), 1000 (50) for 64x64 and 10 (2) for 512x512.
The callgrind process runs the real interpreter binary (sys.executable with its links
resolved; not inside a virtual environment, whose python must keep its own path) with
OPENBLAS_NUM_THREADS=1 MXFFI_NUM_THREADS=1 PYTHONHASHSEED=0. The timing runs in this process
with OPENBLAS_NUM_THREADS and MXFFI_NUM_THREADS defaulting to 1 as well (set them to time
more threads): both libraries then compute 512x512 on one core.

Gates, on the instruction counts of the same run (``--check`` exits 1 when one fails or could
not be measured):

    mxffi.np.zeros((3,4)), with and without dtype='float64'  <= 1.5x numpy.zeros
    tensordot (3,4)x(4,3)                                    <= 2.0x numpy.dot
    tensordot 512x512                                        <= 1.2x numpy.dot
    concat, stack, cumulative_sum                            <= 1.0x numpy
    sort(x), unique_values(x)                                <= 1.0x numpy's

Large arrays (np_large.py's docstring says how): exp, sqrt, add into out=, sum and max of 10^7
float32 and float64 elements, sort of 10^6 float32 and int32 elements (reported, no gate), a
copy of a transposed 4096x4096 float64 array and a 1024x1024 float64 matmul, with
MXFFI_NUM_THREADS=1 and 2 (numpy's OpenBLAS the same), each thread count in a child
interpreter of its own; figures are medians of interleaved rounds and the gates are on numpy's
time over mxffi's (--check fails when one is below its bound):

    1 thread:  exp, sqrt, add into out=, sum, max (float32 and float64), transposed copy >= 1.0
    2 threads: exp >= 1.6, sum >= 1.3 (float32 and float64)
    matmul, 1 and 2 threads                                                         >= 0.95

A function mxffi.np does not have yet is shown as "missing" (its gate too); a cell a library
has no call for is "–". When a gate fails, the inclusive instructions per call of the
heaviest functions of every side are printed (callgrind_annotate --inclusive=yes); --annotate
prints them for every gated cell, --annotate=torch,zeros for the cells named. --cells=zeros,dot3
measures those cells alone (and checks their gates), for a quick look after a change; it
takes large-array cells too (exp_f32, transpose, ...: np_large.CELLS). --no-large leaves the
large arrays out, --large-threads=1 runs one thread count.

Usage:
    python benchmarks/bench_np_ops.py [--quick] [--check] [--write-docs] [--annotate[=CELL,...]]
        [--cells=CELL,...] [--no-callgrind] [--no-timing] [--no-build] [--no-large]
        [--large-threads=1,2]

It builds benchmarks/latency into build-bench/latency as bench_call_latency.py does (run both
with the same interpreter, or that build directory is started afresh), prints the table,
writes build-bench/latency/np_ops_results.json, keeps the callgrind dumps in
build-bench/latency/np_ops_callgrind/, and with --write-docs replaces the section between the
"bench_np_ops.py" markers of docs/benchmarks.md (appending it when the markers are absent).
scripts/bench.sh installs what this needs but torch (then run build-bench/venv/bin/python
benchmarks/bench_np_ops.py; it is not hooked into bench.sh, which hands its options to
bench_call_latency.py); without torch the torch.Tensor row is "–".
"""

import os

# Before numpy or mxffi load: both size their thread pools once, at load time.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MXFFI_NUM_THREADS", "1")

import argparse  # noqa: E402
import gc  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import np_large  # noqa: E402 - benchmarks/ is not a package
from bench_call_latency import (  # noqa: E402 - benchmarks/ is not a package
    BUILD_DIR,
    DASH,
    DOCS_MD,
    LOOP,
    ROOT,
    build,
    cpu_name,
    log,
    make_empty_loop,
    make_loop,
    net,
    package_versions,
    parse_dump,
    time_loop,
    write_section,
)

CG_DIR = BUILD_DIR / "np_ops_callgrind"
RESULTS = BUILD_DIR / "np_ops_results.json"
SCRIPT = "benchmarks/bench_np_ops.py"  # names this script's section of docs/benchmarks.md
MISSING = "missing"

FRAMEWORKS = [("mxffi", "mxffi.np"), ("numpy", "numpy"), ("tvm_ffi", "apache-tvm-ffi")]
FW_LABEL = dict(FRAMEWORKS)

# (key, label, what each framework calls, callgrind N (full, quick), gate: max mxffi / numpy)
CELLS = [
    ("zeros", "zeros((3,4))", "zeros((3,4))", (10000, 500), 1.5),
    (
        "zeros_f64",
        "zeros((3,4), dtype='float64')",
        "zeros((3,4), dtype='float64'); tvm-ffi: zeros((3,4), 'float64')",
        (10000, 500),
        1.5,
    ),
    ("ones", "ones((3,4))", "ones((3,4))", (10000, 500), None),
    ("add", "add(a, b), (3,4) float64", "add(a, b)", (10000, 500), None),
    (
        "dot3",
        "tensordot (3,4)x(4,3)",
        "mxffi tensordot(a, b, axes=1); numpy.dot(a, b)",
        (10000, 500),
        2.0,
    ),
    ("dot64", "tensordot 64x64", "as above", (1000, 50), None),
    ("dot512", "tensordot 512x512", "as above", (10, 2), 1.2),
    ("sum0", "sum(x, axis=0), (3,4) float64", "sum(x, axis=0)", (10000, 500), None),
    ("sort", "sort(x), (3,4) float64", "sort(x)", (10000, 500), 1.0),
    ("argsort", "argsort(x), (3,4) float64", "argsort(x)", (10000, 500), None),
    (
        "searchsorted",
        "searchsorted(a, v), 12 and 4 float64",
        "searchsorted(a, v)",
        (10000, 500),
        None,
    ),
    ("unique_values", "unique_values(x), (3,4) int64", "unique_values(x)", (10000, 500), 1.0),
    (
        "concat",
        "concat([a, b]), (3,4) float64",
        "concat([a, b]); numpy.concatenate",
        (10000, 500),
        1.0,
    ),
    ("stack", "stack([a, b]), (3,4) float64", "stack([a, b])", (10000, 500), 1.0),
    (
        "cumsum",
        "cumulative_sum(x, axis=1), (3,4) float64",
        "cumulative_sum(x, axis=1)",
        (10000, 500),
        1.0,
    ),
    ("diff", "diff(x), (3,4) float64", "diff(x)", (10000, 500), None),
    ("where", "where(c, a, b), (3,4) float64", "where(c, a, b), c bool", (10000, 500), 1.0),
    ("argmax", "argmax(x), (3,4) float64", "argmax(x)", (10000, 500), 1.0),
    ("std", "std(x), (3,4) float64", "std(x)", (10000, 500), 1.0),
    ("take", "take(x, i), (3,4) float64", "take(x, i), i 4 int64", (10000, 500), 1.0),
    (
        "torch",
        "torch.Tensor argument",
        "tensor_first_f64(t), t a CPU float64 (3,4) torch.Tensor",
        (10000, 500),
        None,
    ),
]
# The array API's 67 elementwise functions, each on (3,4) inputs: (name, arity, input kind).
# Kinds: "f" float64 standard normal, "pos" float64 in [0.5, 3), "unit" float64 in (-0.9, 0.9),
# "ge1" float64 in [1, 4), "i" int64 in [0, 8), "b" bool.
ELEMWISE = [
    ("abs", 1, "f"), ("acos", 1, "unit"), ("acosh", 1, "ge1"), ("add", 2, "f"),
    ("asin", 1, "unit"), ("asinh", 1, "f"), ("atan", 1, "f"), ("atan2", 2, "f"),
    ("atanh", 1, "unit"), ("bitwise_and", 2, "i"), ("bitwise_left_shift", 2, "i"),
    ("bitwise_invert", 1, "i"), ("bitwise_or", 2, "i"), ("bitwise_right_shift", 2, "i"),
    ("bitwise_xor", 2, "i"), ("ceil", 1, "f"), ("clip", 1, "f"), ("conj", 1, "f"),
    ("copysign", 2, "f"), ("cos", 1, "f"), ("cosh", 1, "f"), ("divide", 2, "pos"),
    ("equal", 2, "i"), ("exp", 1, "f"), ("expm1", 1, "f"), ("floor", 1, "f"),
    ("floor_divide", 2, "pos"), ("greater", 2, "f"), ("greater_equal", 2, "f"),
    ("hypot", 2, "f"), ("imag", 1, "f"), ("isfinite", 1, "f"), ("isinf", 1, "f"),
    ("isnan", 1, "f"), ("less", 2, "f"), ("less_equal", 2, "f"), ("log", 1, "pos"),
    ("log1p", 1, "pos"), ("log2", 1, "pos"), ("log10", 1, "pos"), ("logaddexp", 2, "f"),
    ("logical_and", 2, "b"), ("logical_not", 1, "b"), ("logical_or", 2, "b"),
    ("logical_xor", 2, "b"), ("maximum", 2, "f"), ("minimum", 2, "f"), ("multiply", 2, "f"),
    ("negative", 1, "f"), ("nextafter", 2, "f"), ("not_equal", 2, "i"), ("positive", 1, "f"),
    ("pow", 2, "pos"), ("real", 1, "f"), ("reciprocal", 1, "pos"), ("remainder", 2, "pos"),
    ("round", 1, "f"), ("sign", 1, "f"), ("signbit", 1, "f"), ("sin", 1, "f"),
    ("sinh", 1, "f"), ("square", 1, "f"), ("sqrt", 1, "pos"), ("subtract", 2, "f"),
    ("tan", 1, "f"), ("tanh", 1, "f"), ("trunc", 1, "f"),
]  # fmt: skip
# numpy 2's names where the array API's differ (numpy 2 has most of the array API's too).
NUMPY_NAME = {"bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift",
              "bitwise_invert": "invert"}  # fmt: skip
for _name, _arity, _kind in ELEMWISE:
    _args = "(a)" if _arity == 1 else "(a, b)"
    # gate: at most numpy's instructions per call, as every elementwise function should be
    CELLS.append((f"ew_{_name}", f"{_name}{_args}, (3,4)", f"{_name}{_args}", (10000, 500), 1.0))
CELL_KEYS = [c[0] for c in CELLS]
CELL_LABEL = {c[0]: c[1] for c in CELLS}
CELL_CALLS = {c[0]: c[3] for c in CELLS}
GATES = {c[0]: c[4] for c in CELLS if c[4] is not None}


# --- Cells. ---------------------------------------------------------------------------------


def make_cells():
    """{(framework, cell): (function, args, kwargs)}, each result checked once against numpy.

    Returns (cells, missing): missing maps (framework, cell) to why it is missing (an mxffi.np
    function not written yet, tvm-ffi or torch not installed).
    """
    import numpy as np

    import mxffi.np as mnp

    rng = np.random.default_rng(0)
    x34 = rng.standard_normal((3, 4))
    y34 = rng.standard_normal((3, 4))
    x43 = rng.standard_normal((4, 3))
    sq = {n: (rng.standard_normal((n, n)), rng.standard_normal((n, n))) for n in (64, 512)}

    def mx(a):
        return mnp.array(a)

    def fn(name):
        """The public mxffi.np function, or why there is none."""
        return getattr(mnp, name, f"mxffi.np.{name} does not exist yet")

    spec = {}  # (fw, key) -> (f or a missing reason, args, kwargs, expected numpy result)
    z = np.zeros((3, 4))
    spec["mxffi", "zeros"] = (fn("zeros"), ((3, 4),), {}, z)
    spec["numpy", "zeros"] = (np.zeros, ((3, 4),), {}, z)
    spec["mxffi", "zeros_f64"] = (fn("zeros"), ((3, 4),), {"dtype": "float64"}, z)
    spec["numpy", "zeros_f64"] = (np.zeros, ((3, 4),), {"dtype": "float64"}, z)
    spec["mxffi", "ones"] = (fn("ones"), ((3, 4),), {}, np.ones((3, 4)))
    spec["numpy", "ones"] = (np.ones, ((3, 4),), {}, np.ones((3, 4)))
    spec["mxffi", "add"] = (fn("add"), (mx(x34), mx(y34)), {}, x34 + y34)
    spec["numpy", "add"] = (np.add, (x34, y34), {}, x34 + y34)
    for key, (a, b) in (("dot3", (x34, x43)), ("dot64", sq[64]), ("dot512", sq[512])):
        spec["mxffi", key] = (fn("tensordot"), (mx(a), mx(b)), {"axes": 1}, a @ b)
        spec["numpy", key] = (np.dot, (a, b), {}, a @ b)
    spec["mxffi", "sum0"] = (fn("sum"), (mx(x34),), {"axis": 0}, x34.sum(axis=0))
    spec["numpy", "sum0"] = (np.sum, (x34,), {"axis": 0}, x34.sum(axis=0))
    inputs = {
        "f": lambda: rng.standard_normal((3, 4)),
        "pos": lambda: rng.uniform(0.5, 3.0, (3, 4)),
        "unit": lambda: rng.uniform(-0.9, 0.9, (3, 4)),
        "ge1": lambda: rng.uniform(1.0, 4.0, (3, 4)),
        "i": lambda: rng.integers(0, 8, (3, 4)),
        "b": lambda: rng.integers(0, 2, (3, 4)).astype(bool),
    }
    for name, arity, kind in ELEMWISE:
        args = tuple(inputs[kind]() for _ in range(arity))
        np_f = getattr(np, NUMPY_NAME.get(name, name))
        kwargs = {"min": -0.5, "max": 0.5} if name == "clip" else {}
        expected = np_f(*args, **kwargs)
        spec["mxffi", f"ew_{name}"] = (fn(name), tuple(mx(a) for a in args), kwargs, expected)
        spec["numpy", f"ew_{name}"] = (np_f, args, kwargs, expected)
    pair = np.concatenate([x34, y34])
    spec["mxffi", "concat"] = (fn("concat"), ([mx(x34), mx(y34)],), {}, pair)
    spec["numpy", "concat"] = (np.concatenate, ([x34, y34],), {}, pair)
    spec["mxffi", "stack"] = (fn("stack"), ([mx(x34), mx(y34)],), {}, np.stack([x34, y34]))
    spec["numpy", "stack"] = (np.stack, ([x34, y34],), {}, np.stack([x34, y34]))
    cs = np.cumulative_sum(x34, axis=1)
    spec["mxffi", "cumsum"] = (fn("cumulative_sum"), (mx(x34),), {"axis": 1}, cs)
    spec["numpy", "cumsum"] = (np.cumulative_sum, (x34,), {"axis": 1}, cs)
    spec["mxffi", "diff"] = (fn("diff"), (mx(x34),), {}, np.diff(x34))
    spec["numpy", "diff"] = (np.diff, (x34,), {}, np.diff(x34))
    c34 = x34 > 0
    want = np.where(c34, x34, y34)
    spec["mxffi", "where"] = (fn("where"), (mx(c34), mx(x34), mx(y34)), {}, want)
    spec["numpy", "where"] = (np.where, (c34, x34, y34), {}, want)
    am, sd = np.asarray(np.argmax(x34)), np.asarray(np.std(x34))  # 0-d arrays, not floats
    spec["mxffi", "argmax"] = (fn("argmax"), (mx(x34),), {}, am)
    spec["numpy", "argmax"] = (np.argmax, (x34,), {}, am)
    spec["mxffi", "std"] = (fn("std"), (mx(x34),), {}, sd)
    spec["numpy", "std"] = (np.std, (x34,), {}, sd)
    idx = np.array([0, 5, 11, 3])
    spec["mxffi", "take"] = (fn("take"), (mx(x34), mx(idx)), {}, np.take(x34, idx))
    spec["numpy", "take"] = (np.take, (x34, idx), {}, np.take(x34, idx))
    spec["mxffi", "sort"] = (fn("sort"), (mx(x34),), {}, np.sort(x34))
    spec["numpy", "sort"] = (np.sort, (x34,), {}, np.sort(x34))
    spec["mxffi", "argsort"] = (fn("argsort"), (mx(x34),), {}, np.argsort(x34))
    spec["numpy", "argsort"] = (np.argsort, (x34,), {}, np.argsort(x34))
    srt, v4 = np.sort(x34.ravel()), y34[0]
    want = np.searchsorted(srt, v4)
    spec["mxffi", "searchsorted"] = (fn("searchsorted"), (mx(srt), mx(v4)), {}, want)
    spec["numpy", "searchsorted"] = (np.searchsorted, (srt, v4), {}, want)
    i34 = rng.integers(0, 5, (3, 4))
    spec["mxffi", "unique_values"] = (fn("unique_values"), (mx(i34),), {}, np.unique(i34))
    # numpy 2.3+ returns unique_values unordered (hashing); the values are the same set.
    spec["numpy", "unique_values"] = (np.unique_values, (i34,), {}, None)

    missing = {}
    try:
        import torch

        t = torch.arange(12, dtype=torch.float64).reshape(3, 4) + 0.5
        import mxffi.testing

        spec["mxffi", "torch"] = (mxffi.testing.tensor_first_f64, (t,), {}, 0.5)
    except ImportError as e:
        t = None
        missing["mxffi", "torch"] = missing["tvm_ffi", "torch"] = f"torch: {e}"
    try:
        import tvm_ffi

        lib = BUILD_DIR / "libmxb_tvm_ffi_np.so"
        if not lib.exists():
            raise ImportError(f"{lib} was not built")
        make_cells.tvm_module = tvm_ffi.load_module(str(lib))  # keep it loaded
        tz = tvm_ffi.get_global_func("mxb_np.zeros")
        spec["tvm_ffi", "zeros"] = (tz, ((3, 4),), {}, z)
        spec["tvm_ffi", "zeros_f64"] = (tz, ((3, 4), "float64"), {}, z)
        if t is not None:
            tf = tvm_ffi.get_global_func("mxb_np.tensor_first_f64")
            spec["tvm_ffi", "torch"] = (tf, (t,), {}, 0.5)
    except ImportError as e:
        for key in ("zeros", "zeros_f64", "torch"):
            missing["tvm_ffi", key] = f"apache-tvm-ffi: {e}"

    cells = {}
    for (fw, key), (f, args, kwargs, expected) in spec.items():
        if isinstance(f, str):
            missing[fw, key] = f
            continue
        got = f(*args, **kwargs)
        if expected is None:
            ok = np.array_equal(np.sort(np.asarray(got)), np.unique(args[0]))
        elif isinstance(expected, float):
            ok = isinstance(got, float) and got == expected
        else:
            arr = np.from_dlpack(got) if fw == "tvm_ffi" else np.asarray(got)
            ok = arr.shape == expected.shape and arr.dtype == expected.dtype
            ok = ok and np.allclose(arr, expected, rtol=1e-10, atol=1e-10)
        if not ok:
            raise SystemExit(f"bench_np_ops: {fw} {key} returned {got!r}; expected {expected!r}")
        cells[fw, key] = (f, args, kwargs)
    return cells, missing


# --- Time. ----------------------------------------------------------------------------------


def measure_times(cells, rounds, target_s, seed):
    """Median ns per call of every cell (and LOOP, the empty loop) over interleaved rounds.

    As bench_call_latency.measure_times, but calibrated from one call up, so that a 512x512
    product is not run thousands of times to warm up.
    """
    prepared = {
        k: (make_loop(len(a), kw.keys()), (f, *a, *kw.values())) for k, (f, a, kw) in cells.items()
    }
    prepared[LOOP] = (make_empty_loop(), ())
    calls = {}
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for key, cell in prepared.items():
            n = 1
            while True:
                t = time_loop(cell, n)
                if t >= target_s / 4 or n >= 1 << 26:
                    break
                n *= 4
            calls[key] = max(1, int(n * target_s / max(t, 1e-9)))
        samples = {key: [] for key in prepared}
        order = list(prepared)
        rng = random.Random(seed)
        for _ in range(rounds):
            rng.shuffle(order)
            for key in order:
                samples[key].append(time_loop(prepared[key], calls[key]) / calls[key] * 1e9)
    finally:
        if gc_was:
            gc.enable()
    return {k: statistics.median(v) for k, v in samples.items()}


# --- Callgrind. -----------------------------------------------------------------------------


def n_calls(key, quick):
    return CELL_CALLS[key][1 if quick else 0]


def select(cells, keys):
    """The cells whose key is in keys (all of them when keys is None)."""
    return cells if keys is None else {c: v for c, v in cells.items() if c[1] in keys}


def callgrind_worker(out_dir, quick, keys):
    """Runs inside valgrind: every cell N and 2N times between zero and dump requests."""
    import ctypes

    cg = ctypes.CDLL(str(BUILD_DIR / "libmxffi_bench_callgrind.so"))
    cg.mxb_cg_dump.argtypes = [ctypes.c_char_p]
    cells = select(make_cells()[0], keys)
    gc.disable()
    for _ in range(2):  # the first ctypes calls set up their call interfaces: not measured
        cg.mxb_cg_zero()
        cg.mxb_cg_dump(b"warmup")
    empty = make_empty_loop()
    for n in (n_calls("zeros", quick), 2 * n_calls("zeros", quick)):
        cg.mxb_cg_zero()
        empty(itertools.repeat(None, n))
        cg.mxb_cg_dump(f"{LOOP[0]}|{LOOP[1]}|{n}".encode())
    for (fw, key), (f, args, kwargs) in cells.items():
        loop, largs = make_loop(len(args), kwargs.keys()), (f, *args, *kwargs.values())
        calls = n_calls(key, quick)
        loop(itertools.repeat(None, min(calls, 1000) if calls >= 100 else 2), *largs)  # warm up
        for n in (calls, 2 * calls):
            it = itertools.repeat(None, n)
            cg.mxb_cg_zero()
            loop(it, *largs)
            cg.mxb_cg_dump(f"{fw}|{key}|{n}".encode())


def count_calls(path, func="MXFFIFuncCall"):
    """How many calls to func a callgrind dump records (cfn= lines, names compressed)."""
    names, total, target = {}, 0, False
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(("fn=", "cfn=")):
                m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
                if m and m.group(2) is not None:
                    names[m.group(1)] = m.group(2)
                name = names.get(m.group(1)) if m else line.split("=", 1)[1].strip()
                target = line.startswith("cfn=") and name == func
            elif line.startswith("calls=") and target:
                total += int(line.split("=", 1)[1].split()[0])
                target = False
    return total


def interpreter():
    """The interpreter binary valgrind runs: sys.executable with its links resolved, except in
    a virtual environment (its python finds its site-packages through its own path)."""
    if sys.prefix != sys.base_prefix:
        return sys.executable
    return os.path.realpath(sys.executable)


def measure_instructions(quick, keys):
    """(instructions per call, MXFFIFuncCall per call, dump files) from one valgrind run."""
    if not (BUILD_DIR / "libmxffi_bench_callgrind.so").exists():
        raise SystemExit("bench_np_ops: no callgrind client library (valgrind headers?)")
    CG_DIR.mkdir(parents=True, exist_ok=True)
    for old in CG_DIR.glob("cg.out*"):
        old.unlink()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", MXFFI_NUM_THREADS="1", PYTHONHASHSEED="0")
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "-q",
        f"--callgrind-out-file={CG_DIR}/cg.out",
        "--dump-instr=no",
        interpreter(),
        str(Path(__file__).resolve()),
        "--_callgrind-worker",
        str(CG_DIR),
    ] + (["--quick"] if quick else [])
    cmd += [] if keys is None else ["--cells", ",".join(keys)]
    log(f"callgrind: {' '.join(cmd[:2] + cmd[5:6])} ... (one valgrind process)")
    res = subprocess.run(cmd, env=env)
    if res.returncode != 0:
        raise SystemExit(f"bench_np_ops: the callgrind worker failed ({res.returncode})")
    totals = {}
    for path in CG_DIR.glob("cg.out.*"):
        label, total = parse_dump(path)
        if label and label.count("|") == 2:
            fw, key, n = label.split("|")
            totals[fw, key, int(n)] = (total, path)
    instr, ffi_calls, files = {}, {}, {}
    for fw, key, n in totals:
        if (fw, key, 2 * n) not in totals:
            continue
        (i1, p1), (i2, p2) = totals[fw, key, n], totals[fw, key, 2 * n]
        instr[fw, key] = (i2 - i1) / n
        files[fw, key] = (p2, 2 * n)
        if fw == "mxffi":
            ffi_calls[fw, key] = (count_calls(p2) - count_calls(p1)) / n
    return instr, ffi_calls, files


# The frames around the measured loop (interpreter start-up, the script, the loop's own frame):
# left out of the profiles, whose rows start at the call the loop makes.
OUTER_FRAME = re.compile(
    r":(?:\(below main\)|0x[0-9a-f]+(?:'\d+)?|main|Py_BytesMain|Py_RunMain|_PyRun_\w+|run_mod"
    r"|__libc_start_main\S*|PyEval_EvalCode|_PyEval_EvalFrameDefault(?:'2)?|PyObject_Call"
    r"|_PyObject_Call|_PyFunction_Vectorcall|_PyEval_Vector)(?: |$)"
)


def annotate(files, keys, top=18):
    """Inclusive instructions per call of the heaviest functions, from callgrind_annotate."""
    for key in keys:
        for fw, _ in FRAMEWORKS:
            if (fw, key) not in files:
                continue
            path, calls = files[fw, key]
            res = subprocess.run(
                ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(path)],
                capture_output=True,
                text=True,
            )
            rows = []
            for line in res.stdout.splitlines():
                m = re.match(r"\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*)$", line)
                if m and "PROGRAM TOTALS" not in line:
                    rows.append((int(m.group(1).replace(",", "")), m.group(2)))
            rows = [r for r in rows if not OUTER_FRAME.search(r[1])]
            print(f"\n### {FW_LABEL[fw]} {CELL_LABEL[key]}: inclusive instructions per call")
            print(f"({path.name}, {calls} calls)\n")
            for cost, f in rows[:top]:
                print(f"{cost / calls:12,.1f}  {_short(f)}")


def _short(fn):
    """A callgrind_annotate function column without the long file paths."""
    fn = re.sub(r"^\S*/", "", fn)
    return fn if len(fn) < 110 else fn[:107] + "..."


# --- Report. --------------------------------------------------------------------------------


def fmt(v, digits=0):
    return DASH if v is None else f"{v:,.{digits}f}"


def cell_value(values, missing, fw, key, digits=0):
    if (fw, key) in missing and "does not exist" in missing[fw, key]:
        return MISSING
    return fmt(values.get((fw, key)), digits)


def ratio(values, a, b, key):
    x, y = values.get((a, key)), values.get((b, key))
    return None if x is None or not y else x / y


def gate_results(instr, missing, keys):
    out = {}
    for key, limit in GATES.items():
        if keys is not None and key not in keys:
            continue
        r = ratio(instr, "mxffi", "numpy", key)
        if r is None:
            out[key] = (limit, None, MISSING.upper())
        else:
            out[key] = (limit, r, "PASS" if r <= limit else "FAIL")
    return out


def table(run):
    instr, times, missing = run["instr"], run["times"], run["missing"]
    ffi_calls, gates = run["ffi_calls"], run["gates"]
    rows = [
        "| cell | mxffi instr | numpy instr | tvm-ffi instr | mxffi / numpy | mxffi / tvm-ffi "
        "| gate | result | mxffi ns | numpy ns | tvm-ffi ns | MXFFIFuncCall / call |",
        "| --- |" + " ---: |" * 6 + " --- |" + " ---: |" * 4,
    ]
    for key in CELL_KEYS:
        cols = [f"`{CELL_LABEL[key]}`"]
        cols += [cell_value(instr, missing, fw, key) for fw, _ in FRAMEWORKS]
        for other in ("numpy", "tvm_ffi"):
            r = ratio(instr, "mxffi", other, key)
            cols.append(DASH if r is None else f"{r:.2f}x")
        if key in gates:
            limit, _, verdict = gates[key]
            cols += [f"<= {limit:.1f}x numpy", verdict]
        else:
            cols += [DASH, DASH]
        cols += [cell_value(times, missing, fw, key) for fw, _ in FRAMEWORKS]
        c = ffi_calls.get(("mxffi", key))
        cols.append(DASH if c is None else f"{c:.2f}")
        rows.append("| " + " | ".join(cols) + " |")
    return "\n".join(rows)


def what_table():
    rows = ["| cell | what each side calls |", "| --- | --- |"]
    rows += [f"| `{c[1]}` | {c[2]} |" for c in CELLS]
    return "\n".join(rows)


def machine():
    import numpy as np

    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas = f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # numpy's config layout is not an API
        blas = "unknown BLAS"
    pkgs = package_versions(("mxffi", "numpy", "apache-tvm-ffi", "torch"))
    return (
        f"{cpu_name()}, {os.cpu_count()} logical CPUs; CPython {platform.python_version()} "
        f"({interpreter()}); {pkgs}; numpy's BLAS: {blas}"
    )


def report(run):
    out = [
        f"Instructions per call: callgrind, (I(2N) - I(N)) / N less an empty loop's "
        f"({fmt(run.get('loop_instr'))}); N = {run['calls_note']}. "
        f"Time: median ns per call over {run['rounds']} randomized interleaved rounds, less "
        f"an empty loop's ({fmt(run.get('loop_ns'), 1)} ns). "
        f"Threads: OPENBLAS_NUM_THREADS={run['threads'][0]} "
        f"MXFFI_NUM_THREADS={run['threads'][1]} (callgrind: 1 and 1).",
        "",
        table(run),
    ]
    return "\n".join(out)


def write_docs(run, large_times, large_gates):
    """Replace (or append) this script's section of docs/benchmarks.md."""
    command = " ".join(["python benchmarks/bench_np_ops.py", *run["argv"]])
    section = [
        "## mxffi.np ops",
        "",
        "Small `mxffi.np` calls next to numpy and apache-tvm-ffi, in one process; the docstring",
        "of `benchmarks/bench_np_ops.py` says what is timed and how. Every mxffi row calls the",
        "public function (`mxffi.np.zeros(...)`, the registered global itself); the last column",
        "counts the `MXFFIFuncCall`s per statement from callgrind's call graph. The tvm-ffi",
        "functions (`benchmarks/latency/tvm_ffi_np.cc`) are global functions registered by a",
        "library loaded with `tvm_ffi.load_module`; its zeros allocates with",
        "`ffi::Tensor::FromNDAlloc` and zeroes the bytes. tensordot rows compare",
        "`mxffi.np.tensordot(a, b, axes=1)` with `numpy.dot(a, b)` on the same 2-D data.",
        f'A "{DASH}" is a call a library does not have; "{MISSING}" an `mxffi.np` function not',
        "written yet.",
        "",
        what_table(),
        "",
        "```",
        command,
        "```",
        "",
        f"Machine: {run['machine']}.",
        "",
        report(run),
        "",
        "Gates: on the instruction counts of the same run (`--check` exits 1 on a failure).",
        "Wall-clock times on a shared machine are noisy; the instruction counts are not.",
        "",
    ]
    if large_times:
        section += large_docs(run, large_times, large_gates)
    write_section(SCRIPT, section)
    log(f"wrote the mxffi.np ops section of {DOCS_MD.relative_to(ROOT)}")


def large_docs(run, times, gates):
    """The large-array part of the docs section."""
    return [
        "### Large arrays",
        "",
        "mxffi.np's vectorized CPU kernels (`src/op/simd`, docs/np.md) next to numpy on arrays",
        "far larger than the caches; the docstring of `benchmarks/np_large.py` says what is timed",
        "and how. Each thread count runs in a child interpreter with `MXFFI_NUM_THREADS` and",
        "`OPENBLAS_NUM_THREADS` set to it (and numpy's OpenBLAS threads told not to spin after a",
        "product); mxffi's and numpy's calls of a cell run back to back in each of",
        f"{run['large_rounds']} randomized rounds. A time is the median; a ratio the median of",
        "the rounds' numpy / mxffi ratios.",
        "",
        f"Instruction set: {run['simd_target']}. Load average at the start: {run['large_load']}.",
        "The machine's two cores are shared with other work, which slows both libraries' calls",
        "of a round alike: compare the ratios of one run rather than milliseconds across runs.",
        "Every cell but matmul moves more bytes than it computes, so once one core keeps the",
        "memory bus busy a second adds little; and a fresh result costs both libraries the page",
        "faults of its memory (the kernel zeroes it), more than the mxffi kernel itself takes:",
        "the `exp into out=` rows show the kernel alone.",
        "",
        np_large.table(times, gates),
        "",
    ]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a smoke run: few rounds, small N")
    p.add_argument("--check", action="store_true", help="exit 1 when a gate fails")
    p.add_argument("--write-docs", action="store_true", help="rewrite docs/benchmarks.md section")
    p.add_argument(
        "--annotate",
        nargs="?",
        const="gated",
        default=None,
        help="profile the gated cells (or the comma-separated cells given: "
        + ",".join(CELL_KEYS)
        + ")",
    )
    p.add_argument(
        "--cells",
        default=None,
        help="measure only these comma-separated cells (no --write-docs): " + ",".join(CELL_KEYS),
    )
    p.add_argument("--no-callgrind", action="store_true", help="timing only (no gates)")
    p.add_argument("--no-timing", action="store_true", help="callgrind only")
    p.add_argument("--no-build", action="store_true", help="use build-bench/latency as it is")
    p.add_argument("--no-large", action="store_true", help="leave the large-array cells out")
    p.add_argument(
        "--large-threads", default="1,2", help="thread counts of the large-array cells (1,2)"
    )
    p.add_argument("--rounds", type=int, default=None, help="timing rounds (default 51; quick 5)")
    p.add_argument("--seed", type=int, default=12345, help="seed of the round order")
    p.add_argument("--_callgrind-worker", dest="worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--_large-worker", dest="large_worker", type=int, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    keys = None
    large_keys = [] if args.no_large else list(np_large.CELL_KEYS)
    if args.cells is not None:
        named = args.cells.split(",")
        unknown = [k for k in named if k not in CELL_KEYS + np_large.CELL_KEYS]
        if unknown:
            p.error(f"--cells: unknown cell(s) {unknown}; known: {CELL_KEYS + np_large.CELL_KEYS}")
        if args.write_docs:
            p.error("--cells measures part of the table; --write-docs needs all of it")
        keys = [k for k in named if k in CELL_KEYS]
        large_keys = [k for k in named if k in np_large.CELL_KEYS and not args.no_large]
    if args.large_worker:
        np_large.worker(args.large_worker, args.rounds or 5, args.quick, args.seed, large_keys)
        return 0
    if args.worker:
        callgrind_worker(args.worker, args.quick, keys)
        return 0

    t_start = time.time()
    small = keys is None or bool(keys)
    if not args.no_build and small:
        log(f"building {BUILD_DIR.relative_to(ROOT)}")
        build()
    cells, missing = make_cells()
    cells = select(cells, keys)
    for (fw, key), why in sorted(missing.items()):
        log(f"{FW_LABEL[fw]} {CELL_LABEL[key]}: {why}")
    rounds = args.rounds or (5 if args.quick else 51)
    target_s = 0.002 if args.quick else 0.01
    run = {
        "argv": sys.argv[1:] if argv is None else list(argv),
        "missing": missing,
        "rounds": rounds,
        "threads": (os.environ["OPENBLAS_NUM_THREADS"], os.environ["MXFFI_NUM_THREADS"]),
        "calls_note": f"{n_calls('zeros', args.quick)} ({n_calls('dot64', args.quick)} for "
        f"64x64, {n_calls('dot512', args.quick)} for 512x512)",
        "machine": machine(),
    }
    times, instr, ffi_calls, files = {}, {}, {}, {}
    if not args.no_timing and small:
        log(f"timing {len(cells)} cells: {rounds} rounds of ~{target_s * 1e3:g} ms samples")
        raw = measure_times(cells, rounds, target_s, args.seed)
        times, run["loop_ns"] = net(raw), raw[LOOP]
    if small and not args.no_callgrind and not shutil.which("valgrind"):
        log("valgrind not found (apt-get install valgrind): no instruction counts, no gates")
    elif small and not args.no_callgrind:
        raw, ffi_calls, files = measure_instructions(args.quick, keys)
        instr, run["loop_instr"] = net(raw), raw[LOOP]
    run.update(times=times, instr=instr, ffi_calls=ffi_calls)
    run["gates"] = gate_results(instr, missing, keys) if instr else {}
    large_times, large_gates = {}, {}
    if large_keys and not args.no_timing:
        run["large_load"] = np_large.load_average()
        log(f"load average {run['large_load']} (2 busy cores make the large-array figures noisy)")
        run["large_rounds"] = args.rounds or (5 if args.quick else 31)
        threads = [int(t) for t in args.large_threads.split(",")]
        large_times, run["simd_target"] = np_large.measure(
            str(Path(__file__).resolve()),
            threads,
            run["large_rounds"],
            args.quick,
            args.seed,
            large_keys,
            log,
        )
        large_gates = np_large.gate_results(large_times)
        run["large"] = {t: {"|".join(k): v for k, v in d.items()} for t, d in large_times.items()}
        run["large_gates"] = {f"{k}|{t}": v for (k, t), v in large_gates.items()}

    if small:
        print(report(run))
        print()
    for key, (limit, r, verdict) in run["gates"].items():
        shown = "n/a" if r is None else f"{r:.2f}x"
        print(f"{verdict}: {CELL_LABEL[key]}: mxffi / numpy = {shown} (gate <= {limit:.1f}x)")
    if large_times:
        print(f"\nLarge arrays (instruction set {run['simd_target']}):\n")
        print(np_large.table(large_times, large_gates))
        print()
        for (key, threads), (limit, r, verdict) in large_gates.items():
            print(
                f"{verdict}: {np_large.CELL_LABEL[key]}, {threads} thread(s): numpy / mxffi = "
                f"{r:.2f}x (gate >= {limit:.2f}x)"
            )
    failed = [k for k, g in run["gates"].items() if g[2] == "FAIL"]
    if files and (args.annotate or failed):
        if args.annotate in (None, "gated"):
            profiled = failed if args.annotate is None else list(GATES)
        else:
            profiled = [k for k in args.annotate.split(",") if k in CELL_KEYS]
        annotate(files, [k for k in profiled if keys is None or k in keys])

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                k: (
                    {"|".join(c): v for c, v in d.items()}
                    if k in ("times", "instr", "ffi_calls", "missing")
                    else d
                )
                for k, d in run.items()
            },
            indent=1,
        )
    )
    if args.write_docs:
        write_docs(run, large_times, large_gates)
    log(f"done in {time.time() - t_start:.0f} s; results in {RESULTS.relative_to(ROOT)}")
    if args.check and not run["gates"] and not large_gates:
        log("--check: no instruction counts and no large-array timings, so no gate was checked")
        return 1
    verdicts = [g[2] for g in run["gates"].values()] + [g[2] for g in large_gates.values()]
    return 1 if args.check and any(v != "PASS" for v in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
