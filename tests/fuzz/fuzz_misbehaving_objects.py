"""Atheris target: Python objects that misbehave, passed to mxffi.testing's and mxffi.np's
functions (and every other global fuzz_python_calls.py calls) as arguments, keyword arguments,
container items and callback results.

The objects, built from the fuzz bytes: subclasses of int, float, str, bytes, bytearray, list,
tuple and dict whose dunders (__len__, __index__, __int__, __float__, __iter__, __getitem__,
__bytes__, __hash__, __eq__) lie, raise or recurse; objects whose __index__ returns itself, a
float, a huge int or an int subclass, or clears the list being converted; __dlpack__ methods
that raise, return something other than a capsule, or a capsule of another name; classes that
borrow numpy's type names (numpy.ndarray, numpy.generic, numpy.dtype, numpy.bool_); numpy's long
double scalars and scalar subclasses whose .item() returns themselves; lists nested thousands
deep or containing themselves; callables that return such objects.

A call may raise any Exception, or the BaseException an object itself raised (ObjectRaised);
a crash, a SystemError, or any other BaseException is a finding. The corpus is replayed by the
ordinary test run (tests/python/test_fuzz_corpus.py).

usage: python tests/fuzz/fuzz_misbehaving_objects.py [libFuzzer flags] [corpus dirs]
"""

import os
import sys

import atheris
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

with atheris.instrument_imports(include=["mxffi"]):
    import mxffi  # noqa: F401 (imported here to be instrumented; used through CALLABLES)

from fuzz_python_calls import CALLABLES, _limit_memory  # noqa: E402

# The functions the objects go to first: conversion of every argument kind, and the np.*
# functions whose arguments are shapes, dtypes, scalars and arrays.
FOCUS = [
    (name, fn)
    for name, fn in CALLABLES
    if name.startswith(("testing.echo", "testing.add", "testing.apply", "testing.concat"))
    or name.startswith("mxffi.np.")
]


class ObjectRaised(BaseException):
    """Raised by a misbehaving object itself: it may surface from any call, unchanged."""


class ObjectError(Exception):
    """An ordinary error raised by a misbehaving object's dunder."""


def _dunder(fdp, container):
    """A function to install as a dunder, its behaviour fixed now from the fuzz bytes."""
    plan = [fdp.ConsumeIntInRange(0, 9) for _ in range(3)]
    ints = [fdp.ConsumeIntInRange(-3, 1 << 20) for _ in range(3)]
    calls = [0]

    def method(self, *args, **kwargs):
        step = plan[calls[0] % len(plan)]
        calls[0] += 1
        if step == 0:
            raise ObjectError("raised by a dunder")
        if step == 1:
            raise ObjectRaised("a BaseException raised by a dunder")
        if step == 2:
            return self
        if step == 3:
            return 2**70
        if step == 4:
            return -1
        if step == 5:
            return 1.5
        if step == 6:
            return "not a number"
        if step == 7:
            container.clear()
            return 3
        if step == 8:
            return np.longdouble(2.5)
        return ints[calls[0] % len(ints)]

    return method


DUNDERS = [
    "__len__",
    "__index__",
    "__int__",
    "__float__",
    "__iter__",
    "__getitem__",
    "__bytes__",
    "__hash__",
    "__eq__",
    "__str__",
    "__repr__",
    "__bool__",
    "__dlpack__",
    "__dlpack_device__",
    "__array__",
    "item",
]
BASES = [int, float, str, bytes, bytearray, list, tuple, dict, object]
SEEDS = {
    int: lambda fdp: fdp.ConsumeIntInRange(-5, 5),
    float: lambda fdp: fdp.ConsumeFloat(),
    str: lambda fdp: fdp.ConsumeUnicode(6),
    bytes: lambda fdp: fdp.ConsumeBytes(6),
    bytearray: lambda fdp: fdp.ConsumeBytes(6),
    list: lambda fdp: [fdp.ConsumeIntInRange(0, 3) for _ in range(fdp.ConsumeIntInRange(0, 3))],
    tuple: lambda fdp: [fdp.ConsumeIntInRange(0, 3) for _ in range(fdp.ConsumeIntInRange(0, 3))],
    dict: lambda fdp: {"a": fdp.ConsumeIntInRange(0, 3)},
}
NUMPY_NAMES = [
    ("ndarray", "numpy"),
    ("generic", "numpy"),
    ("float64", "numpy"),
    ("bool_", "numpy"),
    ("dtype", "numpy"),
    ("Float64DType", "numpy.dtypes"),
    ("Tensor", "torch"),
    ("device", "torch"),
    ("csr_matrix", "scipy.sparse._csr"),
]


