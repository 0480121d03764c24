"""Complex reductions, scans and diff on a CUDA device against the CPU kernels.

sum, mean, prod, max, min, argmax, argmin, all, any, count_nonzero, var, std,
cumulative_sum, cumulative_prod and diff of complex64 and complex128 arrays: the results of
the exact ones (max and min, the arg reductions, the truth reductions, cumulative_sum and diff)
bit for bit, NaN payloads and signed zeros included, since the GPU combines complex max and min
in order and keeps the CPU's first NaN; the sums, products, means and variances within rounding
(the GPU adds in another order, and may fuse a product's multiply and add). Shapes cover both
kernel layouts (a warp per output, a thread per output) and the split into parts that a full
reduction of many elements takes. Skipped without a CUDA device.
"""

import numpy as np
import pytest

import mxffi
import mxffi.np as mnp
from mxffi import cuda

needs_gpu = pytest.mark.skipif(
    not cuda.is_available(), reason=f"no CUDA device: {cuda.unavailable_reason()}"
)
pytestmark = needs_gpu

DEV = "cuda:0"
CDTYPES = ["complex64", "complex128"]
EPS = {"complex64": np.finfo(np.float32).eps, "complex128": np.finfo(np.float64).eps}
# (shape, axis): the warp layout (innermost axis reduced), the thread layout (innermost axis
# kept), several axes, empty reductions, and full reductions long enough to be split in parts.
CASES = [
    ((1001,), None),
    ((37, 101), 0),
    ((37, 101), 1),
    ((6, 7, 8), (0, 2)),
    ((6, 7, 8), None),
    ((3, 5000), 1),
    ((5000, 3), 0),
    ((200003,), None),
    ((0, 3), 0),
]


