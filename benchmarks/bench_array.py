"""What the array object (mxffi.NDArray) costs next to numpy.ndarray, in one run.

What is timed. One Python statement per cell, on a (3, 4) float64 array ``a`` unless said,
mxffi arrays on the mxffi side and numpy arrays holding the same values on the numpy side:

    attributes      a.shape, a.strides, a.dtype, a.device, a.ndim, a.size, a.itemsize, a.nbytes
    expressions     a.T, a.reshape(4, 3), a.astype("float32"), a[1], a[1:3], a[..., None],
                    a[mask] (a bool (3, 4) mask), a[idx] (an int64 index array of 2 rows),
                    a[idx] = v (v a float64 (2, 4) array), a[0] = 1.0, a < b, a == b, a // 2,
                    a % 2, a & b and ~a (int64 (3, 4) arrays), +a, a += 1, float(a0d),
                    int(a0d), operator.index(i0d) (a0d a 0-d float64 array, i0d a 0-d int64 one)
    large           a fresh add(x, y) of 10^7 float32 elements (mxffi.np.add, numpy.add), and a
                    fresh exp(x) of the same, with MXFFI_NUM_THREADS=1 and 2

Every cell is executed once on both sides before anything is measured and its result compared
with numpy's (value, shape and dtype; for a statement, the array it changed); a cell whose
mxffi statement raises is "missing" (the error text is printed and written to the docs) and
one whose result differs is "wrong": its mxffi side is not measured (numpy's is), and its gate
fails.

How. Each cell is a compiled loop of its own, ``def loop(_it, a, b): for _ in _it: a < b``,
with its values in locals (bench_call_latency.py's make_loop does the same for calls; here the
body is the statement itself, so an attribute read is not wrapped in a call), run with the
garbage collector off. Time: each cell is calibrated to about 10 ms per sample (2 ms with
--quick), then 51 rounds (5), each every cell once in a fresh random order; a figure is the
median ns per statement less an empty loop's. Instructions: one ``valgrind --tool=callgrind``
process runs every cell N and 2N times between CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT
(build-bench/latency's callgrind client, as bench_np_ops.py); (I(2N) - I(N)) / N less the empty
loop's is the cost of one statement. N = 10000 (500 with --quick). The callgrind column
"MXFFIFuncCall / stmt" counts the C calls an mxffi statement makes (0 for an attribute).

Large arrays: each thread count runs in a child interpreter with MXFFI_NUM_THREADS and
OPENBLAS_NUM_THREADS set to it (np_large.measure starts it); the child checks the results, warms
every cell up, calibrates it to at least 20 ms per sample (2 with --quick), then runs 31 rounds
(5), each every cell with mxffi's and numpy's batches back to back in random order. A time is
the median ms per call; a speed ratio the median over the rounds of numpy's time over mxffi's;
page faults are ``getrusage(RUSAGE_SELF).ru_minflt`` read before and after each batch, per
call, the median over the rounds. --quick uses 10^6 elements.

Gates (``--check`` exits 1 when one fails, is missing or wrong, or when nothing was gated):

    each attribute                                 <= 1.0x numpy's instructions
    each expression                                <= 1.5x numpy's instructions
    fresh add, 10^7 float32, MXFFI_NUM_THREADS=1   numpy's time / mxffi's >= 1.0, and no more
                                                   minor page faults per call than numpy's
    (the 2-thread figures and exp are reported, not gated)

Usage:
    python benchmarks/bench_array.py [--quick] [--check] [--write-docs] [--cells=KEY,...]
        [--no-callgrind] [--no-timing] [--no-build] [--no-large] [--large-threads=1,2]
        [--rounds=R] [--json=PATH]

It builds benchmarks/latency into build-bench/latency (for the callgrind client) as
bench_call_latency.py does, prints the tables, writes build-bench/latency/array_results.json
(or --json), keeps the callgrind dumps in build-bench/latency/array_callgrind/ (the paths of
a failed gate's dumps are printed, for callgrind_annotate), and with --write-docs replaces the
section between the "bench_array.py" markers of docs/benchmarks.md.
"""

