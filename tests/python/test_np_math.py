"""mxffi.np's predicates (isnan, isinf, isfinite, signbit) against numpy 2 (ml_dtypes for
bfloat16): bool results computed in the input's own dtype, for every real dtype, with NaN
(of either sign), infinities and signed zeros, every shape (0-size included), views, out= and
dtype=, Python numbers, and the errors.
"""

import numpy as np
import pytest
from conftest import DTYPES, np_dtype, seed_of

import mxffi
import mxffi.np as mnp

FLOATS = {"float16", "bfloat16", "float32", "float64"}
PREDICATES = ["isnan", "isinf", "isfinite", "signbit"]
SHAPES = [(), (0,), (0, 3), (7,), (3, 4), (2, 3, 5)]


def special_values(rng, shape, dtype):
    """Values with every special case of the dtype: for floats NaN, -NaN, +-inf, +-0.0, the
    largest and smallest values; for integers the extremes, 0 and negatives."""
    dt = np_dtype(dtype)
    n = int(np.prod(shape))
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in FLOATS:
        f32 = np.float32 if dtype in ("float16", "bfloat16") else dt
        specials = np.array(
            [np.nan, -np.nan, np.copysign(np.nan, -1), np.inf, -np.inf, 0.0, -0.0, 1.5, -2.25],
            dtype=f32,
        )
        if dtype != "bfloat16":
            info = np.finfo(dt)
            specials = np.concatenate([specials, np.array([info.max, -info.max, info.tiny], f32)])
        x = (rng.standard_normal(n) * 10).astype(f32)
        x[: min(n, len(specials))] = specials[: min(n, len(specials))]
        rng.shuffle(x)
        return np.asarray(x.astype(dt).reshape(shape))
    info = np.iinfo(dt)
    x = rng.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)
    x[: min(n, 3)] = np.array([info.min, info.max, 0], dtype=dt)[: min(n, 3)]
    return np.asarray(x.reshape(shape))


def want_of(name, x):
    """numpy's answer; ml_dtypes' bfloat16 goes through float32 (exact)."""
    x = np.asarray(x)
    if x.dtype == np_dtype("bfloat16"):
        x = x.astype(np.float32)
    return getattr(np, name)(x)


def check(ours, want):
    assert isinstance(ours, mxffi.NDArray), type(ours)
    want = np.asarray(want)
    assert str(ours.dtype) == str(want.dtype), (str(ours.dtype), str(want.dtype))
    got = ours.asnumpy()
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", PREDICATES)
def test_predicates_match_numpy_on_every_dtype(name, dtype):
    rng = np.random.default_rng(seed_of(name, dtype))
    for i, shape in enumerate(SHAPES):
        x = special_values(rng, shape, dtype)
        arg = mnp.array(x) if i % 2 else x
        check(getattr(mnp, name)(arg), want_of(name, x))


def test_special_values_exactly():
    x = np.array([np.nan, np.copysign(np.nan, -1), np.inf, -np.inf, 0.0, -0.0, -1e-300, 5.0])
    for dtype in ("float16", "bfloat16", "float32", "float64"):
        xm = mnp.array(x.astype(np.float32)).astype(dtype)
        assert mnp.isnan(xm).asnumpy().tolist() == [1, 1, 0, 0, 0, 0, 0, 0]
        assert mnp.isinf(xm).asnumpy().tolist() == [0, 0, 1, 1, 0, 0, 0, 0]
        assert mnp.isfinite(xm).asnumpy().tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
        # -1e-300 rounds to -0.0 in the narrow dtypes: its sign bit stays
        assert mnp.signbit(xm).asnumpy().tolist() == [0, 1, 0, 1, 0, 1, 1, 0]
    i = np.array([-128, -1, 0, 1, 127], np.int8)
    assert mnp.signbit(i).asnumpy().tolist() == [1, 1, 0, 0, 0]
    assert mnp.isnan(i).asnumpy().tolist() == [0] * 5
    assert mnp.isinf(i).asnumpy().tolist() == [0] * 5
    assert mnp.isfinite(i).asnumpy().tolist() == [1] * 5
    u = np.array([0, 2**63, 2**64 - 1], np.uint64)
    assert mnp.signbit(u).asnumpy().tolist() == [0, 0, 0]


