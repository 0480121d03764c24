"""np.prod, np.count_nonzero, np.argmax and np.argmin (and the array methods) against numpy:
values, result dtypes, axis forms, keepdims, empty inputs, strided inputs, NaN, large inputs
through the thread pool, and the errors numpy raises."""

import warnings

import numpy as np
import pytest
from conftest import DTYPES, np_dtype, seed_of
from numpy.exceptions import AxisError
from test_np_reduce_logical import axis_forms, make

import mxffi.np as mnp

SHAPES = [(), (0,), (1,), (7,), (0, 3), (3, 0), (4, 7), (3, 4, 5), (2, 3, 1, 4), (2, 0, 3)]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def expect(f, *args, **kwargs):
    """numpy's result as an array, or the exception it raises."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.asarray(f(*args, **kwargs)), None
    except Exception as e:  # noqa: BLE001 (the class is compared)
        return None, e


# ---- prod --------------------------------------------------------------------------------------


def prod_values(shape, dtype, rng):
    """Values whose products stay meaningful: small magnitudes, some negative, no zeros for
    floats (so relative comparison works), zeros now and then for integers."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.8)
    if dtype.startswith("int"):
        return np.asarray(rng.integers(-3, 4, shape).astype(dtype))
    if dtype.startswith("uint"):
        return np.asarray(rng.integers(0, 4, shape).astype(dtype))
    v = rng.uniform(0.5, 1.5, shape) * np.where(rng.random(shape) < 0.3, -1, 1)
    return np.asarray(v.astype(np_dtype(dtype)))


REL = {"float16": 1e-2, "bfloat16": 6e-2, "float32": 1e-5, "float64": 1e-13}