import os

# Before numpy or mxffi load: both size their thread pools once, at load time.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MXFFI_NUM_THREADS", "1")

import argparse  # noqa: E402
import gc  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import operator  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import np_large  # noqa: E402 - benchmarks/ is not a package
from bench_call_latency import (  # noqa: E402
    BUILD_DIR,
    DASH,
    DOCS_MD,
    LOOP,
    ROOT,
    build,
    cpu_name,
    log,
    make_empty_loop,
    net,
    package_versions,
    parse_dump,
    time_loop,
    write_section,
)
from bench_np_ops import count_calls, interpreter  # noqa: E402

CG_DIR = BUILD_DIR / "array_callgrind"
RESULTS = BUILD_DIR / "array_results.json"
SCRIPT = "benchmarks/bench_array.py"  # names this script's section of docs/benchmarks.md
MISSING, WRONG = "missing", "wrong"
FRAMEWORKS = ("mxffi", "numpy")
ATTR_GATE, EXPR_GATE = 1.0, 1.5

# (key, statement, the locals it uses, value kind, what to compare after one execution: None
# for the statement's own value, else an expression read after it ran)
ATTRIBUTES = [
    (name, f"a.{name}", ("a",), "f64", None)
    for name in ("shape", "strides", "dtype", "device", "ndim", "size", "itemsize", "nbytes")
]
EXPRESSIONS = [
    ("T", "a.T", ("a",), "f64", None),
    ("reshape", "a.reshape(4, 3)", ("a",), "f64", None),
    ("astype", 'a.astype("float32")', ("a",), "f64", None),
    ("getitem_int", "a[1]", ("a",), "f64", None),
    ("getitem_slice", "a[1:3]", ("a",), "f64", None),
    ("getitem_newaxis", "a[..., None]", ("a",), "f64", None),
    ("getitem_mask", "a[mask]", ("a", "mask"), "f64", None),
    ("getitem_idx", "a[idx]", ("a", "idx"), "f64", None),
    ("setitem_idx", "a[idx] = v", ("a", "idx", "v"), "f64", "a"),
    ("setitem_int", "a[0] = 1.0", ("a",), "f64", "a"),
    ("less", "a < b", ("a", "b"), "f64", None),
    ("equal", "a == b", ("a", "b"), "f64", None),
    ("floor_divide", "a // 2", ("a",), "f64", None),
    ("remainder", "a % 2", ("a",), "f64", None),
    ("bitwise_and", "a & b", ("a", "b"), "i64", None),
    ("invert", "~a", ("a",), "i64", None),
    ("positive", "+a", ("a",), "f64", None),
    ("iadd", "a += 1", ("a",), "f64", "a"),
    ("float", "float(a0d)", ("a0d",), "f64", None),
    ("int", "int(a0d)", ("a0d",), "f64", None),
    ("index", "index(i0d)", ("index", "i0d"), "f64", None),
]
CELLS = ATTRIBUTES + EXPRESSIONS
CELL_KEYS = [c[0] for c in CELLS]
STMT = {c[0]: c[1] for c in CELLS}
LABEL = dict(STMT, index="operator.index(i0d)")
GATES = {c[0]: ATTR_GATE for c in ATTRIBUTES} | {c[0]: EXPR_GATE for c in EXPRESSIONS}
KIND_NOTE = {
    "bitwise_and": "int64 a, b",
    "invert": "int64 a",
    "index": "operator.index a local of the loop",
}
CALLS = (10000, 500)  # callgrind N: full, --quick

# The large cells: (key, label); gated: add_f32 with one thread (speed and page faults).
LARGE = [("add_f32", "add(x, y), fresh result"), ("exp_f32", "exp(x), fresh result")]
LARGE_KEYS = [c[0] for c in LARGE]
LARGE_LABEL = dict(LARGE)
LARGE_GATED = ("add_f32", 1)


