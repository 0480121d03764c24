"""Atheris target: registered globals and mxffi's public Python functions called with arbitrary
Python values and keyword arguments built from the fuzz bytes.

The values: ints (huge ones included), floats (nan, inf), str with lone surrogates and NULs,
bytes, None, nested tuples/lists/dicts, numpy arrays of odd dtypes, byte orders and strides,
numpy scalars, mxffi objects (dense and sparse arrays, containers, functions) and Python
callables. A call may raise TypeError, ValueError, KeyError, IndexError, OverflowError,
NotImplementedError, AttributeError, MemoryError, BufferError (numpy's __dlpack__ refusing an
array) or an mxffi.MXFFIError subclass with a message;
a crash, a SystemError, any other exception, or an exception without a message is a finding.

usage: python tests/fuzz/fuzz_python_calls.py [libFuzzer flags] [corpus dirs]
"""

import resource
import sys

import atheris
import numpy as np

with atheris.instrument_imports(include=["mxffi"]):
    import mxffi
    import mxffi.testing
    from mxffi.nd import sparse

# Globals a value built from bytes must not reach (the C++ value-cell target keeps the same list).
EXCLUDED = {
    "ndarray.from_dlpack",  # takes ownership of an opaque pointer: garbage by contract
    "library.load",  # opens files
    "testing.sleep_add",  # sleeps for a given time
    "testing.poll_signals",  # loops for a given time
    "testing.rendezvous",  # waits a given time for other callers
    "testing.apply_in_thread",  # a thread per call
    "testing.raise_error",  # raises whatever kind it is given, by design
    "ndarray.to_dlpack",  # returns an owning pointer the caller must free
}
AREAS = ("testing.", "np.", "sparse.", "container.", "ndarray.", "object.", "registry.", "ops.")


def _callables():
    out = []
    for name in mxffi.list_global_func_names():
        if name.startswith(AREAS) and name not in EXCLUDED:
            out.append((name, mxffi.get_global_func(name)))
    for mod, prefix in ((mxffi.np, "mxffi.np."), (sparse, "mxffi.nd.sparse.")):
        for attr in sorted(dir(mod)):
            fn = getattr(mod, attr)
            if not attr.startswith("_") and callable(fn) and not isinstance(fn, type):
                out.append((prefix + attr, fn))
    for cls in (mxffi.Array, mxffi.Map, mxffi.Shape, mxffi.String, mxffi.DataType, mxffi.Device):
        out.append((f"mxffi.{cls.__name__}", cls))
    return out


CALLABLES = _callables()
GLOBAL_NAMES = [name for name, _ in CALLABLES if not name.startswith("mxffi.")]
WORDS = [
    "float32",
    "int8x4",
    "float64",
    "bool",
    "uint8",
    "bfloat16",
    "cuda:1",
    "cpu",
    "cpu:0",
    "csr",
    "row_sparse",
    "default",
    "int32",
    "int64",
    "x",
    "",
    "label",
    "\x00",
    "\ud800",
    "f4",
    "<f8",
    ">f4",
    "gpu:-1",
    "np.zeros",
    "testing.add",
    "mxffi.Point",
]
KWARG_NAMES = [
    "dtype",
    "device",
    "shape",
    "axis",
    "keepdims",
    "idx_dtype",
    "stype",
    "transpose_a",
    "transpose_b",
    "a",
    "b",
    "x",
    "out",
    "copy",
    "order",
    "fill_value",
    "start",
    "stop",
    "step",
    "axes",
    "lr",
    "wd",
    "begin",
    "end",
    "indices",
    "forward_stype",
    "label",
    "versioned",
]
NP_DTYPES = [
    "float64",
    "float32",
    "float16",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "complex64",
    ">f4",
    ">i8",
    "<U3",
    "V4",
    "M8[s]",
    "object",
]
EDGE_INTS = [0, 1, -1, 2**31, 2**32, 2**62, 2**63 - 1, -(2**63), 2**63, 2**64, -(2**70), 10**30]


