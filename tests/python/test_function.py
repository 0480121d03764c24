"""Calling registered functions: positional and keyword arguments, defaults, the errors for
bad calls, signatures and docs, global lookup."""

import inspect
import pydoc
import re

import pytest
from conftest import run_python

import mxffi
import mxffi.testing as t

# ---------------------------------------------------------------------------------------------
# Keyword arguments and defaults


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: t.add(1, 2), 3),
        (lambda: t.add(a=1, b=2), 3),
        (lambda: t.add(b=5, a=1), 6),
        (lambda: t.add(1, b=5), 6),
        (lambda: t.add(1), 2),
        (lambda: t.add(a=41), 42),
        (lambda: t.add(-10), -9),
    ],
    ids=["positional", "keywords", "keywords-reversed", "mixed", "default", "kw-default", "neg"],
)
def test_add_with_keywords_and_default(call, expected):
    assert call() == expected


def test_keywords_on_three_argument_function_map_to_positions():
    assert t.sum3(flag=True, b=0.5, a=2) == 3.5
    assert t.sum3(2, flag=False, b=0.25) == 2.25


def test_keyword_call_through_tp_call_path():
    # functools.partial and PyObject_Call reach Function.__call__ rather than the vectorcall slot.
    import functools

    assert functools.partial(t.add, b=10)(5) == 15
    assert t.add.__call__(b=3, a=4) == 7


def test_unknown_keyword_raises_type_error_naming_function_and_keyword():
    with pytest.raises(TypeError) as info:
        t.add(1, c=2)
    assert str(info.value) == (
        "testing.add: unexpected keyword argument 'c'; the arguments are (a, b)"
    )


def test_duplicate_argument_raises_type_error_naming_it():
    with pytest.raises(TypeError) as info:
        t.add(1, a=2)
    assert str(info.value) == "testing.add: got multiple values for argument 'a'"


def test_duplicate_second_argument_raises_type_error_naming_it():
    with pytest.raises(TypeError) as info:
        t.add(1, 2, b=3)
    assert str(info.value) == "testing.add: got multiple values for argument 'b'"


def test_missing_required_argument_raises_type_error_naming_it():
    with pytest.raises(TypeError) as info:
        t.add(b=2)
    assert str(info.value) == "testing.add: missing required argument 'a'"


def test_missing_several_required_arguments_names_them_all():
    with pytest.raises(TypeError) as info:
        t.sum3(flag=True)
    assert str(info.value) == "testing.sum3: missing required arguments 'a', 'b'"


def test_too_many_positional_with_keywords_raises_type_error():
    with pytest.raises(TypeError) as info:
        t.add(1, 2, 3, b=4)
    assert str(info.value) == (
        "testing.add: takes 2 arguments (a, b) but 3 positional arguments were given"
    )


@pytest.mark.parametrize(("args", "count"), [((), 0), ((1, 2, 3), 3)], ids=["none", "three"])
def test_wrong_positional_count_raises_type_error_from_cpp(args, count):
    with pytest.raises(TypeError) as info:
        t.add(*args)
    assert isinstance(info.value, mxffi.MXFFIError)
    assert str(info.value) == f"testing.add: expected 1 to 2 arguments, got {count}"


def test_keywords_to_a_function_without_argument_names_raise_type_error():
    anonymous = t.echo(t.add)  # a Function with no global name carries no signature
    with pytest.raises(TypeError) as info:
        anonymous(a=1)
    assert str(info.value) == (
        "mxffi.Function: keyword arguments ['a'] given, but the function has no registered "
        "argument names"
    )


