"""Values that do not fit what they are stored as: array creation refuses a value its dtype
cannot hold (numpy 2's OverflowError and ValueError) instead of wrapping it or converting it
with undefined behaviour, arange refuses bool results longer than 2 (numpy's TypeError) and
lengths past int64; a read-only array is not exported writable through the legacy DLPack
protocol; a DLPack export the consumer refuses raises the consumer's error and frees the array.
"""

import ctypes
import gc
import math

import numpy as np
import pytest

import mxffi.np as mx
from mxffi import ndarray as nd

# ---------------------------------------------------------------------------------------------
# arange


@pytest.mark.parametrize(
    "args, dtype, bad",
    [
        ((-3, 5, 2), "uint8", -3),
        ((100, 200, 50), "int8", 150),
        ((250, 260), "uint8", 259),
        ((-1.5, 3), "uint8", -1),
        ((0, 70000, 1000), "int16", 69000),
        ((5, -3, -2), "uint16", -1),
        ((2**31 - 2, 2**31 + 2), "int32", 2**31 + 1),
    ],
)
def test_arange_value_past_its_integer_dtype_raises_overflow_error(args, dtype, bad):
    with pytest.raises(
        OverflowError,
        match=rf"^np\.arange: Python integer {bad} out of bounds "
        rf"for {dtype}",
    ):
        mx.arange(*args, dtype=dtype)


@pytest.mark.parametrize(
    "args, dtype",
    [
        ((0, 300, 100), "uint8"),
        ((0.5, 3), "uint8"),
        ((-128, 128, 64), "int8"),
        ((255, -1, -51), "uint8"),
        ((0, 70000, 10000), "float16"),
        ((3, 3), "uint8"),
    ],
)
def test_arange_values_that_fit_match_numpy(args, dtype):
    out = mx.arange(*args, dtype=dtype)
    expected = np.arange(*args, dtype=dtype)
    assert str(out.dtype) == dtype
    np.testing.assert_array_equal(out.asnumpy(), expected)


@pytest.mark.parametrize("args", [(-3, 5, 2), (3,), (0, 3, 1), (10, 0, -1)])
def test_arange_bool_longer_than_two_raises_type_error_like_numpy(args):
    with pytest.raises(
        TypeError,
        match=r"^np\.arange: arange\(\) is only supported for "
        r"booleans when the result has at most length 2; got length \d+",
    ):
        mx.arange(*args, dtype="bool")
    with pytest.raises(TypeError):
        np.arange(*args, dtype="bool")


@pytest.mark.parametrize("args", [(2,), (0, 2, 1), (1, 2), (0,)])
def test_arange_bool_of_at_most_two_matches_numpy(args):
    np.testing.assert_array_equal(
        mx.arange(*args, dtype="bool").asnumpy(), np.arange(*args, dtype="bool")
    )


@pytest.mark.parametrize("args", [(0, 1e300, 1e-300), (-1e19, 1e19), (0, 2.0**63)])
def test_arange_length_past_int64_raises_value_error(args):
    with pytest.raises(ValueError, match=r"^np\.arange: Maximum allowed size exceeded; "):
        mx.arange(*args)


# ---------------------------------------------------------------------------------------------
# full and array: floats into integer dtypes, as numpy converts Python floats


@pytest.mark.parametrize(
    "value, dtype, exc, message",
    [
        (math.nan, "int32", ValueError, "cannot convert float NaN to integer"),
        (math.inf, "int64", OverflowError, "cannot convert float infinity to integer"),
        (-math.inf, "uint8", OverflowError, "cannot convert float infinity to integer"),
        (1e300, "int32", OverflowError, "1e+300 is out of bounds for int32"),
        (-2.5, "uint8", OverflowError, "Python integer -2 out of bounds for uint8"),
        (300.0, "uint8", OverflowError, "Python integer 300 out of bounds for uint8"),
        (2.0**63, "int64", OverflowError, "9.22337e+18 is out of bounds for int64"),
    ],
)
def test_full_with_a_float_its_integer_dtype_cannot_hold_raises(value, dtype, exc, message):
    with pytest.raises(exc, match=r"^np\.full: "):
        mx.full(3, value, dtype=dtype)
    with pytest.raises(exc) as info:
        mx.full(3, value, dtype=dtype)
    assert message in str(info.value)
    with pytest.raises(exc) as info:
        mx.array([1, value], dtype=dtype)
    assert str(info.value).startswith("np.array: ")
    assert message in str(info.value)


