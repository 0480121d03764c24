"""mxffi.NDArray and DLPack: allocation, zero-copy in both directions, capsule rules."""

import gc

import numpy as np
import pytest

import mxffi
import mxffi.testing as t
from mxffi.ndarray import empty, from_dlpack


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


@pytest.mark.parametrize("shape", [(3, 4), (5,), (), (2, 0, 3)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "uint16", "int64", "bool"])
def test_empty_shape_dtype_device_and_alignment(shape, dtype):
    a = empty(shape, dtype)
    assert isinstance(a, mxffi.NDArray)
    assert a.shape == shape and a.ndim == len(shape)
    assert a.size == int(np.prod(shape))
    assert str(a.dtype) == dtype and a.device == mxffi.Device("cpu", 0)
    n = np.from_dlpack(a)
    assert n.shape == shape and n.dtype == np.dtype(dtype)
    assert n.ctypes.data % 64 == 0


def test_numpy_view_of_an_ndarray_shares_memory():
    a = empty((3, 4), "float64")
    n = np.from_dlpack(a)
    n[...] = np.arange(12.0).reshape(3, 4) + 1
    assert t.tensor_first_f64(a) == 1.0  # C++ reads what numpy wrote
    n[0, 0] = -5.0
    assert np.from_dlpack(a)[0, 0] == -5.0
    assert np.shares_memory(n, np.from_dlpack(a))


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_both_capsule_kinds_are_produced(max_version):
    a = empty((2,), "float32")
    cap = a.__dlpack__(max_version=max_version)
    expected = '"dltensor_versioned"' if max_version else '"dltensor"'
    assert expected in repr(cap)
    assert a.__dlpack_device__() == (1, 0)


def test_from_dlpack_of_numpy_shares_memory_both_ways():
    x = np.arange(12.0).reshape(3, 4)
    a = from_dlpack(x)
    assert a.shape == (3, 4) and str(a.dtype) == "float64"
    x[0, 0] = 42.0
    assert t.tensor_first_f64(a) == 42.0
    back = np.from_dlpack(a)
    back[0, 0] = 7.0
    assert x[0, 0] == 7.0


def test_strided_producer_keeps_its_strides():
    x = np.arange(24.0).reshape(4, 6)[::2, 1::2]
    a = from_dlpack(x)
    assert a.shape == (2, 3)
    assert t.tensor_first_f64(a) == 1.0
    np.testing.assert_array_equal(np.from_dlpack(a), x)


def test_a_capsule_is_consumed_at_most_once():
    cap = np.arange(3.0).__dlpack__()

    class Producer:
        def __dlpack__(self, **kwargs):
            return cap

    from_dlpack(Producer())
    assert "used_dltensor" in repr(cap)
    with pytest.raises(TypeError, match="not an unconsumed DLPack capsule"):
        from_dlpack(Producer())


def test_read_only_versioned_capsule_is_respected():
    x = np.arange(4.0)
    x.flags.writeable = False
    a = from_dlpack(x)
    assert a.read_only
    out = np.from_dlpack(a)  # numpy asks for a versioned capsule: the flag travels on
    assert not out.flags.writeable
    with pytest.raises(ValueError):
        out[0] = 1.0
    assert not empty((2,)).read_only


def test_unconsumed_capsules_free_their_arrays():
    gc.collect()
    before = _rss_mb()
    for _ in range(20):
        a = empty((8, 2**20), "float64")  # 64 MB each
        np.from_dlpack(a)[...] = 1.0  # touch the pages
        cap = a.__dlpack__()
        del a, cap
    gc.collect()
    assert _rss_mb() - before < 200


def test_bad_arguments_name_the_function_and_values():
    with pytest.raises(
        ValueError,
        match=r"ndarray.empty: negative dimensions are not allowed; "
        r"got shape \(3, -1\)",
    ):
        empty((3, -1))
    with pytest.raises(TypeError, match="data type 'float33x' not understood"):
        empty((2,), "float33x")
    with pytest.raises(NotImplementedError, match="device type 10 is not supported"):
        empty((2,), "float32", "rocm:0")
    with pytest.raises(TypeError, match="ndarray.empty: argument #0 'shape'"):
        empty("abc")
    with pytest.raises(BufferError, match=r"cannot export to device \(10, 0\)"):
        empty((2,)).__dlpack__(dl_device=(10, 0))
    with pytest.raises(BufferError, match=r"cannot export to device \(2, 0\) without a copy"):
        empty((2,)).__dlpack__(dl_device=(2, 0), copy=False)
    with pytest.raises(TypeError, match="mxffi.from_dlpack: object has no __dlpack__ method"):
        from_dlpack(object())
