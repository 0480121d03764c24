"""Python objects that misbehave on their way into C++: numpy scalars whose .item() is not a
Python number, __index__ returning something other than an int, bytes and bytearray subclasses
whose __len__ lies, classes that only borrow the names of numpy's types, containers nested
deeper than the C stack allows, and items that mutate the container being converted.

Each case that could take the process down runs in a child interpreter. Runs on both cores."""

import textwrap

from conftest import run_python

import mxffi

PRELUDE = """
import sys
import numpy as np
import mxffi
import mxffi.testing as t

def show(f):
    try:
        r = f()
    except BaseException as e:
        print("RAISED", type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    else:
        print("RETURNED", type(r).__name__, repr(r)[:200])
"""


def child(code):
    """The lines code printed in a fresh interpreter; fails the test when the child crashed."""
    proc = run_python(PRELUDE + textwrap.dedent(code), timeout=120)
    assert proc.returncode == 0, f"child exited with {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc.stdout.strip().splitlines()


# ---------------------------------------------------------------------------------------------
# numpy scalars whose .item() is not a Python number


def test_long_double_scalar_passes_as_its_float_value():
    out = child(
        """
        show(lambda: t.add_float(np.longdouble(1.5), 1.0))
        show(lambda: t.echo(np.longdouble(-0.25)))
        show(lambda: t.add_float(np.longdouble("1e4000"), 0.0))
        """
    )
    assert out[0] == "RETURNED float 2.5"
    assert out[1] == "RETURNED float -0.25"
    # float() of a long double past float64's range is inf, as numpy's own float() gives.
    assert out[2] == "RETURNED float inf"


def test_complex_long_double_scalar_passes_as_a_complex():
    # Its .item() is itself; complex() of it, as a long double's is float() of it.
    out = child(
        """
        show(lambda: t.echo(np.clongdouble(1 + 2j)))
        show(lambda: t.add_float(np.clongdouble(1), 1.0))
        show(lambda: t.echo(np.complex128(1 + 2j)))
        """
    )
    if mxffi._ffi.backend == "ctypes":  # the reference core passes no complex numbers
        assert out[0].endswith("has type numpy.clongdouble, which mxffi cannot pass to C++")
        assert out[2].endswith("has type builtins.complex, which mxffi cannot pass to C++")
        return
    assert out[0] == "RETURNED complex (1+2j)"
    assert out[1].startswith("RAISED TypeError testing.add_float: argument #0")
    assert out[2] == "RETURNED complex (1+2j)"


# ---------------------------------------------------------------------------------------------
# __index__ as CPython's operator.index reads it


def test_index_returning_a_non_int_raises_type_error_like_operator_index():
    out = child(
        """
        import operator
        class Self:
            def __index__(self):
                return self
        class Flt:
            def __index__(self):
                return 1.5
        class Chain:
            def __index__(self):
                return Self()
        for cls in (Self, Flt, Chain):
            show(lambda: operator.index(cls()))
            show(lambda: t.add(cls(), 1))
        """
    )
    for k, name in enumerate(("Self", "float", "Self")):
        assert out[2 * k] == f"RAISED TypeError __index__ returned non-int (type {name})"
        assert out[2 * k + 1] == (
            f"RAISED TypeError testing.add: argument #0 'a': __index__ returned non-int "
            f"(type {name})"
        )


def test_a_misbehaving_item_of_a_container_is_named_by_the_argument_holding_it():
    out = child(
        """
        class Self:
            def __index__(self):
                return self
        show(lambda: t.echo([1, [2, Self()]]))
        show(lambda: t.echo({"k": (Self(),)}))
        show(lambda: t.add(1, [Self()]))
        """
    )
    assert out == [
        "RAISED TypeError testing.echo: argument #0 'x' (an item 2 levels down): __index__ "
        "returned non-int (type Self)",
        "RAISED TypeError testing.echo: argument #0 'x' (an item 2 levels down): __index__ "
        "returned non-int (type Self)",
        "RAISED TypeError testing.add: argument #1 'b' (an item 1 level down): __index__ "
        "returned non-int (type Self)",
    ]


def test_index_returning_an_int_subclass_or_raising_behaves_like_operator_index():
    out = child(
        """
        import warnings
        warnings.simplefilter("ignore", DeprecationWarning)
        class Big(int):
            pass
        class ViaSub:
            def __index__(self):
                return Big(41)
        class Raises:
            def __index__(self):
                raise ZeroDivisionError("no index today")
        show(lambda: t.add(ViaSub(), 1))
        show(lambda: t.add(Raises(), 1))
        """
    )
    assert out == ["RETURNED int 42", "RAISED ZeroDivisionError no index today"]


# ---------------------------------------------------------------------------------------------
# bytes and bytearray subclasses: their storage, not what their dunders say


def test_bytes_subclass_lying_about_its_length_passes_its_real_bytes():
    out = child(
        """
        class Long(bytes):
            def __len__(self):
                return 4096
        class Short(bytes):
            def __len__(self):
                return 1
        class Negative(bytes):
            def __len__(self):
                return 0
        for cls in (Long, Short, Negative):
            show(lambda: t.echo(cls(b"abc\\0def")))
        """
    )
    assert out == ["RETURNED bytes b'abc\\x00def'"] * 3


