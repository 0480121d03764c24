"""What one call from Python costs, through every binding, in one process.

What is timed. Eight call shapes, each answered by the same C function of
``libmxffi_bench_kernels.so`` (benchmarks/latency/kernels.c) through every binding:

    nop()                           add_int(1000, 2000)             add_float(1.5, 2.25)
    echo_str('hello, world') -> str str_len('hello, world') -> int  sum3(1000, 1.5, 'hello, world')
    first_f64(a)  a numpy float64 (3, 4) array -> its first element
    add_int(a=1000, b=2000)         keyword arguments

The bindings, each written the way a competent user of it writes it (the sources say how):

- pure Python: Python functions doing the same (no C call), the floor of a Python call;
- ctypes: ``CDLL`` functions with argtypes/restype; strings are encoded to bytes and decoded
  back by a small Python wrapper, the numpy array passes through ``numpy.ctypeslib.ndpointer``;
- cffi: API mode, out of line (benchmarks/latency/cffi_build.py); the same string wrappers and
  ``ffi.from_buffer`` after a dtype/contiguity check for the array;
- C extension: METH_FASTCALL functions (add_int also METH_KEYWORDS), the numpy array through
  numpy's C API (numpy.get_include()), the baseline of the gates (latency/capi_ext.c);
- Cython: ``def`` functions with typed arguments, the array as a typed memoryview;
- pybind11, nanobind: ``m.def`` over lambdas, ``std::string_view``, ``array_t`` / ``ndarray``;
- tvm-ffi: apache-tvm-ffi from PyPI, TVM_FFI_DLL_EXPORT_TYPED_FUNC + ``tvm_ffi.load_module``;
- mxffi: MXFFI_REGISTER_API functions of libmxffi_bench.so loaded with mxffi.library.load and
  called through the public ``mxffi.get_global_func(...)`` object (its C vectorcall slot), and
  the same functions through ``mxffi._ffi.ctypes_backend``. Each call is one MXFFIFuncCall;
  there is no benchmark-only path.

A shape a binding cannot express is shown as "–" (keyword arguments of ctypes, cffi and
tvm-ffi functions).

How. Every (binding, shape) cell runs in a loop generated like timeit's:
``for _ in itertools.repeat(None, n): f(x0, x1)`` with the arguments in locals, with the
garbage collector off during the loop (as timeit does). The time per call therefore includes
a few ns of loop overhead, the same for every row (printed as "loop overhead"). Each cell is
calibrated to about TARGET ms per sample; then ROUNDS rounds each time every cell once, in a
fresh random order per round, and the table gives the median over rounds.

Instructions per call come from ``valgrind --tool=callgrind``: one valgrind process runs all
cells; each cell is warmed up, then run N times and 2N times between the client requests
CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT (latency/callgrind_client.c, through ctypes),
and (I(2N) - I(N)) / N is its cost per call: start-up, set-up and the loop's constant parts
cancel. These counts are noise-free and are what the gates check:

    mxffi (vectorcall) <= 3.0x the C extension on nop() and on the numpy argument,
                       <= 2.5x on add_int, add_float, echo_str, str_len and sum3.

Usage:
    python benchmarks/bench_call_latency.py [--quick] [--check] [--write-docs] [--annotate]
        [--no-callgrind] [--no-timing] [--only BINDING,...]

It configures and builds benchmarks/latency into build-bench/latency (CMake + Ninja) when
needed, prints the tables, writes build-bench/latency/call_latency.png, and with --write-docs
rewrites docs/benchmarks.md and docs/benchmarks/call_latency.png. --check exits 1 when a gate
fails. --annotate prints callgrind_annotate (inclusive) for mxffi's nop and add_int.
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

TEXT = "hello, world"

# (key, label in the tables, positional args, keyword args, expected result)
SHAPES = [
    ("nop", "nop()", (), None, None),
    ("add_int", "add_int(1000, 2000)", (1000, 2000), None, 3000),
    ("add_float", "add_float(1.5, 2.25)", (1.5, 2.25), None, 3.75),
    ("echo_str", "echo_str('hello, world')", (TEXT,), None, TEXT),
    ("str_len", "str_len('hello, world')", (TEXT,), None, 12),
    ("sum3", "sum3(1000, 1.5, 'hello, world')", (1000, 1.5, TEXT), None, 1013.5),
    ("first_f64", "first_f64(float64 (3,4) array)", None, None, 0.5),
    ("add_int_kw", "add_int(a=1000, b=2000)", (), {"a": 1000, "b": 2000}, 3000),
]
SHAPE_KEYS = [s[0] for s in SHAPES]
# The function each shape calls (the keyword shape calls add_int).
FUNC_OF = {"add_int_kw": "add_int"}

BINDINGS = [
    ("python", "pure Python"),
    ("ctypes", "ctypes"),
    ("cffi", "cffi (API mode)"),
    ("capi", "C extension (METH_FASTCALL)"),
    ("cython", "Cython def"),
    ("pybind11", "pybind11"),
    ("nanobind", "nanobind"),
    ("tvm_ffi", "apache-tvm-ffi"),
    ("mxffi", "mxffi (vectorcall)"),
    ("mxffi_ctypes", "mxffi (ctypes path)"),
]
BINDING_LABEL = dict(BINDINGS)

# Gates: shape -> maximum ratio of mxffi (vectorcall) to the C extension, in instructions.
GATES = {
    "nop": 3.0,
    "add_int": 2.5,
    "add_float": 2.5,
    "echo_str": 2.5,
    "str_len": 2.5,
    "sum3": 2.5,
    "first_f64": 3.0,
}

DASH = "–"


def log(msg):
    print(f"==> {msg}", file=sys.stderr, flush=True)


# --- Build. ---------------------------------------------------------------------------------


def build():
    """Configure (every time: cheap, and it follows a reinstalled mxffi) and build."""
    cmd = ["cmake", "-S", str(SRC_DIR), "-B", str(BUILD_DIR), f"-DPython_EXECUTABLE={sys.executable}"]
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


# --- The bindings. --------------------------------------------------------------------------


def _lib_path(name):
    return str(BUILD_DIR / f"lib{name}.so")


def _bind_python(np):
    def nop():
        pass

    def add_int(a, b):
        return a + b

    def add_float(a, b):
        return a + b

    def echo_str(s):
        return s

    def str_len(s):
        return len(s.encode())

    def sum3(a, b, s):
        return a + b + len(s.encode())

    def first_f64(a):
        return a.item(0)

    funcs = locals()
    return {k: funcs[FUNC_OF.get(k, k)] for k in SHAPE_KEYS}


def _bind_ctypes(np):
    import ctypes

    class Str(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]

    lib = ctypes.CDLL(_lib_path("mxffi_bench_kernels"))
    i64, f64, cp, sz = ctypes.c_int64, ctypes.c_double, ctypes.c_char_p, ctypes.c_size_t

    def fn(name, restype, *argtypes):
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, list(argtypes)
        return f

    nop = fn("mxb_nop", None)
    add_int = fn("mxb_add_int", i64, i64, i64)
    add_float = fn("mxb_add_float", f64, f64, f64)
    c_echo = fn("mxb_echo_str", Str, cp, sz)
    c_len = fn("mxb_str_len", i64, cp, sz)
    c_sum3 = fn("mxb_sum3", f64, i64, f64, cp, sz)
    c_first = fn(
        "mxb_first_f64", f64, np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS"), i64
    )
    string_at = ctypes.string_at

    def echo_str(s):
        b = s.encode()
        r = c_echo(b, len(b))
        return string_at(r.data, r.size).decode()

    def str_len(s):
        b = s.encode()
        return c_len(b, len(b))

    def sum3(a, b, s):
        e = s.encode()
        return c_sum3(a, b, e, len(e))

    def first_f64(a):
        return c_first(a, a.size)

    return {
        "nop": nop,
        "add_int": add_int,
        "add_float": add_float,
        "echo_str": echo_str,
        "str_len": str_len,
        "sum3": sum3,
        "first_f64": first_f64,
    }


def _bind_cffi(np):
    import cffi_ext

    ffi, lib = cffi_ext.ffi, cffi_ext.lib
    c_echo, c_len, c_sum3, c_first = lib.mxb_echo_str, lib.mxb_str_len, lib.mxb_sum3, lib.mxb_first_f64
    unpack, from_buffer, float64 = ffi.unpack, ffi.from_buffer, np.dtype(np.float64)

    def echo_str(s):
        b = s.encode()
        r = c_echo(b, len(b))
        return unpack(r.data, r.size).decode()

    def str_len(s):
        b = s.encode()
        return c_len(b, len(b))

    def sum3(a, b, s):
        e = s.encode()
        return c_sum3(a, b, e, len(e))

    def first_f64(a):
        if a.dtype != float64 or not a.flags.c_contiguous:
            raise TypeError("first_f64: expected a C-contiguous float64 array")
        return c_first(from_buffer("double[]", a), a.size)

    return {
        "nop": lib.mxb_nop,
        "add_int": lib.mxb_add_int,
        "add_float": lib.mxb_add_float,
        "echo_str": echo_str,
        "str_len": str_len,
        "sum3": sum3,
        "first_f64": first_f64,
    }


def _bind_module(module_name):
    def bind(np):
        mod = __import__(module_name)
        out = {k: getattr(mod, FUNC_OF.get(k, k)) for k in SHAPE_KEYS}
        return out

    return bind


def _bind_tvm_ffi(np):
    import tvm_ffi

    mod = tvm_ffi.load_module(_lib_path("mxb_tvm_ffi"))
    out = {k: getattr(mod, k) for k in SHAPE_KEYS if k != "add_int_kw"}
    return out


def _bind_mxffi(np):
    import mxffi

    mxffi.library.load(_lib_path("mxffi_bench"))
    return {k: mxffi.get_global_func("bench." + FUNC_OF.get(k, k)) for k in SHAPE_KEYS}


def _bind_mxffi_ctypes(np):
    import mxffi

    from mxffi._ffi import ctypes_backend

    mxffi.library.load(_lib_path("mxffi_bench"))
    return {k: ctypes_backend.get_global_func("bench." + FUNC_OF.get(k, k)) for k in SHAPE_KEYS}


BINDERS = {
    "python": _bind_python,
    "ctypes": _bind_ctypes,
    "cffi": _bind_cffi,
    "capi": _bind_module("capi_ext"),
    "cython": _bind_module("cython_ext"),
    "pybind11": _bind_module("pybind11_ext"),
    "nanobind": _bind_module("nanobind_ext"),
    "tvm_ffi": _bind_tvm_ffi,
    "mxffi": _bind_mxffi,
    "mxffi_ctypes": _bind_mxffi_ctypes,
}
# Rows whose keyword call is tried: one that raises TypeError is shown as "–".
KW_MAYBE = {"mxffi_ctypes"}


def make_cells(names):
    """The (binding, shape) -> (function, args, kwargs) table, each checked once.

    Returns (cells, missing): missing maps a binding that could not be set up to the reason.
    """
    import numpy as np

    sys.path.insert(0, str(BUILD_DIR))
    array = np.arange(12, dtype=np.float64).reshape(3, 4) + 0.5
    cells, missing = {}, {}
    for name in names:
        try:
            funcs = BINDERS[name](np)
        except Exception as e:  # a binding whose package is not installed or not built
            missing[name] = f"{type(e).__name__}: {e}"
            continue
        for key, _, args, kwargs, expected in SHAPES:
            f = funcs.get(key)
            if f is None:
                continue
            if key == "add_int_kw" and name in ("ctypes", "cffi", "tvm_ffi"):
                continue  # positional-only functions
            if args is None:
                args = (array,)
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


def _empty_loop_ns(n):
    it = itertools.repeat(None, n)
    t0 = time.perf_counter()
    for _ in it:
        pass
    return (time.perf_counter() - t0) / n * 1e9


def measure_times(cells, rounds, target_s, seed):
    """Median ns per call of every cell over randomized interleaved rounds."""
    calls = {}
    gc_was = gc.isenabled()
    gc.disable()
    try:
        prepared = {key: run_cell(cell) for key, cell in cells.items()}
        for key, cell in prepared.items():
            time_loop(cell, 1000)  # warm up (and let the interpreter specialise)
            n = 1000
            while True:
                t = time_loop(cell, n)
                if t >= target_s / 4 or n >= 1 << 26:
                    break
                n *= 4
            calls[key] = max(100, int(n * target_s / max(t, 1e-9)))
        samples = {key: [] for key in cells}
        order = list(cells)
        rng = random.Random(seed)
        for _ in range(rounds):
            rng.shuffle(order)
            for key in order:
                samples[key].append(time_loop(prepared[key], calls[key]) / calls[key] * 1e9)
        overhead = [_empty_loop_ns(1 << 20) for _ in range(5)]
    finally:
        if gc_was:
            gc.enable()
    return {k: statistics.median(v) for k, v in samples.items()}, statistics.median(overhead)


# --- Callgrind. -----------------------------------------------------------------------------


def callgrind_worker(out_dir, calls, names):
    """Runs inside valgrind: every cell N and 2N times between zero and dump requests."""
    import ctypes

    cg = ctypes.CDLL(_lib_path("mxffi_bench_callgrind"))
    cg.mxb_cg_dump.argtypes = [ctypes.c_char_p]
    cells, missing = make_cells(names)
    (Path(out_dir) / "cells.json").write_text(
        json.dumps({"cells": [list(k) for k in cells], "missing": missing})
    )
    gc.disable()
    # A first zero/dump pair: the first ctypes calls of these two functions set up their call
    # interfaces, which must not land in a measured dump.
    for _ in range(2):
        cg.mxb_cg_zero()
        cg.mxb_cg_dump(b"warmup")
    for (name, key), cell in cells.items():
        loop, largs = run_cell(cell)
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
    if not shutil.which("valgrind"):
        raise SystemExit("bench_call_latency: valgrind not found (apt-get install valgrind)")
    if not Path(_lib_path("mxffi_bench_callgrind")).exists():
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
        "--dump-line=no",
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
    for name, key in meta["cells"]:
        a, _ = totals[(name, key, calls)]
        b, path2 = totals[(name, key, 2 * calls)]
        per_call[(name, key)] = (b - a) / calls
        files[(name, key)] = path2
    if keep_dir is None:
        shutil.rmtree(out_dir, ignore_errors=True)
        files = {}
    return per_call, files


def annotate(files, calls):
    """callgrind_annotate (inclusive) of mxffi's nop and add_int 2N dumps."""
    for key in ("nop", "add_int"):
        path = files.get(("mxffi", key))
        if path is None:
            continue
        print(f"\n### callgrind_annotate --inclusive=yes: mxffi {key}, {2 * calls} calls\n")
        res = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", "--threshold=99.9", str(path)],
            capture_output=True,
            text=True,
        )
        lines = res.stdout.splitlines()
        print("\n".join(lines[:60]))


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
    for key, limit in GATES.items():
        base, mx = instr.get(("capi", key)), instr.get(("mxffi", key))
        if base is None or mx is None:
            out.append((key, limit, None, None, None, "MISSING"))
            continue
        ratio = mx / base
        out.append((key, limit, base, mx, ratio, "PASS" if ratio <= limit else "FAIL"))
    return out