@atheris.instrument_func
def _np_array(fdp):
    dtype = NP_DTYPES[fdp.ConsumeIntInRange(0, len(NP_DTYPES) - 1)]
    shape = tuple(fdp.ConsumeIntInRange(0, 4) for _ in range(fdp.ConsumeIntInRange(0, 3)))
    n = int(np.prod(shape)) if shape else 1
    raw = fdp.ConsumeBytes(n * 16)
    try:
        base = np.frombuffer(raw.ljust(n * 16, b"\x00"), dtype=np.uint8)
        if dtype == "object":
            arr = np.array([None] * n, dtype=object).reshape(shape)
        else:
            dt = np.dtype(dtype)
            arr = base[: n * dt.itemsize].view(dt).reshape(shape).copy()
    except (ValueError, TypeError):
        arr = np.zeros(shape)
    choice = fdp.ConsumeIntInRange(0, 6)
    if choice == 1 and arr.ndim >= 1:
        arr = arr[::-1]
    elif choice == 2 and arr.ndim >= 1:
        arr = arr[::2]
    elif choice == 3:
        arr = arr.T
    elif choice == 4:
        arr = arr.copy()
        arr.setflags(write=False)
    elif choice == 5:
        # A misaligned view: one byte into a buffer.
        buf = np.zeros(arr.nbytes + 1, dtype=np.uint8)
        try:
            arr = buf[1:].view(arr.dtype).reshape(arr.shape)
        except (ValueError, TypeError):
            pass
    return arr


@atheris.instrument_func
def _mxffi_object(fdp):
    choice = fdp.ConsumeIntInRange(0, 7)
    shape = tuple(fdp.ConsumeIntInRange(0, 3) for _ in range(fdp.ConsumeIntInRange(0, 2)))
    if choice == 0:
        return mxffi.np.zeros(shape, dtype=NP_DTYPES[fdp.ConsumeIntInRange(0, 11)])
    if choice == 1:
        return sparse.zeros("csr", (fdp.ConsumeIntInRange(0, 4), fdp.ConsumeIntInRange(0, 4)))
    if choice == 2:
        return sparse.zeros("row_sparse", (fdp.ConsumeIntInRange(0, 4), 2))
    if choice == 3:
        return mxffi.Array(
            [fdp.ConsumeIntInRange(-3, 3) for _ in range(fdp.ConsumeIntInRange(0, 3))]
        )
    if choice == 4:
        return mxffi.Map({"a": 1, "b": "x"})
    if choice == 5:
        return mxffi.Shape(shape)
    if choice == 6:
        return mxffi.get_global_func(GLOBAL_NAMES[fdp.ConsumeIntInRange(0, len(GLOBAL_NAMES) - 1)])
    return mxffi.np.arange(fdp.ConsumeIntInRange(0, 6))


@atheris.instrument_func
def _value(fdp, depth=0):
    kind = fdp.ConsumeIntInRange(0, 16)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return fdp.ConsumeIntInRange(-4, 8)
    if kind == 3:
        return (
            EDGE_INTS[fdp.ConsumeIntInRange(0, len(EDGE_INTS) - 1)]
            if fdp.ConsumeBool()
            else fdp.ConsumeInt(12)
        )
    if kind == 4:
        return fdp.ConsumeFloat()
    if kind == 5:
        return WORDS[fdp.ConsumeIntInRange(0, len(WORDS) - 1)]
    if kind == 6:
        return fdp.ConsumeUnicode(12)
    if kind == 7:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 12))
    if kind in (8, 9) and depth < 3:
        items = [_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))]
        return tuple(items) if kind == 8 else items
    if kind == 10 and depth < 3:
        out = {}
        for _ in range(fdp.ConsumeIntInRange(0, 3)):
            key = _value(fdp, depth + 1)
            try:
                out[key] = _value(fdp, depth + 1)
            except TypeError:  # unhashable key
                pass
        return out
    if kind == 11:
        return _np_array(fdp)
    if kind == 12:
        return _mxffi_object(fdp)
    if kind == 13:
        scalars = (
            np.float32(1.5),
            np.int64(-3),
            np.bool_(True),
            np.float16("nan"),
            np.uint64(2**64 - 1),
        )
        return scalars[fdp.ConsumeIntInRange(0, len(scalars) - 1)]
    if kind == 14:
        result = _value(fdp, depth + 1) if depth < 3 else None
        if fdp.ConsumeBool():
            return lambda *a, **k: result

        def raiser(*a, **k):
            raise ValueError("raised by a fuzz callback")

        return raiser
    if kind == 15:
        return complex(fdp.ConsumeFloat(), fdp.ConsumeFloat())
    return range(fdp.ConsumeIntInRange(0, 5))


