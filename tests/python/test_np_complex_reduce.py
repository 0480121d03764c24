"""Reductions (sum, prod, mean, max, min, argmax, argmin, var, std, all, any, count_nonzero)
and matrix products (matmul, dot, tensordot, vecdot) of complex64 and complex128 arrays against
numpy: values (NaN and infinite parts included), result dtypes, axes, keepdims, dtype=, empty
and 0-d inputs, and the promotion of mixed real and complex operands.

Sums and means are compared part by part within a bound proportional to the sum of magnitudes
(the order of the additions differs from numpy's); max, min, argmax and argmin exactly.
"""

import itertools
import warnings

import numpy as np
import pytest

import mxffi
import mxffi.np as mnp

CDTYPES = ["complex64", "complex128"]
SHAPES = [(), (0,), (7,), (0, 3), (3, 0), (4, 7), (3, 4, 5), (2, 3, 1, 4)]
REL = {"complex64": 2e-6, "complex128": 1e-14, "float32": 2e-6, "float64": 1e-14}


def crand(shape, dtype, rng):
    return np.asarray((rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype))


def axis_forms(ndim):
    forms = [None]
    for a in range(ndim):
        forms += [a, a - ndim]
    for k in range(2, ndim + 1):
        forms += list(itertools.combinations(range(ndim), k))
    return forms


def numpy_result(name, x, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(getattr(np, name)(x, **kwargs))


def close_parts(got, want, rel, mag):
    """Each part within rel * mag of numpy's, NaN where numpy's is NaN."""
    for part in (np.real, np.imag):
        g, e = part(got).astype(np.float64), part(want).astype(np.float64)
        with np.errstate(invalid="ignore"):
            ok = (np.isnan(g) & np.isnan(e)) | (g == e) | (np.abs(g - e) <= rel * mag + 1e-30)
        assert ok.all(), (g, e)


def check(name, x, axis=None, keepdims=False, dtype=None):
    kwargs = {"axis": axis, "keepdims": keepdims}
    if dtype is not None:
        kwargs["dtype"] = dtype
    try:
        want = numpy_result(name, x, **kwargs)
    except ValueError as e:
        assert "zero-size array" in str(e)
        with pytest.raises(ValueError, match="zero-size array"):
            getattr(mnp, name)(x, **kwargs)
        return
    got = getattr(mnp, name)(x, **kwargs).numpy()
    assert got.dtype == want.dtype, (name, x.dtype, axis, got.dtype, want.dtype)
    assert got.shape == want.shape, (name, x.shape, axis)
    if name in ("max", "min"):
        np.testing.assert_array_equal(got, want)
    elif name == "prod":
        np.testing.assert_allclose(got, want, rtol=1e-5 if got.dtype == np.complex64 else 1e-12)
    elif name in ("var", "std"):
        np.testing.assert_allclose(got, want, rtol=1e-4 if got.dtype == np.float32 else 1e-12)
    else:
        mag = np.sum(np.abs(x.astype(np.complex128)), axis=axis, keepdims=keepdims)
        if name == "mean":
            mag = mag / max(1, x.size // max(1, want.size))
        close_parts(got, want, REL[str(got.dtype)], mag)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min", "var", "std"])
def test_matches_numpy(name, dtype):
    rng = np.random.default_rng(sum(map(ord, name + dtype)))
    for shape in SHAPES:
        x = crand(shape, dtype, rng)
        for axis in axis_forms(len(shape)):
            for keepdims in (False, True):
                check(name, x, axis, keepdims)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "var"])
