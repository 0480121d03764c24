"""np.sort, np.argsort (and the array methods a.sort(), a.argsort()) against numpy's stable sort:
every real dtype, every axis (negative ones and None), ascending and descending, NaN, -0.0 and
+0.0, inf, duplicates, empty and 0-d inputs, strided inputs, lines long enough for the counting
sort and the thread pool; and the errors, which name the function and the values given.

numpy has no descending sort; the reference is numpy's stable sort of the reversed line, read
backwards, with NaNs then moved (in their order) to the end, which is mxffi's order: equal
elements keep their order and NaNs stay last, as sorting -x puts them."""

import zlib

import numpy as np
import pytest
from conftest import DTYPES, np_dtype
from numpy.exceptions import AxisError

import mxffi.np as mnp

FLOATS = ["float16", "bfloat16", "float32", "float64"]
SHAPES = [(0,), (1,), (7,), (3, 0), (0, 3), (4, 7), (3, 4, 5), (2, 1, 40)]


def values(shape, dtype, rng, special=True):
    """Values with many duplicates; floats also get NaN, -0.0, +0.0 and infinities."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, 0, 1, 2, 3, 7, info.max // 2], dtype=dtype)
        x = rng.integers(info.min // 2 if info.min else 0, info.max // 2, shape, dtype=dtype)
        pick = rng.random(shape) < 0.4
        x[pick] = rng.choice(pool, shape)[pick]
        return x
    x = rng.integers(-4, 5, shape).astype(np.float64) / 2
    if special:
        pool = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, np.nan])
        pick = rng.random(shape) < 0.3
        x[pick] = rng.choice(pool, shape)[pick]
    return x.astype(np_dtype(dtype))


def ref_keys(x):
    """x as numpy sorts it in the same order: the 16-bit floats as float32 (exact)."""
    return x.astype(np.float32) if x.dtype.itemsize == 2 and x.dtype.kind not in "iub" else x


def ref_argsort(x, axis, descending):
    """numpy's stable argsort along axis; descending as mxffi orders (see the module doc)."""
    k = np.moveaxis(ref_keys(x), axis, -1)
    if not descending:
        out = np.argsort(k, axis=-1, kind="stable")
    else:
        n = k.shape[-1]
        out = (n - 1 - np.argsort(k[..., ::-1], axis=-1, kind="stable"))[..., ::-1]
        if k.dtype.kind == "f" and out.size:
            lines = out.reshape(-1, n)
            kl = k.reshape(-1, n)
            for i in range(lines.shape[0]):
                nan = np.isnan(kl[i][lines[i]])
                lines[i] = np.concatenate([lines[i][~nan], lines[i][nan]])
            out = lines.reshape(out.shape)
    return np.moveaxis(out, -1, axis)


