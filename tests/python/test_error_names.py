"""Every error raised in C++ names the function that was called, in style.md's format
``<callee>: <what went wrong>``, even when the C++ code that failed knew no name: an allocation
too large for the machine, a shape with too many dimensions met deep inside an op. And a raised
error is cheap: its C++ backtrace is symbolised only when somebody reads it.
"""

import pickle
import traceback

import numpy as np
import pytest
from conftest import SANITIZED

import mxffi.nd.sparse as sp
import mxffi.np as mx
import mxffi.testing as t
from mxffi import ops

HUGE = 2**40


# A std::vector of 2**40 counts: AddressSanitizer's operator new aborts the process on an
# impossible size instead of throwing std::bad_alloc (which a regular build turns into the
# MemoryError checked here); allocator_may_return_null covers malloc only.
_ASAN_NEW = pytest.mark.skipif(
    SANITIZED == "address", reason="AddressSanitizer's operator new aborts on an impossible size"
)


def _huge_csr():
    return sp.csr_matrix((np.array([1.0]), np.array([0]), np.array([0, 1])), shape=(1, HUGE))


def _huge_rsp():
    return sp.row_sparse_array((np.ones((1, 1)), np.array([0])), shape=(HUGE, 1))


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: sp.dot(_huge_csr(), mx.ones((1, 1)), transpose_a=True), "sparse.dot"),
        pytest.param(lambda: _huge_rsp().tostype("csr"), "sparse.cast_storage", marks=_ASAN_NEW),
        pytest.param(
            lambda: sp.cast_storage(_huge_rsp(), "csr"), "sparse.cast_storage", marks=_ASAN_NEW
        ),
    ],
    ids=["dot-transpose-a", "rsp-tostype-csr", "cast-storage"],
)
def test_out_of_memory_names_the_function(call, name):
    with pytest.raises(MemoryError) as info:
        call()
    assert str(info.value).startswith(f"{name}: out of memory")


_FORTY = np.zeros((1,) * 40)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: mx.asarray(_FORTY), "np.asarray"),
        (lambda: mx.add(_FORTY, 1), "np.add"),
        (lambda: mx.sum(_FORTY), "np.sum"),
        (lambda: ops.invoke("quadratic", _FORTY), "ops.invoke"),
    ],
    ids=["asarray", "add", "sum", "invoke"],
)
def test_too_many_dimensions_names_the_function(call, name):
    with pytest.raises(ValueError) as info:
        call()
    msg = str(info.value)
    assert msg.startswith(f"{name}: ")
    assert "maximum supported dimension for an ndarray is 32, found 40" in msg


def test_messages_that_name_their_callee_are_kept():
    with pytest.raises(ValueError) as info:
        mx.zeros((1,) * 40)
    assert str(info.value) == (
        "np.zeros: argument #0 'shape': maximum supported dimension for an ndarray is 32, found 40"
    )
    with pytest.raises(ValueError) as info:
        t.raise_error("ValueError", "mxffi.sparse.csr_matrix: indptr must be non-decreasing")
    assert str(info.value) == "mxffi.sparse.csr_matrix: indptr must be non-decreasing"


def test_the_core_messages_that_know_no_callee_get_the_called_function():
    with pytest.raises(MemoryError) as info:
        t.raise_error("MemoryError", "out of memory")
    assert str(info.value) == "testing.raise_error: out of memory"
    # what a test function is told to raise otherwise stays word for word
    with pytest.raises(RuntimeError) as info:
        t.raise_error("RuntimeError", "something broke")
    assert str(info.value) == "something broke"


def test_python_exceptions_from_callbacks_are_not_renamed():
    def fail():
        raise ValueError("plain words")

    with pytest.raises(ValueError) as info:
        t.apply(fail)
    assert str(info.value) == "plain words"


# ---------------------------------------------------------------------------------------------
# A C++ backtrace is symbolised only when somebody reads it


def _raised():
    try:
        t.raise_error("ValueError", "lazy")
    except ValueError as e:
        return e
    raise AssertionError("testing.raise_error returned")


def test_backtrace_is_symbolised_on_first_read_only():
    e = _raised()
    assert "_lazy_backtrace" in e.__dict__  # raw frames, not text yet
    bt = e.cpp_backtrace
    assert "libmxffi_testing" in bt and bt.lstrip().startswith("[0]")
    assert "_lazy_backtrace" not in e.__dict__
    assert e.cpp_backtrace is bt


def test_notes_added_before_the_backtrace_is_read_come_after_its_note():
    e = _raised()
    e.add_note("mine")
    assert len(e.__notes__) == 2
    assert e.__notes__[0].startswith("C++ backtrace (most recent call first):")
    assert e.__notes__[1] == "mine"
    text = "".join(traceback.format_exception(e))
    assert text.count("C++ backtrace (most recent call first):") == 1
    assert "mine" in text and "ValueError: lazy" in text


def test_an_error_with_an_unread_backtrace_pickles_with_its_text():
    e = _raised()
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is type(e) and str(back) == "lazy"
    assert back.cpp_backtrace == e.cpp_backtrace and "libmxffi_testing" in back.cpp_backtrace
    assert back.__notes__ == e.__notes__


# ---------------------------------------------------------------------------------------------
# A container that contains itself


def _self_list():
    a = [1]
    a.append(a)
    return a


def _self_dict():
    d = {"k": 1}
    d["self"] = d
    return d


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: t.echo(_self_list()), "testing.echo: argument #0"),
        (lambda: t.echo(_self_dict()), "testing.echo: argument #0"),
        (lambda: t.add(1, _self_list()), "testing.add: argument #1"),
        (lambda: mx.asarray(_self_list()), "np.asarray: argument #0"),
    ],
    ids=["list", "dict", "second-argument", "np-asarray"],
)
def test_recursive_container_names_the_function_and_argument(call, name):
    with pytest.raises(RecursionError) as info:
        call()
    # The conversion's nesting bound meets a container that contains itself first; its error
    # names the outermost call and argument once (nested conversions do not stack names).
    msg = str(info.value)
    assert msg.startswith(name) and "is nested more than 1000 levels deep" in msg, msg
    assert msg.count(name.split(":")[0]) == 1
