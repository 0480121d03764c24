"""np.searchsorted, the array API's unique_values, unique_counts, unique_inverse and unique_all,
and numpy's np.unique (axis=None) against numpy: every real dtype, NaN (numpy's order: last),
-0.0 and +0.0, inf, duplicates, empty, 0-d, multi-dimensional and strided inputs, sorter=,
mixed dtypes and Python numbers; and the errors, which name the function and the values given.

The 16-bit floats are compared against numpy on float32 copies (exact), as numpy sorts
ml_dtypes' bfloat16 through float32 too."""

import zlib

import numpy as np
import pytest
from conftest import DTYPES, np_dtype

import mxffi
import mxffi.np as mnp

SHAPES = [(), (0,), (1,), (9,), (3, 0), (4, 7), (2, 3, 5)]


def values(shape, dtype, rng):
    """Values with many duplicates; floats also get NaN, -0.0, +0.0 and infinities."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, 0, 1, 5, info.max // 3], dtype=dtype)
        return np.asarray(rng.choice(pool, shape))
    x = rng.integers(-3, 4, shape).astype(np.float64) / 2
    pool = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf])
    pick = rng.random(shape) < 0.3
    x = np.where(pick, rng.choice(pool, shape), x)
    return np.asarray(x.astype(np_dtype(dtype)))


def is_half(x):
    return x.dtype.itemsize == 2 and x.dtype.kind not in "iub"


def wide(x):
    """x as numpy computes on it: the 16-bit floats as float32."""
    return x.astype(np.float32) if is_half(x) else x


def seed(*parts):
    return zlib.crc32(repr(parts).encode())


def assert_values(got, want, dtype):
    got = np.asarray(got)
    assert got.dtype == np_dtype(dtype), (got.dtype, dtype)
    np.testing.assert_array_equal(wide(got), want)


# ---- searchsorted ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(dtype, side):
    rng = np.random.default_rng(seed(dtype, side))
    a = np.sort(values((40,), dtype, rng), kind="stable")
    a = np.asarray(a.astype(np.float32).astype(a.dtype)) if is_half(a) else a
    a = np.take(a, np.argsort(wide(a), kind="stable"))
    for shape in [(), (0,), (15,), (3, 5)]:
        v = values(shape, dtype, rng)
        want = np.searchsorted(wide(a), wide(v), side=side)
        got = mnp.searchsorted(a, v, side=side).numpy()
        assert got.dtype == np.int64 and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    # sorter: a shuffled, with the permutation sorting it
    perm = rng.permutation(a.size)
    shuffled = a[perm]
    sorter = np.argsort(wide(shuffled), kind="stable")
    v = values((20,), dtype, rng)
    np.testing.assert_array_equal(
        mnp.searchsorted(shuffled, v, side=side, sorter=sorter).numpy(),
        np.searchsorted(wide(shuffled), wide(v), side=side, sorter=sorter),
    )


def test_searchsorted_nan_and_zeros():
    a = np.array([-np.inf, -1.0, -0.0, 0.0, 2.0, np.inf, np.nan, np.nan])
    v = np.array([np.nan, 0.0, -0.0, np.inf, -np.inf, 5.0, -3.0])
    for side in ("left", "right"):
        np.testing.assert_array_equal(
            mnp.searchsorted(a, v, side=side).numpy(), np.searchsorted(a, v, side=side)
        )


def test_searchsorted_promotion_and_numbers():
    a = np.array([1, 3, 5, 7], dtype=np.int8)
    # Python numbers are weak: an int stays int8, a float makes float64 (numpy's rules).
    assert int(mnp.searchsorted(a, 5).numpy()) == np.searchsorted(a, 5)
    assert int(mnp.searchsorted(a, 4.5).numpy()) == np.searchsorted(a, 4.5)
    assert int(mnp.searchsorted(a, 5, side="right").numpy()) == 3
    v = np.array([2.5, 300.0, -1e9])
    np.testing.assert_array_equal(mnp.searchsorted(a, v).numpy(), np.searchsorted(a, v))
    b = np.array([0.5, 1.5, 2.5], dtype=np.float32)
    v = np.array([1, 2, 3], dtype=np.int64)
    np.testing.assert_array_equal(mnp.searchsorted(b, v).numpy(), np.searchsorted(b, v))
    np.testing.assert_array_equal(mnp.searchsorted(b, [0, 2]).numpy(), [0, 2])
    assert mnp.searchsorted(np.array([], dtype=np.float64), v).numpy().tolist() == [0, 0, 0]


def test_searchsorted_errors():
    with pytest.raises(ValueError) as e:
        mnp.searchsorted(np.ones((2, 2)), 1.0)
    assert str(e.value) == "np.searchsorted: a must be 1-dimensional; got shape (2, 2)"
    with pytest.raises(ValueError) as e:
        mnp.searchsorted(np.ones(3), 1.0, side="middle")
    assert str(e.value) == "np.searchsorted: search side must be 'left' or 'right' (got 'middle')"
    with pytest.raises(ValueError) as e:
        mnp.searchsorted(np.ones(3), 1.0, sorter=np.arange(2))
    assert str(e.value) == (
        "np.searchsorted: sorter.size must equal a.size; got sorter of shape (2,) and a of "
        "shape (3,)"
    )
    with pytest.raises(TypeError) as e:
        mnp.searchsorted(np.ones(3), 1.0, sorter=np.ones(3))
    assert str(e.value) == "np.searchsorted: sorter must be an integer array; got dtype float64"
    with pytest.raises(IndexError):
        mnp.searchsorted(np.ones(3), 1.0, sorter=np.array([0, 1, 3]))
    with pytest.raises(TypeError) as e:
        mnp.searchsorted(mnp.empty(3, dtype="int8x2"), 1.0)
    assert str(e.value) == (
        "np.searchsorted: unsupported dtype int8x2; expected a bool, integer, floating-point or "
        "complex dtype"
    )


# ---- unique ------------------------------------------------------------------------------------


def np_unique(x, equal_nan):
    """numpy's unique of x (the 16-bit floats through float32), every result."""
    w = wide(x)
    return np.unique(w, True, True, True, equal_nan=equal_nan)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_unique_functions(dtype, shape):
    rng = np.random.default_rng(seed(dtype, shape))
    x = values(shape, dtype, rng)
    vals, idx, inv, cnt = np_unique(x, equal_nan=False)
    inv = inv.reshape(x.shape)

    r = mnp.unique_all(x)
    assert type(r).__name__ == "UniqueAllResult"
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    assert_values(r.values, vals, dtype)
    for got, want in ((r.indices, idx), (r.inverse_indices, inv), (r.counts, cnt)):
        got = got.numpy()
        assert got.dtype == np.int64 and got.shape == want.shape
        np.testing.assert_array_equal(got, want)

    c = mnp.unique_counts(x)
    assert c._fields == ("values", "counts")
    assert_values(c.values, vals, dtype)
    np.testing.assert_array_equal(c.counts.numpy(), cnt)

    i = mnp.unique_inverse(x)
    assert i._fields == ("values", "inverse_indices")
    assert_values(i.values, vals, dtype)
    assert i.inverse_indices.shape == x.shape
    np.testing.assert_array_equal(i.inverse_indices.numpy(), inv)

    assert_values(mnp.unique_values(x), vals, dtype)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int32", "bool"])
