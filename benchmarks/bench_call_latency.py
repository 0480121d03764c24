"""What one call from Python costs, through every binding, in one process.

What is timed. Eleven call shapes, each answered by the same C function of
``libmxffi_bench_kernels.so`` (benchmarks/latency/kernels.c) through every binding:

    nop()                           add_int(1000, 2000)             add_float(1.5, 2.25)
    echo_str('hello, world') -> str str_len('hello, world') -> int  sum3(1000, 1.5, 'hello, world')
    first_f64(a)  a numpy float64 (3, 4) array -> its first element
    add_int(a=1000, b=2000)         keyword arguments
    first_f64(t)  a CPU float64 (3, 4) torch.Tensor
    first8(a0, ..., a7)  eight numpy float64 (3, 4) arrays -> the sum of their first elements
    first8(t0, ..., t7)  the same with eight torch.Tensors

The bindings, each written the way a competent user of it writes it (latency/bindings.py holds
their Python side, the other files of benchmarks/latency/ their native side):

- pure Python: Python functions doing the same (no C call): what a Python-level call costs;
- ctypes: ``CDLL`` functions with argtypes/restype; str is encoded to bytes and decoded back by
  a small Python wrapper; the numpy array passes through ``numpy.ctypeslib.ndpointer``;
- cffi: API mode, out of line (latency/cffi_build.py); the same str wrappers, and
  ``ffi.from_buffer`` after a dtype and contiguity check for the array;
- C extension: METH_FASTCALL functions (add_int also METH_KEYWORDS, keywords matched by hand),
  str read as its cached UTF-8, the numpy array through numpy's C API (headers from
  numpy.get_include(); cheaper than the buffer protocol), the baseline of the gates
  (latency/capi_ext.c);
- Cython: ``def`` functions with typed arguments, the array as a typed memoryview;
- pybind11, nanobind: ``m.def`` over lambdas, ``std::string_view``, ``py::array_t`` /
  ``nb::ndarray``;
- apache-tvm-ffi (from PyPI): TVM_FFI_DLL_EXPORT_TYPED_FUNC, ``tvm_ffi.load_module``;
- mxffi: MXFFI_REGISTER_API functions of libmxffi_bench.so (latency/mxffi_bench.cc) loaded with
  ``mxffi.library.load`` and called through the public ``mxffi.get_global_func(...)`` object,
  i.e. its C vectorcall slot; and the same functions through ``mxffi._ffi.ctypes_backend``.
  Every call is exactly one MXFFIFuncCall; nothing in mxffi knows about the benchmark.

A shape a binding cannot express is shown as "–" (keyword arguments to ctypes, cffi and
tvm-ffi functions). Every result is checked once before anything is measured.

How. Every (binding, shape) cell gets its own compiled loop, generated as timeit does,
``for _ in itertools.repeat(None, n): f(x0, x1)`` with the arguments in locals (its own code
object, so CPython's call-site specialisation sees one callable), and runs with the garbage
collector off (as timeit does). An empty loop (``pass`` as the body) is one more cell. Each
cell is calibrated to about 10 ms per sample (2 ms with --quick); then 51 rounds (5) each time
every cell once, in a fresh random order per round. A figure is the median over the rounds
less the empty loop's median: the cost of the call statement itself (loading the function and
its arguments, the call, dropping the result), the loop's own iteration taken out.

Instructions per call come from ``valgrind --tool=callgrind``: one valgrind process runs all
cells; each cell is warmed up, then run N times and 2N times between the client requests
CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT (latency/callgrind_client.c, through ctypes),
and (I(2N) - I(N)) / N is its cost per call: start-up, set-up and the loop's constant parts
cancel (N = 10000; 500 with --quick); the empty loop's count is taken out as above. These
counts are noise-free and are what the gates check:

    mxffi (vectorcall) <= 3.0x the C extension on nop() and on the numpy argument,
                       <= 2.5x on add_int, add_float, echo_str, str_len and sum3,
                       <= 1.0x nanobind on nop, add_int, add_float, echo_str, str_len and
                       sum3 (docs/design.md's budget),
                       <= 1.0x apache-tvm-ffi on one and on eight torch.Tensor arguments.

The torch shapes (first_f64 and first8 of CPU float64 torch.Tensors, when torch is installed)
are those of the bindings that take a torch tensor as it is: the C extension reads it through
torch's DLPack C exchange table (``__dlpack_c_exchange_api__``'s dltensor_from_py_object_no_sync,
the table looked up once per type), the least any binding can pay, so its figure is what
torch's own exchange costs plus a METH_FASTCALL call; apache-tvm-ffi and mxffi take it through
the same table; nanobind through its ndarray caster; pybind11's ``py::array_t`` through numpy's
conversion of the tensor (torch's ``__array__``). ctypes, cffi and Cython want the buffer
protocol, which torch does not offer: their torch cells are "–", as are ctypes' and cffi's
first8 (eight pointers in one call would need Python to pack them).

The cost of a raised error. ``mxffi.testing.raise_error("ValueError", "boom")`` (libmxffi_testing,
a C++ body that throws) is called in a ``try: ... except ValueError: pass`` loop, timed and
counted the same way, beside the same loop around a Python function raising ValueError. The
figure is what reaching the ``except`` costs: the C++ throw, the raw backtrace, the error slot,
the Python exception; the C++ backtrace is symbolised only when somebody reads it, so a loop
catching errors does not pay for it. Gate: the median time per raise <= 20 us (the instruction
count is reported beside it; wall-clock, as the gate in docs/design.md is written).

Usage:
    python benchmarks/bench_call_latency.py [--quick] [--check] [--write-docs] [--annotate]
        [--no-callgrind] [--no-timing] [--only BINDING,...]

It configures and builds benchmarks/latency into build-bench/latency (CMake + Ninja) when
needed, prints the tables, writes build-bench/latency/call_latency.png and results.json (the
figures with and without the loop), and with --write-docs rewrites its section of
docs/benchmarks.md (the other scripts' sections stay) and docs/benchmarks/call_latency.png.
--check exits 1 when a gate fails. --annotate prints, from callgrind_annotate, the inclusive
instructions per call of the functions under mxffi's nop, add_int, keyword add_int, echo_str
and str_len calls, and nanobind's echo_str and str_len.
scripts/bench.sh installs what this needs and runs it.
"""

