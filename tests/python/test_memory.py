"""Ownership across the boundary: Python callables held by C++ are released when C++ lets go,
and a long run of calls leaves resident memory flat."""

import gc
import uuid
import weakref

import pytest
from conftest import SANITIZED, rss_bytes

import mxffi
import mxffi.testing as t


class Payload:
    """Something a callback captures; a weakref to it says whether the callback is freed."""


class CallableHolding:
    def __init__(self, payload):
        self.payload = payload

    def __call__(self, x):
        return x + 1


def make_closure(payload):
    def closure(x):
        return (payload, x)[1]

    return closure


# ---------------------------------------------------------------------------------------------
# Callbacks freed


def test_function_made_from_callable_instance_frees_it_when_dropped():
    payload = Payload()
    ref = weakref.ref(payload)
    fn = t.echo(CallableHolding(payload))
    del payload
    gc.collect()
    assert ref() is not None, "freed while the Function still holds it"
    assert fn(1) == 2
    del fn
    gc.collect()
    assert ref() is None, "the callable outlived the last Function holding it"


def test_closure_passed_as_argument_freed_after_the_call():
    payload = Payload()
    ref = weakref.ref(payload)
    assert t.apply(make_closure(payload), 3) == 3
    del payload
    gc.collect()
    assert ref() is None


def test_closure_passed_to_cpp_thread_freed_after_the_call():
    payload = Payload()
    ref = weakref.ref(payload)
    assert t.apply_in_thread(make_closure(payload), 5) == 5
    del payload
    gc.collect()
    assert ref() is None


def test_closure_kept_inside_a_container_freed_with_the_container():
    payload = Payload()
    ref = weakref.ref(payload)
    arr = t.echo([make_closure(payload), 1])
    del payload
    gc.collect()
    assert ref() is not None
    assert arr[0](7) == 7
    del arr
    gc.collect()
    assert ref() is None


def test_closure_raising_from_cpp_freed_with_its_exception():
    payload = Payload()
    ref = weakref.ref(payload)

    def fail(x, payload=payload):
        raise ValueError("boom")

    with pytest.raises(ValueError):
        t.apply(fail, 1)
    del payload, fail
    gc.collect()
    assert ref() is None


def test_registered_function_kept_alive_then_freed_on_override():
    name = f"py_test.held_{uuid.uuid4().hex[:8]}"
    payload = Payload()
    ref = weakref.ref(payload)
    mxffi.register_func(name, make_closure(payload))
    del payload
    gc.collect()
    assert ref() is not None, "the registry must keep a registered callable alive"
    assert t.apply(mxffi.get_global_func(name), 4) == 4
    mxffi.register_func(name, lambda x: -x, override=True)
    gc.collect()
    assert ref() is None, "the replaced callable was not released"
    assert mxffi.get_global_func(name)(4) == -4


def test_python_objects_passed_through_cpp_are_not_leaked():
    payload = Payload()
    ref = weakref.ref(payload)
    fn = CallableHolding(payload)
    for _ in range(100):
        t.apply(fn, 1)
        t.echo(fn)
        t.echo([fn, {"k": fn}])
    del fn, payload
    gc.collect()
    assert ref() is None


# ---------------------------------------------------------------------------------------------
# Resident memory over a million calls

ITERATIONS = 80_000  # x 13 calls = 1.04 million


def _mixed_calls(n, arr, containers):
    echo, concat, str_len, apply, add = t.echo, t.concat, t.str_len, t.apply, t.add
    last = None
    for i in range(n):
        s = echo("a string longer than eight bytes")
        c = concat("abc", "defghijk")
        a = echo([i, "x", 2.5])
        m = echo({"k": i, "s": "v" * 12})
        same = echo(arr)
        adt = containers["adt"]
        n_bytes = str_len("héllo")
        b = echo(b"bytes-longer-than-8")
        total = add(i, b=1)
        cb = apply(echo, "zz")
        closure = apply(lambda x: x * 2, i)
        shape = echo(mxffi.Shape((i, 2)))
        if i % 8 == 0:
            try:
                t.raise_error("ValueError", "expected failure")
            except ValueError:
                pass
        last = (s, c, a, m, same, adt, n_bytes, b, total, cb, closure, shape)
    return last


def test_a_million_mixed_calls_keep_resident_memory_flat():
    arr = t.echo([1, "two", 3.0])
    containers = t.make_containers()
    _mixed_calls(20_000, arr, containers)  # warm up caches, allocator pools, interned strings
    gc.collect()
    before = rss_bytes()
    last = _mixed_calls(ITERATIONS, arr, containers)
    gc.collect()
    grown = rss_bytes() - before

    i = ITERATIONS - 1
    s, c, a, m, same, adt, n_bytes, b, total, cb, closure, shape = last
    assert s == "a string longer than eight bytes"
    assert c == "abcdefghijk"
    assert a == [i, "x", 2.5]
    assert m == {"k": i, "s": "v" * 12}
    assert same.same_as(arr)
    assert adt.tag == 7
    assert n_bytes == 6
    assert b == b"bytes-longer-than-8"
    assert total == i + 1
    assert cb == "zz"
    assert closure == 2 * i
    assert shape == (i, 2)

    # AddressSanitizer keeps freed blocks in quarantine (256 MB by default): resident memory is
    # not a measure of leaks there, LeakSanitizer is.
    if SANITIZED != "address":
        assert grown < 5 * 1024 * 1024, f"resident memory grew by {grown / 2**20:.1f} MB"