@pytest.mark.parametrize("equal_nan", [True, False])
def test_np_unique(dtype, equal_nan):
    rng = np.random.default_rng(seed(dtype, equal_nan))
    x = values((5, 6), dtype, rng)
    vals, idx, inv, cnt = np_unique(x, equal_nan)
    assert_values(mnp.unique(x, equal_nan=equal_nan), vals, dtype)
    got = mnp.unique(
        x, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan
    )
    assert isinstance(got, tuple) and len(got) == 4
    assert_values(got[0], vals, dtype)
    np.testing.assert_array_equal(got[1].numpy(), idx)
    np.testing.assert_array_equal(got[2].numpy(), inv.reshape(x.shape))
    np.testing.assert_array_equal(got[3].numpy(), cnt)
    v, c = mnp.unique(x, return_counts=True, equal_nan=equal_nan, sorted=False)
    assert_values(v, vals, dtype)
    np.testing.assert_array_equal(c.numpy(), cnt)
    v, i = mnp.unique(x, False, True, equal_nan=equal_nan)
    np.testing.assert_array_equal(i.numpy(), inv.reshape(x.shape))


def test_unique_signed_zeros_nans_first_occurrence():
    x = np.array([0.0, np.nan, -0.0, 2.0, np.nan, 0.0, 2.0])
    r = mnp.unique_all(x)
    np.testing.assert_array_equal(np.signbit(r.values.numpy()), [False, False, False, False])
    np.testing.assert_array_equal(r.indices.numpy(), [0, 3, 1, 4])
    np.testing.assert_array_equal(r.counts.numpy(), [3, 2, 1, 1])
    v = mnp.unique(np.array([-0.0, 0.0])).numpy()
    assert v.tolist() == [0.0] and np.signbit(v[0])  # the first occurrence, as numpy
    v, c = mnp.unique(x, return_counts=True)
    np.testing.assert_array_equal(c.numpy(), [3, 2, 2])