import argparse
import gc
import itertools
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC_DIR = ROOT / "benchmarks" / "latency"
BUILD_DIR = ROOT / "build-bench" / "latency"
DOCS_MD = ROOT / "docs" / "benchmarks.md"
DOCS_PNG = ROOT / "docs" / "benchmarks" / "call_latency.png"

sys.path.insert(0, str(SRC_DIR))
from bindings import (  # noqa: E402 - benchmarks/latency is not a package
    BINDERS,
    BINDING_LABEL,
    BINDINGS,
    DASH,
    HOW_WRITTEN,
    KW_MAYBE,
    SHAPE_KEYS,
    SHAPES,
    TORCH_SHAPES,
    arguments,
    bind,
)
from raise_cost import (  # noqa: E402 - benchmarks/latency is not a package
    RAISE_GATE_US,
    RAISE_KEY,
    make_raise_cells,
    prepare_raise_cells,
    raise_results,
    raise_table,
)

# Gates: (shape, the binding compared with, maximum ratio of mxffi (vectorcall) to it), in
# instructions per call.
GATES = [
    ("nop", "capi", 3.0),
    ("add_int", "capi", 2.5),
    ("add_float", "capi", 2.5),
    ("echo_str", "capi", 2.5),
    ("str_len", "capi", 2.5),
    ("sum3", "capi", 2.5),
    ("first_f64", "capi", 3.0),
    ("nop", "nanobind", 1.0),
    ("add_int", "nanobind", 1.0),
    ("add_float", "nanobind", 1.0),
    ("echo_str", "nanobind", 1.0),
    ("str_len", "nanobind", 1.0),
    ("sum3", "nanobind", 1.0),
    ("first_f64_torch", "tvm_ffi", 1.0),
    ("first8_torch", "tvm_ffi", 1.0),
]


def log(msg):
    print(f"==> {msg}", file=sys.stderr, flush=True)


# --- Build. ---------------------------------------------------------------------------------