def gate_table(gates):
    rows = [
        "| call | C extension | mxffi (vectorcall) | ratio | gate | result |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for key, limit, base, mx, ratio, verdict in gates:
        label = dict((s[0], s[1]) for s in SHAPES)[key]
        r = DASH if ratio is None else f"{ratio:.2f}x"
        rows.append(
            f"| `{label}` | {fmt(base)} | {fmt(mx)} | {r} | <= {limit:.1f}x | {verdict} |"
        )
    return "\n".join(rows)


def plot(times, instr, names, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(times, "median ns per call (log)")]
    if instr:
        panels.append((instr, "instructions per call, callgrind (log)"))
    fig, axes = plt.subplots(len(panels), 1, figsize=(16, 5.2 * len(panels)), squeeze=False)
    width = 0.8 / max(1, len(names))
    cmap = plt.get_cmap("tab10")
    for ax, (values, ylabel) in zip(axes[:, 0], panels):
        if not values:
            continue
        for i, name in enumerate(names):
            xs, ys = [], []
            for j, key in enumerate(SHAPE_KEYS):
                v = values.get((name, key))
                if v is not None:
                    xs.append(j - 0.4 + width * (i + 0.5))
                    ys.append(v)
            ax.bar(xs, ys, width, label=BINDING_LABEL[name], color=cmap(i % 10))
        ax.set_yscale("log")
        ax.set_ylabel(ylabel)
        ax.set_xticks(range(len(SHAPES)))
        ax.set_xticklabels([s[1] for s in SHAPES], rotation=12, fontsize=8)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0, 0].legend(ncol=5, fontsize=8, loc="upper left")
    axes[0, 0].set_title("Python call latency: the same C functions through every binding")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _version(dist):
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