def test_unique_strided_and_0d():
    rng = np.random.default_rng(11)
    x = values((6, 8), "int16", rng)[::2, ::-3]
    vals, idx, inv, cnt = np_unique(x, False)
    r = mnp.unique_all(x)
    np.testing.assert_array_equal(r.values.numpy(), vals)
    np.testing.assert_array_equal(r.indices.numpy(), idx)
    np.testing.assert_array_equal(r.inverse_indices.numpy(), inv.reshape(x.shape))
    z = np.array(2.5)
    r = mnp.unique_all(z)
    assert r.values.numpy().tolist() == [2.5] and r.inverse_indices.shape == ()
    assert r.indices.numpy().tolist() == [0] and r.counts.numpy().tolist() == [1]


def test_unique_large_through_the_pool():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 1000, 200_000).astype(np.int32)
    vals, idx, inv, cnt = np.unique(x, True, True, True)
    r = mnp.unique_all(x)
    np.testing.assert_array_equal(r.values.numpy(), vals)
    np.testing.assert_array_equal(r.indices.numpy(), idx)
    np.testing.assert_array_equal(r.inverse_indices.numpy(), inv)
    np.testing.assert_array_equal(r.counts.numpy(), cnt)


def test_unique_errors():
    for f in ("unique_values", "unique_counts", "unique_inverse", "unique_all", "unique"):
        with pytest.raises(TypeError) as e:
            getattr(mnp, f)(mnp.empty(3, dtype="float64x2"))
        assert str(e.value) == (
            f"np.{f}: unsupported dtype float64x2; expected a bool, integer, floating-point or "
            "complex dtype"
        )
    with pytest.raises(NotImplementedError) as e:
        mnp.unique(np.ones((2, 2)), axis=0)
    assert str(e.value) == "np.unique: only axis=None is supported; got axis=0"
    with pytest.raises(TypeError):
        mnp.unique_all(x=np.ones(3))  # positional-only, as the standard has it


def test_unique_ops_check_their_inputs():
    x = np.array([3.0, 1.0, 3.0])
    with pytest.raises(ValueError) as e:
        mxffi.ops.invoke("_npi_unique_count", x, np.array([0, 1, 5]))
    assert str(e.value) == "np.unique: the permutation holds a position outside [0, 3)"
    with pytest.raises(ValueError) as e:
        mxffi.ops.invoke("_npi_unique", x, np.array([1, 0, 2]), count=3)
    assert str(e.value) == "np.unique: the array has 2 distinct values, but count=3 was given"
    with pytest.raises(ValueError) as e:
        mxffi.ops.invoke("_npi_unique", x, np.array([1, 0]), count=2)
    assert str(e.value) == (
        "np.unique: x and perm must be 1-d arrays of one length; got shapes (3,) and (2,)"
    )
    with pytest.raises(TypeError) as e:
        mxffi.ops.invoke("_npi_unique_count", x, np.array([1, 0, 2], dtype=np.int32))
    assert str(e.value) == "np.unique: perm must be int64; got int32"