def test_bytearray_subclass_lying_about_its_length_passes_its_real_bytes():
    out = child(
        """
        class Huge(bytearray):
            def __len__(self):
                return 1 << 26
        class Short(bytearray):
            def __len__(self):
                return 2
        for cls in (Huge, Short):
            show(lambda: t.echo(cls(b"xyz")))
        """
    )
    assert out == ["RETURNED bytes b'xyz'"] * 2


def test_bytes_subclass_overriding_bytes_passes_its_real_bytes():
    out = child(
        """
        class Liar(bytes):
            def __bytes__(self):
                return b"something else entirely"
        class LiarArray(bytearray):
            def __bytes__(self):
                return b"something else entirely"
        show(lambda: t.echo(Liar(b"real")))
        show(lambda: t.echo(LiarArray(b"real")))
        """
    )
    assert out == ["RETURNED bytes b'real'"] * 2


def test_container_subclasses_lying_about_their_items_pass_their_real_items():
    out = child(
        """
        class LyingList(list):
            def __iter__(self):
                return iter([9, 9, 9])
            def __len__(self):
                return 1000
        class LyingTuple(tuple):
            def __iter__(self):
                return iter([9])
        class LyingDict(dict):
            def items(self):
                return [("lie", 9)]
            def __iter__(self):
                return iter(["lie"])
        show(lambda: list(t.echo(LyingList([1, 2]))))
        show(lambda: list(t.echo(LyingTuple((1, 2)))))
        show(lambda: dict(t.echo(LyingDict({"a": 1})).items()))
        """
    )
    assert out == [
        "RETURNED list [1, 2]",
        "RETURNED list [1, 2]",
        "RETURNED dict {'a': 1}",
    ]


def test_shape_subclass_lying_about_its_items_passes_its_real_dimensions():
    out = child(
        """
        class Liar(mxffi.Shape):
            def __len__(self):
                return 1000
            def __getitem__(self, i):
                return 7
            def __iter__(self):
                return iter([9, 9, 9])
        show(lambda: tuple(t.echo(Liar((2, 3)))))
        """
    )
    assert out == ["RETURNED tuple (2, 3)"]


# ---------------------------------------------------------------------------------------------
# Types are numpy's by identity, not by their name


def test_classes_borrowing_numpy_type_names_are_not_read_as_numpy_objects():
    out = child(
        """
        fake_ndarray = type("ndarray", (), {"__module__": "numpy"})
        fake_with_dtype = type("ndarray", (), {"__module__": "numpy", "dtype": np.dtype("f4")})
        generic = type("generic", (), {"__module__": "numpy"})
        fake_scalar = type("float64", (generic,), {"__module__": "numpy",
                                                   "item": lambda self: self})
        fake_bool = type("bool_", (), {"__module__": "numpy", "__bool__": lambda self: True})
        fake_dtype = type("dtype", (), {"__module__": "numpy"})
        fake_dtypes = type("Float64DType", (), {"__module__": "numpy.dtypes"})
        for cls in (fake_ndarray, fake_with_dtype, fake_scalar, fake_bool, fake_dtype,
                    fake_dtypes):
            show(lambda: t.echo(cls()))
        show(lambda: t.echo(fake_scalar))
        """
    )
    names = [
        "numpy.ndarray",
        "numpy.ndarray",
        "numpy.float64",
        "numpy.bool_",
        "numpy.dtype",
        "numpy.dtypes.Float64DType",
    ]
    for line, name in zip(out, names, strict=False):
        assert line == (
            f"RAISED TypeError testing.echo: argument #0 'x' has type {name}, which mxffi "
            "cannot pass to C++"
        )
    # The class itself is not a numpy scalar type, so not a data type: a callable, passed as one.
    assert out[6].startswith("RETURNED Function")


def test_real_numpy_types_still_convert_after_the_identity_checks():
    out = child(
        """
        show(lambda: t.echo(np.bool_(True)))
        show(lambda: t.echo(np.float32(0.5)))
        show(lambda: t.add(np.int16(5), 1))
        show(lambda: str(t.echo(np.dtype("int8"))))
        show(lambda: str(t.echo(np.float32)))
        """
    )
    assert out == [
        "RETURNED bool True",
        "RETURNED float 0.5",
        "RETURNED int 6",
        "RETURNED str 'int8'",
        "RETURNED str 'float32'",
    ]


# ---------------------------------------------------------------------------------------------
# Nesting deeper than the C stack allows


