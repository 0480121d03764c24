"""np.cumulative_sum, np.cumulative_prod, np.cumsum, np.cumprod and the array methods
a.cumsum() / a.cumprod() against numpy 2: values and numpy's default dtypes for every dtype
class, dtype=, include_initial, axes (negative too), axis=None, strided, 0-size and 0-d inputs,
out=, threads, and errors."""

import inspect

import numpy as np
import pytest

import mxffi.np as mnp
from mxffi.error import AxisError

DTYPES = [
    "bool",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float16",
    "float32",
    "float64",
]


def _np_of(dtype, shape, seed=0, prod=False):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 4, size=shape) > 0
    if prod:
        v = rng.integers(-3, 4, size=shape)
    else:
        v = rng.integers(-100, 100, size=shape)
    if dtype.startswith("uint"):
        v = np.abs(v)
    if dtype.startswith("float"):
        return (v / 4).astype(dtype)
    return v.astype(dtype)


def _same(got, want):
    g = np.from_dlpack(got)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_and_prod_every_dtype(dtype, axis, include_initial):
    x = _np_of(dtype, (3, 4, 5), 1)
    _same(
        mnp.cumulative_sum(mnp.asarray(x), axis=axis, include_initial=include_initial),
        np.cumulative_sum(x, axis=axis, include_initial=include_initial),
    )
    xp = _np_of(dtype, (3, 4, 5), 2, prod=True)
    _same(
        mnp.cumulative_prod(xp, axis=axis, include_initial=include_initial),
        np.cumulative_prod(xp, axis=axis, include_initial=include_initial),
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_cumprod_flatten_and_methods(dtype):
    x = _np_of(dtype, (4, 6), 3)
    m = mnp.asarray(x)
    _same(mnp.cumsum(m), np.cumsum(x))
    _same(mnp.cumsum(x, 1), np.cumsum(x, 1))
    _same(m.cumsum(), x.cumsum())
    _same(m.cumsum(axis=0), x.cumsum(axis=0))
    xp = _np_of(dtype, (4, 6), 4, prod=True)
    _same(mnp.cumprod(xp), np.cumprod(xp))
    _same(mnp.asarray(xp).cumprod(-1), xp.cumprod(-1))


def test_bfloat16():
    x = np.arange(10, dtype=np.float32) / 8
    m = mnp.asarray(x).astype("bfloat16")
    r = mnp.cumulative_sum(m)
    assert str(r.dtype) == "bfloat16"
    np.testing.assert_array_equal(np.from_dlpack(r.astype("float32")), np.cumsum(x))
    assert str(mnp.cumprod(m, dtype="float32").dtype) == "float32"


@pytest.mark.parametrize(
    "src,dtype",
    [
        ("int8", "int8"),
        ("int8", "int16"),
        ("uint8", "int32"),
        ("int32", "float32"),
        ("float64", "int32"),
        ("float32", "float16"),
        ("bool", "bool"),
        ("bool", "uint8"),
        ("uint16", "uint64"),
        ("int64", "float64"),
        ("float16", "float64"),
    ],
)
def test_dtype_argument_converts_each_element(src, dtype):
    x = _np_of(src, (3, 7), 5)
    _same(mnp.cumulative_sum(x, axis=1, dtype=dtype), np.cumulative_sum(x, axis=1, dtype=dtype))
    _same(mnp.cumsum(x, dtype=dtype), np.cumsum(x, dtype=dtype))
    xp = _np_of(src, (3, 7), 6, prod=True)
    _same(mnp.cumprod(xp, 0, dtype), np.cumprod(xp, 0, dtype))


def test_integers_wrap_as_numpy():
    x = np.array([120, 10, 100], np.int8)
    _same(mnp.cumsum(x, dtype="int8"), np.cumsum(x, dtype="int8"))
    big = np.array([2**62, 2**62, 2**62], np.int64)
    _same(mnp.cumsum(big), np.cumsum(big))
    u = np.array([65535, 65535, 65535], np.uint16)
    _same(mnp.cumprod(u, dtype="uint16"), np.cumprod(u, dtype="uint16"))
    _same(mnp.cumprod(np.full(70, 3, np.int64)), np.cumprod(np.full(70, 3, np.int64)))


def test_float_accumulates_in_order():
    x = np.random.default_rng(7).standard_normal(5000).astype(np.float32)
    _same(mnp.cumsum(x), np.cumsum(x))
    h = (np.arange(3000) % 7 / 10).astype(np.float16)
    _same(mnp.cumsum(h), np.cumsum(h))
    n = np.array([1.0, np.nan, 2.0, np.inf, -np.inf])
    _same(mnp.cumsum(n), np.cumsum(n))
    _same(mnp.cumprod(n), np.cumprod(n))


def test_strided_zero_size_and_0d():
    base = _np_of("float64", (6, 8), 8)
    m = mnp.asarray(base)
    _same(mnp.cumulative_sum(m[::2, ::-3], axis=0), np.cumulative_sum(base[::2, ::-3], axis=0))
    _same(mnp.cumsum(m.T), np.cumsum(base.T))
    _same(mnp.cumulative_sum(m.T, axis=1), np.cumulative_sum(base.T, axis=1))
    z = np.zeros((0, 3), np.int32)
    _same(mnp.cumulative_sum(z, axis=0), np.cumulative_sum(z, axis=0))
    _same(
        mnp.cumulative_sum(z, axis=0, include_initial=True),
        np.cumulative_sum(z, axis=0, include_initial=True),
    )
    _same(
        mnp.cumulative_prod(z, axis=1, include_initial=True),
        np.cumulative_prod(z, axis=1, include_initial=True),
    )
    _same(mnp.cumsum(z), np.cumsum(z))
    s = np.array(5, np.int16)
    _same(mnp.cumulative_sum(s), np.cumulative_sum(s))
    _same(mnp.cumsum(s), np.cumsum(s))
    _same(mnp.cumulative_prod(np.arange(1, 6)), np.cumulative_prod(np.arange(1, 6)))


def test_large_inputs_split_across_threads():
    rng = np.random.default_rng(9)
    rows = rng.integers(-5, 5, size=(300, 2000)).astype(np.int32)
    for axis in (0, 1):
        _same(mnp.cumulative_sum(rows, axis=axis), np.cumulative_sum(rows, axis=axis))
    f = rng.standard_normal((3, 100_000))
    _same(mnp.cumsum(f, axis=1), np.cumsum(f, axis=1))
    _same(mnp.cumsum(f, axis=0), np.cumsum(f, axis=0))


def test_out():
    x = _np_of("int16", (3, 4), 10)
    out = mnp.zeros(12, dtype="int64")
    r = mnp.cumsum(x, out=out)
    _same(out, np.cumsum(x))
    assert np.shares_memory(np.from_dlpack(r), np.from_dlpack(out))
    out = mnp.zeros((3, 4), dtype="int32")  # numpy converts into out= unsafely
    mnp.cumsum(x.astype(np.float64) + 0.5, axis=1, out=out)
    _same(out, np.cumsum(x.astype(np.float64) + 0.5, axis=1).astype(np.int32))
    with pytest.raises(
        ValueError, match=r"np\.cumsum: out has shape \(3, 4\) but the result has shape \(12,\)"
    ):
        mnp.cumsum(x, out=out)


def test_signatures():
    sig = inspect.signature(mnp.cumulative_sum)
    assert list(sig.parameters) == ["x", "axis", "dtype", "include_initial"]
    assert sig.parameters["x"].kind is inspect.Parameter.POSITIONAL_ONLY
    assert sig.parameters["axis"].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(inspect.signature(mnp.cumprod).parameters) == ["a", "axis", "dtype", "out"]


def test_errors():
    with pytest.raises(
        ValueError,
        match=r"np\.cumulative_sum: For arrays which have more than one dimension ``axis`` "
        r"argument is required; got an array of dimension 2",
    ):
        mnp.cumulative_sum(np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"np\.cumulative_prod: For arrays which have more"):
        mnp.cumulative_prod(np.ones((2, 2)))
    with pytest.raises(
        AxisError, match=r"np\.cumulative_sum: axis 1 is out of bounds for array of dimension 1"
    ):
        mnp.cumulative_sum(np.ones(3), axis=1)
    with pytest.raises(
        AxisError, match=r"np\.cumsum: axis -3 is out of bounds for array of dimension 2"
    ):
        mnp.cumsum(np.ones((2, 2)), axis=-3)
    with pytest.raises(TypeError, match=r"np\.cumsum: unsupported dtype int32x4"):
        mnp.cumsum(np.ones(3), dtype="int32x4")
    with pytest.raises(TypeError, match=r"np\.cumsum: argument #1 'axis'"):
        mnp.cumsum(np.ones(3), axis=(0,))
    with pytest.raises(TypeError):
        mnp.cumulative_sum(np.ones(3), 0)  # axis is keyword-only


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_scans_as_numpys(dtype):
    # Complex running sums and products: the first result is x[0] itself (an infinite part stays
    # as it is), products multiply as numpy's loop does (no C99 recovery of infinities).
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))).astype(dtype)
    x[0, 2] = complex(np.inf, 0)
    x[1, 1] = complex(np.nan, 1)
    x[2, 0] = complex(-0.0, -0.0)
    rtol = 1e-5 if dtype == "complex64" else 1e-12
    for axis in (0, 1, -1):
        for name in ("cumulative_sum", "cumulative_prod"):
            for initial in (False, True):
                with np.errstate(all="ignore"):
                    want = getattr(np, name)(x, axis=axis, include_initial=initial)
                got = getattr(mnp, name)(x, axis=axis, include_initial=initial).asnumpy()
                assert got.dtype == want.dtype
                np.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True)
    np.testing.assert_allclose(mnp.cumsum(x).asnumpy(), np.cumsum(x), rtol=rtol, equal_nan=True)
    got = mnp.cumulative_sum(np.arange(4), dtype=dtype).asnumpy()
    np.testing.assert_array_equal(got, np.cumulative_sum(np.arange(4), dtype=dtype))
    assert got.dtype == np.dtype(dtype)


def test_the_first_running_value_is_the_first_element_itself():
    # numpy's accumulate copies x[0]: a -0.0 stays -0.0 (0 + -0.0 would be +0.0).
    for x in (np.array([-0.0, 1.0]), np.array([[-0.0, -0.0], [1.0, 2.0]])):
        for axis in (0, -1):
            got = mnp.cumulative_sum(x, axis=axis).asnumpy()
            want = np.cumulative_sum(x, axis=axis)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
