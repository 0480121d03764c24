"""Complex arithmetic of mxffi.np against numpy: the elementwise ops with complex loops, their
dtypes and promotion, IEEE special values (infinities, NaNs, signed zeros, branch cuts) and
astype between complex and real dtypes."""

import itertools
import warnings

import numpy as np
import pytest

import mxffi.error
import mxffi.np as mnp

CDTYPES = ["complex64", "complex128"]
RTOL = {"complex64": 2e-6, "complex128": 1e-14}

UNARY = [
    "negative", "positive", "square", "sign", "exp", "expm1", "log", "log1p", "log2", "log10",
    "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan",
    "arcsinh", "arccosh", "arctanh", "reciprocal", "round",
]  # fmt: skip
BINARY = ["add", "subtract", "multiply", "divide", "power"]

# The special values the array API standard's complex special cases are written for.
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan, 1e30]
GRID = np.array([complex(a, b) for a, b in itertools.product(SPECIAL, SPECIAL)])

# Where mxffi follows the array API standard (C99 Annex G, the C++ library's) and numpy does not:
# expm1(+inf + 0j) is +inf + 0j (numpy: +inf + nanj) and expm1(-0 + 0j) is +0 + 0j (numpy: -0),
# sign(z) of a NaN part is NaN + NaNj
# (numpy: 1 for inf + nanj), square and reciprocal recover infinities (numpy's formulas give
# NaN + NaNj; the standard has no complex special cases for them). Every other special value
# is numpy's, signs of zeros included.
# tanh(+-inf + yj) for finite y is +-1 + 0j with the zero signed as y (the standard; numpy and
# C99 sign it as sin(2y)).
DEPARTS = {"expm1", "sign", "square", "reciprocal", "tanh"}


