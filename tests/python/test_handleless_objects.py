"""Objects with no C++ object behind them: every mxffi class made through __new__ without a
handle (the base Object's, a subclass's own __new__, an __init__ skipping the parent's) either
refuses to be made or raises a clear error on every use; none is read through a NULL handle.

Each case runs in a child interpreter, so a crash fails the test instead of ending the run."""

import pytest
from conftest import run_python

PRELUDE = """
import pickle
import mxffi
import mxffi.np as mx
import mxffi.testing as t
from mxffi.library import Library
from mxffi.nd import sparse

def show(f):
    try:
        r = f()
    except BaseException as e:
        print("RAISED", type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    else:
        print("RETURNED", type(r).__name__, repr(r)[:200])
"""


def child(code):
    proc = run_python(PRELUDE + code, timeout=120)
    assert proc.returncode == 0, f"child exited with {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc.stdout.strip().splitlines()


ARRAY_CLASSES = [
    "mxffi.NDArray",
    "sparse.CSRNDArray",
    "sparse.RowSparseNDArray",
    "sparse.BaseSparseNDArray",
]


@pytest.mark.parametrize("cls", ARRAY_CLASSES)
def test_array_classes_refuse_to_be_made_without_a_handle(cls):
    out = child(
        f"""
show(lambda: {cls}.__new__({cls}))
show(lambda: mxffi.Object.__new__({cls}))
class Skips({cls}):
    def __init__(self):
        pass
show(lambda: Skips())
class OwnNew({cls}):
    def __new__(k):
        return mxffi.Object.__new__(k)
show(lambda: OwnNew())
show(lambda: object.__new__({cls}))
"""
    )
    assert (
        out[0] == "RAISED TypeError mxffi.NDArray objects are made by mxffi functions, not directly"
    )
    assert out[1].startswith("RAISED TypeError mxffi._ffi.core.Object.__new__(")
    assert out[1].endswith(
        "is not safe, use "
        + ("mxffi.NDArray" if cls == "mxffi.NDArray" else cls.split(".")[1])
        + ".__new__()"
    )
    assert out[2] == out[0]
    assert out[3].startswith("RAISED TypeError mxffi._ffi.core.Object.__new__(OwnNew) is not safe")
    assert out[4].startswith("RAISED TypeError object.__new__(")


@pytest.mark.parametrize(
    "cls, uses",
    [
        ("mxffi.Object", ["o.type_index", "o.type_key", "t.echo(o)", "pickle.dumps(o)"]),
        ("mxffi.Array", ["len(o)", "repr(o)", "list(o)", "o == []", "o[0]", "t.echo(o)"]),
        ("mxffi.Map", ["len(o)", "repr(o)", "'k' in o or o['k']", "dict(o)", "t.echo(o)"]),
        ("mxffi.ADT", ["o.tag", "len(o)", "repr(o)"]),
        ("Library", ["repr(o)", "o.path"]),
    ],
)
def test_objects_without_a_handle_raise_on_every_use(cls, uses):
    code = f"o = mxffi.Object.__new__({cls})\n" + "".join(f"show(lambda: {u})\n" for u in uses)
    out = child(code)
    assert len(out) == len(uses)
    for use, line in zip(uses, out, strict=True):
        assert line.startswith("RAISED "), f"{cls}: {use} -> {line}"
        assert "Error" in line.split()[1], f"{cls}: {use} -> {line}"


def test_function_without_a_handle_names_itself_when_called():
    out = child(
        """
f = mxffi.Function.__new__(mxffi.Function)
show(lambda: f(1))
show(lambda: f(x=1))
show(lambda: f())
class Skips(mxffi.Function):
    def __init__(self):
        pass
show(lambda: Skips()(2))
show(lambda: t.echo(f))
show(lambda: repr(f))
"""
    )
    message = (
        "RAISED TypeError mxffi.Function: the function handle is NULL (a Function made "
        "without one); functions come from get_global_func, register_func or a call"
    )
    assert out[0] == message
    assert out[1] == message
    assert out[2] == message
    assert out[3] == message
    assert out[4] == (
        "RAISED ValueError testing.echo: argument #0 'x' is a Function whose handle is NULL"
    )
    assert out[5].startswith("RETURNED str")


def test_value_types_made_without_init_are_refused_where_used():
    out = child(
        """
d = mxffi.DataType.__new__(mxffi.DataType)
v = mxffi.Device.__new__(mxffi.Device)
show(lambda: mx.zeros(2, dtype=d))
show(lambda: mx.arange(3).astype(d))
show(lambda: mx.zeros(2, device=v))
"""
    )
    assert out[0] == (
        "RAISED ValueError np.zeros: argument #1 'dtype': a data type has at least one lane; "
        "got lanes=0"
    )
    assert out[1].startswith("RAISED ValueError np.astype: argument #1 'dtype'")
    assert out[2].startswith(
        "RAISED NotImplementedError np.zeros: argument #2 'device': device type 0 is not supported"
    )