def build():
    """Configure (every time: cheap, and it follows a reinstalled mxffi) and build.

    A build directory configured for another Python interpreter (the system's, then
    scripts/bench.sh's venv) is started afresh: the binding packages' CMake directories it
    cached belong to that interpreter.
    """
    cache = BUILD_DIR / "CMakeCache.txt"
    if cache.exists():
        m = re.search(r"^Python_EXECUTABLE:\w+=(.*)$", cache.read_text(), re.M)
        if m and m.group(1) != sys.executable:
            log(f"{BUILD_DIR.relative_to(ROOT)} was configured for {m.group(1)}: starting afresh")
            shutil.rmtree(BUILD_DIR)
    cmd = [
        "cmake",
        "-S",
        str(SRC_DIR),
        "-B",
        str(BUILD_DIR),
        f"-DPython_EXECUTABLE={sys.executable}",
    ]
    if not (BUILD_DIR / "CMakeCache.txt").exists() and shutil.which("ninja"):
        cmd += ["-G", "Ninja"]
    try:
        from mxffi._ffi import libinfo

        cmd.append(f"-Dmxffi_DIR={libinfo.cmake_dir()}")
    except ImportError as e:
        log(f"mxffi is not importable ({e}); its rows will be missing")
    for c in (cmd, ["cmake", "--build", str(BUILD_DIR), "-j", str(os.cpu_count() or 2)]):
        res = subprocess.run(c, capture_output=True, text=True)
        if res.returncode != 0:
            sys.stderr.write(res.stdout + res.stderr)
            raise SystemExit(f"bench_call_latency: `{' '.join(c)}` failed")


def make_cells(names):
    """The (binding, shape) -> (function, args, kwargs) table, each checked once.

    Returns (cells, missing): missing maps a binding that could not be set up to the reason.
    """
    import numpy as np

    try:
        import torch
    except ImportError:
        torch = None
        log("torch is not installed: no torch.Tensor shapes")
    cells, missing = {}, {}
    for name in names:
        try:
            funcs = bind(name, np, BUILD_DIR)
        except Exception as e:  # a binding whose package is not installed or not built
            missing[name] = f"{type(e).__name__}: {e}"
            continue
        for key, _, args, kwargs, expected in SHAPES:
            f = funcs.get(key)
            if f is None:
                continue
            if key in TORCH_SHAPES and torch is None:
                continue
            if isinstance(args, str):
                args = arguments(args, np, torch)
            kwargs = kwargs or {}
            try:
                got = f(*args, **kwargs)
            except TypeError:
                if key == "add_int_kw" and name in KW_MAYBE:
                    continue
                raise
            if got != expected or not isinstance(got, type(expected)):
                raise SystemExit(
                    f"bench_call_latency: {name} {key} returned {got!r}; expected {expected!r}"
                )
            cells[(name, key)] = (f, args, kwargs)
    return cells, missing


def make_loop(nargs, kwnames):
    """A freshly compiled ``for _ in it: f(x0, ...)`` loop for one cell.

    Each cell gets its own code object, so the interpreter's specialisation of the call site
    (CPython >= 3.11) only ever sees that cell's callable.
    """
    params = [f"x{i}" for i in range(nargs)] + [f"k_{k}" for k in kwnames]
    call = [f"x{i}" for i in range(nargs)] + [f"{k}=k_{k}" for k in kwnames]
    src = (
        f"def loop(_it, _f{''.join(', ' + p for p in params)}):\n"
        f"    for _ in _it:\n"
        f"        _f({', '.join(call)})\n"
    )
    ns = {}
    exec(src, ns)  # noqa: S102 - generated from the fixed shapes above, as timeit does
    return ns["loop"]


def run_cell(cell):
    """A loop for cell and the arguments it takes after the iterator."""
    f, args, kwargs = cell
    return make_loop(len(args), kwargs.keys()), (f, *args, *kwargs.values())


def time_loop(prepared, n):
    """Seconds for n calls of a (loop, arguments) pair from run_cell."""
    loop, largs = prepared
    it = itertools.repeat(None, n)
    t0 = time.perf_counter()
    loop(it, *largs)
    return time.perf_counter() - t0


# The key of the empty loop among the cells: what every loop costs besides its call.
LOOP = ("loop", "empty")


