"""The CUDA kernels of the sort ops against the CPU ones: sort and argsort along every axis in
both orders (stable, NaNs last), searchsorted, the unique functions and np.unique, on every
dtype (complex64 and complex128 too, in numpy's complex order) with NaN, signed zeros and
duplicates, and the errors that read the device count."""

import numpy as np
import pytest
from conftest import DTYPES, np_dtype

import mxffi
import mxffi.np as mnp
from mxffi import cuda

needs_gpu = pytest.mark.skipif(
    not cuda.is_available(), reason=f"no CUDA device: {cuda.unavailable_reason()}"
)
pytestmark = needs_gpu

DEV = "cuda:0"
ALL = DTYPES + ["complex64", "complex128"]


def values(rng, shape, dtype):
    """Duplicates everywhere; floats with NaN, -0.0, +0.0 and infinities."""
    if dtype.startswith("complex"):
        x = np.empty(shape, dtype=dtype)
        x.real = values(rng, shape, "float64")
        x.imag = values(rng, shape, "float64")
        return x
    dt = np_dtype(dtype)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dt.kind == "f" or dtype == "bfloat16":
        x = rng.integers(-4, 5, shape).astype(np.float64) / 2
        pool = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf])
        x = np.where(rng.random(shape) < 0.3, rng.choice(pool, shape), x)
        return np.asarray(x.astype(dt))
    lo = 0 if dtype.startswith("u") else -50
    return np.asarray(rng.integers(lo, 50, size=shape).astype(dt))


def on_gpu(a):
    return mnp.array(a, device=DEV)


def host(a):
    return np.asarray(a.asnumpy())


def same(got, want):
    """Equal as the CPU result, bit for bit (signed zeros and NaNs where they are)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


@pytest.mark.parametrize("dtype", ALL)
def test_sort_argsort(dtype):
    rng = np.random.default_rng(0)
    x = values(rng, (6, 300, 5), dtype)
    g = on_gpu(x)
    for axis in (-3, -2, -1, None):
        for descending in (False, True):
            kw = {"axis": axis, "descending": descending}
            same(host(mnp.sort(g, **kw)), mnp.sort(x, **kw).numpy())
            same(host(mnp.argsort(g, **kw)), mnp.argsort(x, **kw).numpy())
    a = on_gpu(x)
    a.sort(axis=1)
    same(host(a), mnp.sort(x, axis=1).numpy())


@pytest.mark.parametrize("dtype", ALL)
def test_searchsorted(dtype):
    rng = np.random.default_rng(1)
    a = mnp.sort(values(rng, (200,), dtype)).numpy()
    v = values(rng, (7, 9), dtype)
    for side in ("left", "right"):
        same(
            host(mnp.searchsorted(on_gpu(a), on_gpu(v), side=side)),
            mnp.searchsorted(a, v, side=side).numpy(),
        )
    perm = rng.permutation(a.size)
    sorter = np.argsort(perm)
    same(
        host(mnp.searchsorted(on_gpu(a[perm]), on_gpu(v), sorter=on_gpu(sorter))),
        mnp.searchsorted(a, v).numpy(),
    )


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", [(0,), (), (4, 50)])
def test_unique(dtype, shape):
    rng = np.random.default_rng(2)
    x = values(rng, shape, dtype)
    got, want = mnp.unique_all(on_gpu(x)), mnp.unique_all(x)
    for g, w in zip(got, want, strict=True):
        same(host(g), w.numpy())
    got = mnp.unique(on_gpu(x), return_index=True, return_inverse=True, return_counts=True)
    want = mnp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for g, w in zip(got, want, strict=True):
        same(host(g), w.numpy())


def test_unique_ops_check_on_the_device():
    x = on_gpu(np.array([3.0, 1.0, 3.0]))
    with pytest.raises(ValueError) as e:
        mxffi.ops.invoke("_npi_unique_count", x, on_gpu(np.array([0, 1, 5])))
    assert str(e.value) == "np.unique: the permutation holds a position outside [0, 3)"
    with pytest.raises(ValueError) as e:
        mxffi.ops.invoke("_npi_unique", x, on_gpu(np.array([1, 0, 2])), count=3)
    assert str(e.value) == "np.unique: the array has 2 distinct values, but count=3 was given"