def machine():
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        cc = subprocess.run(["cc", "--version"], capture_output=True, text=True).stdout
        cc = cc.splitlines()[0]
    except (OSError, IndexError):
        cc = "unknown compiler"
    try:
        vg = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout
    except OSError:
        vg = "no valgrind"
    pkgs = ", ".join(
        f"{d} {_version(d)}"
        for d in ("mxffi", "numpy", "Cython", "pybind11", "nanobind", "cffi", "apache-tvm-ffi")
    )
    return (
        f"{cpu}, {os.cpu_count()} logical CPUs; {platform.system()} {platform.release()} "
        f"({platform.freedesktop_os_release().get('PRETTY_NAME', '') if hasattr(platform, 'freedesktop_os_release') else ''}); "
        f"CPython {platform.python_version()}; {cc}; {vg.strip()}; {pkgs}"
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a smoke run: few rounds, small N")
    p.add_argument("--check", action="store_true", help="exit 1 when a gate fails")
    p.add_argument("--write-docs", action="store_true", help="rewrite docs/benchmarks.md + plot")
    p.add_argument("--annotate", action="store_true", help="callgrind_annotate mxffi nop/add_int")
    p.add_argument("--no-callgrind", action="store_true", help="timing only (no gates)")
    p.add_argument("--no-timing", action="store_true", help="callgrind only")
    p.add_argument("--no-build", action="store_true", help="use build-bench/latency as it is")
    p.add_argument("--only", default="", help="comma-separated bindings: " + ",".join(BINDERS))
    p.add_argument("--rounds", type=int, default=None, help="timing rounds (default 25; quick 5)")
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
    rounds = args.rounds or (5 if args.quick else 25)
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

    times, overhead = {}, None
    if not args.no_timing:
        log(f"timing {len(cells)} cells: {rounds} rounds of ~{target_s * 1e3:g} ms samples")
        times, overhead = measure_times(cells, rounds, target_s, args.seed)
    instr, files = {}, {}
    if not args.no_callgrind:
        keep = BUILD_DIR / "callgrind" if args.annotate else None
        instr, files = measure_instructions(calls, present, keep)

    out = []
    if times:
        out.append("Median time per call, ns (randomized interleaved rounds):\n")
        out.append(table(times, present, 0))
        out.append(f"\nLoop overhead (an empty loop, included above): {overhead:.1f} ns per iteration\n")
    if instr:
        out.append(f"Instructions per call (callgrind, (I(2N) - I(N)) / N, N = {calls}):\n")
        out.append(table(instr, present, 0))
        out.append("")
    gates = gate_results(instr) if instr else []
    if gates:
        out.append("Gates (instructions per call, same run):\n")
        out.append(gate_table(gates))
    print("\n".join(out))
    for key, limit, _, _, ratio, verdict in gates:
        r = "n/a" if ratio is None else f"{ratio:.2f}x"
        print(f"{verdict}: {key}: mxffi / C extension = {r} (gate <= {limit:.1f}x)")
    if args.annotate:
        annotate(files, calls)

    png = BUILD_DIR / "call_latency.png"
    try:
        plot(times, instr, present, png)
        log(f"wrote {png.relative_to(ROOT)}")
    except ImportError as e:
        log(f"no plot ({e})")
        png = None
    if args.write_docs:
        write_docs(times, overhead, instr, calls, rounds, target_s, gates, present, missing, png)
    log(f"done in {time.time() - t_start:.0f} s")
    failed = [g for g in gates if g[5] != "PASS"]
    return 1 if args.check and (failed or not gates) else 0


def write_docs(times, overhead, instr, calls, rounds, target_s, gates, names, missing, png):
    DOCS_PNG.parent.mkdir(parents=True, exist_ok=True)
    if png is not None:
        shutil.copyfile(png, DOCS_PNG)
    doc = [
        "# Benchmarks",
        "",
        "## Call latency from Python",
        "",
        "The same C functions (`benchmarks/latency/kernels.c`) called from Python through every",
        "binding, in one process. `benchmarks/bench_call_latency.py` says what is timed and how,",
        "and `benchmarks/latency/` holds each binding, written the way its users write it. A",
        f'"{DASH}" is a call the binding cannot express (keyword arguments of ctypes, cffi and',
        "tvm-ffi functions). Both mxffi rows call the public function object and make exactly one",
        "`MXFFIFuncCall` per call.",
        "",
        "Reproduce (installs the packages, builds, runs, rewrites this page):",
        "",
        "```",
        "scripts/bench.sh --write-docs",
        "# or, with everything installed:",
        "python benchmarks/bench_call_latency.py --write-docs",
        "```",
        "",
        f"Machine: {machine()}.",
        "",
    ]
    if missing:
        doc += [f"Not available in this run: {', '.join(BINDING_LABEL[m] for m in missing)}.", ""]
    if times:
        doc += [
            f"### Median time per call (ns), {rounds} randomized interleaved rounds of "
            f"~{target_s * 1e3:g} ms samples",
            "",
            table(times, names, 0),
            "",
            f"Every figure includes the timing loop's own overhead, about {overhead:.0f} ns, the same",
            "for every row. Wall-clock times on a shared machine are noisy; the instruction counts",
            "below are not.",
            "",
        ]
    if instr:
        doc += [
            f"### Instructions per call (callgrind, (I(2N) - I(N)) / N, N = {calls})",
            "",
            table(instr, names, 0),
            "",
        ]
    if gates:
        doc += ["### Gates", "", gate_table(gates), ""]
    if png is not None:
        doc += ["![call latency](benchmarks/call_latency.png)", ""]
    DOCS_MD.write_text("\n".join(doc))
    log(f"wrote {DOCS_MD.relative_to(ROOT)} and {DOCS_PNG.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
