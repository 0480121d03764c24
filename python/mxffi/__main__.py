"""python -m mxffi: a short tour of mxffi, ending with a quick call-latency table.

The tour calls C++ functions from Python, registers a Python function that C++ calls, sends
errors across the boundary both ways, passes a numpy array without a copy and runs a few
mxffi.np ops; each line it shows after ">>>" is the code it runs, followed by what that printed
(tests/python/test_docs.py replays them). The table times
the same two calls through mxffi's vectorcall path, through mxffi's ctypes core, as a direct
ctypes call of the plain C function they wrap, and, for scale, numpy.add on two floats:
medians over randomized interleaved rounds on this machine (benchmarks/bench_call_latency.py
measures every binding, with callgrind instruction counts).
"""

import argparse
import ctypes
import random
import statistics
import sys
import time

import mxffi
import mxffi.error  # noqa: F401  (the tour shows mxffi.error.ValueError)
from mxffi._ffi import libinfo


def _section(title):
    print(f"\n== {title}")


def _show(ns, code):
    """Print code as typed at the interactive prompt, then run it as the prompt would (its
    expression values printed by repr): every line shown is the line run. An error is printed
    as its class name and message."""
    lines = code.split("\n")
    print(">>> " + lines[0])
    for line in lines[1:]:
        print("... " + line)
    try:
        exec(compile(code + "\n", "<python -m mxffi>", "single"), ns)
    except Exception as e:
        print(_error_line(e))


def _error_line(e):
    """The last line of the traceback Python would print for e."""
    cls = type(e)
    name = cls.__qualname__
    if cls.__module__ not in ("builtins", "__main__"):
        name = f"{cls.__module__}.{name}"
    return f"{name}: {e}"


def tour():
    print(f"mxffi {mxffi.__version__} ({mxffi._ffi.backend} core)")
    import inspect

    ns = {"__name__": "__main__", "mxffi": mxffi, "inspect": inspect}
    _section("call C++ functions registered with MXFFI_REGISTER_API")
    _show(ns, "import mxffi.testing")
    _show(ns, "mxffi.testing.add(1, 2), mxffi.testing.add(40), mxffi.testing.add(b=5, a=1)")
    _show(ns, "inspect.signature(mxffi.testing.add)")
    _show(ns, "mxffi.testing.echo({'xs': [1, 2.5, 'three'], 'shape': mxffi.Shape((3, 4))})")

    _section("register a Python function and call it from C++")
    _show(
        ns, '@mxffi.register_func("demo.square", override=True)\ndef square(x):\n    return x * x\n'
    )
    _show(ns, 'mxffi.testing.apply(mxffi.get_global_func("demo.square"), 7)  # C++ calls it')
    _show(ns, "mxffi.testing.apply_in_thread(lambda s: s.upper(), 'from a C++ thread')")

    _section("errors cross the boundary both ways")
    _show(ns, "mxffi.testing.raise_error('ValueError', 'raised in C++')")
    _show(ns, "issubclass(mxffi.error.ValueError, ValueError)")
    _show(ns, "mxffi.testing.add(1 << 63, 1)")
    _show(ns, "class TourError(Exception):\n    pass\n")
    _show(ns, "def fail(x):\n    raise TourError(f'raised in a Python callback with {x!r}')\n")
    _show(ns, "mxffi.testing.apply(fail, 42)  # the same exception object comes back")

    try:
        import numpy  # noqa: F401
    except ImportError:
        return
    _section("numpy arrays arrive in C++ as borrowed DLTensors, no copy")
    _show(ns, "import numpy")
    _show(ns, "a = numpy.arange(12.0).reshape(3, 4); mxffi.testing.tensor_first_f64(a[1:, 2:])")

    _section("mxffi.np: numpy-style ops, each one call into C++ (Op registry + Invoke)")
    _show(ns, "x = mxffi.np.arange(12.0).reshape(3, 4); x.T")
    _show(ns, "mxffi.np.tensordot(x, x.T, axes=1)  # GEMM through OpenBLAS")
    _show(ns, "mxffi.np.zeros((2, 3), dtype='float32') + 1.5  # NEP 50: the float stays weak")
    _show(ns, "mxffi.np.quadratic(x, a=1, b=-2, c=0.5).tolist()[0]")
    _show(ns, "y = numpy.from_dlpack(x); y[0, 0] = 42.0; float(x[0, 0])  # the same memory")
    _show(ns, "mxffi.ops.invoke('quadratic', x, a='bad')")

    _section("sparse arrays: csr and row_sparse kernels, a dense fallback that says so")
    _show(ns, "m = numpy.array([[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 3.0]])")
    _show(ns, "c = mxffi.nd.sparse.csr_matrix(m); c")
    _show(ns, "mxffi.nd.sparse.dot(c, mxffi.np.ones((3, 2))).tolist()  # csr x dense kernel")
    _show(ns, "(c * 2.0).stype, mxffi.ops.dispatch('quadratic', c, a=1.0, c=1.0)")
    _show(ns, "mxffi.nd.sparse.csr_matrix(([1.0], [5], [0, 1, 1, 1]), shape=(3, 3))")


def _time_per_call(fn, args, loops):
    perf = time.perf_counter_ns
    t0 = perf()
    for _ in range(loops):
        fn(*args)
    return (perf() - t0) / loops


def latency_table(rounds=15, loops=20000):
    from mxffi._ffi import ctypes_backend

    lib = ctypes.CDLL(libinfo.find_lib("mxffi_testing"))
    c_nop = lib.MXFFITestingNop
    c_nop.argtypes, c_nop.restype = [], None
    c_add = lib.MXFFITestingAddFloat
    c_add.argtypes, c_add.restype = [ctypes.c_double, ctypes.c_double], ctypes.c_double
    rows = {
        "nop()": [
            ("mxffi (vectorcall)", mxffi.get_global_func("testing.nop"), ()),
            ("mxffi (ctypes core)", ctypes_backend.get_global_func("testing.nop"), ()),
            ("ctypes, plain C function", c_nop, ()),
        ],
        "add_float(1.5, 2.25)": [
            ("mxffi (vectorcall)", mxffi.get_global_func("testing.add_float"), (1.5, 2.25)),
            (
                "mxffi (ctypes core)",
                ctypes_backend.get_global_func("testing.add_float"),
                (1.5, 2.25),
            ),
            ("ctypes, plain C function", c_add, (1.5, 2.25)),
        ],
    }
    try:
        import numpy as np

        rows["add_float(1.5, 2.25)"].append(("numpy.add", np.add, (1.5, 2.25)))
    except ImportError:
        pass
    cases = [(shape, name, fn, args) for shape, items in rows.items() for name, fn, args in items]
    samples = {(shape, name): [] for shape, name, _, _ in cases}
    for _ in range(rounds):
        random.shuffle(cases)
        for shape, name, fn, args in cases:
            samples[(shape, name)].append(_time_per_call(fn, args, loops))
    print("\n| call | binding | median ns/call | its ns / mxffi (vectorcall)'s ns |")
    print("| --- | --- | ---: | ---: |")
    for shape, items in rows.items():
        base = statistics.median(samples[(shape, items[0][0])])
        for name, _, _ in items:
            med = statistics.median(samples[(shape, name)])
            print(f"| {shape} | {name} | {med:.1f} | {med / base:.2f}x |")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mxffi", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer timing rounds")
    args = parser.parse_args(argv)
    tour()
    _section("call latency (median of randomized interleaved rounds, this machine)")
    latency_table(rounds=5 if args.quick else 15, loops=5000 if args.quick else 20000)
    return 0


if __name__ == "__main__":
    sys.exit(main())