# --- Cells. ---------------------------------------------------------------------------------


def values(fw, kind):
    """The locals of a cell on one side: fresh arrays each time (some cells change theirs)."""
    import numpy as np

    rng = np.random.default_rng(0)
    if kind == "i64":
        a, b = rng.integers(-50, 50, (3, 4)), rng.integers(-50, 50, (3, 4))
    else:
        a, b = rng.standard_normal((3, 4)) * 4, rng.standard_normal((3, 4)) * 4
        b[1, 2] = a[1, 2]  # a == b is not all False
    ns = {
        "a": a,
        "b": b,
        "mask": a > 0,
        "idx": np.array([2, 0], dtype=np.int64),
        "v": rng.standard_normal((2, 4)),
        "a0d": np.array(2.75),
        "i0d": np.array(3, dtype=np.int64),
    }
    if fw == "mxffi":
        import mxffi.np as mnp

        ns = {k: mnp.array(x) for k, x in ns.items()}
    ns["index"] = operator.index
    return ns


def make_stmt_loop(params, stmt):
    """A freshly compiled ``for _ in _it: <stmt>`` loop taking params as locals."""
    src = f"def loop(_it, {', '.join(params)}):\n    for _ in _it:\n        {stmt}\n"
    ns = {}
    exec(src, ns)  # noqa: S102 - generated from the fixed statements above, as timeit does
    return ns["loop"]


def run_once(stmt, after, ns):
    """The value a cell's statement gives (or, for an assignment, the array it changed)."""
    if after is None:
        return eval(stmt, {}, ns)  # noqa: S307 - the fixed statements above
    before = ns["a"]
    exec(stmt, {}, ns)  # noqa: S102
    if ns["a"] is not before:
        raise AssertionError(f"`{stmt}` rebound a to another object (no in-place update)")
    return ns[after]


def same(got, want):
    """Whether mxffi's result of a cell equals numpy's (why not, as a string, if not)."""
    import numpy as np

    if isinstance(want, np.ndarray):
        if type(got).__name__ != "NDArray":
            return f"returned {type(got).__name__}, numpy an ndarray"
        arr = np.asarray(got)
        if arr.shape != want.shape or arr.dtype != want.dtype:
            return f"returned {arr.dtype}{list(arr.shape)}, numpy {want.dtype}{list(want.shape)}"
        return None if np.array_equal(arr, want) else f"returned {arr.tolist()}, numpy {want}"
    if isinstance(want, np.dtype):
        return None if str(got) == str(want) else f"returned {got!r}, numpy {want!r}"
    if isinstance(want, str):  # numpy's device is "cpu"; mxffi's a Device printing as cpu:0
        return None if str(got).split(":")[0] == want else f"returned {got!r}, numpy {want!r}"
    if type(got) is not type(want) or got != want:
        return f"returned {type(got).__name__} {got!r}, numpy {type(want).__name__} {want!r}"
    return None


def make_cells(keys):
    """{(framework, key): (loop, its arguments)}; missing maps a key to why it is not timed:
    (MISSING, the exception mxffi raised) or (WRONG, how its result differs)."""
    cells, missing = {}, {}
    for key, stmt, params, kind, after in CELLS:
        if key not in keys:
            continue
        want = run_once(stmt, after, values("numpy", kind))
        try:
            got = run_once(stmt, after, values("mxffi", kind))
            why = same(got, want)
            if why is not None:
                missing[key] = (WRONG, why)
        except Exception as e:  # an operator or index kind the array type cannot do yet
            missing[key] = (MISSING, f"{type(e).__name__}: {e}")
        loop = make_stmt_loop(params, stmt)
        for fw in FRAMEWORKS:  # numpy's figures are shown for a missing cell too
            if fw == "numpy" or key not in missing:
                ns = values(fw, kind)
                cells[fw, key] = (loop, tuple(ns[p] for p in params))
    return cells, missing