def test_deeply_nested_list_raises_recursion_error_naming_the_function():
    out = child(
        """
        sys.setrecursionlimit(1_000_000)
        for depth in (10_000, 200_000):
            x = 0
            for _ in range(depth):
                x = [x]
            show(lambda: t.echo(x))
        d = {}
        for _ in range(10_000):
            d = {"k": d}
        show(lambda: t.echo(d))
        x = 0
        for _ in range(500):
            x = (x,)
        show(lambda: len(t.echo(x)))
        """
    )
    for line in out[:3]:
        assert line.startswith(
            "RAISED RecursionError testing.echo: argument #0 'x' is nested "
            "more than 1000 levels deep"
        ), line
    assert out[3] == "RETURNED int 1"


def test_deeply_nested_list_in_a_thread_raises_recursion_error():
    out = child(
        """
        import threading
        sys.setrecursionlimit(1_000_000)
        x = 0
        for _ in range(50_000):
            x = [x]
        threading.stack_size(4 << 20)
        th = threading.Thread(target=show, args=(lambda: t.echo(x),))
        th.start()
        th.join()
        """
    )
    assert out[0].startswith("RAISED RecursionError testing.echo: argument #0 'x' is nested")


def test_nesting_up_to_the_bound_round_trips_and_the_count_resets():
    out = child(
        """
        sys.setrecursionlimit(20_000)  # the ctypes core converts in Python frames
        x = 0
        for _ in range(999):
            x = [x]
        def depth(o):
            n = 0
            while isinstance(o, mxffi.Array):
                o, n = o[0], n + 1
            return n
        show(lambda: depth(t.echo(x)))
        y = [x, x]  # 1000 levels, counted from the argument itself
        show(lambda: len(t.echo(y)))
        show(lambda: t.echo([[[1]]])[0][0][0])
        """
    )
    assert out[0] == "RETURNED int 999"
    assert out[1] == "RETURNED int 2"
    assert out[2] == "RETURNED int 1"


# ---------------------------------------------------------------------------------------------
# Items that mutate the container being converted


def test_index_that_clears_or_grows_the_list_being_converted():
    out = child(
        """
        class Clears:
            def __init__(self, target):
                self.target = target
            def __index__(self):
                self.target.clear()
                return 7
        class Grows:
            def __init__(self, target):
                self.target = target
            def __index__(self):
                self.target.extend(range(10_000))
                return 8
        a = [None, 1, 2]
        a[0] = Clears(a)
        show(lambda: list(t.echo(a)))
        b = [None, 1, 2]
        b[0] = Grows(b)
        show(lambda: list(t.echo(b)))
        c = [1, 2, None]
        c[2] = Clears(c)
        show(lambda: t.add(c[2], 1))
        """
    )
    assert out[0] == "RETURNED list [7, 1, 2]"
    assert out[1] == "RETURNED list [8, 1, 2]"
    assert out[2] == "RETURNED int 8"


def test_dict_mutated_by_a_value_during_conversion_converts_a_snapshot():
    out = child(
        """
        class Mutates:
            def __init__(self, target):
                self.target = target
            def __index__(self):
                self.target.clear()
                return 3
        d = {"a": None, "b": 2}
        d["a"] = Mutates(d)
        show(lambda: dict(t.echo(d).items()))
        """
    )
    # The items are taken before any value is converted: the map holds what the dict held.
    assert out == ["RETURNED dict {'a': 3, 'b': 2}"]


# ---------------------------------------------------------------------------------------------
# Objects whose repr fails, shown in an error message


def test_an_object_whose_repr_raises_is_shown_without_replacing_the_error():
    # The value is named in the message; its __repr__ failing (numpy's own repr raises
    # SystemError for some malformed unicode arrays) must not become the exception raised.
    out = child(
        """
        class BadRepr:
            def __repr__(self):
                raise SystemError("repr fails")
        from mxffi import _ffi
        show(lambda: mxffi.Device("cpu", BadRepr()))
        show(lambda: mxffi.Device(BadRepr()))
        show(lambda: mxffi.Shape([2, BadRepr()]))
        show(lambda: _ffi.register_sparse_class(BadRepr(), mxffi.NDArray))
        show(lambda: _ffi.register_sparse_class(_ffi.STORAGE_CSR, BadRepr()))
        show(lambda: mxffi.register_object("mxffi.Array")(BadRepr()))
        show(lambda: mxffi.Device("cpu", "x" * 500))
        """
    )
    shown = "<BadRepr object whose repr raised SystemError>"
    assert out[0] == f"RAISED TypeError mxffi.Device: device_id must be an int, got BadRepr {shown}"
    assert out[1].startswith("RAISED TypeError mxffi.Device: device_type must be a str or")
    assert out[1].endswith(f"got BadRepr {shown}")
    assert (
        out[2] == f"RAISED TypeError mxffi.Shape: dimension 1 must be an int, got BadRepr {shown}"
    )
    assert out[3].startswith("RAISED ValueError register_sparse_class: stype must be")
    assert out[3].endswith(f"got {shown}")
    assert out[4] == (
        "RAISED TypeError register_sparse_class: cls must be a subclass of mxffi.NDArray, got "
        + shown
    )
    assert out[5].startswith("RAISED TypeError mxffi.register_object:")
    # A long repr is cut: the message stays readable.
    assert out[6].endswith("got str '" + "x" * 76 + "...")