class Finding(Exception):
    """A call failed in a way no bad input should make it fail."""


EXPECTED = (
    TypeError,
    ValueError,
    KeyError,
    IndexError,
    OverflowError,
    NotImplementedError,
    AttributeError,
    MemoryError,
    # numpy's __dlpack__ refuses arrays DLPack cannot describe (non-native byte order, ...) with
    # BufferError and a message; it reaches the caller unchanged.
    BufferError,
)


@atheris.instrument_func
def _check_exception(name, exc):
    if isinstance(exc, SystemError):
        raise Finding(f"{name}: SystemError: {exc}") from exc
    if name == "mxffi.String" and type(exc) is LookupError and "unknown encoding" in str(exc):
        return  # mxffi.String is a str: str(b"..", "no-such-codec") raises LookupError too
    mx = isinstance(exc, mxffi.MXFFIError)
    if not (isinstance(exc, EXPECTED) or mx):
        raise Finding(f"{name}: unexpected {type(exc).__name__}: {exc}") from exc
    if isinstance(exc, RuntimeError) and "no kernel from" not in str(exc):
        raise Finding(f"{name}: RuntimeError (an escaped C++ exception?): {exc}") from exc
    if not str(exc) or str(exc) in ("''", '""'):
        raise Finding(f"{name}: {type(exc).__name__} without a message") from exc


@atheris.instrument_func
def _touch(name, result):
    """Read a result back the way a user would: repr, and an array's elements."""
    try:
        repr(result)
        if isinstance(result, mxffi.NDArray):
            result.shape, result.dtype  # noqa: B018
            if result.size < 10000:
                np.asarray(result.asnumpy() if hasattr(result, "asnumpy") else result)
    except Exception as exc:  # noqa: BLE001 - every exception is judged
        _check_exception(f"reading the result of {name}", exc)


@atheris.instrument_func
def test_one_input(data):
    fdp = atheris.FuzzedDataProvider(data)
    for _ in range(fdp.ConsumeIntInRange(1, 3)):
        name, fn = CALLABLES[fdp.ConsumeIntInRange(0, len(CALLABLES) - 1)]
        args = [_value(fdp) for _ in range(fdp.ConsumeIntInRange(0, 4))]
        kwargs = {}
        for _ in range(fdp.ConsumeIntInRange(0, 2)):
            key = KWARG_NAMES[fdp.ConsumeIntInRange(0, len(KWARG_NAMES) - 1)]
            if fdp.ConsumeIntInRange(0, 7) == 0:
                key = fdp.ConsumeUnicode(6)
            kwargs[key] = _value(fdp)
        try:
            result = fn(*args, **kwargs)
        except Finding:
            raise
        except Exception as exc:  # noqa: BLE001 - every exception is judged
            _check_exception(name, exc)
            continue
        _touch(name, result)


def _limit_memory(extra_bytes=1 << 30):
    """Cap the address space at what is mapped now plus extra_bytes, so that a huge requested
    array (np.ones(2**31)) fails with MemoryError instead of filling the machine's memory."""
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    resource.setrlimit(resource.RLIMIT_AS, (vm + extra_bytes, resource.RLIM_INFINITY))


def main():
    np.seterr(all="ignore")
    _limit_memory()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