# --- Time. ----------------------------------------------------------------------------------


def measure_times(cells, rounds, target_s, seed):
    """Median ns per statement of every cell (and LOOP) over randomized interleaved rounds."""
    prepared = dict(cells)
    prepared[LOOP] = (make_empty_loop(), ())
    calls = {}
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for key, cell in prepared.items():
            time_loop(cell, 1000)  # warm up (and let the interpreter specialise)
            n = 1000
            while True:
                t = time_loop(cell, n)
                if t >= target_s / 4 or n >= 1 << 26:
                    break
                n *= 4
            calls[key] = max(100, int(n * target_s / max(t, 1e-9)))
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


def callgrind_worker(quick, keys):
    """Runs inside valgrind: every cell N and 2N times between zero and dump requests."""
    import ctypes

    cg = ctypes.CDLL(str(BUILD_DIR / "libmxffi_bench_callgrind.so"))
    cg.mxb_cg_dump.argtypes = [ctypes.c_char_p]
    cells, _ = make_cells(keys)
    calls = CALLS[1 if quick else 0]
    gc.disable()
    for _ in range(2):  # the first ctypes calls set up their call interfaces: not measured
        cg.mxb_cg_zero()
        cg.mxb_cg_dump(b"warmup")
    empty = make_empty_loop()
    for n in (calls, 2 * calls):
        cg.mxb_cg_zero()
        empty(itertools.repeat(None, n))
        cg.mxb_cg_dump(f"{LOOP[0]}|{LOOP[1]}|{n}".encode())
    for (fw, key), (loop, largs) in cells.items():
        loop(itertools.repeat(None, min(calls, 1000)), *largs)  # warm up
        for n in (calls, 2 * calls):
            it = itertools.repeat(None, n)
            cg.mxb_cg_zero()
            loop(it, *largs)
            cg.mxb_cg_dump(f"{fw}|{key}|{n}".encode())


def measure_instructions(quick, keys):
    """(instructions per statement, MXFFIFuncCall per statement, 2N dump files)."""
    if not (BUILD_DIR / "libmxffi_bench_callgrind.so").exists():
        raise SystemExit("bench_array: no callgrind client library (valgrind headers?)")
    CG_DIR.mkdir(parents=True, exist_ok=True)
    for old in CG_DIR.glob("cg.out*"):
        old.unlink()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", MXFFI_NUM_THREADS="1", PYTHONHASHSEED="0")
    cmd = ["valgrind", "--tool=callgrind", "-q", f"--callgrind-out-file={CG_DIR}/cg.out"]
    cmd += ["--dump-instr=no", interpreter(), str(Path(__file__).resolve()), "--_callgrind-worker"]
    cmd += ["--cells=" + ",".join(keys)] + (["--quick"] if quick else [])
    log(f"callgrind: {len(keys)} cells, N = {CALLS[1 if quick else 0]} (one valgrind process)")
    res = subprocess.run(cmd, env=env)
    if res.returncode != 0:
        raise SystemExit(f"bench_array: the callgrind worker failed ({res.returncode})")
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
        if fw != LOOP[0]:
            files[fw, key] = p2
        if fw == "mxffi":
            ffi_calls[fw, key] = (count_calls(p2) - count_calls(p1)) / n
    return instr, ffi_calls, files


# --- Large arrays (in a child interpreter per thread count). -------------------------------


