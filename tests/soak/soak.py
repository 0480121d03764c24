"""Soak: a million calls (by default) across every kind of argument and result the bindings
convert, each result checked, with resident memory read after a warm-up and at the end.

Each case below makes one call through an mxffi Function and checks what came back (some checks
make further calls, e.g. NDArray.numpy(); those are not counted). The cases run in rounds until
--calls calls are made. A tenth of the rounds (at least one) warm up caches, allocator pools
and interned strings; the resident set size (from /proc/self/statm) after them is the baseline.
The run fails, exit status 1, if it has grown by --max-growth-mb (5) or more at the end.

    python tests/soak/soak.py [--calls N] [--max-growth-mb M]

`scripts/soak.sh` runs it on the Cython core and the ctypes core; tests/python/test_soak.py
runs a few thousand calls so that it keeps working.
"""

import argparse
import gc
import os
import sys
import time

import numpy as np

import mxffi
import mxffi.np as mnp
import mxffi.testing as t
from mxffi.nd import sparse

_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes():
    """Resident set size of this process, from /proc/self/statm."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE_SIZE


class SoakError(Exception):
    """Raised by a Python callback called from C++; must come back to Python as itself."""


def _raise_soak_error(i):
    raise SoakError(f"callback failed at {i}")


def _expect(exc_type, match, fn, *args, **kwargs):
    """Call fn and check that it raises exc_type with match in its message."""
    try:
        fn(*args, **kwargs)
    except exc_type as e:
        if match not in str(e):
            raise AssertionError(f"{exc_type.__name__} without {match!r}: {e}") from e
        return
    raise AssertionError(f"{fn} did not raise {exc_type.__name__}")


def _check(got, want):
    if got != want:
        raise AssertionError(f"got {got!r}, expected {want!r}")


def make_cases():
    """The (kind, case) pairs: case(i) makes one counted call for iteration i and checks it."""
    point = t.make_point(3, 2.5, "soak")
    containers = t.make_containers()
    adt = containers["adt"]
    arr = mxffi.Array([1, "two", 3.0])
    string = mxffi.String("an mxffi.String, past the short-string limit")
    long_str = "a string longer than eight bytes"
    dtype = mxffi.DataType("int8x4")
    device = mxffi.Device("cpu", 1)
    x64 = np.arange(12, dtype="float64").reshape(3, 4)
    nd = mnp.array(x64)
    big = np.full((200, 200), 0.5)  # past the GIL-release threshold (2**15 elements)
    dense = np.array([[0, 2.0, 0, 0], [0, 0, 0, 0], [1.0, 0, 0, -3.0]])
    csr = sparse.csr_matrix(dense)
    rsp = sparse.row_sparse_array(dense)
    rhs = np.arange(8, dtype="float64").reshape(4, 2)
    csr_parts = (np.array([2.0, 1.0, -3.0]), np.array([1, 0, 3]), np.array([0, 1, 1, 3]))
    rsp_parts = (np.array([[0, 2.0, 0, 0], [1.0, 0, 0, -3.0]]), np.array([0, 2]))
    adder = t.make_adder(5)

    def check_nd(got, want):
        np.testing.assert_array_equal(got.numpy(), want)

    cases = [
        ("int", lambda i: _check(t.add(i, 7), i + 7)),
        ("int, keyword", lambda i: _check(t.add(i, b=-2), i - 2)),
        ("int, default", lambda i: _check(t.add(a=i), i + 1)),
        ("int overflow", lambda i: _expect(OverflowError, "overflows", t.add, 2**62, 2**62)),
        ("float", lambda i: _check(t.add_float(i * 0.5, 0.25), i * 0.5 + 0.25)),
        ("bool", lambda i: _check(t.sum3(i, 0.5, i % 2 == 0), i + 0.5 + (i % 2 == 0))),
        ("bool echo", lambda i: _check(t.echo(i % 3 == 0), i % 3 == 0)),
        ("None", lambda i: _check(t.echo(None), None)),
        ("str", lambda i: _check(t.concat("abc", "defghijk"), "abcdefghijk")),
        ("str borrowed", lambda i: _check(t.str_len("héllo"), 6)),
        ("str echo", lambda i: _check(t.echo(long_str), long_str)),
        ("bytes", lambda i: _check(t.echo(b"bytes-longer-than-8"), b"bytes-longer-than-8")),
        ("DataType", lambda i: _check(t.dtype_bits(dtype), 32)),
        ("dtype from str", lambda i: _check(mnp.zeros((2,), dtype="float16").dtype, "float16")),
        ("DataType echo", lambda i: _check(t.echo(dtype), dtype)),
        ("Device", lambda i: _check(t.echo(device), device)),
        ("callback", lambda i: _check(t.apply(lambda a, b: a * b, i, 3), 3 * i)),
        ("Function argument", lambda i: _check(t.apply(t.add, i, 4), i + 4)),
        ("Function result", lambda i: _check(adder(i), i + 5)),
        ("Function made", lambda i: _check(t.make_adder(i)(1), i + 1)),
        ("Object", lambda i: _check(t.make_point(i, 1.5, "p").x, i)),
        ("Object echo", lambda i: _check(t.echo(point).same_as(point), True)),
        ("Array", lambda i: _check(t.echo([i, "x", 2.5]), [i, "x", 2.5])),
        ("Array object", lambda i: _check(t.echo(arr).same_as(arr), True)),
        ("Map", lambda i: _check(t.echo({"k": i, "s": "v" * 12}), {"k": i, "s": "v" * 12})),
        ("Map result", lambda i: _check(t.make_containers()["shape"], (2, 3))),
        ("ADT", lambda i: _check(t.echo(adt).tag, 7)),
        ("tuple", lambda i: _check(t.echo((i, "y")), [i, "y"])),
        ("Shape", lambda i: _check(t.echo(mxffi.Shape((i, 2))), (i, 2))),
        ("String", lambda i: _check(t.echo(string), string)),
        ("numpy ndarray", lambda i: _check(t.tensor_first_f64(x64[1:]), 4.0)),
        ("DLPack capsule", lambda i: check_nd(mxffi.ndarray.from_dlpack(x64), x64)),
        ("mxffi NDArray", lambda i: _check(t.echo(nd).same_as(nd), True)),
        ("np.zeros", lambda i: check_nd(mnp.zeros((3, 4)), np.zeros((3, 4)))),
        ("np.add", lambda i: check_nd(mnp.add(nd, x64), 2 * x64)),
        ("np.sum, GIL released", lambda i: _check(float(mnp.sum(big).numpy()), 20000.0)),
        ("csr from parts", lambda i: _check(sparse.csr_matrix(csr_parts, shape=(3, 4)).nnz, 3)),
        ("csr dot", lambda i: check_nd(sparse.dot(csr, rhs), dense @ rhs)),
        ("csr relu", lambda i: check_nd(sparse.relu(csr).tostype("default"), np.maximum(dense, 0))),
        (
            "row_sparse from parts",
            lambda i: _check(sparse.row_sparse_array(rsp_parts, (3, 4)).nnz, 2),
        ),
        (
            "row_sparse add_n",
            lambda i: check_nd(sparse.add_n(rsp, rsp).tostype("default"), 2 * dense),
        ),
        (
            "error from C++",
            lambda i: _expect(ValueError, "soak", t.raise_error, "ValueError", "soak"),
        ),
        ("bad argument", lambda i: _expect(TypeError, "add", t.add, "x", 1)),
        (
            "error from callback",
            lambda i: _expect(SoakError, "failed at", t.apply, _raise_soak_error, i),
        ),
    ]
    return cases


def run(calls, max_growth_mb=5.0, out=sys.stdout):
    """Make at least `calls` checked calls; return a dict of figures. Raises AssertionError on a
    wrong result or when resident memory grew by max_growth_mb or more after the warm-up."""
    cases = make_cases()
    rounds = max(2, -(-calls // len(cases)))
    warmup = max(1, rounds // 10)

    def run_rounds(start, stop):
        for i in range(start, stop):
            for kind, case in cases:
                try:
                    case(i)
                except Exception as e:
                    raise AssertionError(f"soak: case {kind!r} failed at round {i}: {e}") from e

    run_rounds(0, warmup)
    gc.collect()
    before = rss_bytes()
    start = time.perf_counter()
    run_rounds(warmup, rounds)
    elapsed = time.perf_counter() - start
    gc.collect()
    after = rss_bytes()
    measured = (rounds - warmup) * len(cases)
    figures = {
        "core": "ctypes" if os.environ.get("MXFFI_FFI") == "ctypes" else "cython",
        "kinds": len(cases),
        "calls": rounds * len(cases),
        "measured_calls": measured,
        "seconds": elapsed,
        "calls_per_s": measured / elapsed if elapsed > 0 else float("inf"),
        "rss_before_mb": before / 2**20,
        "rss_after_mb": after / 2**20,
        "growth_mb": (after - before) / 2**20,
    }
    print(
        f"soak ({figures['core']} core): {figures['calls']:,} calls over {len(cases)} kinds; "
        f"{measured:,} after warm-up in {elapsed:.1f} s = {figures['calls_per_s']:,.0f} calls/s; "
        f"RSS {figures['rss_before_mb']:.1f} MB after warm-up -> "
        f"{figures['rss_after_mb']:.1f} MB at the end ({figures['growth_mb']:+.2f} MB)",
        file=out,
    )
    if figures["growth_mb"] >= max_growth_mb:
        raise AssertionError(
            f"soak: resident memory grew by {figures['growth_mb']:.2f} MB over {measured:,} calls; "
            f"expected less than {max_growth_mb} MB"
        )
    return figures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1_000_000, help="calls to make (1,000,000)")
    parser.add_argument(
        "--max-growth-mb", type=float, default=5.0, help="fail at this RSS growth or more (5)"
    )
    args = parser.parse_args(argv)
    if args.calls < 1:
        parser.error(f"--calls must be >= 1, got {args.calls}")
    try:
        run(args.calls, args.max_growth_mb)
    except AssertionError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