def test_large_finite_values_are_not_converted_away():
    # Computed in the input's dtype: a float64 beyond float16's range is finite, never inf.
    x = np.array([1e300, -1e300, 70000.0, np.nan])
    check(mnp.isfinite(x), np.isfinite(x))
    check(mnp.isinf(x), np.isinf(x))
    big = np.array([2**62, -(2**63)], np.int64)
    check(mnp.isfinite(big), np.isfinite(big))


@pytest.mark.parametrize("name", PREDICATES)
def test_python_numbers(name):
    for s in (True, False, 0, -3, 2**62, 2.5, -0.0, 0.0, float("nan"), float("inf"), -float("inf")):
        r = getattr(mnp, name)(s)
        want = getattr(np, name)(s)
        assert str(r.dtype) == "bool" and r.shape == ()
        assert bool(r.asnumpy()) == bool(want), (name, s)


@pytest.mark.parametrize("name", PREDICATES)
def test_views_and_parallel_inputs(name):
    rng = np.random.default_rng(5)
    m = special_values(rng, (6, 8), "float32")
    for v in (m[:, ::2], m.T, m[::-1, ::-3], np.broadcast_to(m[0], (5, 8))):
        check(getattr(mnp, name)(v), getattr(np, name)(v))
    mx = mnp.array(m)
    check(getattr(mnp, name)(mnp.transpose(mx)), getattr(np, name)(m.T))
    big = special_values(rng, (700, 301), "float64")
    check(getattr(mnp, name)(big[:, ::-1]), getattr(np, name)(big[:, ::-1]))


@pytest.mark.parametrize("name", PREDICATES)
def test_out_and_dtype(name):
    x = np.array([[np.nan, -0.0, np.inf], [1.0, -np.inf, -2.0]], np.float32)
    want = getattr(np, name)(x)
    out = mnp.zeros((2, 3), dtype="bool")
    r = getattr(mnp, name)(x, out=out)
    assert r.same_as(out)
    check(out, want)
    # the result casts to out's dtype (bool to anything is same_kind) and broadcasts to it
    out8 = mnp.zeros((4, 2, 3), dtype="int8")
    getattr(mnp, name)(x, out=out8)
    check(out8, np.broadcast_to(want, (4, 2, 3)).astype(np.int8))
    with pytest.raises(ValueError, match=rf"^np\.{name}: non-broadcastable output operand"):
        getattr(mnp, name)(x, out=mnp.zeros((3,), dtype="bool"))
    check(getattr(mnp, name)(x, dtype="bool"), getattr(np, name)(x, dtype=bool))
    with pytest.raises(TypeError, match=rf"^np\.{name}: no loop computes a float32 result"):
        getattr(mnp, name)(x, dtype="float32")
    with pytest.raises(TypeError):
        getattr(np, name)(x, dtype=np.float32)


@pytest.mark.parametrize("name", PREDICATES)
def test_errors_name_the_function(name):
    z = np.array([1 + 2j, complex(np.nan, 0), complex(0, -np.inf)], np.complex64)
    if name == "signbit":  # numpy has no complex loop
        with pytest.raises(TypeError, match=rf"^np\.{name}: unsupported dtype complex64"):
            getattr(mnp, name)(z)
    else:
        check(getattr(mnp, name)(z), getattr(np, name)(z))
    with pytest.raises(TypeError, match=rf"^np\.{name}: argument #0 'x' expected an ndarray"):
        getattr(mnp, name)("x")


def test_ops_have_cpu_kernels_and_no_array_methods():
    for name in PREDICATES:
        assert "FCompute<cpu>" in mxffi.ops.info(f"_npi_{name}")["kernels"], name
        # numpy's ndarray has no such methods either
        assert not hasattr(np.ndarray, name)


# ---- the float unary functions, reciprocal, rounding ----------------------------------------

# mxffi.np name -> numpy's ufunc name (the standard's names are numpy's aliases)
FLOAT_FUNCS = {
    "cos": "cos",
    "tan": "tan",
    "acos": "arccos",
    "arccos": "arccos",
    "asin": "arcsin",
    "arcsin": "arcsin",
    "atan": "arctan",
    "arctan": "arctan",
    "sinh": "sinh",
    "cosh": "cosh",
    "tanh": "tanh",
    "asinh": "arcsinh",
    "arcsinh": "arcsinh",
    "acosh": "arccosh",
    "arccosh": "arccosh",
    "atanh": "arctanh",
    "arctanh": "arctanh",
    "expm1": "expm1",
    "log1p": "log1p",
    "log2": "log2",
    "log10": "log10",
    "degrees": "degrees",
    "rad2deg": "degrees",
    "radians": "radians",
    "deg2rad": "radians",
    "cbrt": "cbrt",
    "rint": "rint",
}
ROUNDING = ["floor", "ceil", "trunc", "round", "fix"]
# the units in the last place allowed between the C library's results and numpy's (SIMD) ones
ULPS = {"float16": 1, "bfloat16": 1, "float32": 4, "float64": 4}


