"""np.sort, np.argsort, np.searchsorted and the unique functions of complex64 and complex128
against numpy: numpy's lexicographic order (real part, then imaginary part) with values holding
a NaN last, as [R + Rj, R + nanj, nan + Rj, nan + nanj]; every axis, stable ties, signed zeros
(equal, so they keep their order), infinities, empty and 0-d inputs, strided inputs, lines
long enough for the thread pool.

numpy has no descending sort; mxffi's is the ascending order of -x (so values with a NaN part
stay last), which the reference computes as numpy's stable sort of -x."""

import numpy as np
import pytest
from numpy.exceptions import AxisError

import mxffi.np as mnp

CPLX = ["complex64", "complex128"]
SHAPES = [(0,), (1,), (9,), (3, 0), (0, 3), (4, 7), (3, 4, 5), (2, 1, 40)]
PARTS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5]


def cvalues(shape, dtype, rng):
    """Complex values whose parts come mostly from PARTS (NaN, infinities, signed zeros and a
    few numbers, so there are many ties), the rest random."""
    pool = np.array(PARTS)
    n = int(np.prod(shape))
    re = np.where(rng.random(n) < 0.7, rng.choice(pool, n), rng.standard_normal(n))
    im = np.where(rng.random(n) < 0.7, rng.choice(pool, n), rng.standard_normal(n))
    x = np.empty(n, dtype=dtype)
    x.real, x.imag = re, im
    return x.reshape(shape)


