"""Calls of globals whose parameters are at most three ints, floats, strs or bools take a short
path (MXFFIPyCallScalars and the slots after it in fastcall.h) that reads these values straight
from their objects and hands anything else to the general path. Both paths must give the same
values and errors: ints on both sides of every machine-digit boundary, bools, None, strs,
subclasses and objects of other types that the general path converts or refuses."""

import numpy as np
import pytest

import mxffi
import mxffi.testing as t

# One CPython digit holds 30 bits: the values either side of one digit, of two, and of int64.
INTS = [0, 1, -1, 2, -2, 2**30 - 1, 2**30, -(2**30) + 1, -(2**30), 2**31, 2**60, -(2**60)]
INTS += [2**62, 2**63 - 1, -(2**63), 12345678901234, -98765432109876]


@pytest.mark.parametrize("a", INTS)
def test_ints_read_as_the_general_path_reads_them(a):
    add = mxffi.get_global_func("testing.add")
    echo = mxffi.get_global_func("testing.echo")  # no signature: the general path
    assert echo(a) == a and type(echo(a)) is int
    if -(2**63) < a < 2**63 - 1:
        assert add(a, 0) == a and add(0, a) == a and add(a, 1) == a + 1
    assert t.sum3(a, 0.0, False) == float(a)


def test_ints_past_int64_and_other_int_types():
    add = mxffi.get_global_func("testing.add")
    for big in (2**63, -(2**63) - 1, 2**64, 2**100):
        with pytest.raises(OverflowError, match=r"^testing.add: argument #0 'a' value"):
            add(big, 0)
    with pytest.raises(OverflowError, match="overflows int64"):
        add(2**63 - 1, 1)

    class MyInt(int):
        pass

    assert add(MyInt(5), np.int64(6)) == 11  # not exact ints: the general path converts them
    assert add(True, True) == 2  # a bool is an int to an int parameter, as before
    with pytest.raises(TypeError, match=r"^testing.add: argument #1 'b' expected int, got float"):
        add(1, 2.5)
    with pytest.raises(TypeError, match=r"argument #0 'a' expected int, got None"):
        add(None, 1)


def test_floats_strs_and_bools():
    assert t.add_float(1.5, 2.25) == 3.75
    assert t.add_float(1, 2) == 3.0  # ints to float parameters
    assert t.add_float(np.float64(0.5), 0.25) == 0.75
    assert t.sum3(1000, 1.5, True) == 1002.5 and t.sum3(-3, -0.5, False) == -3.5
    assert t.str_len("") == 0 and t.str_len("hello, world") == 12 and t.str_len("héllo") == 6
    assert t.concat("ab", "cd") == "abcd"
    with pytest.raises(UnicodeEncodeError):
        t.str_len("\ud800")
    with pytest.raises(TypeError, match=r"^testing.str_len: argument #0 's' expected str"):
        t.str_len(b"bytes")


def test_keyword_and_arity_errors_are_unchanged():
    add = mxffi.get_global_func("testing.add")
    assert add(a=2, b=3) == 5 and add(4) == 5 and add(1, b=2) == 3
    with pytest.raises(TypeError, match="testing.add"):
        add(1, 2, 3)
    nop = mxffi.get_global_func("testing.nop")
    assert nop() is None
    with pytest.raises(TypeError, match="testing.nop"):
        nop(1)


def test_functions_without_parameters_refuse_arguments_by_name():
    # A global without parameters that keeps the GIL has a slot of its own; arguments of any
    # kind go on to the general path and its TypeError.
    nop = mxffi.get_global_func("testing.nop")
    assert nop() is None and nop(*()) is None and nop(**{}) is None
    for call in (lambda: nop(1), lambda: nop(None), lambda: nop(x=1), lambda: nop(1, 2, 3, 4)):
        with pytest.raises(TypeError, match="testing.nop"):
            call()


def test_functions_without_parameters_return_every_kind_of_result_and_raise():
    # The slot returns None at once and hands other results and errors to the general code.
    assert isinstance(mxffi.get_global_func("runtime.num_threads")(), int)
    made = mxffi.get_global_func("testing.make_containers")()
    assert made["shape"] == (2, 3) and list(made["array"]) == [1, "two", 3.0]
    fail = mxffi.get_global_func("testing.raise_without_arguments")
    for _ in range(3):
        with pytest.raises(ValueError, match="testing.raise_without_arguments: raised as asked"):
            fail()


def test_long_running_scalar_functions_keep_their_flag_and_values():
    # Flagged functions keep the slot that releases the GIL around the call.
    f = mxffi.get_global_func("testing.sleep_add")
    assert f.long_running is True
    assert f(2, 3, 0) == 5
