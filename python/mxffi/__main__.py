"""python -m mxffi: a short tour of mxffi, ending with a quick call-latency table.

The tour calls C++ functions from Python, registers a Python function that C++ calls, sends
errors across the boundary both ways, passes a numpy array without a copy and runs a few
mxffi.np ops. The table times
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
import mxffi.testing as testing
from mxffi._ffi import libinfo


def _section(title):
    print(f"\n== {title}")


def tour():
    print(f"mxffi {mxffi.__version__} ({mxffi._ffi.backend} core)")

    _section("call C++ functions registered with MXFFI_REGISTER_API")
    print(">>> mxffi.testing.add(1, 2), mxffi.testing.add(40), mxffi.testing.add(b=5, a=1)")
    print(testing.add(1, 2), testing.add(40), testing.add(b=5, a=1))
    sig = mxffi.registry.signature_of("testing.add")[0]
    print(f">>> inspect.signature(mxffi.testing.add) -> {sig}")
    print(">>> mxffi.testing.echo({'xs': [1, 2.5, 'three'], 'shape': mxffi.Shape((3, 4))})")
    print(testing.echo({"xs": [1, 2.5, "three"], "shape": mxffi.Shape((3, 4))}))

    _section("register a Python function and call it from C++")

    @mxffi.register_func("demo.square", override=True)
    def square(x):
        return x * x

    print('>>> @mxffi.register_func("demo.square") def square(x): return x * x')
    print('>>> mxffi.testing.apply(mxffi.get_global_func("demo.square"), 7)  # C++ calls it')
    print(testing.apply(mxffi.get_global_func("demo.square"), 7))
    print(">>> mxffi.testing.apply_in_thread(lambda s: s.upper(), 'from a C++ thread')")
    print(testing.apply_in_thread(lambda s: s.upper(), "from a C++ thread"))

    _section("errors cross the boundary both ways")
    try:
        testing.raise_error("ValueError", "raised in C++")
    except ValueError as e:
        print(
            f"C++ -> Python: {type(e).__module__}.{type(e).__name__}: {e} "
            f"(isinstance ValueError: {isinstance(e, ValueError)})"
        )
    try:
        testing.add(1 << 63, 1)
    except OverflowError as e:
        print(f"bad argument:  OverflowError: {e}")

    class TourError(Exception):
        pass

    def fail(x):
        raise TourError(f"raised in a Python callback with {x!r}")

    try:
        testing.apply(fail, 42)
    except TourError as e:
        print(f"Python -> C++ -> Python: {type(e).__name__}: {e} (the same exception object)")

    try:
        import numpy as np
    except ImportError:
        np = None
    if np is not None:
        _section("numpy arrays arrive in C++ as borrowed DLTensors, no copy")
        a = np.arange(12.0).reshape(3, 4)
        print(">>> a = numpy.arange(12.0).reshape(3, 4); mxffi.testing.tensor_first_f64(a[1:, 2:])")
        print(testing.tensor_first_f64(a[1:, 2:]))

        _section("mxffi.np: numpy-style ops, each one call into C++ (Op registry + Invoke)")
        mnp = mxffi.np
        x = mnp.arange(12.0).reshape(3, 4)
        print(">>> x = mxffi.np.arange(12.0).reshape(3, 4); x.T")
        print(repr(x.T))
        if hasattr(mnp, "tensordot"):
            print(">>> mxffi.np.tensordot(x, x.T, axes=1)  # GEMM through OpenBLAS")
            print(repr(mnp.tensordot(x, x.T, axes=1)))
        print(">>> mxffi.np.zeros((2, 3), dtype='float32') + 1.5  # NEP 50: the float stays weak")
        print(repr(mnp.zeros((2, 3), dtype="float32") + 1.5))
        print(">>> mxffi.np.quadratic(x, a=1, b=-2, c=0.5)[0]")
        print(repr(mnp.quadratic(x, a=1, b=-2, c=0.5).tolist()[0]))
        print(">>> numpy.from_dlpack(x) shares memory; mxffi.ops.invoke('quadratic', x, a='bad')")
        try:
            mxffi.ops.invoke("quadratic", x, a="bad")
        except ValueError as e:
            print(f"ValueError: {e}")

        _section("sparse arrays: csr and row_sparse kernels, a dense fallback that says so")
        sparse = mxffi.nd.sparse
        c = sparse.csr_matrix(np.array([[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 3.0]]))
        print(">>> c = mxffi.nd.sparse.csr_matrix(numpy_matrix_with_3_nonzeros); c")
        print(repr(c))
        print(">>> mxffi.nd.sparse.dot(c, mxffi.np.ones((3, 2))).tolist()  # csr x dense kernel")
        print(sparse.dot(c, mnp.ones((3, 2))).tolist())
        print(">>> (c * 2.0).stype, mxffi.ops.dispatch('quadratic', c, a=1.0, c=1.0)")
        print((c * 2.0).stype, mxffi.ops.dispatch("quadratic", c, a=1.0, c=1.0))
        try:
            sparse.csr_matrix(([1.0], [5], [0, 1, 1, 1]), shape=(3, 3))
        except ValueError as e:
            print(f"bad parts: ValueError: {e}")


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
    print("\n| call | binding | median ns/call | vs mxffi |")
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