def bits(a):
    """The array's bytes as unsigned integers: equality there tells -0.0 from 0.0."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.complex64 else np.uint64)


def assert_same(got, want):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(bits(got), bits(want))


def assert_equal_values(got, want):
    """Equal values part by part (NaN equals NaN, -0.0 equals 0.0)."""
    got = got.numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.real, want.real)
    np.testing.assert_array_equal(got.imag, want.imag)


def axes(ndim):
    return list(range(-ndim, ndim)) + [None]


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("shape", SHAPES)
def test_sort_argsort(dtype, shape):
    rng = np.random.default_rng(len(shape) * 100 + sum(shape) + (dtype == "complex64"))
    x = cvalues(shape, dtype, rng)
    for axis in axes(x.ndim):
        assert_same(mnp.sort(x, axis=axis), np.sort(x, axis=axis, kind="stable"))
        got = mnp.argsort(x, axis=axis).numpy()
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, np.argsort(x, axis=axis, kind="stable"))
        for stable in (True, False):
            assert_same(mnp.sort(x, axis=axis, stable=stable), np.sort(x, axis=axis, stable=True))
        assert_same(mnp.sort(x, axis=axis, descending=True), -np.sort(-x, axis=axis, kind="stable"))
        np.testing.assert_array_equal(
            mnp.argsort(x, axis=axis, descending=True).numpy(),
            np.argsort(-x, axis=axis, kind="stable"),
        )


@pytest.mark.parametrize("dtype", CPLX)
def test_nan_placement_and_ties(dtype):
    nan = np.nan
    x = np.array(
        [
            complex(nan, nan),
            complex(nan, 2),
            complex(3, nan),
            complex(1, 1),
            complex(nan, 1),
            complex(1, nan),
            complex(-0.0, 0.0),
            complex(0.0, -0.0),
            complex(-np.inf, 5),
            complex(1, 1),
            complex(np.inf, -np.inf),
            complex(1, -np.inf),
        ],
        dtype=dtype,
    )
    want_order = [8, 6, 7, 11, 3, 9, 10, 5, 2, 4, 1, 0]
    np.testing.assert_array_equal(np.argsort(x, kind="stable"), want_order)  # numpy's rule
    np.testing.assert_array_equal(mnp.argsort(x).numpy(), want_order)
    assert_same(mnp.sort(x), x[want_order])
    # Descending: the order of -x, values with a NaN part still last.
    want_desc = [10, 3, 9, 11, 6, 7, 8, 2, 5, 1, 4, 0]
    np.testing.assert_array_equal(mnp.argsort(x, descending=True).numpy(), want_desc)
    assert_same(mnp.sort(x, descending=True), x[want_desc])


@pytest.mark.parametrize("dtype", CPLX)
def test_long_lines_threads_and_strides(dtype):
    rng = np.random.default_rng(7)
    x = cvalues((3, 5000), dtype, rng)
    assert_same(mnp.sort(x), np.sort(x, kind="stable"))
    np.testing.assert_array_equal(mnp.argsort(x).numpy(), np.argsort(x, kind="stable"))
    y = cvalues((64, 300), dtype, rng)  # many lines: split across the thread pool
    assert_same(mnp.sort(y, axis=0), np.sort(y, axis=0, kind="stable"))
    np.testing.assert_array_equal(mnp.argsort(y, axis=0).numpy(), np.argsort(y, 0, kind="stable"))
    z = y[::3, 1::2].T  # strided input
    assert_same(mnp.sort(z, axis=1), np.sort(z, axis=1, kind="stable"))
    a = mnp.asarray(y.copy())
    a.sort(axis=0)
    assert_same(a, np.sort(y, axis=0, kind="stable"))
    np.testing.assert_array_equal(
        a.argsort(axis=None).numpy(), np.argsort(a.numpy(), None, "stable")
    )


@pytest.mark.parametrize("dtype", CPLX)
def test_empty_and_0d(dtype):
    e = np.zeros((0, 4), dtype=dtype)
    for axis in (0, 1, None):
        assert_same(mnp.sort(e, axis=axis), np.sort(e, axis=axis))
        got = mnp.argsort(e, axis=axis).numpy()
        assert got.dtype == np.int64 and got.shape == np.argsort(e, axis=axis).shape
    s = np.array(complex(1, -2), dtype=dtype)
    assert_same(mnp.sort(s, axis=None), np.sort(s, axis=None))
    np.testing.assert_array_equal(mnp.argsort(s, axis=None).numpy(), [0])
    with pytest.raises(AxisError) as err:
        mnp.sort(s)
    assert str(err.value) == "np.sort: axis -1 is out of bounds for array of dimension 0"
    with pytest.raises(AxisError) as err:
        mnp.argsort(np.ones((2, 3), dtype=dtype), axis=2)
    assert str(err.value) == "np.argsort: axis 2 is out of bounds for array of dimension 2"


@pytest.mark.parametrize("dtype", CPLX)
def test_searchsorted(dtype):
    rng = np.random.default_rng(11)
    a = np.sort(cvalues((40,), dtype, rng))
    v = np.concatenate([cvalues((30,), dtype, rng), a])
    for side in ("left", "right"):
        got = mnp.searchsorted(a, v, side=side).numpy()
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, np.searchsorted(a, v, side=side))
        np.testing.assert_array_equal(
            mnp.searchsorted(a, v.reshape(5, 14), side=side).numpy(),
            np.searchsorted(a, v.reshape(5, 14), side=side),
        )
    u = cvalues((25,), dtype, rng)
    perm = np.argsort(u, kind="stable")
    np.testing.assert_array_equal(
        mnp.searchsorted(u, v, sorter=perm).numpy(), np.searchsorted(u, v, sorter=perm)
    )
    # Mixed operands: a real number or array next to complex, complex next to real.
    np.testing.assert_array_equal(mnp.searchsorted(a, 1.0).numpy(), np.searchsorted(a, 1.0))
    r = np.array([-1.0, 0.0, 1.0, 2.0])
    np.testing.assert_array_equal(
        mnp.searchsorted(r, np.array([1 + 1j, 1 - 1j, 0j])).numpy(),
        np.searchsorted(r, np.array([1 + 1j, 1 - 1j, 0j])),
    )
    np.testing.assert_array_equal(
        mnp.searchsorted(r, [1 + 1j, 3]).numpy(), np.searchsorted(r, [1 + 1j, 3])
    )
    np.testing.assert_array_equal(
        mnp.searchsorted(a, r.astype(np.float32)).numpy(), np.searchsorted(a, r)
    )
    assert mnp.searchsorted(a[:0], v).numpy().tolist() == [0] * v.size


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("shape", [(0,), (1,), (13,), (4, 6), (3, 0), (2, 3, 7)])
def test_unique_functions(dtype, shape):
    rng = np.random.default_rng(sum(shape) + len(shape) + (dtype == "complex64"))
    x = cvalues(shape, dtype, rng)
    # numpy's unique_all sorts (its return_index path), each value with a NaN part distinct.
    want = np.unique_all(x)
    r = mnp.unique_all(x)
    assert_equal_values(r.values, want.values)
    for got, w in ((r.indices, want.indices), (r.counts, want.counts)):
        np.testing.assert_array_equal(got.numpy(), w)
    np.testing.assert_array_equal(r.inverse_indices.numpy(), want.inverse_indices)
    assert r.inverse_indices.shape == x.shape
    c = mnp.unique_counts(x)
    assert_equal_values(c.values, want.values)
    np.testing.assert_array_equal(c.counts.numpy(), want.counts)
    i = mnp.unique_inverse(x)
    assert_equal_values(i.values, want.values)
    np.testing.assert_array_equal(i.inverse_indices.numpy(), want.inverse_indices)
    assert_equal_values(mnp.unique_values(x), want.values)  # numpy's need not be sorted
    nans = np.isnan(x).sum()
    assert mnp.unique_values(x).shape == (np.unique(x[~np.isnan(x)]).size + nans,)


@pytest.mark.parametrize("dtype", CPLX)
@pytest.mark.parametrize("equal_nan", [True, False])
def test_np_unique(dtype, equal_nan):
    rng = np.random.default_rng(3 + equal_nan)
    x = cvalues((6, 7), dtype, rng)
    # The return_index path sorts stably; with equal_nan every value with a NaN part is one
    # value, the first of them in sorted order.
    vals, idx, inv, cnt = np.unique(x, True, True, True, equal_nan=equal_nan)
    got = mnp.unique(x, True, True, True, equal_nan=equal_nan)
    assert_equal_values(got[0], vals)
    np.testing.assert_array_equal(got[1].numpy(), idx)
    np.testing.assert_array_equal(got[2].numpy(), inv.reshape(x.shape))
    np.testing.assert_array_equal(got[3].numpy(), cnt)
    assert_equal_values(mnp.unique(x, equal_nan=equal_nan), vals)
    if equal_nan:
        assert np.isnan(vals[-1]) and np.isnan(x).sum() == cnt[-1]


def test_unique_nan_groups():
    nan = np.nan
    x = np.array(
        [complex(nan, 1), complex(1, nan), 1 + 1j, complex(nan, 1), 1 + 1j, complex(-0.0, 0.0), 0j]
    )
    vals, cnt = mnp.unique(x, return_counts=True)
    assert_equal_values(vals, np.array([0j, 1 + 1j, complex(1, nan)]))
    np.testing.assert_array_equal(cnt.numpy(), [2, 2, 3])
    r = mnp.unique_counts(x)
    assert_equal_values(
        r.values, np.array([0j, 1 + 1j, complex(1, nan), complex(nan, 1), complex(nan, 1)])
    )
    np.testing.assert_array_equal(r.counts.numpy(), [2, 2, 1, 1, 1])
    # The first of equal values in stable order stands for them: -0.0 + 0j here.
    assert np.signbit(mnp.unique_values(x).numpy()[0].real)


def test_bad_dtypes():
    v = mnp.empty(3, dtype="float32x4")
    for f, name in ((mnp.sort, "np.sort"), (mnp.argsort, "np.argsort")):
        with pytest.raises(TypeError) as e:
            f(v)
        assert str(e.value) == (
            f"{name}: x has unsupported dtype float32x4; expected a bool, integer, "
            "floating-point or complex dtype"
        )
    for name in ("unique_values", "unique_counts", "unique_inverse", "unique_all", "unique"):
        with pytest.raises(TypeError) as e:
            getattr(mnp, name)(v)
        assert str(e.value) == (
            f"np.{name}: unsupported dtype float32x4; expected a bool, integer, floating-point "
            "or complex dtype"
        )
    with pytest.raises(TypeError) as e:
        mnp.searchsorted(np.ones(3, dtype=np.complex64), v)
    assert str(e.value) == (
        "np.searchsorted: unsupported dtype float32x4; expected a bool, integer, floating-point "
        "or complex dtype"
    )
    with pytest.raises(ValueError) as e:
        mnp.searchsorted(np.ones((2, 2), dtype=np.complex128), 1j)
    assert str(e.value) == "np.searchsorted: a must be 1-dimensional; got shape (2, 2)"
    with pytest.raises(ValueError) as e:
        mnp.sort(np.ones(3, dtype=np.complex64), kind="bogus")
    assert str(e.value) == (
        "np.sort: sort kind must be one of 'quicksort', 'mergesort', 'heapsort' or 'stable' "
        "(got 'bogus')"
    )