@pytest.mark.parametrize("ffi", ["cython", "ctypes"])
def test_first_keyword_calls_from_many_threads_at_once(ffi):
    """Threads making the first keyword call of one fresh Function object together all see the
    whole signature (its lookup releases the GIL on the ctypes core), in a fresh interpreter so
    that no signature is cached yet."""
    proc = run_python(
        """
        import threading
        import mxffi

        names = ["testing.add", "testing.sum3", "testing.make_point", "testing.sleep_add"]
        calls = {
            "testing.add": lambda f: f(1, b=2) == 3,
            "testing.sum3": lambda f: f(1, b=0.5, flag=True) == 2.5,
            "testing.make_point": lambda f: f(x=1, y=2.0).x == 1,
            "testing.sleep_add": lambda f: f(1, 2, ms=0) == 3,
        }
        import mxffi.testing  # registers the testing.* functions
        errors = []
        for name in names:
            f = mxffi.get_global_func(name)
            barrier = threading.Barrier(8)

            def call(f=f, name=name, barrier=barrier):
                try:
                    barrier.wait(timeout=30)
                    assert calls[name](f)
                except BaseException as e:
                    errors.append(f"{name}: {type(e).__name__}: {e}")

            threads = [threading.Thread(target=call) for _ in range(8)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
        print(errors)
        """,
        env={"MXFFI_FFI": ffi},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_many_arguments_take_the_heap_path():
    # More arguments than the stack cells hold (6), of several kinds.
    args = [1, 2.5, "three", b"four", [5], {"six": 6}, None, True, "x" * 30]
    out = t.apply(lambda *a: list(a), *args)
    assert out == [1, 2.5, "three", b"four", [5], {"six": 6}, None, True, "x" * 30]
    assert t.apply(lambda *a: sum(a), *range(100)) == sum(range(100))


# ---------------------------------------------------------------------------------------------
# Signatures, docs, names


def test_signature_of_add_shows_default():
    sig = inspect.signature(t.add)
    assert str(sig) == "(a: int, b: int = 1) -> int"
    assert sig.parameters["b"].default == 1
    assert sig.parameters["a"].default is inspect.Parameter.empty


def test_signature_of_variadic_function():
    # A packed body registers no types: nothing to annotate its arguments with.
    assert str(inspect.signature(t.apply)) == "(*args) -> Any"


def test_help_shows_signature_and_doc():
    text = pydoc.render_doc(t.add, renderer=pydoc.plaintext)
    assert "add(a: int, b: int = 1) -> int" in text
    assert "a + b for integers." in text
    assert "a: int" in text
    assert "Returns: int" in text


def test_a_function_looked_up_by_name_has_signature_name_and_doc():
    # No init_api: an outside library's function found with get_global_func reads its
    # signature, name and doc from the registry when help() or inspect first asks.
    f = mxffi.get_global_func("testing.concat")
    assert str(inspect.signature(f)) == "(a: str, b: str) -> str"
    assert (f.__name__, f.__qualname__) == ("concat", "concat")
    text = pydoc.render_doc(mxffi.get_global_func("testing.concat"), renderer=pydoc.plaintext)
    assert "concat(a: str, b: str) -> str" in text
    assert "a + b for strings." in text
    anonymous = t.make_adder(1)  # no global name: nothing to read
    with pytest.raises(ValueError, match="no signature found"):
        inspect.signature(anonymous)
    with pytest.raises(AttributeError):
        anonymous.__name__  # noqa: B018


def test_doc_of_long_running_function_says_so():
    assert t.sleep_add.__doc__.startswith("Sleep ms milliseconds with the GIL released")
    assert "Long-running: called with the GIL released." in t.sleep_add.__doc__
    assert "Long-running" not in t.add.__doc__


def test_function_names():
    assert t.add.__name__ == "add"
    assert t.add.__qualname__ == "add"
    assert t.add.__module__ == "mxffi.testing"
    assert t.add.name == "testing.add"
    assert repr(t.add) == "<mxffi.Function testing.add>"
    assert re.fullmatch(r"<mxffi\.Function at 0x[0-9a-f]+>", repr(t.make_adder(1)))


def test_function_stored_on_a_class_stays_unbound():
    class Holder:
        add = t.add

    assert Holder().add(2, 3) == 5


def test_testing_module_lists_every_testing_global():
    names = [n for n in mxffi.list_global_func_names() if n.startswith("testing.")]
    assert "testing.add" in names and "testing.echo" in names
    for name in names:
        assert isinstance(getattr(t, name.split(".", 1)[1]), mxffi.Function), name


def test_list_global_func_names_is_sorted_strings():
    names = mxffi.list_global_func_names()
    assert names == sorted(names)
    assert all(type(n) is str for n in names)


# ---------------------------------------------------------------------------------------------
# Global lookup and long_running


def test_get_global_func_returns_callable_function():
    f = mxffi.get_global_func("testing.add")
    assert isinstance(f, mxffi.Function)
    assert f.name == "testing.add"
    assert f(2, b=3) == 5


def test_get_global_func_missing_raises_value_error_naming_it():
    with pytest.raises(ValueError) as info:
        mxffi.get_global_func("no.such_function")
    assert str(info.value) == "mxffi.get_global_func: no global function named 'no.such_function'"


def test_get_global_func_missing_allowed_returns_none():
    assert mxffi.get_global_func("no.such_function", allow_missing=True) is None


def test_long_running_flag_follows_registration():
    assert mxffi.get_global_func("testing.sleep_add").long_running is True
    assert mxffi.get_global_func("testing.poll_signals").long_running is True
    assert t.sleep_add.long_running is True
    assert t.add.long_running is False
    assert t.echo.long_running is False


def test_sleep_add_result_and_bad_argument():
    assert t.sleep_add(2, 3, 0) == 5
    assert t.sleep_add(a=2, b=3, ms=1) == 5
    with pytest.raises(ValueError) as info:
        t.sleep_add(1, 2, -1)
    assert str(info.value) == "testing.sleep_add: ms must be >= 0, got -1"