def net(values):
    """Per-call figures less the empty loop's: the cost of the call statement itself."""
    base = values[LOOP]
    return {k: v - base for k, v in values.items() if k != LOOP}


def make_empty_loop():
    """The loop of make_loop without the call: what every figure includes besides the call."""
    ns = {}
    exec("def loop(_it):\n    for _ in _it:\n        pass\n", ns)  # noqa: S102
    return ns["loop"]


def measure_times(cells, rounds, target_s, seed, raise_cells=None):
    """Median ns per call of every cell over randomized interleaved rounds.

    The empty loop is one more cell, LOOP, interleaved like the others, and so are the raise
    cells.
    """
    calls = {}
    gc_was = gc.isenabled()
    gc.disable()
    try:
        prepared = {key: run_cell(cell) for key, cell in cells.items()}
        prepared.update(prepare_raise_cells(raise_cells or {}))
        prepared[LOOP] = (make_empty_loop(), ())
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


def callgrind_worker(out_dir, calls, names):
    """Runs inside valgrind: every cell N and 2N times between zero and dump requests."""
    import ctypes

    cg = ctypes.CDLL(str(BUILD_DIR / "libmxffi_bench_callgrind.so"))
    cg.mxb_cg_dump.argtypes = [ctypes.c_char_p]
    cells, missing = make_cells(names)
    raise_cells = make_raise_cells(names)
    (Path(out_dir) / "cells.json").write_text(
        json.dumps({"cells": [list(k) for k in [*cells, *raise_cells]], "missing": missing})
    )
    gc.disable()
    # A first zero/dump pair: the first ctypes calls of these two functions set up their call
    # interfaces, which must not land in a measured dump.
    for _ in range(2):
        cg.mxb_cg_zero()
        cg.mxb_cg_dump(b"warmup")
    empty = make_empty_loop()
    for n in (calls, 2 * calls):
        it = itertools.repeat(None, n)
        cg.mxb_cg_zero()
        empty(it)
        cg.mxb_cg_dump(f"{LOOP[0]}|{LOOP[1]}|{n}".encode())
    prepared = {key: run_cell(cell) for key, cell in cells.items()}
    prepared.update(prepare_raise_cells(raise_cells))
    for (name, key), (loop, largs) in prepared.items():
        loop(itertools.repeat(None, min(calls, 1000)), *largs)  # warm up
        for n in (calls, 2 * calls):
            it = itertools.repeat(None, n)
            cg.mxb_cg_zero()
            loop(it, *largs)
            cg.mxb_cg_dump(f"{name}|{key}|{n}".encode())


def parse_dump(path):
    """(trigger label, total instructions) of one callgrind dump file.

    The total is the part's ``summary:`` line (``totals:`` only where there is no summary: it
    is the sum of the cost lines, which in the first part after a zero request can also hold
    costs from before it).
    """
    label, summary, totals = None, None, None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("desc: Trigger:"):
                m = re.search(r"Client Request: (\S+)", line)
                label = m.group(1) if m else None
            elif line.startswith("summary:"):
                summary = int(line.split()[1])
            elif line.startswith("totals:"):
                totals = int(line.split()[1])
    return label, summary if summary is not None else totals


