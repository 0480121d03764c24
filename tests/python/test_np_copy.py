"""copy= of asarray, array, astype and reshape, as numpy 2 and the array API define it: True
always copies, None copies only where it must, False never (ValueError where it must)."""

import numpy as np
import pytest

import mxffi.np as mnp


def _shares(a, b):
    return bool(mnp.shares_memory(a, b))


@pytest.mark.parametrize("fn", [mnp.asarray, mnp.array])
def test_copy_modes_of_an_mxffi_array(fn):
    a = mnp.arange(6.0)
    assert _shares(fn(a, copy=None), a) and _shares(fn(a, copy=False), a)
    assert not _shares(fn(a, copy=True), a)
    same = fn(a, copy=False)
    same[0] = 42.0
    assert a[0].item() == 42.0  # the same memory
    c = fn(a, dtype="float32", copy=None)
    assert str(c.dtype) == "float32" and not _shares(c, a)
    with pytest.raises(
        ValueError,
        match=rf"^np\.{fn.__name__}: unable to avoid a copy .*: the "
        "array has another dtype",
    ):
        fn(a, dtype="int8", copy=False)


def test_defaults_are_numpys():
    a = mnp.arange(3)
    assert _shares(mnp.asarray(a), a)  # asarray: copy=None
    assert not _shares(mnp.array(a), a)  # array: copy=True
    assert not _shares(mnp.astype(a, "int64"), a)  # astype: copy=True
    assert _shares(mnp.astype(a, "int64", copy=False), a)
    assert not _shares(mnp.astype(a, "int32", copy=False), a)  # the dtype changes: a new array


@pytest.mark.parametrize("obj", [[1, 2], 3.5, np.ones(3)])
def test_copy_false_refuses_what_must_be_copied(obj):
    # numpy 2 refuses copy=False for numbers and sequences too; a numpy array is lent to C++
    # for the call only (from_dlpack is the zero-copy import), so it cannot be kept either.
    want = np.asarray(obj, copy=None)
    np.testing.assert_array_equal(mnp.asarray(obj, copy=None).asnumpy(), want)
    np.testing.assert_array_equal(mnp.asarray(obj, copy=True).asnumpy(), want)
    with pytest.raises(ValueError, match=r"^np\.asarray: unable to avoid a copy while creating"):
        mnp.asarray(obj, copy=False)


def test_reshape_copy_modes():
    a = mnp.arange(6.0)
    assert _shares(mnp.reshape(a, (2, 3)), a) and _shares(mnp.reshape(a, (2, 3), copy=False), a)
    r = mnp.reshape(a, (2, 3), copy=True)
    assert not _shares(r, a) and r.shape == (2, 3)
    t = mnp.reshape(a, (2, 3)).T  # not contiguous: a view is impossible
    np.testing.assert_array_equal(
        mnp.reshape(t, (6,)).asnumpy(), np.arange(6.0).reshape(2, 3).T.ravel()
    )
    with pytest.raises(
        ValueError,
        match=r"^np\.reshape: cannot reshape array of shape \(3, 2\) "
        r"into shape \(6,\) without a copy \(copy=False\)",
    ):
        mnp.reshape(t, (6,), copy=False)
    with pytest.raises(ValueError, match=r"^np\.reshape: cannot reshape without a copy"):
        mnp.reshape(np.ones(4), (2, 2), copy=False)
    assert a.reshape(3, 2, copy=None).shape == (3, 2) and not _shares(a.reshape(6, copy=True), a)
    with pytest.raises(ValueError, match="without a copy"):
        t.reshape(6, copy=False)


def test_astype_method_copy_and_device():
    a = mnp.arange(4, dtype="int32")
    assert a.astype("int32", copy=False) is a
    b = a.astype("int32")
    assert b is not a and not _shares(a, b)
    assert str(a.astype("float32", copy=False).dtype) == "float32"
    c = a.astype("int64", device=mnp.cpu())
    assert str(c.dtype) == "int64" and c.device == mnp.cpu()


def test_from_dlpack_copy_and_device():
    n = np.arange(4.0)
    shared = mnp.from_dlpack(n)
    shared[0] = 9.0
    assert n[0] == 9.0  # copy=None: the producer's memory
    copied = mnp.from_dlpack(n, copy=True)
    copied[1] = 7.0
    assert n[1] == 1.0 and copied.asnumpy()[1] == 7.0
    same = mnp.from_dlpack(n, device="cpu", copy=False)  # already there: no copy needed
    same[2] = 5.0
    assert n[2] == 5.0
    a = mnp.arange(3)
    assert _shares(mnp.from_dlpack(a), a) and not _shares(mnp.from_dlpack(a, copy=True), a)
    with pytest.raises(
        ValueError,
        match=r"^mxffi\.from_dlpack: the tensor is on cpu:0, and "
        r"copy=False forbids the copy to cuda:0",
    ):
        mnp.from_dlpack(n, device="cuda:0", copy=False)
