"""C++ errors raised in Python: the class for each kind, the message, the C++ backtrace."""

import traceback

import numpy as np
import pytest

import mxffi
import mxffi.testing as t

KINDS = [
    TypeError,
    ValueError,
    IndexError,
    KeyError,
    AttributeError,
    MemoryError,
    NotImplementedError,
    OverflowError,
    RuntimeError,
    ZeroDivisionError,
    FileNotFoundError,
]


@pytest.mark.parametrize("builtin", KINDS, ids=lambda c: c.__name__)
def test_error_kind_raises_builtin_and_mxffi_error(builtin):
    with pytest.raises(builtin) as info:
        t.raise_error(builtin.__name__, "something broke: 3 != 4")
    exc = info.value
    assert isinstance(exc, builtin)
    assert isinstance(exc, mxffi.MXFFIError)
    assert type(exc).__name__ == builtin.__name__
    if builtin is KeyError:
        assert exc.args == ("something broke: 3 != 4",)
    else:
        assert str(exc) == "something broke: 3 != 4"


def test_error_class_is_the_same_for_every_raise_of_a_kind():
    classes = set()
    for _ in range(3):
        try:
            t.raise_error("ValueError", "x")
        except ValueError as exc:
            classes.add(type(exc))
    assert len(classes) == 1


@pytest.mark.parametrize("kind", ["MyCustomError", "not an identifier", ""], ids=repr)
def test_unknown_kind_is_a_runtime_error_subclass(kind):
    with pytest.raises(RuntimeError) as info:
        t.raise_error(kind, "custom failure")
    exc = info.value
    assert isinstance(exc, mxffi.MXFFIError)
    assert str(exc) == "custom failure"
    # Not mistaken for any more specific builtin.
    assert not isinstance(exc, (ValueError, TypeError, LookupError, NotImplementedError))


def test_unknown_identifier_kind_keeps_its_name():
    with pytest.raises(RuntimeError) as info:
        t.raise_error("MyCustomError", "m")
    assert type(info.value).__name__ == "MyCustomError"


def test_mxffi_error_can_be_caught_as_base_class():
    with pytest.raises(mxffi.MXFFIError):
        t.raise_error("IndexError", "out of range")


def test_non_ascii_message_survives():
    with pytest.raises(ValueError) as info:
        t.raise_error("ValueError", "ünïcödé ✓ 😀")
    assert str(info.value) == "ünïcödé ✓ 😀"


def test_cpp_backtrace_attached_and_names_the_testing_library():
    with pytest.raises(ValueError) as info:
        t.raise_error("ValueError", "boom")
    bt = info.value.cpp_backtrace
    assert isinstance(bt, str)
    assert "libmxffi_testing" in bt
    assert bt.lstrip().startswith("[0]")


def test_cpp_backtrace_shown_in_formatted_traceback():
    with pytest.raises(ValueError) as info:
        t.raise_error("ValueError", "boom from C++")
    text = "".join(traceback.format_exception(info.value))
    assert "boom from C++" in text
    assert "C++ backtrace (most recent call first):" in text
    assert "libmxffi_testing" in text
    # The Python frame that made the call is there too.
    assert "test_cpp_backtrace_shown_in_formatted_traceback" in text
    # The note holds the C++ frames only; the interpreter's own frames below the call are not
    # repeated there (they stay in cpp_backtrace).
    note = info.value.__notes__[0]
    assert "libpython" not in note and "_PyEval_EvalFrameDefault" not in note
    assert "libpython" in info.value.cpp_backtrace


def test_argument_conversion_error_inside_cpp_has_a_backtrace():
    with pytest.raises(TypeError) as info:
        t.add("one")
    assert isinstance(info.value, mxffi.MXFFIError)
    assert "libmxffi" in info.value.cpp_backtrace


def test_the_backtrace_starts_at_the_raiser_not_the_error_machinery():
    # An error made by MXFFI_THROW (a bounds check in testing.tensor_first_f64): its first frame
    # is the function that raised, not the builder whose destructor throws.
    with pytest.raises(ValueError) as info:
        t.tensor_first_f64(np.zeros((0, 2)))
    bt = info.value.cpp_backtrace
    assert "ErrorBuilder" not in bt
    first = bt.lstrip().splitlines()[0]
    assert first.startswith("[0] ") and "libmxffi_testing" in first


def test_error_raised_in_cpp_from_typed_body_check():
    with pytest.raises(OverflowError) as info:
        t.add((1 << 63) - 1, 1)
    assert isinstance(info.value, mxffi.MXFFIError)


def test_next_call_after_an_error_succeeds():
    with pytest.raises(KeyError):
        t.raise_error("KeyError", "k")
    assert t.add(1, 2) == 3
    assert t.echo("fine") == "fine"


def test_errors_raised_in_a_loop_are_independent():
    for i in range(50):
        kind = KINDS[i % len(KINDS)]
        with pytest.raises(kind) as info:
            t.raise_error(kind.__name__, f"error number {i}")
        assert f"error number {i}" in str(info.value)


def test_make_error_returns_an_error_object_without_raising():
    err = t.make_error("ValueError", "returned, not raised")
    assert isinstance(err, mxffi.Object)
    assert err.type_key == "mxffi.Error"


def test_non_function_passed_as_function_names_the_callee():
    with pytest.raises(TypeError) as info:
        t.apply(5)
    assert str(info.value).startswith("testing.apply: "), str(info.value)
    assert "int" in str(info.value)


def test_apply_with_no_function_raises_type_error():
    with pytest.raises(TypeError) as info:
        t.apply()
    assert str(info.value) == "testing.apply: argument #0 'f' expected Function, got nothing"


def test_mxffi_error_module_has_the_class_of_every_kind():
    import mxffi.error
    from mxffi._ffi.error import error_class

    assert mxffi.error.__all__[0] == "MXFFIError" and "AxisError" in mxffi.error.__all__
    for kind in mxffi.error.__all__[1:]:
        if kind.endswith("Warning"):  # the warning classes, not error kinds
            continue
        assert getattr(mxffi.error, kind) is error_class(kind), kind