def numpy_of(fn, x, **kw):
    """numpy's result; ml_dtypes' bfloat16 computes in float32 and rounds to bfloat16 (what
    mxffi's kernels do)."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        if x.dtype == np_dtype("bfloat16"):
            return np.asarray(fn(x.astype(np.float32), **kw)).astype(x.dtype)
        return np.asarray(fn(x, **kw))


def check_close(ours, want, dtype_name):
    """dtype and shape exact; NaN where NaN; infinities and signs of zeros exact; finite values
    within ULPS units in the last place of the result dtype."""
    want = np.asarray(want)
    assert str(ours.dtype) == str(want.dtype), (str(ours.dtype), str(want.dtype))
    got = ours.asnumpy()
    assert got.shape == want.shape
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(w)
    assert np.array_equal(np.isnan(g), nan), (got, want)
    g, w = g[~nan], w[~nan]
    assert np.array_equal(np.isinf(g), np.isinf(w)), (got, want)
    assert np.array_equal(g[np.isinf(w)], w[np.isinf(w)])
    zero = w == 0
    assert np.array_equal(np.signbit(g[zero]), np.signbit(w[zero])), (got, want)
    fin = np.isfinite(w)
    g, w = g[fin], w[fin]
    if str(want.dtype) == "bfloat16":
        eps = 2.0**-7
    else:
        eps = float(np.finfo(want.dtype).eps)
    tiny = 2.0**-126 if str(want.dtype) != "float16" else 2.0**-14
    tol = ULPS[str(want.dtype)] * eps * np.maximum(np.abs(w), tiny)
    assert np.all(np.abs(g - w) <= tol), (got, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(FLOAT_FUNCS))
def test_float_functions_match_numpy(name, dtype):
    rng = np.random.default_rng(seed_of(name, dtype))
    fn = getattr(np, FLOAT_FUNCS[name])
    for i, shape in enumerate(SHAPES):
        x = special_values(rng, shape, dtype)
        if dtype in FLOATS and x.size:
            # values inside the inverse functions' domains too
            x.flat[::3] = (rng.random(x.flat[::3].shape) * 2 - 1).astype(x.dtype)
        arg = mnp.array(x) if i % 2 else x
        check_close(getattr(mnp, name)(arg), numpy_of(fn, x), dtype)


def test_float_function_special_cases():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0])
    for name, np_name in FLOAT_FUNCS.items():
        check_close(getattr(mnp, name)(x), numpy_of(getattr(np, np_name), x), "float64")
    # exact near zero, where exp(x) - 1 and log(1 + x) lose everything
    t = np.array([1e-20, -1e-300])
    check(mnp.expm1(t), np.expm1(t))
    check(mnp.log1p(t), np.log1p(t))


@pytest.mark.parametrize("dtype", DTYPES)
def test_reciprocal_matches_numpy(dtype):
    rng = np.random.default_rng(3)
    x = special_values(rng, (4, 5), dtype)
    if dtype not in FLOATS and dtype != "bool":
        x.flat[:6] = np.array([0, 1, 2, 1, 0, 3], dtype=x.dtype)
        if np.iinfo(x.dtype).min < 0:
            x.flat[6:8] = -1
    want = numpy_of(np.reciprocal, x)
    if dtype == "bool":
        want = numpy_of(np.reciprocal, x.astype(np.int8))  # numpy: no bool loop, int8's
    if dtype in FLOATS:
        check_close(mnp.reciprocal(x), want, dtype)
    else:
        check(mnp.reciprocal(x), want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ROUNDING)
def test_rounding_keeps_the_dtype_as_numpy(name, dtype):
    rng = np.random.default_rng(seed_of(name, dtype))
    for i, shape in enumerate(SHAPES):
        x = special_values(rng, shape, dtype)
        if dtype in FLOATS and x.size:
            halves = np.array([0.5, -0.5, 1.5, 2.5, -2.5, -1.25, 3.75], np.float32)
            k = min(x.size, len(halves))
            x.flat[-k:] = halves[:k].astype(x.dtype)
        arg = mnp.array(x) if i % 2 else x
        want = numpy_of(getattr(np, name), x)
        if dtype in FLOATS:
            check_close(getattr(mnp, name)(arg), want, dtype)
        else:
            check(getattr(mnp, name)(arg), want)


def test_round_decimals_as_numpy():
    f = np.array([2.5, -0.5, 1.25, 0.125, 1250.0, -1350.0, np.nan, -np.inf, 0.0, -0.0])
    for d in (0, 1, 2, -1, -2):
        check(mnp.round(f, d), np.round(f, d))
        check(mnp.round(f.astype(np.float32), decimals=d), np.round(f.astype(np.float32), d))
    i8 = np.array([125, -125, 15, 25, 35, 0], np.int8)
    for d in (0, 2, -1, -2):
        check(mnp.round(i8, d), np.round(i8, d))
    check(mnp.round(np.array([True, False])), np.round(np.array([True, False])))
    assert float(mnp.round(2.5).asnumpy()) == 2.0 and str(mnp.round(2.5).dtype) == "float64"
    assert int(mnp.round(7).asnumpy()) == 7 and str(mnp.round(7).dtype) == "int64"
    with pytest.raises(TypeError, match=r"^np\.round: a bool array rounds to decimals=0 only"):
        mnp.round(np.array([True]), 1)
    with pytest.raises(TypeError):
        np.round(np.array([True]), -1)
    out = mnp.zeros((10,), dtype="float64")
    assert mnp.round(f, 1, out=out).same_as(out)
    check(out, np.round(f, 1))
    out = mnp.zeros((6,), dtype="int16")
    mnp.round(i8, -1, out=out)
    check(out, np.round(i8, -1).astype(np.int16))


def test_new_unary_functions_out_dtype_and_errors():
    x = np.array([[0.5, -1.5], [2.0, np.nan]], np.float32)
    out = mnp.zeros((3, 2, 2), dtype="float64")
    assert mnp.floor(x, out=out).same_as(out)
    check(out, np.broadcast_to(np.floor(x), (3, 2, 2)).astype(np.float64))
    check(mnp.tanh(np.int8([1, -2]), dtype="float32"), np.tanh(np.int8([1, -2]), dtype=np.float32))
    with pytest.raises(TypeError, match=r"^np\.tanh: no loop computes in dtype=int32"):
        mnp.tanh(np.int32([1]), dtype="int32")
    with pytest.raises(TypeError, match=r"^np\.floor: cannot cast the result from float32 to "):
        mnp.floor(x, out=mnp.zeros((2, 2), dtype="int32"))
    z = np.array([1 + 2j], np.complex64)
    for name in ROUNDING[:3]:  # numpy has no complex floor, ceil or trunc
        with pytest.raises(TypeError, match=r"unsupported dtype complex64"):
            getattr(mnp, name)(z)
    # nor complex fix, degrees, radians or cbrt; rint rounds each part
    # (an alias's errors name the function it is an alias of)
    for name in ("fix", "degrees", "rad2deg", "radians", "deg2rad", "cbrt"):
        shown = FLOAT_FUNCS.get(name, name)
        with pytest.raises(TypeError, match=rf"^np\.{shown}: unsupported dtype complex64"):
            getattr(mnp, name)(z)
    w = np.array([1.5 - 2.5j, -0.5 + 3.5j], np.complex64)
    check(mnp.rint(w), np.rint(w))
    for name in FLOAT_FUNCS:
        assert "FCompute<cpu>" in mxffi.ops.info(f"_npi_{FLOAT_FUNCS[name]}")["kernels"], name


# ---- the float binary functions and pow -----------------------------------------------------

# mxffi.np name -> numpy's ufunc name
FLOAT_BINARY = {
    "atan2": "arctan2",
    "arctan2": "arctan2",
    "hypot": "hypot",
    "copysign": "copysign",
    "logaddexp": "logaddexp",
    "nextafter": "nextafter",
}
PAIRS = [
    ("float64", "float64"),
    ("float32", "float32"),
    ("float16", "float16"),
    ("bfloat16", "bfloat16"),
    ("int8", "int8"),
    ("uint8", "bool"),
    ("int16", "uint16"),
    ("int32", "int32"),
    ("int64", "uint64"),
    ("bool", "bool"),
    ("float32", "int16"),
    ("float16", "int32"),
]


def narrow_nextafter(name, dtype):
    """nextafter computes in float32 and float64 only: float16 and bfloat16 results (numpy's
    from float16 inputs, or int8, uint8 and bool ones) are a TypeError naming the function."""
    return name == "nextafter" and dtype in ("float16", "bfloat16")


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: "-".join(p))
@pytest.mark.parametrize("name", sorted(FLOAT_BINARY))
def test_float_binary_functions_match_numpy(name, pair):
    rng = np.random.default_rng(seed_of(name, pair))
    fn = getattr(np, FLOAT_BINARY[name])
    for shapes in [((), ()), ((0, 3), (3,)), ((7,), (7,)), ((3, 1), (1, 4)), ((2, 3, 4), (4,))]:
        a = special_values(rng, shapes[0], pair[0])
        b = special_values(rng, shapes[1], pair[1])
        with np.errstate(all="ignore"):
            if "bfloat16" in pair:  # computed in float32, rounded to bfloat16
                f32 = [x.astype(np.float32) for x in (a, b)]
                want = np.asarray(fn(*f32)).astype(np_dtype("bfloat16"))
            else:
                want = np.asarray(fn(a, b))
        if narrow_nextafter(name, str(want.dtype)):
            with pytest.raises(TypeError, match=r"^np\.nextafter: no loop computes a b?float16 "):
                getattr(mnp, name)(a, b)
            continue
        got = getattr(mnp, name)(mnp.array(a), b)
        if name in ("copysign", "nextafter") and str(want.dtype) != "bfloat16":
            check(got, want)  # exact
        else:
            check_close(got, want, str(want.dtype))


def test_float_binary_special_cases():
    z, inf, nan = 0.0, np.inf, np.nan
    x1 = np.array([z, -z, z, -z, 1.0, -1.0, inf, -inf, inf, nan, 3.0, 1e308])
    x2 = np.array([z, z, -z, -z, -inf, -inf, inf, inf, nan, inf, -z, 1e308])
    for name, np_name in FLOAT_BINARY.items():
        with np.errstate(all="ignore"):
            want = getattr(np, np_name)(x1, x2)
        check(getattr(mnp, name)(x1, x2), want)
    # nextafter steps one unit in the last place of the dtype
    check(
        mnp.nextafter(np.float32([1.0, 0.0]), np.float32([2.0, -1.0])),
        np.nextafter(np.float32([1.0, 0.0]), np.float32([2.0, -1.0])),
    )


def test_float_binary_python_numbers_out_and_dtype():
    i8 = np.array([1, -2, 3], np.int8)
    check(mnp.atan2(i8, 2), np.arctan2(i8, 2))  # NEP 50: int8 with an int computes in float16
    check(mnp.atan2(2.0, i8), np.arctan2(2.0, i8))
    check(mnp.hypot(3, 4), np.asarray(np.hypot(3, 4)))
    f = np.array([1.5, -2.0, 0.0], np.float32)
    check(mnp.copysign(f, -1.0), np.copysign(f, -1.0))
    check(mnp.logaddexp(f, np.float32(1)), np.logaddexp(f, np.float32(1)))
    out = mnp.zeros((2, 3), dtype="float64")
    assert mnp.hypot(f, f, out=out).same_as(out)
    check(out, np.broadcast_to(np.hypot(f, f), (2, 3)).astype(np.float64))
    want = np.arctan2(i8, i8, dtype=np.float32)
    check_close(mnp.atan2(i8, i8, dtype="float32"), want, "float32")
    with pytest.raises(TypeError, match=r"^np\.atan2|^np\.arctan2"):
        mnp.atan2(i8, i8, dtype="int8")
    with pytest.raises(
        ValueError, match=r"^np\.hypot: operands could not be broadcast together with shapes"
    ):
        mnp.hypot(np.ones((2, 3)), np.ones(4))
    z = np.array([1 + 2j], np.complex64)
    for name in FLOAT_BINARY:
        with pytest.raises(TypeError, match=r"unsupported dtype complex64"):
            getattr(mnp, name)(z, z)


def test_pow_is_power():
    a = np.array([2, 3, -4], np.int16)
    check(mnp.pow(a, 3), np.power(a, 3))
    check(mnp.pow(2.0, np.float32([0.5, -1.0])), np.power(2.0, np.float32([0.5, -1.0])))
    with pytest.raises(ValueError, match=r"^np\.power: Integers to negative integer powers"):
        mnp.pow(a, -1)