def assert_same_values(got, want):
    """Equal values, dtypes and shapes; -0.0 and +0.0 told apart, NaNs where NaNs are."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "V" or str(want.dtype) == "bfloat16":
        got, want = got.astype(np.float32), want.astype(np.float32)
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_sort_and_argsort_every_axis(dtype, shape):
    rng = np.random.default_rng(zlib.crc32(f"{dtype}{shape}".encode()))
    x = values(shape, dtype, rng)
    for axis in range(-len(shape), len(shape)):
        for descending in (False, True):
            order = ref_argsort(x, axis, descending)
            got = mnp.argsort(x, axis=axis, descending=descending).numpy()
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, order, err_msg=f"{axis=} {descending=}")
            s = mnp.sort(x, axis=axis, descending=descending).numpy()
            assert_same_values(s, np.take_along_axis(x, order, axis))


@pytest.mark.parametrize("dtype", DTYPES)
def test_axis_none_flattens_and_0d(dtype):
    rng = np.random.default_rng(1)
    x = values((3, 4), dtype, rng)
    flat = x.reshape(-1)
    assert_same_values(mnp.sort(x, axis=None).numpy(), flat[ref_argsort(flat, 0, False)])
    np.testing.assert_array_equal(mnp.argsort(x, axis=None).numpy(), ref_argsort(flat, 0, False))
    z = x.reshape(-1)[:1].reshape(())
    assert_same_values(mnp.sort(z, axis=None).numpy(), z.reshape(1))
    for f in (mnp.sort, mnp.argsort):
        with pytest.raises(AxisError) as e:
            f(z)
        name = f.__name__.split(".")[-1]
        assert str(e.value) == f"np.{name}: axis -1 is out of bounds for array of dimension 0"


@pytest.mark.parametrize("dtype", DTYPES)
def test_long_lines(dtype):
    """Lines long enough for the radix sort (NaNs, signed zeros and infinities among floats)
    and the counting sort of the small integers, and many of them (the thread pool), in both
    orders."""
    rng = np.random.default_rng(7)
    x = values((3, 20000), dtype, rng)
    for descending in (False, True):
        order = ref_argsort(x, -1, descending)
        assert_same_values(
            mnp.sort(x, descending=descending).numpy(), np.take_along_axis(x, order, -1)
        )
        np.testing.assert_array_equal(mnp.argsort(x, descending=descending).numpy(), order)
    # Without NaN and -0.0 a float line sorts its keys alone and turns them back into values.
    z = values((2, 5000), dtype, rng, special=False)
    if z.dtype.kind == "f" or str(z.dtype) == "bfloat16":
        z = z * 1000 + values((2, 5000), dtype, rng, special=False)
        z[z == 0] = 1
    for descending in (False, True):
        order = ref_argsort(z, -1, descending)
        assert_same_values(
            mnp.sort(z, descending=descending).numpy(), np.take_along_axis(z, order, -1)
        )
    y = values((20000, 5), dtype, rng)
    assert_same_values(
        mnp.sort(y, axis=0).numpy(), np.take_along_axis(y, ref_argsort(y, 0, False), 0)
    )
    np.testing.assert_array_equal(
        mnp.argsort(y, axis=0, descending=True).numpy(), ref_argsort(y, 0, True)
    )


def test_nan_zero_order_as_numpy():
    x = np.array([3.0, np.nan, 1.0, -0.0, 0.0, np.inf, -np.inf, np.nan, 0.0, -0.0])
    assert_same_values(mnp.sort(x).numpy(), np.sort(x, kind="stable"))
    np.testing.assert_array_equal(mnp.argsort(x).numpy(), np.argsort(x, kind="stable"))
    d = mnp.sort(x, descending=True).numpy()
    want = np.array([np.inf, 3.0, 1.0, -0.0, 0.0, 0.0, -0.0, -np.inf, np.nan, np.nan])
    assert_same_values(d, want)
    np.testing.assert_array_equal(
        mnp.argsort(x, descending=True).numpy(), [5, 0, 2, 3, 4, 8, 9, 6, 1, 7]
    )


def test_strided_input():
    rng = np.random.default_rng(3)
    x = values((6, 10), "float64", rng)
    v = x[::2, ::-3]
    assert_same_values(mnp.sort(v, axis=0).numpy(), np.sort(v, axis=0, kind="stable"))
    np.testing.assert_array_equal(mnp.argsort(v).numpy(), np.argsort(v, kind="stable"))
    a = mnp.asarray(x)
    t = mnp.transpose(a)
    assert_same_values(mnp.sort(t).numpy(), np.sort(x.T, kind="stable"))


@pytest.mark.parametrize("kind", ["quicksort", "mergesort", "heapsort", "stable", None])
def test_kind_and_stable_accepted(kind):
    x = np.array([2, 1, 2, 1, 0], dtype=np.int32)
    np.testing.assert_array_equal(mnp.argsort(x, kind=kind).numpy(), [4, 1, 3, 0, 2])
    np.testing.assert_array_equal(mnp.sort(x, 0, kind).numpy(), [0, 1, 1, 2, 2])
    for stable in (True, False):
        np.testing.assert_array_equal(mnp.sort(x, stable=stable).numpy(), [0, 1, 1, 2, 2])


def test_methods():
    rng = np.random.default_rng(5)
    x = values((4, 6), "float32", rng)
    a = mnp.asarray(x.copy())
    assert a.sort() is None
    assert_same_values(a.numpy(), np.sort(x, kind="stable"))
    a = mnp.asarray(x.copy())
    a.sort(axis=0, descending=True)
    assert_same_values(a.numpy(), np.take_along_axis(x, ref_argsort(x, 0, True), 0))
    b = mnp.asarray(x)
    np.testing.assert_array_equal(b.argsort(0).numpy(), np.argsort(x, 0, kind="stable"))
    np.testing.assert_array_equal(b.argsort(axis=None).numpy(), np.argsort(x, None, kind="stable"))
    s = mnp.asarray(x.copy())[:, ::2]  # a view sorts in place through its strides
    s.sort()
    assert_same_values(s.numpy(), np.sort(x[:, ::2], kind="stable"))


def test_errors():
    x = np.ones((2, 3))
    with pytest.raises(AxisError) as e:
        mnp.sort(x, axis=2)
    assert str(e.value) == "np.sort: axis 2 is out of bounds for array of dimension 2"
    with pytest.raises(AxisError) as e:
        mnp.argsort(x, axis=-3)
    assert str(e.value) == "np.argsort: axis -3 is out of bounds for array of dimension 2"
    with pytest.raises(ValueError) as e:
        mnp.sort(x, kind="bogo")
    assert str(e.value) == (
        "np.sort: sort kind must be one of 'quicksort', 'mergesort', 'heapsort' or 'stable' "
        "(got 'bogo')"
    )
    with pytest.raises(ValueError) as e:
        mnp.argsort(x, kind="stable", stable=True)
    assert str(e.value) == (
        "np.argsort: `kind` and `stable` parameters can't be provided at the same time. Use "
        "only one of them; got kind='stable' and stable=True"
    )
    with pytest.raises(ValueError) as e:
        mnp.sort(x, order="f0")
    assert str(e.value) == (
        "np.sort: Cannot specify order when the array has no fields; got order='f0'"
    )
    with pytest.raises(TypeError) as e:
        mnp.sort(x, axis=(0, 1))
    assert str(e.value) == (
        "np.sort: argument 'axis' expected None or an int, got the sequence (0, 1)"
    )
    a = mnp.asarray(x)
    with pytest.raises(AxisError) as e:
        a.sort(axis=5)
    assert str(e.value) == "ndarray.sort: axis 5 is out of bounds for array of dimension 2"


def test_op_invoke_checks_axis():
    import mxffi

    with pytest.raises(AxisError) as e:
        mxffi.ops.invoke("_npi_sort", np.ones(3), axis=1)
    assert str(e.value) == "np.sort: axis 1 is out of bounds for array of dimension 1"
    out = mxffi.ops.invoke("_npi_argsort", np.array([3.0, 1.0, 2.0]), descending=True)
    np.testing.assert_array_equal(out.numpy(), [0, 2, 1])


@pytest.mark.parametrize("dtype", FLOATS)
def test_radix_keys_of_extreme_floats(dtype):
    """Long lines (the radix sort) of the floats at the edges of the key transform: both
    infinities, the largest finite values, subnormals, both zeros and NaNs of either sign."""
    dt = np_dtype(dtype)
    info = np.finfo(np.float32 if dtype == "bfloat16" else dt)
    tiny = float(info.smallest_subnormal) if dtype != "bfloat16" else 1e-40
    edge = np.array(
        [np.inf, -np.inf, float(info.max), -float(info.max), tiny, -tiny, 0.0, -0.0, 1.0, -1.0]
    )
    rng = np.random.default_rng(4)
    base = rng.choice(edge, 3000).astype(dt)
    for with_nan in (False, True):
        x = base.copy()
        if with_nan:
            x[::97] = np.nan
            x[5::89] = -np.array(np.nan).astype(dt)  # a NaN with its sign bit set
        for descending in (False, True):
            order = ref_argsort(x, 0, descending)
            np.testing.assert_array_equal(mnp.argsort(x, descending=descending).numpy(), order)
            assert_same_values(mnp.sort(x, descending=descending).numpy(), x[order])
        if not with_nan:
            # no NaN and no -0.0: the keys alone are sorted and turned back into values
            y = x[~((x == 0) & np.signbit(ref_keys(x)))]
            assert_same_values(mnp.sort(y).numpy(), y[ref_argsort(y, 0, False)])