def test_strided_and_large(name, dtype):
    rng = np.random.default_rng(3)
    base = crand((6, 8, 10), dtype, rng)
    for x in [base.transpose(2, 0, 1), base[::2, 1:7, ::3], base[:, ::-1]]:
        for axis in axis_forms(3):
            check(name, x, axis)
    # Past one chunk of the full reduction, and the kept-axis loop over many outputs.
    big = crand((300001,), dtype, rng)
    check(name, big)
    wide = crand((400, 500), dtype, rng)
    for axis in (None, 0, 1):
        check(name, wide, axis)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_special_values(dtype):
    inf, nan = np.inf, np.nan
    x = np.array(
        [complex(1, 2), complex(inf, 0), complex(0, -inf), complex(nan, 1), complex(2, nan)],
        dtype=dtype,
    )
    for name in ["sum", "prod", "mean"]:
        for i, j in itertools.combinations(range(len(x) + 1), 2):
            want = numpy_result(name, x[i:j])
            got = getattr(mnp, name)(x[i:j]).numpy()
            assert got.dtype == want.dtype
            close_parts(got, want, 0, 0)
    # numpy's mean divides by the count as by a complex number: an infinite part makes the
    # other part NaN.
    got = mnp.mean(np.array([complex(inf, 1)], dtype=dtype)).numpy()
    assert got.real == inf and np.isnan(got.imag)
    # max and min: lexicographic; the first element with a NaN part wins.
    cases = [
        [complex(1, 5), complex(2, -1), complex(2, -3)],
        [complex(0, 0), complex(1, nan), complex(nan, 0), complex(5, 5)],
        [complex(3, 0), complex(nan, 3), complex(1, nan)],
        [complex(-inf, 0), complex(-inf, -1), complex(inf, -inf)],
    ]
    for values in cases:
        v = np.array(values, dtype=dtype)
        for name in ["max", "min", "argmax", "argmin"]:
            np.testing.assert_array_equal(getattr(mnp, name)(v).numpy(), numpy_result(name, v))
    # var and std of a NaN or infinite input are NaN, as numpy's.
    for name in ["var", "std"]:
        np.testing.assert_array_equal(mnp.__dict__[name](x).numpy(), numpy_result(name, x))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_argmax_argmin(dtype):
    rng = np.random.default_rng(5)
    # Few distinct real parts, so ties are decided by the imaginary parts.
    x = (rng.integers(0, 3, (5, 6)) + 1j * rng.integers(0, 3, (5, 6))).astype(dtype)
    for name in ["argmax", "argmin"]:
        for axis in [None, 0, 1, -1]:
            for keepdims in (False, True):
                got = getattr(mnp, name)(x, axis=axis, keepdims=keepdims).numpy()
                want = numpy_result(name, x, axis=axis, keepdims=keepdims)
                np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(
            getattr(mnp, name)(x.T, axis=1).numpy(), numpy_result(name, x.T, axis=1)
        )


@pytest.mark.parametrize("dtype", CDTYPES)
def test_truth_reductions(dtype):
    x = np.array([[0, 1j, -0.0 + 0j], [complex(np.nan, 0), 0, 2], [0, 0, 0]], dtype=dtype)
    for name in ["all", "any", "count_nonzero"]:
        for axis in [None, 0, 1]:
            got = getattr(mnp, name)(x, axis=axis).numpy()
            np.testing.assert_array_equal(got, np.asarray(getattr(np, name)(x, axis=axis)))


def test_dtype_argument():
    rng = np.random.default_rng(9)
    x64 = crand((4, 5), "complex64", rng)
    ints = np.arange(12).reshape(3, 4)
    for name in ["sum", "prod", "mean"]:
        check(name, x64, axis=1, dtype="complex128")
        check(name, x64.astype(np.complex128), axis=0, dtype="complex64")
        check(name, ints, axis=0, dtype="complex128")
        check(name, ints, axis=None, dtype="complex64")
    # A real dtype= of a complex input drops the imaginary parts (numpy casts before it adds).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.sum(x64, dtype=np.float64)
    with pytest.warns(mxffi.error.ComplexWarning, match="discards the imaginary part"):
        got = mnp.sum(x64, dtype="float64").numpy()
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(TypeError, match=r"^np\.max: unexpected keyword argument 'dtype'"):
        mnp.max(x64, dtype="complex128")


@pytest.mark.parametrize("dtype", CDTYPES)
def test_empty_and_0d(dtype):
    empty = np.zeros((0, 3), dtype=dtype)
    for name, axis in itertools.product(["sum", "prod", "mean", "var", "std"], [None, 0, 1]):
        check(name, empty, axis)
    for name in ["max", "min"]:
        with pytest.raises(ValueError, match=rf"^np\.{name}: zero-size array"):
            getattr(mnp, name)(empty, axis=0)
        assert getattr(mnp, name)(empty, axis=1).shape == (0,)
    with pytest.raises(ValueError, match=r"^np\.argmax: attempt to get argmax of an empty"):
        mnp.argmax(empty)
    scalar = np.array(complex(1.5, -2), dtype=dtype)
    for name in ["sum", "prod", "mean", "max", "min", "var", "std"]:
        check(name, scalar)
    assert int(mnp.argmax(scalar).numpy()) == 0