def measure_instructions(calls, names, keep_dir=None):
    """Instructions per call of every cell, from one valgrind process."""
    if not (BUILD_DIR / "libmxffi_bench_callgrind.so").exists():
        raise SystemExit("bench_call_latency: no callgrind client library (valgrind headers?)")
    out_dir = Path(keep_dir or tempfile.mkdtemp(prefix="mxffi-callgrind-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("cg.out*"):
        old.unlink()
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "-q",
        f"--callgrind-out-file={out_dir}/cg.out",
        "--dump-instr=no",
        sys.executable,
        str(Path(__file__).resolve()),
        "--_callgrind-worker",
        str(out_dir),
        "--calls",
        str(calls),
        "--only",
        ",".join(names),
    ]
    log(f"callgrind: {len(names)} bindings, N = {calls} (one valgrind process)")
    res = subprocess.run(cmd)
    if res.returncode != 0:
        raise SystemExit(f"bench_call_latency: the callgrind worker failed ({res.returncode})")
    totals = {}
    for path in out_dir.glob("cg.out.*"):
        label, total = parse_dump(path)
        if label and label.count("|") == 2:
            name, key, n = label.split("|")
            totals[(name, key, int(n))] = (total, path)
    meta = json.loads((out_dir / "cells.json").read_text())
    per_call, files = {}, {}
    a, b = totals[(*LOOP, calls)][0], totals[(*LOOP, 2 * calls)][0]
    per_call[LOOP] = (b - a) / calls
    for name, key in meta["cells"]:
        a, _ = totals[(name, key, calls)]
        b, path2 = totals[(name, key, 2 * calls)]
        per_call[(name, key)] = (b - a) / calls
        files[(name, key)] = path2
    if keep_dir is None:
        shutil.rmtree(out_dir, ignore_errors=True)
        files = {}
    return per_call, files


def _short(fn):
    """A callgrind_annotate function column without build paths."""
    fn = re.sub(r"^\S*?/Python-[\d.]+/(\./)?", "", fn)
    fn = re.sub(r"\[(/[^\]]*/)?([^/\]]+)\]$", r"[\2]", fn)
    fn = re.sub(
        r"mxffi::details::PackedFunctionObj<.*>::SafeCall\(.*\)",
        "PackedFunctionObj<...>::SafeCall",
        fn,
    )
    return fn


def annotate(files, calls, top=25):
    """Per-call inclusive cost of the functions under the call site: mxffi's nop, add_int,
    keyword add_int, echo_str and str_len, and nanobind's echo_str and str_len beside them.

    From ``callgrind_annotate --inclusive=yes`` of the 2N dump; the frames above the timing
    loop (interpreter start-up, the loop's own frame) are left out.
    """
    cells = [("mxffi", k) for k in ("nop", "add_int", "add_int_kw", "echo_str", "str_len")]
    cells += [("nanobind", k) for k in ("echo_str", "str_len")]
    for binding, key in cells:
        path = files.get((binding, key))
        if path is None:
            continue
        res = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(path)],
            capture_output=True,
            text=True,
        )
        rows = []
        for line in res.stdout.splitlines():
            m = re.match(r"\s*([\d,]+)\s+\([\s\d.]+%\)\s+(.*)$", line)
            if m and "PROGRAM TOTALS" not in line:
                rows.append((int(m.group(1).replace(",", "")), _short(m.group(2))))
        # Everything from the loop's frame (the recursive evaluator, marked '2) down.
        start = next((i for i, (_, f) in enumerate(rows) if "_PyEval_EvalFrameDefault'2" in f), 0)
        print(f"\n### {binding} {key}: inclusive instructions per call ({path.name})\n")
        for cost, fn in rows[start : start + top]:
            print(f"{cost / (2 * calls):9.1f}  {fn}")


# --- Report. --------------------------------------------------------------------------------


def fmt(v, digits=0):
    if v is None:
        return DASH
    return f"{v:,.{digits}f}"


