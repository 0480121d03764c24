"""The CUDA kernels of the indexing ops against numpy: the advanced-index gather and scatter
(repeated indices: the last write wins, as numpy), nonzero (ordered across the kernel's blocks),
take and take_along_axis, the index range check, and out= overlapping an input on the device.
Sizes cross the nonzero kernels' tile and block boundaries (1000003 elements)."""

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

# The array type's advanced indexing, after its key is normalised (src/api/np_indexing.cc).
gather = mxffi.get_global_func("ndarray.advanced_gather")
scatter = mxffi.get_global_func("ndarray.advanced_scatter")
boolean_gather = mxffi.get_global_func("ndarray.boolean_gather")
boolean_scatter = mxffi.get_global_func("ndarray.boolean_scatter")

DEV = "cuda:0"
LARGE = 1000003


def values(rng, shape, dtype):
    dt = np_dtype(dtype)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dt.kind == "f" or dtype == "bfloat16":
        return (rng.standard_normal(shape) * 4).astype(dt)
    lo = 0 if dtype.startswith("u") else -50
    return rng.integers(lo, 50, size=shape).astype(dt)


def on_gpu(a):
    return mnp.array(a, device=DEV)


def host(a):
    return np.asarray(a.asnumpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_and_scatter(dtype):
    rng = np.random.default_rng(0)
    x = values(rng, (5, 6, 7), dtype)
    i = rng.integers(-5, 5, size=(3, 4))
    j = rng.integers(-6, 6, size=(3, 4))
    g = gather(on_gpu(x), 0, on_gpu(i), on_gpu(j))
    np.testing.assert_array_equal(host(g), x[i, j])
    t = mnp.transpose(on_gpu(np.ascontiguousarray(x.transpose(2, 1, 0))))  # a strided view
    np.testing.assert_array_equal(host(gather(t, 1, on_gpu(j))), x[:, j])
    m = on_gpu(x)
    v = values(rng, (3, 4, 7), dtype)
    scatter(m, on_gpu(v), 0, on_gpu(i), on_gpu(j))  # i, j repeat: last wins
    want = x.copy()
    want[i, j] = v
    np.testing.assert_array_equal(host(m), want)


def test_scatter_repeats_and_large():
    rng = np.random.default_rng(1)
    x = np.zeros(1000)
    idx = rng.integers(0, 1000, size=LARGE)
    v = np.arange(LARGE, dtype=np.float64)
    m = on_gpu(x)
    scatter(m, on_gpu(v), 0, on_gpu(idx))
    x[idx] = v
    np.testing.assert_array_equal(host(m), x)
    big = rng.standard_normal((300, 400))
    rows = rng.integers(-300, 300, size=5000)
    np.testing.assert_array_equal(host(gather(on_gpu(big), 0, on_gpu(rows))), big[rows])


@pytest.mark.parametrize("density", [0.0, 0.001, 0.5, 1.0])
@pytest.mark.parametrize("shape", [(LARGE,), (7, 0, 3), (1001, 999), (3, 5, 7)])
def test_nonzero(shape, density):
    rng = np.random.default_rng(2)
    x = np.where(rng.random(shape) < density, rng.standard_normal(shape), 0.0)
    for view in [on_gpu(x), mnp.transpose(on_gpu(np.ascontiguousarray(x.T)))]:
        got = mnp.nonzero(view)
        for g, w in zip(got, np.nonzero(x), strict=True):
            np.testing.assert_array_equal(host(g), w)


def test_take_take_along_axis_and_errors():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 5))
    d = on_gpu(x)
    np.testing.assert_array_equal(host(mnp.take(d, [3, -1, 0], axis=1)), np.take(x, [3, -1, 0], 1))
    np.testing.assert_array_equal(host(mnp.take(d, [19, 0])), np.take(x, [19, 0]))
    order = np.argsort(x, axis=0)
    np.testing.assert_array_equal(
        host(mnp.take_along_axis(d, on_gpu(order), axis=0)), np.take_along_axis(x, order, 0)
    )
    with pytest.raises(IndexError) as want:
        x[:, [1, 5]]
    with pytest.raises(IndexError) as got:
        gather(d, 1, on_gpu(np.array([1, 5])))
    assert str(got.value) == str(want.value)


def test_out_overlapping_an_input_on_the_device():
    a = on_gpu(np.arange(9.0).reshape(3, 3))
    mnp.add(a, mnp.transpose(a), out=a)
    np.testing.assert_array_equal(host(a), [[0, 4, 8], [4, 8, 12], [8, 12, 16]])
    m = on_gpu(np.arange(16.0).reshape(4, 4))
    mnp.copyto(m, mnp.transpose(m))
    np.testing.assert_array_equal(host(m), np.arange(16.0).reshape(4, 4).T)


@pytest.mark.parametrize("dtype", DTYPES + ["complex64", "complex128"])
def test_where(dtype):
    """np.where's CUDA kernel: every element size, broadcast and strided inputs, a condition of
    another dtype (cast on the device), and a size past one block of threads."""
    rng = np.random.default_rng(2)
    dt = np_dtype(dtype)
    if dtype.startswith("complex"):
        x = (rng.standard_normal((6, 7)) + 1j * rng.standard_normal((6, 7))).astype(dt)
        y = (rng.standard_normal(7) - 1j).astype(dt)
    else:
        x, y = values(rng, (6, 7), dtype), values(rng, 7, dtype)
    c = rng.random((6, 7)) < 0.5
    got = mnp.where(on_gpu(c), on_gpu(x), on_gpu(y))
    assert str(got.device) == DEV, got.device
    np.testing.assert_array_equal(host(got), np.where(c, x, y))
    t = mnp.transpose(on_gpu(np.ascontiguousarray(x.T)))  # a strided view of x
    np.testing.assert_array_equal(
        host(mnp.where(on_gpu(c[:, :1]), t, on_gpu(y))), np.where(c[:, :1], x, y)
    )
    ci = rng.integers(0, 3, (6, 7)).astype("float32")
    ci[0, 0] = np.nan
    np.testing.assert_array_equal(
        host(mnp.where(on_gpu(ci), on_gpu(x), on_gpu(y))), np.where(ci, x, y)
    )
    cl = rng.random(LARGE) < 0.5
    xl = np.resize(x, LARGE)
    np.testing.assert_array_equal(
        host(mnp.where(on_gpu(cl), on_gpu(xl), on_gpu(y[:1]))), np.where(cl, xl, y[:1])
    )
