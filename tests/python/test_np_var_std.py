"""np.var and np.std (and the array methods) against numpy: values within rounding, result
dtypes, axis forms, keepdims, correction and its numpy alias ddof, empty reductions, strided and
large inputs, and the errors."""

import warnings
import zlib

import numpy as np
import pytest
from conftest import DTYPES, np_dtype
from numpy.exceptions import AxisError
from test_np_reduce_logical import axis_forms

import mxffi.np as mnp

SHAPES = [(), (0,), (1,), (7,), (0, 3), (3, 0), (4, 7), (3, 4, 5), (2, 3, 1, 4)]
REL = {"float16": 2e-2, "bfloat16": 1e-1, "float32": 1e-5, "float64": 1e-12}


def values(shape, dtype, rng):
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.startswith("int"):
        return np.asarray(rng.integers(-100, 100, shape).astype(dtype))
    if dtype.startswith("uint"):
        return np.asarray(rng.integers(0, 200, shape).astype(dtype))
    return np.asarray((rng.standard_normal(shape) * 3 + 1).astype(np_dtype(dtype)))


def check(name, x, axis, keepdims, correction=0):
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.asarray(getattr(np, name)(x, axis=np_axis, keepdims=keepdims, ddof=correction))
    got = getattr(mnp, name)(x, axis=axis, keepdims=keepdims, correction=correction).numpy()
    assert got.dtype == want.dtype, (name, x.dtype, got.dtype, want.dtype)
    assert got.shape == want.shape, (name, x.shape, axis, keepdims)
    g, w = got.astype(np.float64), want.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    ok = ~np.isnan(w)
    # float16/bfloat16: numpy rounds every step to 16 bits, mxffi computes in float32, so the
    # two differ by a few steps of the 16-bit grid at the data's magnitude, whatever the result
    # (a std near 0 is all rounding there).
    rel = REL.get(str(got.dtype), 1e-12)
    atol = rel * 1e-3
    if str(got.dtype) in ("float16", "bfloat16") and x.size:
        scale = float(np.max(np.abs(x.astype(np.float64))))
        atol = max(atol, rel * 0.1 * (scale if name == "std" else scale * scale))
    np.testing.assert_allclose(g[ok], w[ok], rtol=rel, atol=atol, err_msg=f"{name} {axis}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["var", "std"])
def test_matches_numpy(name, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{name} {dtype}".encode()))  # not hash(): salted
    for shape in SHAPES:
        x = values(shape, dtype, rng)
        for axis in axis_forms(len(shape)):
            for keepdims in (False, True):
                check(name, x, axis, keepdims)
        check(name, x, None, False, correction=1)


@pytest.mark.parametrize("name", ["var", "std"])
def test_correction_and_ddof(name):
    x = np.random.default_rng(1).standard_normal((5, 6))
    f = getattr(mnp, name)
    for c in [0, 1, 2.5, 5, 6, 7]:
        check(name, x, 0, False, correction=c)  # past the count: inf, numpy's
        got = f(x, axis=1, ddof=c).numpy()
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = getattr(np, name)(x, axis=1, ddof=c)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    with pytest.raises(
        ValueError,
        match=rf"^np\.{name}: ddof and correction are one argument and cannot both be given; "
        "got ddof=1 and correction=0",
    ):
        f(x, ddof=1, correction=0)


@pytest.mark.parametrize("name", ["var", "std"])
def test_accuracy_large_offset(name):
    """Two passes: a large common offset does not cancel the variance away (a one-pass
    sum-of-squares formula would lose it), and the full reduction is split into chunks."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal(1_000_003) + 1e6
    got = float(getattr(mnp, name)(x).numpy())
    want = float(getattr(np, name)(x))
    assert abs(got - want) <= 1e-9 * want, (got, want)
    x32 = x.astype(np.float32) - np.float32(1e6)
    check(name, x32, None, False)
    big = rng.standard_normal((600, 700))
    for v in [big, big.T, big[::2, ::-3]]:
        for axis in [None, 0, 1, (0, 1)]:
            check(name, v, axis, True)


@pytest.mark.parametrize("name", ["var", "std"])
def test_strided(name):
    rng = np.random.default_rng(3)
    base = values((6, 8, 10), "float64", rng)
    for x in [base.transpose(2, 0, 1), base[::2, 1:7, ::3], base[:, ::-1]]:
        for axis in axis_forms(x.ndim):
            check(name, x, axis, False)


def test_methods_and_errors():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    a = mnp.array(x)
    np.testing.assert_allclose(a.var().numpy(), x.var())
    np.testing.assert_allclose(a.std(0, ddof=1).numpy(), x.std(0, ddof=1))
    np.testing.assert_allclose(a.var(axis=1, keepdims=True).numpy(), x.var(1, keepdims=True))
    np.testing.assert_allclose(a.std(correction=1).numpy(), x.std(ddof=1))
    out = mnp.zeros((4,), dtype="float32")
    a.var(0, out)
    np.testing.assert_allclose(out.numpy(), x.var(0).astype(np.float32))
    for name in ["var", "std"]:
        f = getattr(mnp, name)
        with pytest.raises(AxisError, match=rf"np\.{name}: axis 2 is out of bounds"):
            f(x, axis=2)
        with pytest.raises(ValueError, match=rf"np\.{name}: duplicate value in 'axis'"):
            f(x, axis=(0, -2))
        with pytest.raises(TypeError, match=rf"^np\.{name}: unsupported dtype int32x4"):
            f(mnp.zeros((2,), dtype="int32x4"))
