"""Exceptions raised in Python callbacks that C++ called: none may vanish, and none may be kept
alive after C++ let go of it.

An exception from a callback waits in a table for the outer Python caller, who raises the very
same object again. These tests misbehave on purpose: the failure happens at the recursion limit,
the exception cannot be printed, many C++ threads fail at the same time, or C++ catches the error
and drops it.
"""

import gc
import threading
import weakref

import pytest
from conftest import run_python

import mxffi
import mxffi.testing as t
from mxffi._ffi import error as _error


class CallbackError(Exception):
    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------------------------------------
# Recursion through callbacks: the RecursionError comes back, whatever depth it is raised at


def test_deep_recursion_through_callbacks_raises_recursion_error():
    out = run_python(
        """
        import mxffi.testing as t

        def f(n):
            return t.apply(f, n - 1) if n else 0

        try:
            print("returned", repr(f(10000)))
        except RecursionError as e:
            print("RecursionError")
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "RecursionError"
    assert "Exception ignored" not in out.stderr


def test_recursion_error_at_every_depth_near_the_limit_comes_back():
    # The limit is hit in a different place each time: converting the arguments, calling the
    # callable, converting its result, or recording the error itself.
    out = run_python(
        """
        import sys
        import mxffi.testing as t

        def g(n, *rest):
            return t.apply(g, n + 1, "s", 2.5, [1, 2]) if n < 100000 else n

        seen = set()
        base = sys.getrecursionlimit()
        for extra in range(0, 60):
            sys.setrecursionlimit(200 + extra)
            try:
                r = g(0)
                seen.add(("returned", repr(r)))
            except RecursionError:
                seen.add("RecursionError")
        sys.setrecursionlimit(base)
        print(sorted(map(str, seen)))
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['RecursionError']"
    assert "Exception ignored" not in out.stderr


# ---------------------------------------------------------------------------------------------
# Exceptions that cannot be printed


def _unprintable(raised):
    class Unprintable(Exception):
        def __str__(self):
            raise raised

        def __repr__(self):
            raise raised

    return Unprintable


@pytest.mark.parametrize(
    "raised",
    [
        KeyboardInterrupt,
        RecursionError,
        MemoryError,
        ValueError,
    ],
)
def test_exception_whose_str_raises_is_reraised_itself(raised):
    original = _unprintable(raised)()

    def fail():
        raise original

    with pytest.raises(type(original)) as info:
        t.apply(fail)
    assert info.value is original


def test_exception_whose_str_raises_through_a_cpp_thread():
    original = _unprintable(KeyboardInterrupt)()

    def fail(x):
        raise original

    with pytest.raises(type(original)) as info:
        t.apply_in_thread(fail, 1)
    assert info.value is original


def test_exception_whose_str_raises_system_exit_is_reraised_itself():
    # In a child: a SystemExit escaping would end this test run.
    out = run_python(
        """
        import mxffi.testing as t

        class Unprintable(Exception):
            def __str__(self):
                raise SystemExit(3)

            __repr__ = __str__

        original = Unprintable()

        def fail(*args):
            raise original

        for call in (lambda: t.apply(fail), lambda: t.apply_in_thread(fail, 1)):
            try:
                call()
                print("returned")
            except Unprintable as e:
                print("same" if e is original else "other")
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["same", "same"]


def test_base_exception_from_a_callback_keeps_its_class():
    def fail():
        raise KeyboardInterrupt("from the callback")

    with pytest.raises(KeyboardInterrupt, match="from the callback"):
        t.apply(fail)


# ---------------------------------------------------------------------------------------------
# Callbacks failing on many C++ threads at once


def test_callbacks_failing_at_once_on_cpp_threads_never_lose_the_exception():
    def fail(j, x):
        raise CallbackError(f"thread {j} call {x}", code=j)

    for call in range(600):
        with pytest.raises(CallbackError) as info:
            t.apply_in_threads(fail, 32, call)
        # apply_in_threads re-raises the error of the lowest index that failed
        assert info.value.code == 0
        assert str(info.value) == f"thread 0 call {call}"
    # the 31 errors of each call that were not re-raised are not kept either
    assert len(_error._PENDING) <= 1


def test_callbacks_failing_on_cpp_and_python_threads_together():
    failures = []

    def fail(j, x):
        raise CallbackError(f"{x}:{j}", code=x)

    def worker(k):
        for _ in range(40):
            try:
                t.apply_in_threads(fail, 8, k)
                failures.append(f"{k}: returned")
            except CallbackError as e:
                if e.code != k or str(e) != f"{k}:0":
                    failures.append(f"{k}: got {e.code} {e}")
            except BaseException as e:  # reported below
                failures.append(f"{k}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert failures == []


# ---------------------------------------------------------------------------------------------
# Errors that C++ swallows are not kept


class _Big:
    """A callback's local whose lifetime the tests follow."""

    def __init__(self):
        self.payload = bytearray(1 << 20)


def test_swallowed_callback_errors_are_dropped_with_their_frames():
    alive = []

    def fail(j, x):
        big = _Big()
        alive.append(weakref.ref(big))
        raise CallbackError("dropped", code=j)

    for _ in range(40):
        with pytest.raises(CallbackError):
            t.apply_in_threads(fail, 8, 0)
    gc.collect()
    # Each call re-raises one error and drops the other 7: none of them stays in the table,
    # and no frame of theirs keeps its 1 MB local alive.
    assert len(_error._PENDING) <= 1
    assert sum(r() is not None for r in alive) <= 1


def test_pending_errors_table_is_bounded():
    def fail(j, x):
        raise CallbackError("x", code=j)

    for _ in range(200):
        with pytest.raises(CallbackError):
            t.apply_in_threads(fail, 16, 0)
    assert len(_error._PENDING) <= _error._MAX_PENDING
    assert len(_error._PENDING) <= 1


def test_error_dropped_by_cpp_thread_exit_without_reraise():
    refs = []

    def fail(x):
        exc = CallbackError("kept by nobody", code=x)
        refs.append(weakref.ref(exc))
        raise exc

    # testing.apply_in_thread re-raises; a second call on the same thread replaces the first
    # error in the C++ thread's slot, which must release the first Python exception.
    for i in range(50):
        with pytest.raises(CallbackError):
            t.apply_in_thread(fail, i)
    gc.collect()
    assert sum(r() is not None for r in refs) <= 1
    assert len(_error._PENDING) <= 1


def test_set_foreign_calls_only_an_exported_release_function():
    set_foreign = mxffi.get_global_func("error.set_foreign")
    for bogus in (12345, id(object()), -1):
        with pytest.raises(ValueError) as info:
            set_foreign("ValueError", "m", "", 1, bogus)
        assert str(info.value).startswith("error.set_foreign: release 0x")
        assert "is not the address of an exported MXFFIForeignErrorReleased function" in str(
            info.value
        )
    # release 0: the error is set, and nobody is told when it goes
    assert set_foreign("ValueError", "m", "", 1, 0) is None