def test_methods():
    x = np.array([[1 + 2j, 3 - 1j, 0.5j], [-2 + 0j, 4 + 4j, 1 - 1j]], dtype=np.complex128)
    a = mnp.asarray(x)
    np.testing.assert_allclose(a.sum(axis=0).numpy(), x.sum(axis=0))
    np.testing.assert_allclose(a.prod().numpy(), x.prod())
    np.testing.assert_allclose(a.mean(axis=1, keepdims=True).numpy(), x.mean(1, keepdims=True))
    np.testing.assert_allclose(a.var().numpy(), x.var())
    np.testing.assert_allclose(a.std(axis=0, correction=1).numpy(), x.std(axis=0, ddof=1))
    assert a.var().numpy().dtype == np.float64
    assert a.max().numpy() == x.max() and a.min(axis=1).numpy().tolist() == x.min(1).tolist()
    assert int(a.argmax().numpy()) == x.argmax() and a.argmin(axis=0).numpy().tolist() == [1, 0, 0]


# ---- matrix products ----------------------------------------------------------------------


def tol(dtype):
    return {"rtol": 2e-5, "atol": 2e-5} if np.dtype(dtype) == np.complex64 else {"rtol": 1e-12}


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("mnk", [(3, 4, 5), (1, 1, 7), (40, 30, 50), (64, 64, 64), (5, 130, 9)])
def test_matmul_values(dtype, mnk):
    """Small products (the loop) and large ones (cgemm/zgemm), contiguous, transposed and
    strided operands (packed)."""
    m, n, k = mnk
    rng = np.random.default_rng(m * n * k)
    a, b = crand((m, k), dtype, rng), crand((k, n), dtype, rng)
    at = np.ascontiguousarray(a.T).T  # column-major: a transposed BLAS operand
    bs = crand((k, 2 * n), dtype, rng)[:, ::2]  # a stride of 2: packed
    for x, y in [(a, b), (at, b), (a, bs), (at, bs)]:
        want = x @ y
        for f in (mnp.matmul, mnp.dot):
            got = f(x, y).numpy()
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, **tol(dtype))
        np.testing.assert_allclose(
            mnp.tensordot(x, y, axes=1).numpy(), np.tensordot(x, y, axes=1), **tol(dtype)
        )


@pytest.mark.parametrize("dtype", CDTYPES)
def test_batched_and_tensordot(dtype):
    rng = np.random.default_rng(11)
    a, b = crand((2, 1, 3, 4), dtype, rng), crand((5, 4, 6), dtype, rng)
    np.testing.assert_allclose(mnp.matmul(a, b).numpy(), np.matmul(a, b), **tol(dtype))
    big_a, big_b = crand((3, 40, 50), dtype, rng), crand((50, 60), dtype, rng)
    np.testing.assert_allclose(mnp.matmul(big_a, big_b).numpy(), big_a @ big_b, **tol(dtype))
    v = crand((4,), dtype, rng)
    np.testing.assert_allclose(mnp.matmul(a, v).numpy(), np.matmul(a, v), **tol(dtype))
    np.testing.assert_allclose(mnp.dot(v, v).numpy(), np.dot(v, v), **tol(dtype))
    x, y = crand((3, 4, 5), dtype, rng), crand((5, 4, 2), dtype, rng)
    for axes in [0, 1, ((1, 2), (1, 0)), ([2], [0])]:
        np.testing.assert_allclose(
            mnp.tensordot(x, y, axes=axes).numpy(), np.tensordot(x, y, axes=axes), **tol(dtype)
        )
    y2 = y.transpose(1, 0, 2)
    np.testing.assert_allclose(
        mnp.linalg.tensordot(x, y2, axes=2).numpy(), np.tensordot(x, y2, axes=2), **tol(dtype)
    )
    np.testing.assert_allclose(mnp.linalg.matmul(a, b).numpy(), np.matmul(a, b), **tol(dtype))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_empty_products(dtype):
    z = mnp.matmul(np.zeros((3, 0), dtype), np.zeros((0, 4), dtype)).numpy()
    assert z.dtype == np.dtype(dtype) and z.shape == (3, 4) and not z.any()
    assert mnp.matmul(np.zeros((0, 2), dtype), np.ones((2, 4), dtype)).shape == (0, 4)
    assert mnp.vecdot(np.zeros((2, 0), dtype), np.zeros((2, 0), dtype)).numpy().tolist() == [0, 0]