def large_cells(n):
    """{(framework, key): callable}, each mxffi result checked once against numpy's."""
    import numpy as np

    import mxffi.np as mnp

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    mx, my = mnp.array(x), mnp.array(y)
    cells = {
        ("mxffi", "add_f32"): lambda: mnp.add(mx, my),
        ("numpy", "add_f32"): lambda: np.add(x, y),
        ("mxffi", "exp_f32"): lambda: mnp.exp(mx),
        ("numpy", "exp_f32"): lambda: np.exp(x),
    }
    for key in LARGE_KEYS:
        got, want = np.asarray(cells["mxffi", key]()), cells["numpy", key]()
        if got.shape != want.shape or got.dtype != want.dtype:
            raise SystemExit(f"bench_array: {key}: {got.dtype}{got.shape}, numpy {want.dtype}")
        if not np.allclose(got, want, rtol=1e-5, atol=1e-6):
            raise SystemExit(f"bench_array: {key}: mxffi's result differs from numpy's")
    return cells


def large_worker(rounds, quick, seed):
    """Runs in the child: prints {"key|fw": ms, "key|fw_minflt": faults per call, "key|ratio":
    numpy / mxffi, "simd_target", "num_threads"} as JSON, for np_large.measure."""
    import mxffi

    cells = large_cells(10**6 if quick else 10**7)
    target_s = 0.002 if quick else 0.02
    calls = {}
    for k, f in cells.items():  # warm up (the allocators' caches too), then calibrate
        f()
        f()
        t0 = time.perf_counter()
        f()
        calls[k] = max(1, round(target_s / max(time.perf_counter() - t0, 1e-9)))
    ms = {k: [] for k in cells}
    faults = {k: [] for k in cells}
    rng = random.Random(seed)
    order = list(LARGE_KEYS)
    for _ in range(rounds):
        rng.shuffle(order)
        for key in order:
            pair = [("mxffi", key), ("numpy", key)]
            rng.shuffle(pair)
            for k in pair:
                f, n = cells[k], calls[k]
                f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                t0 = time.perf_counter()
                for _ in range(n):
                    f()
                t1 = time.perf_counter()
                f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                ms[k].append((t1 - t0) / n * 1e3)
                faults[k].append((f1 - f0) / n)
    out = {}
    for (fw, key), v in ms.items():
        out[f"{key}|{fw}"] = statistics.median(v)
        out[f"{key}|{fw}_minflt"] = statistics.median(faults[fw, key])
    for key in LARGE_KEYS:
        pairs = zip(ms["numpy", key], ms["mxffi", key], strict=True)
        out[f"{key}|ratio"] = statistics.median([a / b for a, b in pairs])
    out["simd_target"] = mxffi.get_global_func("runtime.simd_target")()
    out["num_threads"] = mxffi.get_global_func("runtime.num_threads")()
    print(json.dumps(out))


def large_gates(times):
    """{name: (bound, value, verdict)}: 1-thread speed and page faults of the fresh add."""
    key, threads = LARGE_GATED
    t = times.get(threads, {})
    if ("mxffi", key) not in t:
        return {}
    r = t["ratio", key]
    mf, nf = t["mxffi_minflt", key], t["numpy_minflt", key]
    return {
        "speed": (1.0, r, "PASS" if r >= 1.0 else "FAIL"),
        "faults": (nf, mf, "PASS" if mf <= nf else "FAIL"),
    }