def check_prod(x, axis, keepdims, dtype=None):
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    kw = {"axis": np_axis, "keepdims": keepdims}
    mkw = {"axis": axis, "keepdims": keepdims}
    if dtype is not None:
        kw["dtype"] = np_dtype(dtype)
        mkw["dtype"] = dtype
    want, err = expect(np.prod, x, **kw)
    assert err is None, err
    got = mnp.prod(x, **mkw).numpy()
    assert got.dtype == want.dtype, (x.dtype, axis, got.dtype, want.dtype)
    assert got.shape == want.shape, (x.shape, axis, keepdims)
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=f"prod {x.dtype} {axis}")
        return
    g, w = got.astype(np.float64), want.astype(np.float64)
    rel = REL["bfloat16" if "bfloat16" in (str(x.dtype), dtype) else str(got.dtype)]
    n = max(1, x.size // max(1, want.size))
    np.testing.assert_allclose(g, w, rtol=rel * n, atol=0, err_msg=f"prod {x.dtype} {axis}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_prod_matches_numpy(dtype):
    rng = np.random.default_rng(seed_of("prod", dtype))
    for shape in SHAPES:
        x = prod_values(shape, dtype, rng)
        for axis in axis_forms(len(shape)):
            for keepdims in (False, True):
                check_prod(x, axis, keepdims)


@pytest.mark.parametrize(
    "src, dtype",
    [("int8", "int8"), ("int32", "int16"), ("uint8", "uint8"), ("bool", "bool"),
     ("int16", "float32"), ("float64", "float32"), ("float32", "float64"), ("float32", "int64"),
     ("int64", "float16")],
)  # fmt: skip
def test_prod_explicit_dtype(src, dtype):
    rng = np.random.default_rng(11)
    x = prod_values((6, 9), src, rng)
    if src.startswith("float"):
        x = (x * 3).astype(src)  # truncated to int64 element by element, as numpy casts first
    for axis in [None, 0, 1]:
        check_prod(x, axis, False, dtype=dtype)


def test_prod_wraps_and_nan():
    x = np.full(70, 3, dtype=np.int64)  # 3**70 wraps modulo 2**64, as numpy's
    assert int(mnp.prod(x).numpy()) == int(np.prod(x))
    x = np.full(40, 200, dtype=np.uint8)  # uint64 result
    assert int(mnp.prod(x).numpy()) == int(np.prod(x))
    x = np.array([1.0, np.nan, 0.0, np.inf])
    assert np.isnan(mnp.prod(x).numpy())
    assert float(mnp.prod(np.zeros((0, 3)), axis=0).numpy()[0]) == 1.0
    assert str(mnp.prod(np.zeros(0, dtype=np.int8)).dtype) == "int64"


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float16", "float32", "float64"])
def test_prod_strided_and_large(dtype):
    rng = np.random.default_rng(5)
    base = prod_values((6, 8, 10), dtype, rng)
    for x in [base.transpose(2, 0, 1), base[::2, 1:7, ::3], base[:, ::-1]]:
        for axis in axis_forms(x.ndim):
            check_prod(x, axis, False)
    big = prod_values((300, 700), dtype, rng)
    if dtype.startswith("float"):
        # mostly ones: the products stay normal numbers (numpy rounds float16 partial
        # products to float16 along a leading axis, losing subnormal digits)
        big = np.where(rng.random(big.shape) < 0.9, 1, big).astype(big.dtype)
    for axis in [0, 1]:
        check_prod(big, axis, False)


# ---- count_nonzero -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_count_nonzero_matches_numpy(dtype):
    rng = np.random.default_rng(seed_of("count", dtype))
    for shape in SHAPES:
        x = make(shape, dtype, rng, 0.4)
        for axis in axis_forms(len(shape)):
            np_axis = tuple(axis) if isinstance(axis, list) else axis
            for keepdims in (False, True):
                want = np.asarray(np.count_nonzero(x, axis=np_axis, keepdims=keepdims))
                got = mnp.count_nonzero(x, axis=axis, keepdims=keepdims).numpy()
                assert got.dtype == np.int64
                assert got.shape == want.shape, (shape, axis, keepdims)
                np.testing.assert_array_equal(got, want, err_msg=f"{dtype} {axis}")


def test_count_nonzero_nan_negative_zero_large_strided():
    assert int(mnp.count_nonzero(np.array([np.nan, -0.0, 0.0, np.inf])).numpy()) == 2
    x = make((1000, 901), "float32", np.random.default_rng(2), 0.3)
    for v in [x, x.T, x[::3, ::-2]]:
        for axis in [None, 0, 1]:
            want = np.count_nonzero(v, axis=axis)
            np.testing.assert_array_equal(mnp.count_nonzero(v, axis=axis).numpy(), want)
    with pytest.raises(AxisError, match=r"np\.count_nonzero: axis 2 is out of bounds"):
        mnp.count_nonzero(np.ones((2, 3)), axis=2)


# ---- argmax, argmin ----------------------------------------------------------------------------


def arg_values(shape, dtype, rng):
    """Few distinct values (many ties, so the first occurrence matters); floats with NaN."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.3)
    v = rng.integers(0, 5, shape)
    if dtype.startswith("int"):
        v = v - 2
    x = v.astype(np_dtype(dtype))
    if dtype in FLOATS:
        x[rng.random(shape) < 0.04] = np.nan
    return np.asarray(x)


def check_arg(name, x, axis, keepdims):
    want, err = expect(getattr(np, name), x, axis=axis, keepdims=keepdims)
    if err is not None:
        assert isinstance(err, ValueError) and "empty sequence" in str(err)
        with pytest.raises(ValueError, match=rf"np\.{name}: attempt to get {name} of an empty"):
            getattr(mnp, name)(x, axis=axis, keepdims=keepdims)
        return
    got = getattr(mnp, name)(x, axis=axis, keepdims=keepdims).numpy()
    assert got.dtype == np.int64
    assert got.shape == want.shape, (name, x.shape, axis, keepdims)
    np.testing.assert_array_equal(got, want, err_msg=f"{name} {x.dtype} {x.shape} {axis}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_matches_numpy(name, dtype):
    rng = np.random.default_rng(seed_of(name, dtype))
    for shape in SHAPES:
        x = arg_values(shape, dtype, rng)
        axes = [None] + [a for d in range(len(shape)) for a in (d, d - len(shape))]
        for axis in axes:
            for keepdims in (False, True):
                check_arg(name, x, axis, keepdims)


@pytest.mark.parametrize("dtype", ["int8", "uint64", "float16", "float64", "bool"])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_strided(name, dtype):
    rng = np.random.default_rng(9)
    base = arg_values((6, 8, 10), dtype, rng)
    for x in [base.transpose(2, 0, 1), base[::2, 1:7, ::3], base[:, ::-1], base.T[3], base[::-1]]:
        for axis in [None] + list(range(x.ndim)):
            check_arg(name, x, axis, False)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_nan_and_extremes(name):
    f = getattr(mnp, name)
    x = np.array([1.0, np.nan, 5.0, np.nan, -np.inf, np.inf])
    assert int(f(x).numpy()) == 1  # the first NaN wins
    x = np.array([[2.0, 7.0, 7.0], [np.nan, 1.0, np.nan]])
    np.testing.assert_array_equal(f(x, axis=1).numpy(), getattr(np, name)(x, axis=1))
    np.testing.assert_array_equal(f(x, axis=0).numpy(), getattr(np, name)(x, axis=0))
    for dtype in ["int8", "int64", "uint64"]:
        info = np.iinfo(dtype)
        y = np.array([0, info.max, info.min, info.max, info.min], dtype=dtype)
        assert int(f(y).numpy()) == int(getattr(np, name)(y)), dtype


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_large_parallel(name):
    """Full reductions cut into chunks, the deciding element in a late chunk and repeated."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal(1_000_003)
    for pos in [0, 65535, 65536, 777_777, 1_000_002]:
        y = x.copy()
        y[pos] = 100.0 if name == "argmax" else -100.0
        y[-1] = y[pos]  # the later copy never wins
        check_arg(name, y, None, False)
        y[pos + 1 if pos < 1_000_002 else 3] = np.nan
        check_arg(name, y, None, False)
    big = arg_values((700, 800), "float32", rng)
    for v in [big, big.T]:
        for axis in [None, 0, 1]:
            check_arg(name, v, axis, True)


def test_methods():
    x = np.array([[3, 1, 2], [4, 9, 0]], dtype=np.int32)
    a = mnp.array(x)
    np.testing.assert_array_equal(a.prod().numpy(), x.prod())
    np.testing.assert_array_equal(a.prod(1, keepdims=True).numpy(), x.prod(1, keepdims=True))
    np.testing.assert_array_equal(a.prod(axis=0, dtype="int8").numpy(), x.prod(0, dtype=np.int8))
    np.testing.assert_array_equal(a.argmax().numpy(), x.argmax())
    np.testing.assert_array_equal(a.argmax(0).numpy(), x.argmax(0))
    np.testing.assert_array_equal(
        a.argmin(axis=1, keepdims=True).numpy(), x.argmin(1, keepdims=True)
    )
    out = mnp.zeros((2,), dtype="int64")
    a.argmax(1, out)
    np.testing.assert_array_equal(out.numpy(), x.argmax(1))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_zero_d_and_errors(name):
    f = getattr(mnp, name)
    assert int(f(np.array(3.0)).numpy()) == 0
    assert int(f(np.array(3.0), axis=0).numpy()) == 0
    assert f(np.ones((2, 3)), keepdims=True).shape == (1, 1)
    x = np.ones((2, 3))
    with pytest.raises(
        TypeError,
        match=rf"^np\.{name}: argument #1 'axis' expected None or an int, got the sequence "
        r"\(0, 1\)",
    ):
        f(x, axis=(0, 1))
    with pytest.raises(AxisError, match=rf"np\.{name}: axis -3 is out of bounds"):
        f(x, axis=-3)
    with pytest.raises(
        ValueError,
        match=rf"np\.{name}: attempt to get {name} of an empty sequence; got shape \(0, 3\) "
        "reduced over axis 0",
    ):
        f(np.ones((0, 3)), axis=0)
    with pytest.raises(ValueError, match=rf"np\.{name}: attempt to get {name} of an empty"):
        f(np.ones((0,)))
    assert f(np.ones((3, 0)), axis=0).shape == (0,)