@pytest.mark.parametrize("dtype", CDTYPES)
def test_special_values_in_products(dtype):
    """Finite results as numpy's; where numpy's part is NaN or infinite, so is mxffi's (which
    of the two a BLAS gives for inf * 0 sums depends on its kernels and on its alpha scaling,
    numpy's own loop and its BLAS differ there too)."""
    inf, nan = np.inf, np.nan
    a = np.array([[1 + 1j, complex(inf, 0)], [complex(0, nan), 2 - 1j], [3, 1j]], dtype=dtype)
    b = np.array([[1 + 0j, 0 + 1j], [2 + 0j, -1 + 0j]], dtype=dtype)
    big_a = np.tile(a, (20, 40))
    big_b = np.tile(b, (40, 20))
    for x, y in [(a, b), (big_a, big_b)]:
        with np.errstate(all="ignore"):
            want = x @ y
        got = mnp.matmul(x, y).numpy()
        for part in (np.real, np.imag):
            g, e = part(got), part(want)
            finite = np.isfinite(e)
            assert finite.any() and not finite.all()
            np.testing.assert_allclose(g[finite], e[finite], rtol=1e-5)
            assert not np.isfinite(g[~finite]).any()


def test_promotion():
    rng = np.random.default_rng(4)
    c64, c128 = crand((3, 4), "complex64", rng), crand((4, 2), "complex128", rng)
    reals = {
        "float32": rng.standard_normal((4, 2)).astype(np.float32),
        "float64": rng.standard_normal((4, 2)),
        "int64": rng.integers(-5, 5, (4, 2)),
        "int8": rng.integers(-5, 5, (4, 2)).astype(np.int8),
        "bool": rng.random((4, 2)) < 0.5,
        "float16": rng.standard_normal((4, 2)).astype(np.float16),
    }
    for name, r in reals.items():
        for x, y in [(c64, r), (r.T, c64.T), (c128.T, r.T.copy())]:
            if x.shape[-1] != y.shape[0]:
                continue
            want = x @ y
            got = mnp.matmul(x, y).numpy()
            assert got.dtype == want.dtype, (name, x.dtype, y.dtype, got.dtype)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
            assert mnp.tensordot(x, y, axes=1).numpy().dtype == want.dtype
    assert mnp.matmul(c64, c128).numpy().dtype == np.complex128


@pytest.mark.parametrize("dtype", CDTYPES)
def test_vecdot_conjugates_x1(dtype):
    rng = np.random.default_rng(6)
    x1, x2 = crand((3, 5), dtype, rng), crand((3, 5), dtype, rng)
    want = np.sum(np.conj(x1) * x2, axis=-1)
    for f in (mnp.vecdot, mnp.linalg.vecdot):
        got = f(x1, x2).numpy()
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got, want, **tol(dtype))
        np.testing.assert_allclose(got, np.vecdot(x1, x2), **tol(dtype))
    # axis=, broadcasting, a real operand on either side, long vectors (the BLAS path).
    np.testing.assert_allclose(
        mnp.vecdot(x1, x2[0], axis=-1).numpy(), np.vecdot(x1, x2[0]), **tol(dtype)
    )
    np.testing.assert_allclose(
        mnp.vecdot(x1.T, x2.T, axis=0).numpy(), np.vecdot(x1.T, x2.T, axis=0), **tol(dtype)
    )
    r = rng.standard_normal((3, 5))
    np.testing.assert_allclose(mnp.vecdot(x1, r).numpy(), np.vecdot(x1, r), rtol=1e-5)
    np.testing.assert_allclose(mnp.vecdot(r, x2).numpy(), np.vecdot(r, x2), rtol=1e-5)
    assert mnp.vecdot(r, x2.astype(np.complex64)).numpy().dtype == np.complex128
    long1, long2 = crand((2, 5000), dtype, rng), crand((2, 5000), dtype, rng)
    np.testing.assert_allclose(
        mnp.vecdot(long1, long2).numpy(),
        np.vecdot(long1, long2),
        rtol=1e-4 if dtype == "complex64" else 1e-11,
    )
    # x1 itself is left as it was.
    before = x1.copy()
    a1 = mnp.asarray(x1)
    mnp.vecdot(a1, x2)
    np.testing.assert_array_equal(a1.numpy(), before)


def test_linalg_through_products_and_sums():
    """matrix_power (matmul, and the identity for n = 0) and trace (a sum) of complex stacks."""
    rng = np.random.default_rng(12)
    a = crand((2, 3, 3), "complex128", rng)
    for n in [0, 1, 2, 5, -2]:
        got = mnp.linalg.matrix_power(a, n).numpy()
        assert got.dtype == np.complex128
        np.testing.assert_allclose(got, np.linalg.matrix_power(a, n), rtol=1e-10, atol=1e-12)
    got = mnp.linalg.trace(a.astype(np.complex64)).numpy()
    assert got.dtype == np.complex64
    np.testing.assert_allclose(got, np.linalg.trace(a.astype(np.complex64)), rtol=1e-5)
