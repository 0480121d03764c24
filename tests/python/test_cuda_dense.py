"""The dense CUDA kernels against the CPU kernels of the same ops: init (zeros, ones, full,
arange, copy, astype), elementwise (add, subtract, multiply, divide, power, maximum, minimum on
two arrays and with Python numbers on either side; negative, absolute, square, sqrt, exp, log,
sin, sign, relu, quadratic) and reductions (sum, mean, prod, max, min, all, any, count_nonzero,
argmax, argmin, var, std).

Each test runs the op on CUDA inputs and on the same inputs on the CPU and compares the
results: bit for bit where both devices compute the same IEEE operations (integers, bools, add,
subtract, multiply, maximum, minimum, the unary ops but sqrt, exp, log and sin), within a few
units in the last place where the math libraries differ (divide, sqrt, exp, log, sin, power), and
within a bound proportional to the sum of magnitudes for float sums and means, whose order of
accumulation differs. Sizes cross the kernels' block, vector and tail boundaries (1000003
elements); shapes include 0-size and 1-element arrays, broadcasting pairs, transposed (strided)
views and inputs of different dtypes.
"""

import math
import warnings

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
FLOATS = {"float16", "bfloat16", "float32", "float64"}
BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum"]
BINARY += ["floor_divide", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor"]
BINARY += ["left_shift", "right_shift", "logical_and", "logical_or", "logical_xor"]
BINARY += ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
UNARY = ["negative", "absolute", "square", "sqrt", "exp", "log", "sin", "sign"]
UNARY += ["positive", "invert", "logical_not"]
# Units in the last place the CUDA result may differ from the CPU's: results computed by the
# math libraries (CUDA's powf is within 4 ulp, expf 2, logf 1, sinf 2; divide and sqrt are correctly
# rounded on both, allowed 1 for safety); 0 for everything else. The halves round a float32
# result once, so they differ by at most 1.
ULPS = {"divide": 1, "sqrt": 1, "exp": 4, "log": 4, "sin": 4, "power": 4}
LARGE = 1000003


def rand(rng, shape, dtype, *, exponent=False):
    """Random values over a dtype's whole range (small for exponents), negatives for floats."""
    dt = np_dtype(dtype)
    if dtype == "bool":
        x = rng.random(shape) < 0.5
    elif dtype in FLOATS:
        x = (rng.standard_normal(shape) * 3).astype(dt)
    elif exponent:
        x = rng.integers(0, 9, size=shape).astype(dt)
    else:
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    return np.asarray(x)


def small(rng, shape, dtype):
    """Random values of dtype small enough that sums do not overflow their result dtype."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.startswith("int"):
        return np.asarray(rng.integers(-100, 100, shape).astype(dtype))
    if dtype.startswith("uint"):
        return np.asarray(rng.integers(0, 200, shape).astype(dtype))
    return np.asarray(rng.standard_normal(shape).astype(np_dtype(dtype)))


def both(a):
    """A numpy array as (CPU mxffi array, CUDA mxffi array) holding the same values."""
    c = mnp.array(a)
    return c, c.to(DEV)


def outcome(fn, *args, **kwargs):
    """(result, None) or (None, the exception's class)."""
    try:
        return fn(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001 (the class is what the tests compare)
        return None, type(e)


def ordered(a):
    """Float bits as integers ordered like the floats (ulp distance is their difference)."""
    bits = 8 * a.dtype.itemsize
    v = a.view({2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]).astype(np.int64)
    return np.where(v < 0, -(v & ((1 << (bits - 1)) - 1)), v)


def check(got, want, *, ulps=0):
    """got (computed on the GPU) equals want (the CPU's) in device, dtype, shape and values:
    bit for bit (NaN where NaN) when ulps is 0, else within ulps units in the last place."""
    assert isinstance(got, mxffi.NDArray), type(got)
    assert str(got.device) == DEV, got.device
    assert str(got.dtype) == str(want.dtype), (str(got.dtype), str(want.dtype))
    g, w = got.asnumpy(), want.asnumpy()
    assert g.shape == w.shape, (g.shape, w.shape)
    if str(w.dtype) not in FLOATS:
        np.testing.assert_array_equal(g, w)
        return
    nan = np.isnan(w.astype(np.float64))
    assert np.array_equal(np.isnan(g.astype(np.float64)), nan), (g, w)
    dist = np.abs(ordered(g[~nan]) - ordered(w[~nan]))
    assert dist.size == 0 or dist.max() <= ulps, (g[~nan], w[~nan], dist.max())


def check_close(got, want, scale, rel):
    """A float reduction: |got - want| <= rel * scale (the sum of magnitudes reduced)."""
    assert str(got.device) == DEV, got.device
    assert str(got.dtype) == str(want.dtype), (str(got.dtype), str(want.dtype))
    g = got.asnumpy().astype(np.float64)
    w = want.asnumpy().astype(np.float64)
    assert g.shape == w.shape, (g.shape, w.shape)
    nan = np.isnan(w)
    assert np.array_equal(np.isnan(g), nan)
    bound = rel * np.broadcast_to(scale, w.shape)[~nan] + 1e-300
    assert np.all(np.abs(g[~nan] - w[~nan]) <= bound), (g, w)


def ulps_for(name, dtype):
    return min(ULPS.get(name, 0), 1) if dtype in ("float16", "bfloat16") else ULPS.get(name, 0)


# ---- init ----------------------------------------------------------------------------------

INIT_SHAPES = [(), (0,), (1,), (LARGE,), (3, 5, 7), (2, 0, 3)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_zeros_ones_full_match_cpu(dtype):
    fills = [True, 0] if dtype == "bool" else [0, 1, 7, -0.0 if dtype in FLOATS else 0]
    if dtype in FLOATS:
        fills += [-2.5, float("nan"), float("inf"), 1e-3]
    elif not dtype.startswith("uint"):
        fills += [-3]
    for shape in INIT_SHAPES:
        check(mnp.zeros(shape, dtype, device=DEV), mnp.zeros(shape, dtype))
        check(mnp.ones(shape, dtype, device=DEV), mnp.ones(shape, dtype))
        for v in fills:
            got = mnp.full(shape, v, dtype=dtype, device=DEV)
            want = mnp.full(shape, v, dtype=dtype)
            check(got, want)
            if dtype in FLOATS and want.size:  # -0.0 keeps its sign: no memset of zeros
                g, w = got.asnumpy().astype(np.float64), want.asnumpy().astype(np.float64)
                assert np.array_equal(np.signbit(g), np.signbit(w))


@pytest.mark.parametrize("dtype", DTYPES)
def test_arange_matches_cpu(dtype):
    cases = [(0, 10, 1), (0, LARGE, 1), (5, -3, -1), (0.5, 7.25, 0.37), (3, 3, 1), (-2, 50, 3)]
    for start, stop, step in cases:
        if dtype == "bool" and math.ceil((stop - start) / step) > 2:
            continue  # a bool arange has at most two values
        if dtype.startswith("uint") and (start < 0 or stop < 0):
            continue
        if dtype in ("int8", "uint8", "int16", "uint16", "float16", "bfloat16") and stop > 1000:
            continue
        got = mnp.arange(start, stop, step, dtype=dtype, device=DEV)
        check(got, mnp.arange(start, stop, step, dtype=dtype))
    check(mnp.arange(LARGE, device=DEV), mnp.arange(LARGE))
    check(mnp.arange(0.1, 1e5, 0.7, device=DEV), mnp.arange(0.1, 1e5, 0.7))


def test_arange_of_uint64_past_int64_matches_cpu():
    # Values in [2**63, 2**64) fit uint64: the CPU stores them exactly, not as INT64_MIN. The
    # values are computed in float64, whose spacing there is 2**11: a step of it keeps each exact.
    start, stop, step = 2.0**63, 2.0**63 + 2.0**20, 2.0**11
    got = mnp.arange(start, stop, step, dtype="uint64", device=DEV)
    want = mnp.arange(start, stop, step, dtype="uint64")
    check(got, want)
    assert got.asnumpy()[-1] == 2**63 + 2**20 - 2**11


@pytest.mark.parametrize("dtype", DTYPES)
def test_copy_of_contiguous_and_strided_arrays(dtype):
    rng = np.random.default_rng()
    for shape in [(0,), (1,), (LARGE,), (5, 6, 7)]:
        c, g = both(rand(rng, shape, dtype))
        check(mnp.copy(g), mnp.copy(c))
    c, g = both(rand(rng, (5, 6, 7), dtype))
    for axes in [(2, 0, 1), (1, 0, 2), (0, 2, 1)]:
        got = mnp.copy(mnp.transpose(g, axes))
        check(got, mnp.copy(mnp.transpose(c, axes)))
    check(mnp.copy(g.T), mnp.copy(c.T))


@pytest.mark.parametrize("dtype", DTYPES)
def test_tril_triu_and_views_match_cpu(dtype):
    rng = np.random.default_rng()
    for shape in [(0, 3), (1, 1), (7, 5), (3, 64, 65), (2, 0, 4)]:
        c, g = both(rand(rng, shape, dtype))
        for k in [0, 1, -2, 70, -70]:
            check(mnp.tril(g, k=k), mnp.tril(c, k=k))
            check(mnp.triu(g, k=k), mnp.triu(c, k=k))
    c, g = both(rand(rng, (4, 6, 5), dtype))
    # strided, negative-stride and zero-stride inputs: the views are the same on both devices
    for f in (lambda a: a.mT, lambda a: mnp.flip(a, axis=(0, 2)), lambda a: a[:, ::2, 1:]):
        check(mnp.tril(f(g), k=1), mnp.tril(f(c), k=1))
        check(mnp.copy(f(g)), mnp.copy(f(c)))
    b = lambda a: mnp.broadcast_to(mnp.expand_dims(a[0, 0], 0), (3, 5))  # noqa: E731
    check(mnp.triu(b(g)), mnp.triu(b(c)))
    check(mnp.copy(mnp.moveaxis(g, 0, -1)), mnp.copy(mnp.moveaxis(c, 0, -1)))
    # roll, tile and repeat copy through views on the array's own device
    for f in (lambda a: a, lambda a: mnp.flip(a, axis=1), lambda a: a[:, ::2]):
        check(mnp.roll(f(g), (1, -2), axis=(0, 2)), mnp.roll(f(c), (1, -2), axis=(0, 2)))
        check(mnp.roll(f(g), 5), mnp.roll(f(c), 5))
        check(mnp.tile(f(g), (2, 1, 1, 3)), mnp.tile(f(c), (2, 1, 1, 3)))
        check(mnp.repeat(f(g), 3, axis=1), mnp.repeat(f(c), 3, axis=1))
        check(mnp.repeat(f(g), [2, 0, 1, 3], axis=0), mnp.repeat(f(c), [2, 0, 1, 3], axis=0))


@pytest.mark.parametrize("src", DTYPES)
def test_astype_to_every_dtype_matches_cpu(src):
    rng = np.random.default_rng()
    x = rand(rng, (LARGE,), src)
    if src in FLOATS:
        # Out-of-range and special values: floats to integers convert as the CPU does.
        special = np.array([np.nan, np.inf, -np.inf, 300.7, -129.5, 70000.0, -1.5, 0.5, -0.0])
        with np.errstate(all="ignore"):
            x[: special.size] = special.astype(x.dtype)
    c, g = both(x)
    c3, g3 = both(rand(rng, (4, 5, 6), src))
    for dst in DTYPES:
        check(g.astype(dst), c.astype(dst))
        check(
            mnp.astype(mnp.transpose(g3, (2, 0, 1)), dst),
            mnp.astype(mnp.transpose(c3, (2, 0, 1)), dst),
        )
        empty_c, empty_g = both(rand(rng, (0, 3), src))
        check(empty_g.astype(dst), empty_c.astype(dst))


# ---- binary --------------------------------------------------------------------------------

PAIRS = [
    ((), ()),
    ((1,), (1,)),
    ((0, 3), (0, 3)),
    ((LARGE,), (LARGE,)),
    ((1001,), (1001,)),
    ((3, 1), (1, 4)),
    ((4,), (3, 4)),
    ((2, 1, 3), (4, 1)),
    ((), (37, 41)),
    ((0, 3), (3,)),
    ((2, 3, 4), (1,)),
    ((257, 1), (1, 129)),
]


def operands(rng, name, da, db, sa, sb):
    a = rand(rng, sa, da)
    b = rand(rng, sb, db, exponent=name == "power")
    if name == "divide" and b.size:
        b.flat[::3] = 0  # division by zero: inf and nan, as on the CPU
    return a, b


def compare_binary(name, a, b, *, ulps):
    fn = getattr(mnp, name)
    (ca, ga), (cb, gb) = both(a), both(b)
    want, err = outcome(fn, ca, cb)
    if err is not None:
        with pytest.raises(err):
            fn(ga, gb)
        return
    check(fn(ga, gb), want, ulps=ulps)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_binary_same_dtype_matches_cpu(name, dtype):
    rng = np.random.default_rng()
    for sa, sb in PAIRS:
        a, b = operands(rng, name, dtype, dtype, sa, sb)
        compare_binary(name, a, b, ulps=ulps_for(name, dtype))


@pytest.mark.parametrize("name", BINARY)
def test_binary_mixed_dtypes_match_cpu(name):
    """Every pair of dtypes, inputs read and converted in the kernel: broadcast and flat."""
    rng = np.random.default_rng()
    for da in DTYPES:
        for db in DTYPES:
            for sa, sb in [((3, 4), (4,)), ((1001,), (1001,))]:
                a, b = operands(rng, name, da, db, sa, sb)
                (ca, _), (cb, _) = both(a), both(b)
                want, err = outcome(getattr(mnp, name), ca, cb)
                out_dtype = str(want.dtype) if err is None else "int8"
                compare_binary(name, a, b, ulps=ulps_for(name, out_dtype))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "float16", "uint8", "bool"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_strided_inputs_match_cpu(name, dtype):
    """Transposed views on the device, against the same views on the CPU."""
    rng = np.random.default_rng()
    a, b = operands(rng, name, dtype, dtype, (6, 7, 8), (8, 7, 6))
    (ca, ga), (cb, gb) = both(a), both(b)
    fn = getattr(mnp, name)
    want, err = outcome(fn, mnp.transpose(ca, (2, 1, 0)), cb)
    if err is not None:
        with pytest.raises(err):
            fn(mnp.transpose(ga, (2, 1, 0)), gb)
        return
    ulps = ulps_for(name, str(want.dtype))
    check(fn(mnp.transpose(ga, (2, 1, 0)), gb), want, ulps=ulps)
    check(fn(ga, mnp.transpose(gb, (2, 1, 0))), fn(ca, mnp.transpose(cb, (2, 1, 0))), ulps=ulps)
    # A transposed row against a matrix: stride along one axis, broadcast along the other.
    c2, g2 = both(rand(rng, (8, 1), dtype, exponent=name == "power"))
    check(fn(ga, mnp.transpose(g2)), fn(ca, mnp.transpose(c2)), ulps=ulps)


def test_binary_operators_and_large_contiguous_float32():
    rng = np.random.default_rng()
    (ca, ga), (cb, gb) = both(rand(rng, (LARGE,), "float32")), both(rand(rng, (LARGE,), "float32"))
    check(ga + gb, ca + cb)
    check(ga - gb, ca - cb)
    check(ga * gb, ca * cb)
    check(ga / gb, ca / cb, ulps=1)
    check(-ga, -ca)
    check(abs(ga), abs(ca))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_propagate_nan_as_the_cpu(name, dtype):
    rng = np.random.default_rng()
    a = rand(rng, (LARGE,), dtype)
    b = rand(rng, (LARGE,), dtype)
    a[rng.random(LARGE) < 0.1] = np.nan
    b[rng.random(LARGE) < 0.1] = np.nan
    a[:4] = np.array([0.0, -0.0, np.inf, -np.inf]).astype(a.dtype)
    b[:4] = np.array([-0.0, 0.0, np.nan, np.inf]).astype(b.dtype)
    compare_binary(name, a, b, ulps=0)
    compare_binary(name, a[:1000].reshape(10, 100), b[:100], ulps=0)
    fn = getattr(mnp, name)
    (ca, ga) = both(a)
    for s in [0.0, float("nan"), -1.5, 3]:
        check(fn(ga, s), fn(ca, s))
        check(fn(s, ga), fn(s, ca))


def test_signed_against_unsigned_comparisons_are_exact_as_on_the_cpu():
    """The mixed kernel: a signed integer against uint64 (and a negative Python int against
    unsigned elements) compared exactly, through broadcasting and strides."""
    rng = np.random.default_rng()
    s = rng.integers(-(2**63), 2**63, (LARGE,), dtype=np.int64)
    u = rng.integers(0, 2**64, (LARGE,), dtype=np.uint64)
    s[:3] = [-1, 2**53 + 1, 7]
    u[:3] = [2**64 - 1, 2**53, 7]
    (cs, gs), (cu, gu) = both(s), both(u)
    (c8, g8), (cu8, gu8) = both(s[:1000].astype(np.int8)), both(u[:1000].astype(np.uint8))
    for name in ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]:
        fn = getattr(mnp, name)
        check(fn(gs, gu), fn(cs, cu))
        check(fn(gu, gs), fn(cu, cs))
        check(fn(g8, gu[:1000]), fn(c8, cu[:1000]))
        check(
            fn(mnp.transpose(gs[:1000].reshape(20, 50)), gu[:20]),
            fn(mnp.transpose(cs[:1000].reshape(20, 50)), cu[:20]),
        )
        for v in (-1, -(2**63), 1000):
            check(fn(gu8, v), fn(cu8, v))
            check(fn(v, gu8), fn(v, cu8))


# ---- scalar ops ----------------------------------------------------------------------------

SCALARS = [True, False, 0, 3, -2, 127, 300, 2.5, -0.0, 1e10]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_python_scalars_on_either_side_match_cpu(name, dtype):
    rng = np.random.default_rng()
    fn = getattr(mnp, name)
    for shape in [(), (1,), (0, 2), (1001,), (LARGE,)]:
        c, g = both(rand(rng, shape, dtype, exponent=name == "power"))
        for s in SCALARS if shape != (LARGE,) else [True, 3, -2, 2.5]:
            for args_c, args_g in [((c, s), (g, s)), ((s, c), (s, g))]:
                want, err = outcome(fn, *args_c)
                if err is not None:
                    with pytest.raises(err):
                        fn(*args_g)
                    continue
                check(fn(*args_g), want, ulps=ulps_for(name, str(want.dtype)))
    c3, g3 = both(rand(rng, (5, 6, 7), dtype, exponent=name == "power"))
    want, err = outcome(fn, mnp.transpose(c3), 2)
    if err is None:
        check(fn(mnp.transpose(g3), 2), want, ulps=ulps_for(name, str(want.dtype)))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_integer_power_refuses_negative_exponents_on_the_device(dtype):
    rng = np.random.default_rng()
    base = rand(rng, (1001,), dtype, exponent=True)
    exp = rand(rng, (1001,), dtype, exponent=True)
    exp[777] = -1
    (cb, gb), (ce, ge) = both(base), both(exp)
    msg = "Integers to negative integer powers are not allowed"
    with pytest.raises(ValueError, match=msg):
        mnp.power(cb, ce)
    with pytest.raises(ValueError, match=msg):
        mnp.power(gb, ge)
    with pytest.raises(ValueError, match=msg):
        mnp.power(gb, mnp.transpose(ge.reshape((7, 11, 13))).reshape((1001,)))
    with pytest.raises(ValueError, match=msg):
        mnp.power(gb, -2)
    with pytest.raises(ValueError, match=msg):
        mnp.power(3, ge)
    # Non-negative exponents (and float results) still compute, on the device.
    exp[777] = 2
    (ce, ge) = both(exp)
    check(mnp.power(gb, ge), mnp.power(cb, ce))
    check(
        mnp.power(gb.astype("float64"), -ge.astype("float64")),
        mnp.power(cb.astype("float64"), -ce.astype("float64")),
        ulps=4,
    )


def test_inputs_on_different_devices_are_a_value_error():
    c, g = both(np.arange(6, dtype=np.float32))
    for fn in (mnp.add, mnp.maximum, mnp.power):
        with pytest.raises(ValueError, match="inputs are on different devices"):
            fn(g, c)
        with pytest.raises(ValueError, match="inputs are on different devices"):
            fn(c, g)


# ---- unary ---------------------------------------------------------------------------------

UNARY_SHAPES = [(), (0,), (1,), (7,), (LARGE,), (3, 4, 5)]


def relu(x):
    return mxffi.ops.invoke("relu", x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY + ["relu"])
def test_unary_matches_cpu(name, dtype):
    rng = np.random.default_rng()
    fn = relu if name == "relu" else getattr(mnp, name)
    for shape in UNARY_SHAPES:
        x = rand(rng, shape, dtype)
        if dtype in FLOATS and x.size > 8:
            x.reshape(-1)[:6] = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, -1.0]).astype(x.dtype)
        c, g = both(x)
        want, err = outcome(fn, c)
        if err is not None:
            with pytest.raises(err):
                fn(g)
            continue
        check(fn(g), want, ulps=ulps_for(name, str(want.dtype)))
    c, g = both(rand(rng, (6, 7, 8), dtype))
    want, err = outcome(fn, mnp.transpose(c, (1, 2, 0)))
    if err is None:
        check(fn(mnp.transpose(g, (1, 2, 0))), want, ulps=ulps_for(name, str(want.dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_quadratic_matches_cpu(dtype):
    rng = np.random.default_rng()
    for shape in UNARY_SHAPES:
        c, g = both(rand(rng, shape, dtype))
        for a, b, cc in [(2.0, 1.0, 0.5), (0.0, 0.0, 0.0), (-1.3, 0.7, 1e3)]:
            check(mnp.quadratic(g, a=a, b=b, c=cc), mnp.quadratic(c, a=a, b=b, c=cc))
    c, g = both(rand(rng, (6, 7, 8), dtype))
    check(mnp.quadratic(g.T, a=1.5, b=-2, c=3), mnp.quadratic(c.T, a=1.5, b=-2, c=3))


# ---- reductions ----------------------------------------------------------------------------

REDUCE_CASES = [
    ((), None),
    ((1,), None),
    ((LARGE,), None),
    ((LARGE,), 0),
    ((37, 1001), 0),
    ((37, 1001), 1),
    ((37, 1001), None),
    ((37, 1001), (0, 1)),
    ((4, 5, 6), (0, 2)),
    ((4, 5, 6), 1),
    ((4, 5, 6), -1),
    ((3, 200001), 1),
    ((200001, 3), 0),
    ((5000, 7), 1),
    ((2, 3, 1, 4), (1, 3)),
    ((0, 5), 1),
    ((0, 5), 0),
    ((3, 0), None),
]
REL = {"float16": 4e-3, "bfloat16": 3e-2, "float32": 1e-5, "float64": 1e-12}


def compare_reduce(name, c, g, axis, keepdims, dtype=None):
    fn = getattr(mnp, name)
    kwargs = {"axis": axis, "keepdims": keepdims}
    if dtype is not None:
        kwargs["dtype"] = dtype
    want, err = outcome(fn, c, **kwargs)
    if err is not None:
        with pytest.raises(err):
            fn(g, **kwargs)
        return
    got = fn(g, **kwargs)
    if name in ("max", "min") or str(want.dtype) not in FLOATS:
        check(got, want)
        return
    x = c.asnumpy().astype(np.float64)
    scale = np.sum(
        np.abs(x), axis=axis if not isinstance(axis, list) else tuple(axis), keepdims=keepdims
    )
    if name == "mean":
        count = max(x.size // max(want.size, 1), 1)
        scale = scale / count
    check_close(got, want, scale, REL[str(want.dtype)] if str(want.dtype) in REL else 1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
def test_reductions_match_cpu(name, dtype):
    rng = np.random.default_rng()
    for shape, axis in REDUCE_CASES:
        x = small(rng, shape, dtype)
        if name in ("max", "min") and dtype in FLOATS and x.size > 100:
            x.flat[rng.integers(0, x.size, 3)] = np.nan
        c, g = both(x)
        for keepdims in (False, True):
            compare_reduce(name, c, g, axis, keepdims)
    c, g = both(small(rng, (6, 7, 8), dtype))
    for axes in [(2, 0, 1), (1, 2, 0)]:
        for axis in [None, 0, 1, 2, (0, 2)]:
            compare_reduce(name, mnp.transpose(c, axes), mnp.transpose(g, axes), axis, False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_and_mean_with_dtype_match_cpu(name, dtype):
    rng = np.random.default_rng()
    for shape, axis in [((1001,), None), ((37, 101), 0), ((37, 101), 1), ((0, 3), 0)]:
        c, g = both(small(rng, shape, dtype))
        for out in ["float64", "float32", "int64", "int32", "uint64", "int8", "bool", dtype]:
            compare_reduce(name, c, g, axis, False, dtype=out)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["all", "any"])
def test_logical_reductions_match_cpu(name, dtype):
    """all and any read x != 0 (NaN true): inputs mostly true and mostly false, so both results
    occur, with single deciding elements in the large ones."""
    rng = np.random.default_rng()
    for shape, axis in REDUCE_CASES:
        for p_zero in (0.001, 0.99):
            x = small(rng, shape, dtype)
            if x.dtype != np.bool_:
                x = np.where(x == 0, 1, x).astype(x.dtype)
            x[rng.random(shape) < p_zero] = 0
            if dtype in FLOATS and x.size > 100:
                x.flat[rng.integers(0, x.size, 3)] = np.nan
            c, g = both(x)
            for keepdims in (False, True):
                compare_reduce(name, c, g, axis, keepdims)
    c, g = both(small(rng, (6, 7, 8), dtype))
    for axes in [(2, 0, 1), (1, 2, 0)]:
        for axis in [None, 0, 1, 2, (0, 2)]:
            compare_reduce(name, mnp.transpose(c, axes), mnp.transpose(g, axes), axis, False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_prod_and_count_nonzero_match_cpu(dtype):
    rng = np.random.default_rng()
    for shape, axis in REDUCE_CASES:
        x = small(rng, shape, dtype)
        if dtype in FLOATS:
            x = np.where(rng.random(shape) < 0.98, 1, x).astype(x.dtype)  # products stay finite
        else:
            x[rng.random(shape) < 0.3] = 0
        c, g = both(x)
        for keepdims in (False, True):
            compare_reduce("count_nonzero", c, g, axis, keepdims)
            want = mnp.prod(c, axis=axis, keepdims=keepdims)
            got = mnp.prod(g, axis=axis, keepdims=keepdims)
            if str(want.dtype) in FLOATS:
                scale = np.abs(want.asnumpy().astype(np.float64)) + 1e-30
                check_close(got, want, scale, 2e-2 if "16" in dtype else 1e-5)
            else:
                check(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_match_cpu(name, dtype):
    """Few distinct values (ties: the first index wins) and NaNs (the first NaN wins)."""
    rng = np.random.default_rng()
    for shape, axis in REDUCE_CASES:
        if isinstance(axis, tuple):
            axis = None
        x = np.asarray(rng.integers(0, 4, shape).astype(np_dtype(dtype)))
        if dtype in FLOATS and x.size > 100:
            x.flat[rng.integers(0, x.size, 3)] = np.nan
        c, g = both(x)
        for keepdims in (False, True):
            compare_reduce(name, c, g, axis, keepdims)
    c, g = both(small(rng, (6, 7, 8), dtype))
    for axis in [None, 0, 1, 2]:
        compare_reduce(name, mnp.transpose(c, (2, 0, 1)), mnp.transpose(g, (2, 0, 1)), axis, False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_and_std_match_cpu(name, dtype):
    rng = np.random.default_rng()
    fn = getattr(mnp, name)
    for shape, axis in REDUCE_CASES:
        c, g = both(small(rng, shape, dtype))
        for correction in (0, 1):
            want = fn(c, axis=axis, correction=correction)
            got = fn(g, axis=axis, correction=correction)
            scale = np.abs(want.asnumpy().astype(np.float64)) + 1e-6
            check_close(got, want, scale, 3e-2 if "16" in dtype else 1e-5)


def test_integer_sums_wrap_as_on_the_cpu():
    rng = np.random.default_rng()
    for dtype in ["int64", "uint64", "int32", "uint32"]:
        c, g = both(rand(rng, (LARGE,), dtype))
        check(mnp.sum(g), mnp.sum(c))
        check(mnp.sum(g, dtype=dtype), mnp.sum(c, dtype=dtype))
        c2, g2 = both(rand(rng, (1001, 13), dtype))
        check(mnp.sum(g2, axis=0), mnp.sum(c2, axis=0))
        check(mnp.sum(g2, axis=1), mnp.sum(c2, axis=1))


CUNARY = ["negative", "square", "sign", "sqrt", "exp", "expm1", "log", "log1p", "log2", "sin"]
CUNARY += ["cos", "tanh", "arcsinh", "arctanh", "reciprocal", "conj", "absolute", "isnan"]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_elementwise_matches_cpu(dtype):
    """The complex kernels (cuda::std::complex) against the CPU's (std::complex): values within
    the libraries' last bits, special values exactly (both are C99 Annex G), dtypes equal."""
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((5, 7)) * 3 + 1j * rng.standard_normal((5, 7)) * 3).astype(dtype)
    special = [0.0, -0.0, 1.0, np.inf, -np.inf, np.nan]
    x.flat[: len(special) ** 2] = [complex(a, b) for a in special for b in special][: x.size]
    y = x[::-1, ::2]  # strided
    rtol = 1e-5 if dtype == "complex64" else 1e-13
    with np.errstate(all="ignore"):
        for name in CUNARY:
            for v in (x, y):
                cpu = np.asarray(getattr(mnp, name)(v))
                gpu = getattr(mnp, name)(mnp.asarray(v, device=DEV)).to("cpu")
                assert str(gpu.dtype) == str(cpu.dtype), name
                np.testing.assert_allclose(np.asarray(gpu), cpu, rtol=rtol, equal_nan=True)
        for name in ["add", "subtract", "multiply", "divide", "power", "equal", "logical_and"]:
            cpu = np.asarray(getattr(mnp, name)(x, x[0]))
            gpu = getattr(mnp, name)(mnp.asarray(x, device=DEV), mnp.asarray(x[0], device=DEV))
            np.testing.assert_allclose(np.asarray(gpu.to("cpu")), cpu, rtol=rtol, equal_nan=True)
        g = mnp.asarray(x, device=DEV)
        for dst in ["float32", "int16", "bool", "complex64", "complex128"]:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = np.asarray(mnp.asarray(x).astype(dst))
                got = np.asarray(g.astype(dst).to("cpu"))
            np.testing.assert_array_equal(got, want)
        np.testing.assert_allclose(
            np.asarray((g * 2.5).to("cpu")), np.asarray(mnp.asarray(x) * 2.5), rtol=rtol
        )