def large_table(times, gates):
    rows = [
        "| cell | threads | mxffi ms | numpy ms | numpy / mxffi | mxffi faults / call "
        "| numpy faults / call | gate | result |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for threads in sorted(times):
        t = times[threads]
        for key in LARGE_KEYS:
            if ("mxffi", key) not in t:
                continue
            gate, verdict = DASH, DASH
            if (key, threads) == LARGE_GATED and gates:
                gate = "numpy / mxffi >= 1.00x; faults <= numpy's"
                verdict = "PASS" if all(g[2] == "PASS" for g in gates.values()) else "FAIL"
            rows.append(
                f"| {LARGE_LABEL[key]} | {threads} | {t['mxffi', key]:.2f} | "
                f"{t['numpy', key]:.2f} | {t['ratio', key]:.2f}x | "
                f"{t['mxffi_minflt', key]:,.1f} | {t['numpy_minflt', key]:,.1f} | {gate} | "
                f"{verdict} |"
            )
    return "\n".join(rows)


# --- Report. --------------------------------------------------------------------------------


def machine():
    pkgs = package_versions(("mxffi", "numpy"))
    return (
        f"{cpu_name()}, {os.cpu_count()} logical CPUs; CPython {platform.python_version()} "
        f"({interpreter()}); {pkgs}"
    )


def fmt(v, digits=0):
    return DASH if v is None else f"{v:,.{digits}f}"


def gate_results(instr, missing, keys):
    """{key: (bound, mxffi / numpy instructions, verdict)} for the small cells measured."""
    out = {}
    for key in keys:
        limit = GATES[key]
        if key in missing:
            out[key] = (limit, None, missing[key][0].upper())
            continue
        m, n = instr.get(("mxffi", key)), instr.get(("numpy", key))
        if m is None or not n:  # not measured (--no-callgrind)
            continue
        r = m / n
        out[key] = (limit, r, "PASS" if r <= limit else "FAIL")
    return out


def table(run, keys):
    instr, times, missing, gates = run["instr"], run["times"], run["missing"], run["gates"]
    rows = [
        "| statement | mxffi instr | numpy instr | mxffi / numpy | gate | result | mxffi ns "
        "| numpy ns | MXFFIFuncCall / stmt |",
        "| --- |" + " ---: |" * 3 + " --- | --- |" + " ---: |" * 3,
    ]
    for key in keys:
        label = f"`{LABEL[key]}`" + (f" ({KIND_NOTE[key]})" if key in KIND_NOTE else "")
        if key in missing:
            what = missing[key][0]
            cols = [what, fmt(instr.get(("numpy", key))), DASH, f"<= {GATES[key]:.1f}x"]
            cols += [what.upper(), what, fmt(times.get(("numpy", key))), DASH]
        else:
            m, n = instr.get(("mxffi", key)), instr.get(("numpy", key))
            g = gates.get(key)
            cols = [fmt(m), fmt(n), DASH if g is None else f"{g[1]:.2f}x"]
            cols += [f"<= {GATES[key]:.1f}x", DASH if g is None else g[2]]
            cols += [fmt(times.get(("mxffi", key))), fmt(times.get(("numpy", key)))]
            c = run["ffi_calls"].get(("mxffi", key))
            cols.append(DASH if c is None else f"{c:.2f}")
        rows.append("| " + " | ".join([label, *cols]) + " |")
    return "\n".join(rows)


def missing_lines(missing):
    return [f"- `{LABEL[k]}`: {what}: {why}" for k, (what, why) in missing.items()]


def report(run, keys):
    out = [
        f"Instructions per statement: callgrind, (I(2N) - I(N)) / N less an empty loop's "
        f"({fmt(run.get('loop_instr'))}), N = {run['calls']}. Time: median ns per statement "
        f"over {run['rounds']} randomized interleaved rounds, less an empty loop's "
        f"({fmt(run.get('loop_ns'), 1)} ns).",
        "",
        table(run, keys),
    ]
    counts = [v[2] for v in run["gates"].values()]
    if counts:
        summary = ", ".join(f"{counts.count(v)} {v}" for v in dict.fromkeys(sorted(counts)))
        out += ["", f"Gates of these statements: {summary} (of {len(keys)})."]
    if run["missing"]:
        out += ["", "Not measured on mxffi (missing: it raised; wrong: its result differs):"]
        out += [""] + missing_lines(run["missing"])
    return "\n".join(out)


def write_docs(run, keys):
    """Replace (or append) this script's section of docs/benchmarks.md."""
    command = " ".join(["python benchmarks/bench_array.py", *run["argv"]])
    section = [
        "## The array object",
        "",
        "`mxffi.NDArray` next to `numpy.ndarray`: attribute reads, indexing, operators and",
        "conversions on a (3, 4) float64 array (int64 for `&` and `~`, 0-d arrays for",
        "`float`, `int` and `operator.index`), the same values on both sides; the docstring",
        "of `benchmarks/bench_array.py` says what is timed and how. Each statement is the",
        "body of a compiled loop of its own, so an attribute read is not wrapped in a call.",
        '"missing" is a statement mxffi cannot run yet (the error is listed under the table);',
        "its gate fails.",
        "",
        "```",
        command,
        "```",
        "",
        f"Machine: {run['machine']}.",
        "",
        report(run, keys),
        "",
        f"Gates: attributes <= {ATTR_GATE:.1f}x numpy's instructions, every other statement",
        f"<= {EXPR_GATE:.1f}x, on the instruction counts of the same run (`--check` exits 1 on",
        "a failure). Wall-clock times on a shared machine are noisy; the instruction counts",
        "are not.",
        "",
    ]
    if run.get("large"):
        section += [
            "### Large fresh results",
            "",
            f"A fresh result of {run['large_n']} float32 elements each call: the allocation,",
            "its page faults (the kernel zeroes each new page) and the kernel. Each thread count",
            "runs in a child interpreter with `MXFFI_NUM_THREADS` set; mxffi's and numpy's",
            f"batches run back to back in each of {run['large_rounds']} randomized rounds. A time",
            "is the median; the ratio the median of the rounds' numpy / mxffi ratios; faults",
            "per call are `getrusage` minor faults around each batch, the median. Gated: the",
            "1-thread add (at least numpy's speed, no more faults than numpy's); the rest is",
            f"reported. Instruction set: {run['simd_target']}. Load average at the start:",
            f"{run['large_load']}.",
            "",
            large_table(run["large_times"], run["large_gates"]),
            "",
        ]
    write_section(SCRIPT, section)
    log(f"wrote the array object section of {DOCS_MD.relative_to(ROOT)}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a smoke run: few rounds, small N")
    p.add_argument("--check", action="store_true", help="exit 1 when a gate fails")
    p.add_argument("--write-docs", action="store_true", help="rewrite docs/benchmarks.md section")
    p.add_argument(
        "--cells", default=None, help="only these comma-separated cells: " + ",".join(CELL_KEYS)
    )
    p.add_argument(
        "--no-callgrind",
        action="store_true",
        help="timing only: of the small gates, only missing cells fail",
    )
    p.add_argument("--no-timing", action="store_true", help="callgrind only (no large cells)")
    p.add_argument("--no-build", action="store_true", help="use build-bench/latency as it is")
    p.add_argument("--no-large", action="store_true", help="leave the large-array cells out")
    p.add_argument("--large-threads", default="1,2", help="thread counts of the large cells")
    p.add_argument("--rounds", type=int, default=None, help="timing rounds (51, 31; quick 5)")
    p.add_argument("--seed", type=int, default=12345, help="seed of the round order")
    p.add_argument("--json", type=Path, default=RESULTS, help="where to write the results")
    p.add_argument(
        "--_callgrind-worker", dest="worker", action="store_true", help=argparse.SUPPRESS
    )
    p.add_argument("--_large-worker", dest="large_worker", type=int, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.large_worker:  # np_large.measure passes --cells (of its own): not used here
        large_worker(args.rounds or 5, args.quick, args.seed)
        return 0
    keys = CELL_KEYS
    if args.cells is not None:
        keys = args.cells.split(",")
        unknown = [k for k in keys if k not in CELL_KEYS]
        if unknown:
            p.error(f"--cells: unknown cell(s) {unknown}; known: {CELL_KEYS}")
        if args.write_docs:
            p.error("--cells measures part of the table; --write-docs needs all of it")
    if args.worker:
        callgrind_worker(args.quick, keys)
        return 0

    t_start = time.time()
    use_cg = not args.no_callgrind and shutil.which("valgrind") is not None
    if not args.no_callgrind and not use_cg:
        log("valgrind not found (apt-get install valgrind): no instruction counts, no gates")
    if use_cg and not args.no_build:
        log(f"building {BUILD_DIR.relative_to(ROOT)}")
        build()
    cells, missing = make_cells(keys)
    for key, (what, why) in missing.items():
        log(f"{LABEL[key]}: {what}: {why}")
    rounds = args.rounds or (5 if args.quick else 51)
    target_s = 0.002 if args.quick else 0.01
    run = {
        "argv": sys.argv[1:] if argv is None else list(argv),
        "missing": missing,
        "rounds": rounds,
        "calls": CALLS[1 if args.quick else 0],
        "machine": machine(),
        "times": {},
        "instr": {},
        "ffi_calls": {},
    }
    files = {}
    if not args.no_timing:
        log(f"timing {len(cells)} cells: {rounds} rounds of ~{target_s * 1e3:g} ms samples")
        raw = measure_times(cells, rounds, target_s, args.seed)
        run["times"], run["loop_ns"] = net(raw), raw[LOOP]
    if use_cg:
        raw, run["ffi_calls"], files = measure_instructions(args.quick, keys)
        run["instr"], run["loop_instr"] = net(raw), raw[LOOP]
    # A missing or wrong cell fails its gate whether or not anything was measured.
    run["gates"] = gate_results(run["instr"], missing, keys)
    if not args.no_large and not args.no_timing and args.cells is None:
        run["large_load"] = np_large.load_average()
        run["large_rounds"] = args.rounds or (5 if args.quick else 31)
        run["large_n"] = "10^6" if args.quick else "10^7"
        threads = [int(t) for t in args.large_threads.split(",")]
        run["large_times"], run["simd_target"] = np_large.measure(
            str(Path(__file__).resolve()),
            threads,
            run["large_rounds"],
            args.quick,
            args.seed,
            LARGE_KEYS,
            log,
        )
        run["large_gates"] = large_gates(run["large_times"])
        run["large"] = True

    print(report(run, keys))
    if run.get("large"):
        print(f"\nLarge fresh results, {run['large_n']} float32 ({run['simd_target']}):\n")
        print(large_table(run["large_times"], run["large_gates"]))
    print()
    verdicts = []
    for key, (limit, r, verdict) in run["gates"].items():
        shown = "n/a" if r is None else f"{r:.2f}x"
        print(f"{verdict}: {LABEL[key]}: mxffi / numpy = {shown} (gate <= {limit:.1f}x)")
        verdicts.append(verdict)
        if verdict == "FAIL":
            for fw in FRAMEWORKS:
                print(f"    {fw} dump (2N): {files.get((fw, key))}")
    for name, (bound, value, verdict) in run.get("large_gates", {}).items():
        if name == "speed":
            print(f"{verdict}: fresh add, 1 thread: numpy / mxffi = {value:.2f}x (gate >= 1.0x)")
        else:
            print(
                f"{verdict}: fresh add, 1 thread: {value:.1f} minor faults per call "
                f"(numpy {bound:.1f}; gate <= numpy's)"
            )
        verdicts.append(verdict)

    args.json.parent.mkdir(parents=True, exist_ok=True)
    js = {k: v for k, v in run.items() if k not in ("times", "instr", "ffi_calls", "large_times")}
    for k in ("times", "instr", "ffi_calls"):
        js[k] = {"|".join(c): v for c, v in run[k].items()}
    if run.get("large"):
        js["large_times"] = {
            t: {"|".join(c): v for c, v in d.items()} for t, d in run["large_times"].items()
        }
    args.json.write_text(json.dumps(js, indent=1))
    if args.write_docs:
        write_docs(run, keys)
    log(f"done in {time.time() - t_start:.0f} s; results in {args.json}")
    if args.check and not verdicts:
        log("--check: no instruction counts and no large-array timings, so no gate was checked")
        return 1
    return 1 if args.check and any(v != "PASS" for v in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
