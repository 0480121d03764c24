"""Python callables called from C++: arguments and results, exceptions travelling back through
C++, calls from C++-started threads, and register_func."""

import threading
import traceback
import uuid

import pytest

import mxffi
import mxffi.testing as t


class CallbackError(Exception):
    """A custom exception class, to check the type survives the trip through C++."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def unique(prefix):
    """A global name no other test uses: registrations are process-wide."""
    return f"py_test.{prefix}_{uuid.uuid4().hex[:8]}"


# ---------------------------------------------------------------------------------------------
# Arguments and results


def test_apply_calls_python_callable_with_arguments():
    assert t.apply(lambda a, b: a * b, 6, 7) == 42
    assert t.apply(lambda s, n: s * n, "ab", 3) == "ababab"
    assert t.apply(lambda: None) is None


def test_callback_receives_values_with_python_types():
    seen = []

    def record(*args):
        seen.extend(args)
        return len(args)

    args = ["short", "a long string, past 8", b"b", b"long bytes, past 8", 1.5, True, None, 7]
    assert t.apply(record, *args) == len(args)
    assert seen == args
    assert [type(x) for x in seen] == [type(x) for x in args]


def test_callback_receives_containers_and_shapes():
    seen = []
    t.apply(lambda *a: seen.extend(a), [1, "x"], {"k": 2}, mxffi.Shape([3, 4]))
    assert type(seen[0]) is mxffi.Array and seen[0] == [1, "x"]
    assert type(seen[1]) is mxffi.Map and seen[1] == {"k": 2}
    assert type(seen[2]) is mxffi.Shape and seen[2] == (3, 4)


def test_callback_receives_dtype_and_device():
    seen = []
    t.apply(lambda *a: seen.extend(a), mxffi.DataType("int8x4"), mxffi.Device("cuda", 2))
    assert seen == [mxffi.DataType("int8x4"), mxffi.Device("cuda", 2)]


def test_callback_receives_functions_it_can_call():
    assert t.apply(lambda f: f(20, 22), t.add) == 42
    assert t.apply(lambda f: f(1), lambda x: x + 100) == 101


@pytest.mark.parametrize(
    ("result", "expected_type"),
    [
        ("xy", str),
        ("x" * 20, str),
        ("é" * 10, str),
        (b"\0" * 3, bytes),
        (b"\0" * 9, bytes),
        (1 << 62, int),
        (-2.5, float),
        (False, bool),
        (None, type(None)),
        ([1, [2]], mxffi.Array),
        ({"a": 1}, mxffi.Map),
        (mxffi.Shape([4, 5]), mxffi.Shape),
        (mxffi.DataType("float16"), mxffi.DataType),
    ],
    ids=repr,
)
def test_callback_result_converted_back(result, expected_type):
    out = t.apply(lambda: result)
    assert type(out) is expected_type
    assert out == result


def test_callback_returning_a_function_gives_a_callable_function():
    adder = t.apply(lambda: lambda y: y * 2)
    assert isinstance(adder, mxffi.Function)
    assert adder(21) == 42


def test_callback_result_past_int64_raises_overflow_error():
    with pytest.raises(OverflowError, match="1180591620717411303424 does not fit in int64"):
        t.apply(lambda: 1 << 70)


def test_callback_result_unconvertible_raises_type_error():
    with pytest.raises(TypeError, match="builtins.object, which mxffi cannot pass to C"):
        t.apply(lambda: object())


def test_callback_result_lone_surrogate_raises_unicode_encode_error():
    with pytest.raises(UnicodeEncodeError):
        t.apply(lambda: "\ud800")


def test_non_callable_where_a_callable_is_converted_raises_type_error():
    with pytest.raises(TypeError, match="expected a callable, got int"):
        mxffi.register_func(unique("not_callable"), 3)


# ---------------------------------------------------------------------------------------------
# Exceptions from callbacks


def test_callback_exception_reraised_with_its_class_and_attributes():
    def fail(x):
        raise CallbackError(f"bad input {x}", code=x * 10)

    with pytest.raises(CallbackError) as info:
        t.apply(fail, 4)
    assert str(info.value) == "bad input 4"
    assert info.value.code == 40


def test_callback_exception_is_the_very_same_object():
    original = CallbackError("the one", code=1)

    def fail():
        raise original

    with pytest.raises(CallbackError) as info:
        t.apply(fail)
    assert info.value is original


def test_callback_exception_traceback_includes_the_callback_frame():
    def failing_callback_frame():
        raise CallbackError("deep", code=0)

    with pytest.raises(CallbackError) as info:
        t.apply(failing_callback_frame)
    text = "".join(traceback.format_exception(info.value))
    assert "failing_callback_frame" in text
    assert 'raise CallbackError("deep", code=0)' in text
    frames = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert "failing_callback_frame" in frames
    assert frames.index("failing_callback_frame") > frames.index(
        "test_callback_exception_traceback_includes_the_callback_frame"
    )


@pytest.mark.parametrize(
    "exc", [ValueError("v"), KeyError("k"), ZeroDivisionError("z"), SystemExit(3)], ids=repr
)
def test_builtin_exceptions_from_callbacks_keep_their_class(exc):
    def fail():
        raise exc

    with pytest.raises(type(exc)) as info:
        t.apply(fail)
    assert info.value is exc


def test_callback_exception_through_nested_cpp_calls():
    def inner():
        return 1 / 0

    with pytest.raises(ZeroDivisionError, match="division by zero"):
        t.apply(t.apply, t.apply, inner)


def test_callback_exception_through_cpp_thread():
    original = CallbackError("from a C++ thread", code=7)

    def fail(x):
        raise original

    with pytest.raises(CallbackError) as info:
        t.apply_in_thread(fail, 1)
    assert info.value is original
    assert info.value.code == 7


def test_callback_exception_with_broken_str_still_reraised():
    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("no str for you")

    original = Unprintable()

    def fail():
        raise original

    with pytest.raises(Unprintable) as info:
        t.apply(fail)
    assert info.value is original


def test_many_callback_exceptions_each_come_back():
    for i in range(300):

        def fail(i=i):
            raise CallbackError(f"n{i}", code=i)

        with pytest.raises(CallbackError) as info:
            t.apply(fail)
        assert info.value.code == i


# ---------------------------------------------------------------------------------------------
# Calls from a C++-started thread


def test_apply_in_thread_runs_callback_on_another_thread():
    idents = []

    def work(a, b):
        idents.append(threading.get_ident())
        return a * b + 1

    assert t.apply_in_thread(work, 6, 7) == 43
    assert len(idents) == 1
    assert idents[0] != threading.get_ident()


def test_apply_in_thread_passes_arguments_of_every_kind():
    args = ["s", "a string longer than eight", b"raw", 2.5, [1, 2], {"k": "v"}, None, True]
    out = t.apply_in_thread(lambda *a: list(a), *args)
    assert out == args


def test_apply_in_threads_calls_back_from_several_cpp_threads_at_once():
    idents = set()
    inside = []
    lock = threading.Lock()

    def work(j, x):
        with lock:
            idents.add(threading.get_ident())
            inside.append(j)
        return x * 10 + j

    assert list(t.apply_in_threads(work, 6, 4)) == [40 + j for j in range(6)]
    assert sorted(inside) == list(range(6))
    assert len(idents) == 6 and threading.get_ident() not in idents


def test_apply_in_threads_reraises_the_callback_error():
    def work(j, x):
        if j == 2:
            raise CallbackError(f"thread {j} of {x}", code=j)
        return j

    with pytest.raises(CallbackError, match="thread 2 of 3") as info:
        t.apply_in_threads(work, 4, 3)
    assert info.value.code == 2


@pytest.mark.parametrize("n", [0, -1, 65])
def test_apply_in_threads_bad_thread_count_raises_value_error(n):
    with pytest.raises(ValueError, match=f"num_threads must be in 1..64, got {n}"):
        t.apply_in_threads(lambda j, x: j, n, 0)


def test_apply_in_thread_from_python_threads_concurrently():
    errors = []
    results = {}

    def worker(k):
        try:
            total = 0
            for i in range(100):
                total += t.apply_in_thread(lambda a, b: a * b + k, i, 2)
            results[k] = total
        except BaseException as exc:  # reported below, in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=30)
    assert errors == []
    assert results == {k: sum(2 * i + k for i in range(100)) for k in range(8)}


# ---------------------------------------------------------------------------------------------
# register_func


def test_register_func_decorator_form():
    name = unique("decorated")

    @mxffi.register_func(name)
    def combine(x, y):
        return x * 10 + y

    assert combine(1, 2) == 12  # the decorator hands back the Python function
    assert name in mxffi.list_global_func_names()
    f = mxffi.get_global_func(name)
    assert isinstance(f, mxffi.Function)
    assert f(3, 4) == 34
    assert t.apply(f, 5, 6) == 56


def test_register_func_bare_decorator_uses_function_name():
    def py_test_bare_name_1f3e(x):
        return -x

    mxffi.register_func(py_test_bare_name_1f3e)
    assert "py_test_bare_name_1f3e" in mxffi.list_global_func_names()
    assert mxffi.get_global_func("py_test_bare_name_1f3e")(5) == -5


def test_register_func_direct_form_callable_from_cpp():
    name = unique("direct")
    returned = mxffi.register_func(name, lambda s: s.upper())
    assert callable(returned)
    assert name in mxffi.list_global_func_names()
    assert t.apply(mxffi.get_global_func(name), "shout") == "SHOUT"


def test_register_func_exception_travels_through_cpp():
    name = unique("raising")

    def fail(x):
        raise CallbackError("registered failure", code=x)

    mxffi.register_func(name, fail)
    with pytest.raises(CallbackError) as info:
        t.apply(mxffi.get_global_func(name), 9)
    assert info.value.code == 9


def test_reregister_without_override_raises_value_error_naming_it():
    name = unique("twice")
    mxffi.register_func(name, lambda: 1)
    with pytest.raises(ValueError) as info:
        mxffi.register_func(name, lambda: 2)
    assert isinstance(info.value, mxffi.MXFFIError)
    assert name in str(info.value)
    assert "already registered" in str(info.value)
    assert mxffi.get_global_func(name)() == 1  # the first one is kept


def test_registering_over_a_cpp_function_without_override_raises():
    with pytest.raises(ValueError, match="'testing.add' is already registered"):
        mxffi.register_func("testing.add", lambda a, b: 0)
    assert t.add(1, 2) == 3


def test_reregister_with_override_replaces():
    name = unique("override")
    mxffi.register_func(name, lambda x: x + 1)
    assert mxffi.get_global_func(name)(1) == 2
    mxffi.register_func(name, lambda x: x - 1, override=True)
    assert mxffi.get_global_func(name)(1) == 0
    assert t.apply(mxffi.get_global_func(name), 10) == 9


def test_register_func_name_must_be_str():
    with pytest.raises(TypeError) as info:
        mxffi.register_func(3, lambda: 0)
    assert str(info.value) == "mxffi.register_func: name must be a str, got int"


def test_register_and_lookup_name_themselves_for_bad_arguments():
    with pytest.raises(TypeError, match=r"^mxffi\.get_global_func: name must be a str, got int$"):
        mxffi.get_global_func(3)
    with pytest.raises(TypeError, match=r"name must be a str, got NoneType"):
        mxffi.get_global_func(None)
    with pytest.raises(ValueError, match=r"^mxffi\.register_func: name is empty$"):
        mxffi.register_func("", lambda: 0)
    name = unique("not_callable")
    with pytest.raises(TypeError, match=rf"^mxffi\.register_func: '{name}' expected a callable"):
        mxffi.register_func(name, 3)
    with pytest.raises(ValueError, match=r"^mxffi\.register_func: global function 'testing\.add'"):
        mxffi.register_func("testing.add", lambda a, b: 0)
    with pytest.raises(TypeError, match=r"^mxffi\.register_object: type_key must be a str"):
        mxffi.register_object(3)
    with pytest.raises(KeyError) as info:
        mxffi.register_object("mxffi.NoSuchType")(type("X", (mxffi.Object,), {}))
    assert info.value.args[0].startswith("mxffi.register_object: ")
    assert "no type registered as 'mxffi.NoSuchType'" in info.value.args[0]
    assert isinstance(info.value, mxffi.MXFFIError)