def values(dtype, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    re = rng.uniform(-3, 3, shape)
    im = rng.uniform(-3, 3, shape)
    return (re + 1j * im).astype(dtype)


def same_parts(ours, want, rtol, zero_signs=True):
    """Each part equal within rtol (NaN to NaN, infinities and zeros with their signs)."""
    ours = np.asarray(ours).ravel()
    want = np.asarray(want).ravel()
    assert ours.shape == want.shape
    for o, w, part in ((ours.real, want.real, "real"), (ours.imag, want.imag, "imag")):
        nan = np.isnan(w)
        assert (np.isnan(o) == nan).all(), part
        finite = np.isfinite(w)
        assert (np.isinf(o) == np.isinf(w)).all(), part
        np.testing.assert_array_equal(o[np.isinf(w)], w[np.isinf(w)])
        zero = w == 0
        if zero_signs:
            assert (np.signbit(o[zero]) == np.signbit(w[zero])).all(), f"signed zero ({part})"
        np.testing.assert_allclose(o[finite], w[finite], rtol=rtol, atol=0)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_unary_values_and_dtype_match_numpy(name, dtype):
    x = values(dtype)
    if name in ("log", "log2", "log10", "sqrt", "arccosh"):
        x[0, 0] = complex(-2.0, 0.0)  # on the branch cut
        x[0, 1] = complex(-2.0, -0.0)
    ours = getattr(mnp, name)(x)
    want = getattr(np, name)(x)
    assert str(ours.dtype) == str(want.dtype) == dtype
    same_parts(ours, want, RTOL[dtype] * (4 if name in ("tan", "tanh", "power") else 1))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_absolute_gives_the_real_dtype(dtype):
    x = values(dtype)
    for f in (mnp.abs, mnp.absolute):
        ours = f(x)
        assert str(ours.dtype) == str(np.abs(x).dtype)
        np.testing.assert_allclose(np.asarray(ours), np.abs(x), rtol=RTOL[dtype])
    ours = mnp.abs(GRID.astype(dtype))
    # numpy's vectorized hypot may differ from the C library's in the last bit.
    np.testing.assert_allclose(np.asarray(ours), np.abs(GRID.astype(dtype)), rtol=RTOL[dtype])


@pytest.mark.parametrize("name", [n for n in UNARY if n not in ("round",)])
def test_unary_special_values(name):
    with np.errstate(all="ignore"):
        want = getattr(np, name)(GRID)
    ours = np.asarray(getattr(mnp, name)(GRID))
    if name in DEPARTS:
        # Finite, nonzero and not huge (numpy's square rounds re*re - im*im with a fused
        # multiply-add: 1e60 - 1e60 is not 0 there); the sign of a zero part as division
        # rounds it.
        keep = np.isfinite(GRID) & (GRID != 0) & (abs(GRID) < 1e10)
        same_parts(ours[keep], want[keep], 1e-14, zero_signs=False)
    else:
        same_parts(ours, want, 1e-14)


def test_special_cases_of_the_standard():
    c = complex
    inf, nan = np.inf, np.nan
    # A few of the array API standard's complex special cases, one per function family.
    cases = [
        ("sqrt", c(-0.0, 0.0), c(0.0, 0.0)),
        ("sqrt", c(1.0, inf), c(inf, inf)),
        ("sqrt", c(-inf, 1.0), c(0.0, inf)),
        ("exp", c(-0.0, 0.0), c(1.0, 0.0)),
        ("exp", c(-inf, 1.0), c(0.0, 0.0)),
        ("log", c(-0.0, 0.0), c(-inf, np.pi)),
        ("log", c(inf, nan), c(inf, nan)),
        ("log1p", c(-1.0, 0.0), c(-inf, 0.0)),
        ("expm1", c(inf, 0.0), c(inf, 0.0)),
        ("expm1", c(0.0, 0.0), c(0.0, 0.0)),
        ("expm1", c(-0.0, 0.0), c(0.0, 0.0)),  # +0 real part: numpy's formula gives -0
        ("expm1", c(-0.0, -0.0), c(0.0, -0.0)),
        ("tanh", c(inf, 1.0), c(1.0, 0.0)),
        ("tanh", c(inf, 2.0), c(1.0, 0.0)),  # sin(4) < 0: C99 would give 1 - 0j
        ("tanh", c(-inf, -2.0), c(-1.0, -0.0)),
        ("arctanh", c(1.0, 0.0), c(inf, 0.0)),
        ("arccos", c(0.0, 0.0), c(np.pi / 2, -0.0)),
        ("arcsinh", c(inf, 1.0), c(inf, 0.0)),
        ("sign", c(0.0, 0.0), c(0.0, 0.0)),
        ("sign", c(nan, 1.0), c(nan, nan)),
    ]
    for name, z, want in cases:
        ours = getattr(mnp, name)(np.array([z]))
        same_parts(ours, np.array([want]), 1e-15)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_binary_values_and_dtype_match_numpy(name, dtype):
    a, b = values(dtype, seed=1), values(dtype, (4,), seed=2)
    ours = getattr(mnp, name)(a, b)
    want = getattr(np, name)(a, b)
    assert str(ours.dtype) == str(want.dtype) == dtype
    same_parts(ours, want, RTOL[dtype] * 8)


def test_power_special_cases_as_numpy():
    # 0 ** w: 0 when w's real part is positive (its imaginary part any), else NaN.
    z = np.array([0j, 0j, 0j, 0j, 0j, -0j, 1 + 2j, 3 - 1j, complex(np.nan, 1)])
    w = np.array([2 + 0j, 1j, -1 + 0j, 2.5 - 0.5j, 0.1 + 100j, -0.5 + 2j, 2 + 0j, -3 + 0j, 0j])
    with np.errstate(all="ignore"):
        want = np.power(z, w)
    same_parts(mnp.power(z, w), want, 1e-15)
    # An integer exponent multiplies, as numpy: exact.
    assert mnp.power(np.array([1 + 2j]), np.array([2 + 0j])).tolist() == [-3 + 4j]


@pytest.mark.parametrize(
    "other,dtype",
    [
        (np.float64, "complex128"),
        (np.float32, "complex64"),
        (np.int8, "complex64"),
        (np.int32, "complex128"),
        (np.bool_, "complex64"),
        (np.complex128, "complex128"),
    ],
)
def test_promotion_with_real_arrays_is_numpys(other, dtype):
    z = values("complex64", (2, 3))
    r = np.array([1, 0, 2], other)
    for ours, want in ((mnp.add(z, r), np.add(z, r)), (mnp.multiply(r, z), np.multiply(r, z))):
        assert str(ours.dtype) == str(want.dtype) == dtype
        same_parts(ours, want, 1e-6)


def test_python_number_operands_are_weak():
    z = values("complex64", (5,))
    for ours, want in (
        (z * 2.5, np.asarray(z) * 2.5),
        (mnp.asarray(z) * 2.5, z * 2.5),
        (mnp.asarray(z) + 1, z + 1),
        (1 - mnp.asarray(z), 1 - z),
        (mnp.asarray(z) ** 2, z**2),
        (2.0 / mnp.asarray(z), 2.0 / z),
    ):
        assert str(ours.dtype) == "complex64"
        same_parts(ours, want, 1e-6)


@pytest.mark.parametrize(
    "dtype", ["bool", "int8", "uint32", "int64", "float16", "float32", "float64"] + CDTYPES
)
@pytest.mark.parametrize("c", [1j, 2.5 - 0.5j, complex(np.inf, 1), complex(0.0, -0.0)])
def test_python_complex_numbers_are_weak_operands(dtype, c):
    # NEP 50: a Python complex takes the array's precision (complex64 next to float16, float32
    # and complex64; complex128 next to the rest), on either side, in every binary function.
    x = np.array([0, 1, 3, 1], dtype=dtype)
    m = mnp.asarray(x)
    with np.errstate(all="ignore"):
        cases = [
            (m + c, x + c), (c + m, c + x), (m - c, x - c), (c - m, c - x), (m * c, x * c),
            (m / c, x / c), (c / m, c / x), (m**c, x**c), (mnp.add(m, c), np.add(x, c)),
            (mnp.multiply(c, m), np.multiply(c, x)), (m == c, x == c), (m != c, x != c),
        ]  # fmt: skip
        for ours, want in cases:
            assert str(ours.dtype) == str(want.dtype)
            same_parts(ours, want, 1e-6 if want.dtype == np.complex64 else 1e-14)


def test_python_complex_numbers_alone_in_place_and_with_dtype():
    for ours, want in (
        (mnp.exp(1j), np.exp(1j)),
        (mnp.sqrt(-4 + 0j), np.sqrt(-4 + 0j)),
        (mnp.add(1j, 2), np.add(1j, 2)),
        (mnp.multiply(2.0, 1j), np.multiply(2.0, 1j)),
        (mnp.subtract(1j, 2j), np.subtract(1j, 2j)),
        (mnp.add(mnp.ones(2, dtype="float32"), 1j, dtype="complex128"),
         np.add(np.ones(2, np.float32), 1j, dtype="complex128")),
        (mnp.multiply(mnp.ones(2, dtype="int16"), 2.5, dtype="complex64"),
         np.multiply(np.ones(2, np.int16), 2.5, dtype="complex64")),
        (mnp.add(mnp.ones(2, dtype="complex64"), 1j, out=mnp.zeros(2, dtype="complex128")),
         np.add(np.ones(2, np.complex64), 1j, out=np.zeros(2, np.complex128))),
    ):  # fmt: skip
        assert ours.shape == np.shape(want) and str(ours.dtype) == str(np.asarray(want).dtype)
        same_parts(ours, np.asarray(want), 1e-14)
    z = mnp.asarray(values("complex64", (4,)))
    want = np.asarray(z) * 1j
    z *= 1j
    assert str(z.dtype) == "complex64"
    same_parts(z, want, 1e-6)
    f = mnp.ones(3, dtype="float32")
    with pytest.raises(TypeError, match=r"np.add: cannot cast the result from complex64 to "
                       r"out's float32 with casting rule 'same_kind'"):  # fmt: skip
        f += 1j
    np.testing.assert_array_equal(np.asarray(f), np.ones(3, np.float32))  # left as it was
    with pytest.raises(TypeError, match=r"np.add: cannot cast input 1 from complex128 to float64"):
        mnp.add(mnp.ones(2), 1j, dtype="float64")
    with pytest.raises(TypeError, match=r"np.bitwise_and: .*complex"):
        mnp.bitwise_and(mnp.ones(2, dtype="int32"), 1j)


def test_comparisons_predicates_and_logical_ops():
    z = np.array([1 + 2j, 0j, complex(np.nan, 0), complex(0, -np.inf), -0j])
    y = np.array([1 + 2j, 1j, complex(np.nan, 0), complex(0, -np.inf), 0j])
    for name in ("equal", "not_equal", "logical_and", "logical_or", "logical_xor"):
        ours = getattr(mnp, name)(z, y)
        assert ours.dtype == "bool"
        np.testing.assert_array_equal(np.asarray(ours), getattr(np, name)(z, y))
    for name in ("isnan", "isinf", "isfinite", "logical_not"):
        np.testing.assert_array_equal(np.asarray(getattr(mnp, name)(z)), getattr(np, name)(z))
    assert (mnp.asarray(z) == mnp.asarray(y)).tolist() == (z == y).tolist()


@pytest.mark.parametrize(
    "name,args",
    [
        ("maximum", 2),
        ("minimum", 2),
        ("floor_divide", 2),
        ("remainder", 2),
        ("less", 2),
        ("greater_equal", 2),
        ("arctan2", 2),
        ("hypot", 2),
        ("bitwise_and", 2),
        ("floor", 1),
        ("ceil", 1),
        ("trunc", 1),
        ("signbit", 1),
        ("invert", 1),
    ],
)
def test_ops_without_complex_loops_refuse_naming_op_and_type(name, args):
    z = mnp.asarray(np.array([1 + 2j], np.complex128))
    fname = {"arctan2": "(atan2|arctan2)"}.get(name, name)
    with pytest.raises(TypeError, match=rf"^np\.{fname}: .*complex128"):
        getattr(mnp, name)(*([z] * args))


@pytest.mark.parametrize("src", CDTYPES)
@pytest.mark.parametrize(
    "dst", ["float32", "float64", "int32", "uint8", "float16", "bool", "complex64", "complex128"]
)
def test_astype_between_complex_and_real_as_numpy(src, dst):
    z = np.array([1.5 + 2j, -3.25 - 1j, 0j, 0.5j], src)
    want_warn = dst not in ("complex64", "complex128", "bool")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ours = mnp.asarray(z).astype(dst)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = z.astype(dst)
    assert str(ours.dtype) == dst
    np.testing.assert_array_equal(np.asarray(ours), want)
    got = [w for w in seen if issubclass(w.category, mxffi.error.ComplexWarning)]
    assert len(got) == (1 if want_warn else 0)
    if want_warn:
        assert "discards the imaginary part" in str(got[0].message)
        assert issubclass(mxffi.error.ComplexWarning, RuntimeWarning)


@pytest.mark.parametrize("src", ["float32", "float64", "int64", "uint8", "bool", "float16"])
def test_astype_real_to_complex(src):
    x = np.array([1, 0, 3], src)
    for dst in CDTYPES:
        ours = mnp.asarray(x).astype(dst)
        assert str(ours.dtype) == dst
        np.testing.assert_array_equal(np.asarray(ours), x.astype(dst))


def test_complex_warning_as_error_leaves_nothing_done():
    z = mnp.asarray(np.array([1 + 2j]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", mxffi.error.ComplexWarning)
        with pytest.raises(mxffi.error.ComplexWarning):
            z.astype("float64")


def test_strided_and_broadcast_complex_inputs():
    z = values("complex128", (4, 6))
    v = z[:, ::2].T  # strided, transposed
    same_parts(mnp.exp(v), np.exp(v), 1e-14)
    same_parts(mnp.multiply(v, z[0, :3].reshape(3, 1)), v * z[0, :3].reshape(3, 1), 1e-14)
    same_parts(mnp.abs(v), np.abs(v).astype(np.complex128), 1e-14)
    out = mnp.zeros((3, 4), dtype="complex128")
    assert mnp.sqrt(v, out=out).same_as(out)
    same_parts(out, np.sqrt(v), 1e-14)


# ---- real, imag, conj ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", CDTYPES)
def test_real_and_imag_are_views_of_the_parts(dtype):
    z = values(dtype, (3, 4))
    a = mnp.asarray(z)
    part = "float32" if dtype == "complex64" else "float64"
    for f, attr, want in ((mnp.real, "real", z.real), (mnp.imag, "imag", z.imag)):
        for v in (f(a), getattr(a, attr)):
            assert str(v.dtype) == part and v.shape == (3, 4)
            np.testing.assert_array_equal(np.asarray(v), want)
        # strided and transposed inputs: the parts of exactly those elements
        np.testing.assert_array_equal(np.asarray(f(a[:, ::2])), want[:, ::2])
        np.testing.assert_array_equal(np.asarray(f(a.T)), want.T)
    # A view: writing the parts writes the array, as numpy's .real and .imag.
    a.real[0, 0] = 10.0
    a.imag[0, 1] = -20.0
    assert a[0, 0].item() == 10 + 1j * z[0, 0].imag
    assert a[0, 1].item() == z[0, 1].real - 20j


def test_real_and_imag_of_real_arrays_as_numpy():
    x = np.array([1.5, -2.0], np.float32)
    a = mnp.asarray(x)
    assert mnp.real(a).same_as(a)  # the array itself
    im = mnp.imag(a)
    assert im.dtype == "float32" and im.tolist() == [0.0, 0.0]
    assert mnp.imag(np.int8([1, 2])).dtype == "int8"
    with pytest.raises(TypeError, match=r"^np\.real: argument #0 'x' expected an ndarray"):
        mnp.real("x")
    with pytest.raises(TypeError, match=r"x"):
        mnp.real(x=a)  # positional-only


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32", "int8", "bool", "uint16"])
def test_conj_and_conjugate_as_numpy(dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's ComplexWarning for the real dtypes
        x = (values("complex128", (2, 3)) * 2).astype(dtype)
    for ours in (mnp.conj(x), mnp.conjugate(x), mnp.asarray(x).conj(), mnp.asarray(x).conjugate()):
        want = np.conj(x)
        assert str(ours.dtype) == str(want.dtype)
        np.testing.assert_array_equal(np.asarray(ours), want)


# ---- clip ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint8", "int64", "float16"])
def test_clip_values_and_dtypes_as_numpy(dtype):
    x = np.array([[-5, 0, 3], [7, 1, 2]]).astype(dtype)
    for lo, hi in ((0, 4), (None, 2), (1, None), (3, 1), (None, None)):
        ours = mnp.clip(x, lo, hi)
        want = np.clip(x, lo, hi)
        assert str(ours.dtype) == str(want.dtype) == dtype, (lo, hi)
        np.testing.assert_array_equal(np.asarray(ours), want)
        ours = mnp.clip(x, min=lo, max=hi)
        np.testing.assert_array_equal(np.asarray(ours), want)
    # array bounds broadcast and promote as numpy's
    lo = np.array([0, 1, 2], np.float64)
    ours, want = mnp.clip(x, lo, 5), np.clip(x, lo, 5)
    assert str(ours.dtype) == str(want.dtype)
    np.testing.assert_array_equal(np.asarray(ours), want)


def test_clip_nan_out_and_errors():
    x = np.array([np.nan, 1.0, 5.0, -np.inf], np.float64)
    for lo, hi in ((0.0, 2.0), (np.nan, 2.0), (0.0, np.nan)):
        np.testing.assert_array_equal(np.asarray(mnp.clip(x, lo, hi)), np.clip(x, lo, hi))
    out = mnp.zeros(4, dtype="float64")
    assert mnp.clip(x, 0.0, 2.0, out=out).same_as(out)
    np.testing.assert_array_equal(np.asarray(out), np.clip(x, 0.0, 2.0))
    with pytest.raises(TypeError, match=r"^np\.clip: unsupported dtype complex128"):
        mnp.clip(np.array([1j]), 0, 1)
    with pytest.raises(TypeError):
        mnp.clip(x, 0.0, 2.0, out)  # out is keyword-only
    with pytest.raises(ValueError, match=r"could not be broadcast"):
        mnp.clip(np.ones(3), np.zeros(2), 1.0)
    assert mnp.clip(np.array([True, False]), None, None).tolist() == [True, False]