def crand(rng, shape, dtype):
    """Random complex values of dtype, both parts standard normal."""
    return np.asarray(rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def both(a):
    """A numpy array as (CPU mxffi array, CUDA mxffi array) holding the same values."""
    c = mnp.array(a)
    return c, c.to(DEV)


def parts(a):
    """A complex array's parts as a float array (real, imaginary, real, ...)."""
    a = np.ascontiguousarray(a)
    return a.view({8: np.float32, 16: np.float64}[a.dtype.itemsize])


def bits(p):
    """Float parts as unsigned integers: equal bits, the signs of zeros included."""
    return p.view({4: np.uint32, 8: np.uint64}[p.dtype.itemsize])


def check_exact(got, want):
    """got (on the GPU) is want (the CPU's) in device, dtype, shape and bits, except that a
    NaN part only has to be NaN (a GPU's arithmetic makes its own NaN). Which part of which
    element is NaN is compared, so a max that kept another NaN than the first one fails."""
    assert isinstance(got, mxffi.NDArray), type(got)
    assert str(got.device) == DEV, got.device
    assert str(got.dtype) == str(want.dtype), (str(got.dtype), str(want.dtype))
    g, w = got.asnumpy(), want.asnumpy()
    assert g.shape == w.shape, (g.shape, w.shape)
    if w.dtype.kind == "c":
        gp, wp = parts(g), parts(w)
        nan = np.isnan(wp)
        assert np.array_equal(np.isnan(gp), nan), (g, w)
        np.testing.assert_array_equal(bits(gp[~nan]), bits(wp[~nan]))
    else:
        np.testing.assert_array_equal(g, w)


def check_close(got, want, bound):
    """got within bound (broadcast to want) of want, NaN where want is NaN (either part)."""
    assert str(got.device) == DEV, got.device
    assert str(got.dtype) == str(want.dtype), (str(got.dtype), str(want.dtype))
    g, w = got.asnumpy(), want.asnumpy()
    assert g.shape == w.shape, (g.shape, w.shape)
    nan = np.isnan(w)
    assert np.array_equal(np.isnan(g), nan), (g, w)
    b = np.broadcast_to(bound, w.shape)[~nan]
    assert np.all(np.abs(g[~nan] - w[~nan]) <= b), (g, w)


def count_of(shape, axis):
    """How many elements each output of a reduction over axis combines."""
    if axis is None:
        return int(np.prod(shape))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return int(np.prod([shape[a] for a in axes]))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", ["sum", "mean"])
def test_complex_sum_and_mean_match_cpu(name, dtype):
    rng = np.random.default_rng(1)
    fn = getattr(mnp, name)
    for shape, axis in CASES:
        x = crand(rng, shape, dtype)
        c, g = both(x)
        for keepdims in (False, True):
            want = fn(c, axis=axis, keepdims=keepdims)
            got = fn(g, axis=axis, keepdims=keepdims)
            # Both parts' magnitudes summed bound the rounding of either order of additions.
            scale = np.sum(np.abs(x.real) + np.abs(x.imag), axis=axis, keepdims=keepdims)
            if name == "mean":
                scale = scale / max(count_of(shape, axis), 1)
            check_close(got, want, 8 * EPS[dtype] * (scale + 1e-30))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_complex_prod_matches_cpu(dtype):
    """Factors of modulus 1 (products stay finite): each product rounds by about eps."""
    rng = np.random.default_rng(2)
    for shape, axis in CASES:
        x = np.exp(1j * rng.uniform(-np.pi, np.pi, shape)).astype(dtype)
        c, g = both(x)
        want = mnp.prod(c, axis=axis)
        got = mnp.prod(g, axis=axis)
        check_close(got, want, 8 * EPS[dtype] * max(count_of(shape, axis), 1))
    # Exact where no rounding happens (powers of two, 1 + 1j), whatever the order.
    x = np.array([2, 1j, -0.5, 1 + 1j, 4], dtype=dtype)
    c, g = both(x)
    check_exact(mnp.prod(g), mnp.prod(c))


def extremes_input(rng, shape, dtype, nans):
    """Few distinct parts (ties in the real part, so the imaginary part decides, and equal
    values), signed zeros, and with nans several different NaNs (in either part)."""
    re = rng.integers(-2, 3, shape).astype(np.float64)
    im = rng.integers(-2, 3, shape).astype(np.float64)
    x = (re + 1j * im).astype(dtype)
    flat = x.reshape(-1)
    if flat.size:
        zeros = rng.integers(0, flat.size, max(flat.size // 7, 1))
        flat[zeros] = np.array([complex(-0.0, -0.0)], dtype=dtype)[0]
        if nans and flat.size > 10:
            for k, pos in enumerate(rng.integers(0, flat.size, 4)):
                v = [
                    complex(np.nan, k),
                    complex(k, np.nan),
                    complex(np.nan, -k),
                    complex(-k, np.nan),
                ]
                flat[pos] = v[k]
    return x


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
def test_complex_extremes_match_cpu_bit_for_bit(name, dtype):
    """Lexicographic order (numpy's): the first of equal values, the first NaN, exactly."""
    rng = np.random.default_rng(3)
    fn = getattr(mnp, name)
    for shape, axis in CASES:
        if 0 in shape:
            continue  # max and min of nothing raise on both devices
        if name.startswith("arg") and isinstance(axis, tuple):
            axis = None
        for nans in (False, True):
            c, g = both(extremes_input(rng, shape, dtype, nans))
            for keepdims in (False, True):
                check_exact(
                    fn(g, axis=axis, keepdims=keepdims), fn(c, axis=axis, keepdims=keepdims)
                )
    # A strided, transposed view.
    c, g = both(extremes_input(rng, (6, 7, 8), dtype, True))
    for axis in [None, 0, 1, 2]:
        check_exact(
            fn(mnp.transpose(g, (2, 0, 1)), axis=axis), fn(mnp.transpose(c, (2, 0, 1)), axis=axis)
        )


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", ["all", "any", "count_nonzero"])
def test_complex_truth_reductions_match_cpu(name, dtype):
    """x != 0: a nonzero imaginary part alone is true, a NaN part is true, -0 - 0j is not."""
    rng = np.random.default_rng(4)
    fn = getattr(mnp, name)
    for shape, axis in CASES:
        for p_zero in (0.001, 0.5, 0.99):
            x = crand(rng, shape, dtype)
            x[rng.random(shape) < 0.3] = 1j
            x[rng.random(shape) < p_zero] = np.array([complex(-0.0, -0.0)], dtype=dtype)[0]
            if x.size > 10:
                x.reshape(-1)[rng.integers(0, x.size, 2)] = complex(0, np.nan)
            c, g = both(x)
            for keepdims in (False, True):
                check_exact(
                    fn(g, axis=axis, keepdims=keepdims), fn(c, axis=axis, keepdims=keepdims)
                )


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", ["var", "std"])
def test_complex_var_and_std_match_cpu(name, dtype):
    """Real results of the parts' precision (float32, float64), within rounding."""
    rng = np.random.default_rng(5)
    fn = getattr(mnp, name)
    for shape, axis in CASES:
        c, g = both(crand(rng, shape, dtype) * 3 + (1 - 2j))
        for correction in (0, 1):
            want = fn(c, axis=axis, correction=correction)
            got = fn(g, axis=axis, correction=correction)
            assert str(want.dtype) == {"complex64": "float32", "complex128": "float64"}[dtype]
            check_close(got, want, 64 * EPS[dtype] * (np.abs(want.asnumpy()) + 1e-30))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_complex_cumulative_ops_and_diff_match_cpu(dtype):
    """cumulative_sum and diff add and subtract as the CPU does (bit for bit); cumulative_prod
    multiplies within rounding (the GPU may fuse a multiply and an add)."""
    rng = np.random.default_rng(6)
    for shape in [(1001,), (37, 101), (6, 7, 8)]:
        x = crand(rng, shape, dtype)
        x.reshape(-1)[:3] = [complex(np.inf, 0), complex(0, np.nan), complex(-0.0, 0.0)]
        c, g = both(x)
        for axis in range(len(shape)):
            for include_initial in (False, True):
                check_exact(
                    mnp.cumulative_sum(g, axis=axis, include_initial=include_initial),
                    mnp.cumulative_sum(c, axis=axis, include_initial=include_initial),
                )
            check_exact(mnp.diff(g, axis=axis), mnp.diff(c, axis=axis))
            check_exact(mnp.diff(g, n=2, axis=axis), mnp.diff(c, n=2, axis=axis))
            u = np.exp(1j * rng.uniform(-np.pi, np.pi, shape)).astype(dtype)
            cu, gu = both(u)
            want = mnp.cumulative_prod(cu, axis=axis)
            got = mnp.cumulative_prod(gu, axis=axis)
            check_close(got, want, 8 * EPS[dtype] * shape[axis])


def test_complex_reductions_of_a_strided_view_match_cpu():
    """A reversed, stepped view reduces as its copy does on the CPU."""
    rng = np.random.default_rng(7)
    x = crand(rng, (40, 300), "complex128")
    c, g = both(x)
    cv, gv = c[::-1, ::3], g[::-1, ::3]
    v = x[::-1, ::3]
    for axis in (None, 0, 1):
        scale = np.sum(np.abs(v.real) + np.abs(v.imag), axis=axis)
        check_close(mnp.sum(gv, axis=axis), mnp.sum(cv, axis=axis), 8 * EPS["complex128"] * scale)
        check_exact(mnp.max(gv, axis=axis), mnp.max(cv, axis=axis))
        check_exact(mnp.argmin(gv, axis=axis), mnp.argmin(cv, axis=axis))
        check_exact(mnp.cumulative_sum(gv, axis=axis or 0), mnp.cumulative_sum(cv, axis=axis or 0))