@pytest.mark.parametrize(
    "value, dtype",
    [
        (2.5, "uint8"),
        (255.9, "uint8"),
        (-0.5, "uint8"),
        (-128.7, "int8"),
        (1e300, "float32"),
        (2.0, "bool"),
    ],
)
def test_float_values_that_fit_after_truncation_match_numpy(value, dtype):
    with np.errstate(all="ignore"):
        expected = np.full(3, value, dtype=dtype)
        np.testing.assert_array_equal(mx.full(3, value, dtype=dtype).asnumpy(), expected)
        np.testing.assert_array_equal(
            mx.array([value], dtype=dtype).asnumpy(), np.array([value], dtype=dtype)
        )


def test_int_values_past_the_dtype_still_raise_like_numpy():
    with pytest.raises(
        OverflowError,
        match=r"np\.full: fill_value 300 is out of bounds for "
        "uint8",
    ):
        mx.full(3, 300, dtype="uint8")
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        mx.array([[1, 2.0], [300, 4]], dtype="uint8")


# ---------------------------------------------------------------------------------------------
# DLPack: read-only arrays and exports the consumer refuses


def _read_only_array():
    a = nd.from_dlpack(np.frombuffer(bytes(range(16)), dtype=np.uint8))
    assert a.flags.writeable is False
    return a


def test_read_only_array_is_refused_by_the_legacy_unversioned_export():
    a = _read_only_array()
    with pytest.raises(BufferError, match=r"^mxffi\.NDArray\.__dlpack__: the array is read-only"):
        a.__dlpack__()
    with pytest.raises(BufferError, match="read-only"):
        a.__dlpack__(max_version=(0, 8))
    # numpy refuses its own read-only arrays the same way.
    ro = np.arange(3.0)
    ro.flags.writeable = False
    with pytest.raises(BufferError):
        ro.__dlpack__()


def test_read_only_array_exports_read_only_through_the_versioned_protocol():
    a = _read_only_array()
    b = np.from_dlpack(a)
    assert b.flags.writeable is False
    np.testing.assert_array_equal(b, np.arange(16, dtype=np.uint8))


def test_export_the_consumer_refuses_raises_the_consumers_error():
    # numpy takes the capsule, then refuses bfloat16 with its own RuntimeError; no SystemError
    # (a destructor run with that error pending must leave it as it is).
    a = mx.zeros(4, dtype="bfloat16")
    for export in (lambda: np.from_dlpack(a), lambda: np.from_dlpack(_Legacy(a))):
        with pytest.raises(RuntimeError, match="Unsupported dtype in DLTensor") as info:
            export()
        assert not isinstance(info.value, SystemError)


class _Legacy:
    """An exporter that offers only the unversioned protocol (a capsule named "dltensor")."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def _cpp_refs(a):
    """The C++ reference count of a's object (the frozen header's first field, c_api.h)."""
    return ctypes.c_int64.from_address(a.handle).value


def test_refused_exports_free_their_reference_to_the_array():
    # Each export holds a C++ reference to the array until the capsule's destructor (or the
    # consumer) frees the export; after 200 refusals the array is held by `a` alone again.
    a = mx.zeros(1000, dtype="bfloat16")
    assert _cpp_refs(a) == 1
    for _ in range(200):
        with pytest.raises(RuntimeError):
            np.from_dlpack(a)
        with pytest.raises(RuntimeError):
            np.from_dlpack(_Legacy(a))
    gc.collect()
    assert _cpp_refs(a) == 1
    for _ in range(200):
        a.__dlpack__()  # dropped at once, never consumed
        a.__dlpack__(max_version=(1, 0))
    assert _cpp_refs(a) == 1