@atheris.instrument_func
def _subclass_instance(fdp, holder):
    base = BASES[fdp.ConsumeIntInRange(0, len(BASES) - 1)]
    namespace = {}
    for _ in range(fdp.ConsumeIntInRange(1, 3)):
        namespace[DUNDERS[fdp.ConsumeIntInRange(0, len(DUNDERS) - 1)]] = _dunder(fdp, holder)
    if fdp.ConsumeIntInRange(0, 3) == 0:
        name, module = NUMPY_NAMES[fdp.ConsumeIntInRange(0, len(NUMPY_NAMES) - 1)]
        namespace["__module__"] = module
    else:
        name = f"Liar{base.__name__.capitalize()}"
    cls = type(name, (base,), namespace)
    if base is object:
        return cls()
    return cls(SEEDS[base](fdp))


@atheris.instrument_func
def _numpy_oddity(fdp):
    choice = fdp.ConsumeIntInRange(0, 5)
    if choice == 0:
        return np.longdouble(fdp.ConsumeFloat())
    if choice == 1:
        return np.clongdouble(complex(fdp.ConsumeFloat(), fdp.ConsumeFloat()))
    if choice == 2:
        cls = type("SelfItem", (np.float64,), {"item": lambda self: self})
        return cls(fdp.ConsumeFloat())
    if choice == 3:
        cls = type("SelfItemInt", (np.int32,), {"item": lambda self: self})
        return cls(fdp.ConsumeIntInRange(-5, 5))
    if choice == 4:
        return np.array(fdp.ConsumeFloat(), dtype=np.longdouble)
    return np.float64(fdp.ConsumeFloat()).view(np.int64)


@atheris.instrument_func
def _nested(fdp, holder):
    choice = fdp.ConsumeIntInRange(0, 3)
    if choice == 0:
        x = 0
        for _ in range(fdp.ConsumeIntInRange(0, 3000)):
            x = [x]
        return x
    if choice == 1:
        x = [1, 2]
        x.append(x)  # a list containing itself
        return x
    if choice == 2:
        d = {"k": 1}
        d["self"] = d
        return d
    # A list whose item's __index__ clears it while it is being converted.
    holder.extend([0, 1, 2])
    item = type("Clears", (), {"__index__": _dunder(fdp, holder)})()
    holder.insert(fdp.ConsumeIntInRange(0, 3), item)
    return holder


@atheris.instrument_func
def _value(fdp, depth=0):
    kind = fdp.ConsumeIntInRange(0, 8)
    holder = []
    if kind <= 2:
        return _subclass_instance(fdp, holder)
    if kind == 3:
        return _numpy_oddity(fdp)
    if kind == 4:
        return _nested(fdp, holder)
    if kind == 5 and depth < 2:
        items = [_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 3))]
        return items if fdp.ConsumeBool() else tuple(items)
    if kind == 6 and depth < 2:
        result = _value(fdp, depth + 1)
        return lambda *a, **k: result  # a callback returning a misbehaving object
    if kind == 7:
        return (fdp.ConsumeIntInRange(0, 3),) * fdp.ConsumeIntInRange(0, 3)
    return fdp.ConsumeIntInRange(-2, 4)


class Finding(Exception):
    """A call failed in a way no misbehaving object should make it fail."""


@atheris.instrument_func
def _judge(name, exc):
    if isinstance(exc, SystemError):
        raise Finding(f"{name}: SystemError: {exc}") from exc
    if not isinstance(exc, (Exception, ObjectRaised)):
        raise Finding(f"{name}: {type(exc).__name__} escaped: {exc}") from exc


@atheris.instrument_func
def test_one_input(data):
    fdp = atheris.FuzzedDataProvider(data)
    pool = FOCUS if fdp.ConsumeBool() else CALLABLES
    for _ in range(fdp.ConsumeIntInRange(1, 3)):
        name, fn = pool[fdp.ConsumeIntInRange(0, len(pool) - 1)]
        args = [_value(fdp) for _ in range(fdp.ConsumeIntInRange(0, 3))]
        kwargs = {}
        if fdp.ConsumeIntInRange(0, 3) == 0:
            kwargs[("dtype", "shape", "axis", "out", "device")[fdp.ConsumeIntInRange(0, 4)]] = (
                _value(fdp)
            )
        try:
            result = fn(*args, **kwargs)
            repr(result)
        except Finding:
            raise
        except BaseException as exc:  # noqa: BLE001 - every exception is judged
            _judge(name, exc)


def main():
    np.seterr(all="ignore")
    sys.setrecursionlimit(100_000)  # a raised limit must not let deep nesting crash
    _limit_memory()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