def table(values, names, digits):
    head = "| binding | " + " | ".join(f"`{s[1]}`" for s in SHAPES) + " |"
    sep = "| --- |" + " ---: |" * len(SHAPES)
    rows = [head, sep]
    for name in names:
        cells = [fmt(values.get((name, k)), digits) for k in SHAPE_KEYS]
        rows.append(f"| {BINDING_LABEL[name]} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def gate_results(instr):
    out = []
    for key, peer, limit in GATES:
        base, mx = instr.get((peer, key)), instr.get(("mxffi", key))
        if base is None or mx is None:
            out.append((key, peer, limit, None, None, None, "MISSING"))
            continue
        ratio = mx / base
        out.append((key, peer, limit, base, mx, ratio, "PASS" if ratio <= limit else "FAIL"))
    return out


def gate_table(gates):
    rows = [
        "| call | compared with | its instructions | mxffi (vectorcall) | ratio | gate | result |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for key, peer, limit, base, mx, ratio, verdict in gates:
        label = dict((s[0], s[1]) for s in SHAPES)[key]
        r = DASH if ratio is None else f"{ratio:.2f}x"
        rows.append(
            f"| `{label}` | {BINDING_LABEL[peer]} | {fmt(base)} | {fmt(mx)} | {r} "
            f"| <= {limit:.1f}x | {verdict} |"
        )
    return "\n".join(rows)


def plot(times, instr, names, path):
    """Grouped bars, one group per call shape, one bar per binding; time and instructions."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    panels = [
        (v, label)
        for v, label in (
            (times, "median ns per call"),
            (instr, "instructions per call (callgrind)"),
        )
        if v
    ]
    if not panels:
        return False
    fig, axes = plt.subplots(len(panels), 1, figsize=(16, 1.2 + 4.6 * len(panels)), squeeze=False)
    width = 0.84 / max(1, len(names))
    cmap = plt.get_cmap("tab10")
    for ax, (values, ylabel) in zip(axes[:, 0], panels, strict=True):
        for i, name in enumerate(names):
            xs, ys = [], []
            for j, key in enumerate(SHAPE_KEYS):
                v = values.get((name, key))
                if v is not None:
                    xs.append(j - 0.42 + width * (i + 0.5))
                    ys.append(v)
            ax.bar(xs, ys, width, label=BINDING_LABEL[name], color=cmap(i % 10))
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_ylabel(ylabel + ", log scale")
        ax.set_xticks(range(len(SHAPES)))
        ax.set_xticklabels([s[1] for s in SHAPES], fontsize=8)
        ax.set_xlim(-0.5, len(SHAPES) - 0.5)
        ax.grid(axis="y", which="major", alpha=0.4)
        ax.grid(axis="y", which="minor", alpha=0.12)
    fig.suptitle(
        "Python call latency: the same C functions through every binding (lower is better)"
    )
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(
        handles, labels, ncol=min(5, len(names)), fontsize=9, loc="lower center", frameon=False
    )
    fig.tight_layout(rect=(0, 0.07 if len(names) > 5 else 0.04, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def package_versions(dists):
    """ "name version, ..." for the distributions named ("not installed" for an absent one)."""
    from importlib.metadata import PackageNotFoundError, version

    def one(dist):
        try:
            return version(dist)
        except PackageNotFoundError:
            return "not installed"

    return ", ".join(f"{d} {one(d)}" for d in dists)


def cpu_name():
    """The CPU's model name from /proc/cpuinfo (platform.processor() where there is none)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def write_section(script, lines):
    """Replace the section of docs/benchmarks.md that script writes (between its begin and end
    markers) with lines, appending it when the page has no such section; other sections stay."""
    begin = f"<!-- begin: {script} --write-docs; do not edit by hand -->"
    end = f"<!-- end: {script} -->"
    lines = list(lines)
    while lines and lines[-1] == "":
        lines.pop()
    new = "\n".join([begin, "", *lines, "", end])
    text = DOCS_MD.read_text() if DOCS_MD.exists() else "# Benchmarks\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + new + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + new + "\n"
    DOCS_MD.write_text(text)


def machine():
    cpu = cpu_name()
    try:
        cc = subprocess.run(["cc", "--version"], capture_output=True, text=True).stdout
        cc = cc.splitlines()[0]
    except (OSError, IndexError):
        cc = "unknown compiler"
    try:
        vg = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout
    except OSError:
        vg = "no valgrind"
    pkgs = package_versions(
        ("mxffi", "numpy", "Cython", "pybind11", "nanobind", "cffi", "apache-tvm-ffi")
    )
    try:
        distro = platform.freedesktop_os_release().get("PRETTY_NAME", "")
    except OSError:
        distro = ""
    return (
        f"{cpu}, {os.cpu_count()} logical CPUs; {distro or platform.system()} "
        f"(kernel {platform.release()}); CPython {platform.python_version()} "
        f"({sys.executable}); {cc}; {vg.strip()}; {pkgs}"
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a smoke run: few rounds, small N")
    p.add_argument("--check", action="store_true", help="exit 1 when a gate fails")
    p.add_argument("--write-docs", action="store_true", help="rewrite docs/benchmarks.md + plot")
    p.add_argument(
        "--annotate",
        action="store_true",
        help="profile mxffi's nop, add_int, add_int_kw, echo_str, str_len (and nanobind's)",
    )
    p.add_argument("--no-callgrind", action="store_true", help="timing only (no gates)")
    p.add_argument("--no-timing", action="store_true", help="callgrind only")
    p.add_argument("--no-build", action="store_true", help="use build-bench/latency as it is")
    p.add_argument("--only", default="", help="comma-separated bindings: " + ",".join(BINDERS))
    p.add_argument("--rounds", type=int, default=None, help="timing rounds (default 51; quick 5)")
    p.add_argument("--calls", type=int, default=None, help="callgrind N (default 10000; quick 500)")
    p.add_argument("--seed", type=int, default=12345, help="seed of the round order")
    p.add_argument("--_callgrind-worker", dest="worker", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    names = [b for b, _ in BINDINGS]
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - set(BINDERS))
        if unknown:
            p.error(f"unknown bindings {unknown}; choose from {','.join(BINDERS)}")
        names = [n for n in names if n in wanted]
    calls = args.calls or (500 if args.quick else 10000)
    rounds = args.rounds or (5 if args.quick else 51)
    target_s = 0.002 if args.quick else 0.01

    if args.worker:
        callgrind_worker(args.worker, calls, names)
        return 0

    t_start = time.time()
    if not args.no_build:
        log(f"building {BUILD_DIR.relative_to(ROOT)}")
        build()
    cells, missing = make_cells(names)
    for name, why in missing.items():
        log(f"{BINDING_LABEL[name]} is not available: {why}")
    present = [n for n in names if n not in missing]

    run = {"argv": sys.argv[1:] if argv is None else list(argv), "names": present}
    run.update(missing=missing, calls=calls, rounds=rounds, target_s=target_s)
    times, instr, files = {}, {}, {}
    if not args.no_timing:
        log(f"timing {len(cells)} cells: {rounds} rounds of ~{target_s * 1e3:g} ms samples")
        raw = measure_times(cells, rounds, target_s, args.seed, make_raise_cells(present))
        times, run["loop_ns"] = net(raw), raw[LOOP]
    if not args.no_callgrind and not shutil.which("valgrind"):
        log("valgrind not found (apt-get install valgrind): no instruction counts, no gates")
    elif not args.no_callgrind:
        keep = BUILD_DIR / "callgrind" if args.annotate else None
        raw, files = measure_instructions(calls, present, keep)
        instr, run["loop_instr"] = net(raw), raw[LOOP]
    run.update(times=times, instr=instr, gates=gate_results(instr) if instr else [])
    run["raise_rows"], run["raise_gate"] = raise_results(times, instr)

    out = []
    if times:
        out += [
            "Median time per call, ns (randomized interleaved rounds), less the "
            f"{run['loop_ns']:.1f} ns of an empty loop:\n",
            table(times, present, 0),
            "",
        ]
    if instr:
        out += [
            f"Instructions per call (callgrind, (I(2N) - I(N)) / N, N = {calls}), less the "
            f"{run['loop_instr']:.0f} of an empty loop:\n",
            table(instr, present, 0),
            "",
        ]
    if run["gates"]:
        out += ["Gates (instructions per call, same run):\n", gate_table(run["gates"]), ""]
    if run["raise_rows"]:
        out += [
            "Cost of a raised error (try/except loop, less the empty loop):\n",
            raise_table(run["raise_rows"]),
            "",
        ]
    print("\n".join(out))
    for key, peer, limit, _, _, ratio, verdict in run["gates"]:
        r = "n/a" if ratio is None else f"{ratio:.2f}x"
        print(f"{verdict}: {key}: mxffi / {BINDING_LABEL[peer]} = {r} (gate <= {limit:.1f}x)")
    mx_raise = times.get(("mxffi", RAISE_KEY))
    if mx_raise is not None:
        print(
            f"{run['raise_gate']}: raise: mxffi error raised in C++ and caught in Python = "
            f"{mx_raise / 1e3:.2f} us (gate <= {RAISE_GATE_US:g} us)"
        )
    if args.annotate:
        annotate(files, calls)

    (BUILD_DIR / "results.json").write_text(
        json.dumps(
            {
                k: ({"|".join(c): v for c, v in d.items()} if k in ("times", "instr") else d)
                for k, d in run.items()
            },
            indent=1,
        )
    )
    png = BUILD_DIR / "call_latency.png"
    try:
        if plot(times, instr, present, png):
            log(f"wrote {png.relative_to(ROOT)} and results.json")
        else:
            png = None
    except ImportError as e:
        log(f"no plot ({e})")
        png = None
    if args.write_docs:
        write_docs(run, png)
    log(f"done in {time.time() - t_start:.0f} s")
    if args.check and not run["gates"]:
        log("--check: no instruction counts, so no gate was checked")
        return 1
    if args.check and run["raise_gate"] == "MISSING":
        log("--check: no timing of mxffi's raise, so its gate was not checked")
    failed = any(g[6] != "PASS" for g in run["gates"]) or run["raise_gate"] == "FAIL"
    return 1 if args.check and failed else 0


def write_docs(run, png):
    """Rewrite this script's section of docs/benchmarks.md (and its plot) from this run."""
    DOCS_PNG.parent.mkdir(parents=True, exist_ok=True)
    if png is not None:
        shutil.copyfile(png, DOCS_PNG)
    times, instr, gates, names = run["times"], run["instr"], run["gates"], run["names"]
    command = " ".join(["python benchmarks/bench_call_latency.py", *run["argv"]])
    doc = [
        "## Call latency from Python",
        "",
        "The same C functions (`benchmarks/latency/kernels.c`) called from Python through every",
        "binding, in one process. The docstring of `benchmarks/bench_call_latency.py` says what is",
        "timed and how; `benchmarks/latency/` holds each binding. Both mxffi rows call the public",
        "function object, and each call is exactly one `MXFFIFuncCall`; nothing in mxffi knows",
        f'about the benchmark. A "{DASH}" is a call the binding cannot express (keyword arguments',
        "to ctypes, cffi and tvm-ffi functions).",
        "",
        "| binding | how it is written |",
        "| --- | --- |",
        *[f"| {label} | {HOW_WRITTEN[key]} |" for key, label in BINDINGS],
        "",
        "This section was written by the run below; `scripts/bench.sh --write-docs` installs",
        "what it needs first and does the same.",
        "",
        "```",
        command,
        "```",
        "",
        f"Machine: {machine()}.",
        "",
    ]
    if run["missing"]:
        gone = ", ".join(BINDING_LABEL[m] for m in run["missing"])
        doc += [f"Not available in this run: {gone}.", ""]
    if png is not None:
        doc += ["![call latency](benchmarks/call_latency.png)", ""]
    if times:
        doc += [
            f"### Median time per call (ns), {run['rounds']} randomized interleaved rounds",
            "",
            table(times, names, 0),
            "",
            f"Each sample is about {run['target_s'] * 1e3:g} ms of calls in a loop; each figure is",
            f"the sample's time per call less that of an empty loop ({run['loop_ns']:.1f} ns).",
            "Wall-clock times on a shared machine are noisy; the instruction counts are not.",
            "",
        ]
    if instr:
        doc += [
            f"### Instructions per call (callgrind, (I(2N) - I(N)) / N, N = {run['calls']})",
            "",
            table(instr, names, 0),
            "",
            f"Each figure is less the {run['loop_instr']:.0f} instructions of an empty loop: the",
            "cost of the call statement itself (loading the function and its arguments, the call,",
            "dropping the result).",
            "",
        ]
    if run.get("raise_rows"):
        doc += [
            "### Cost of a raised error",
            "",
            '`mxffi.testing.raise_error("ValueError", "boom")` (a C++ body that throws) in a',
            "`try`/`except ValueError` loop, beside a Python function raising the same; time and",
            "instructions per raise, less the empty loop. The C++ backtrace is captured as raw",
            "frames and symbolised only when `cpp_backtrace` or the printed traceback reads it.",
            "",
            raise_table(run["raise_rows"]),
            "",
            f"Gate: mxffi's median time per raise <= {RAISE_GATE_US:g} us: {run['raise_gate']}.",
            "",
        ]
    if gates:
        doc += [
            "### Gates",
            "",
            "Checked on the instruction counts of the same run (`--check` exits 1 on a failure):",
            "",
            gate_table(gates),
            "",
        ]
    write_section("benchmarks/bench_call_latency.py", doc)
    log(f"wrote the call latency section of {DOCS_MD.relative_to(ROOT)} and {DOCS_PNG.name}")


if __name__ == "__main__":
    sys.exit(main())
