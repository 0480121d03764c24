"""Elementwise ops, reductions, zeros_like and quadratic on csr and row_sparse arrays: values
against numpy/scipy, the storage type of each result, and the dispatch mode (the sparse kernel,
"fcompute_ex", or the dense "fallback") for every storage combination the rules name."""

import numpy as np
import pytest
import scipy.sparse as sp

import mxffi
import mxffi.error
import mxffi.np as mnp
from mxffi.nd import sparse

DENSITIES = [0.0, 0.01, 0.5, 1.0]
SHAPES = [(5, 7), (1, 1), (0, 4), (4, 0), (30, 20)]
VALUE_DTYPES = [np.float32, np.float64]
INDEX_DTYPES = [np.int32, np.int64]
STYPES = ["csr", "row_sparse"]


@pytest.fixture(autouse=True)
def _quiet_fallback(monkeypatch):
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")


def random_dense(shape, density, dtype, seed=0):
    """A matrix with about density of its entries non-zero, of both signs, with an empty row and
    an empty column where the shape has room for them."""
    rng = np.random.default_rng(seed)
    mask = rng.random(shape) < density
    if shape[0] > 2 and density < 1.0:
        mask[1] = False
    if len(shape) > 1 and shape[1] > 2 and density < 1.0:
        mask[:, 2] = False
    values = rng.standard_normal(shape)
    values += np.sign(values)  # |v| >= 1: no value rounds to zero in float32
    return np.where(mask, values, 0.0).astype(dtype)


def make(stype, dense, itype=np.int64):
    idx = np.dtype(itype).name
    if stype == "csr":
        return sparse.csr_matrix(dense, idx_dtype=idx)
    return sparse.row_sparse_array(dense, idx_dtype=idx)


def cases():
    """Every (shape, density) pair, with a seed of its own."""
    for i, shape in enumerate(SHAPES):
        for j, density in enumerate(DENSITIES):
            yield shape, density, 10 * i + j


def assert_canonical(x, itype=None):
    """x's parts are well formed: csr columns strictly increasing within rows, row_sparse rows
    strictly increasing, indices in range, the sizes consistent."""
    ix = np.asarray(x.indices)
    if itype is not None:
        assert ix.dtype == itype
    data = np.asarray(x.data)
    assert data.shape[0] == ix.shape[0]
    if x.stype == "csr":
        ip = np.asarray(x.indptr)
        assert ip.dtype == ix.dtype
        assert ip.shape == (x.shape[0] + 1,) and ip[0] == 0 and ip[-1] == ix.shape[0]
        assert np.all(np.diff(ip) >= 0)
        for r in range(x.shape[0]):
            row = ix[ip[r] : ip[r + 1]]
            assert np.all(np.diff(row) > 0)
            assert np.all((row >= 0) & (row < x.shape[1]))
    else:
        assert np.all(np.diff(ix) > 0)
        assert np.all((ix >= 0) & (ix < x.shape[0]))
        assert data.shape[1:] == tuple(x.shape[1:])


# ---------------------------------------------------------------------------------------------
# Unary ops and numbers: the storage type stays


UNARY = [
    ("negative", np.negative, "_npi_negative"),
    ("absolute", np.absolute, "_npi_absolute"),
    ("abs", np.abs, "_npi_absolute"),
    ("square", np.square, "_npi_square"),
    ("sqrt", np.sqrt, "_npi_sqrt"),
    ("sign", np.sign, "_npi_sign"),
]


@pytest.mark.parametrize("stype", STYPES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_zero_preserving_unary_ops_keep_the_storage_type(stype, dtype, itype):
    ops = [(getattr(mnp, name), ref, op) for name, ref, op in UNARY]
    ops.append((sparse.relu, lambda d: np.maximum(d, 0), "relu"))
    ops.append((lambda x: -x, np.negative, "_npi_negative"))
    ops.append((abs, np.abs, "_npi_absolute"))
    for shape, density, seed in cases():
        d = random_dense(shape, density, dtype, seed)
        x = make(stype, d, itype)
        for fn, ref, op in ops:
            assert mxffi.ops.dispatch(op, x) == ("fcompute_ex", [stype])
            with np.errstate(invalid="ignore"):
                want = ref(d)
            got = fn(x)
            assert got.stype == stype, op
            assert got.dtype == np.dtype(dtype).name
            assert got.nnz == x.nnz  # the structure is the input's
            assert_canonical(got, itype)
            np.testing.assert_array_equal(got.asnumpy(), want, err_msg=op)


def test_unary_ops_on_dense_inputs_still_take_the_dense_kernel():
    d = mnp.array(random_dense((4, 5), 0.5, np.float64))
    for _, _, op in UNARY:
        assert mxffi.ops.dispatch(op, d) == ("fcompute", ["default"])
    assert mxffi.ops.dispatch("relu", d) == ("fcompute", ["default"])
    np.testing.assert_array_equal(sparse.relu(d).asnumpy(), np.maximum(d.asnumpy(), 0))
    assert sparse.relu(d).stype == "default"


def test_sign_and_relu_dense_kernels_match_numpy():
    x = np.array([-2.5, -0.0, 0.0, 3.0, np.nan, -np.inf], np.float64)
    np.testing.assert_array_equal(mnp.sign(x).asnumpy(), np.sign(x))
    np.testing.assert_array_equal(sparse.relu(x).asnumpy(), np.maximum(x, 0))
    for dtype in (np.int8, np.int32, np.int64, np.uint8, np.float32):
        v = np.array([-3, 0, 5, 1], dtype=dtype) if dtype != np.uint8 else np.array([0, 5, 1])
        v = v.astype(dtype)
        np.testing.assert_array_equal(mnp.sign(v).asnumpy(), np.sign(v))
        np.testing.assert_array_equal(sparse.relu(v).asnumpy(), np.maximum(v, 0).astype(dtype))
    with pytest.raises(TypeError, match="np.sign: no loop for a bool input"):
        mnp.sign(np.array([True, False]))


def test_unary_ops_on_integer_sparse_values_follow_numpy_dtypes():
    d = np.array([[0, -4, 0], [9, 0, 16]], np.int32)
    x = sparse.csr_matrix((d[d != 0], np.nonzero(d)[1], [0, 1, 3]), shape=d.shape)
    assert x.dtype == "int32"
    s = mnp.sqrt(x)
    assert s.stype == "csr" and s.dtype == "float64"
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(s.asnumpy(), np.sqrt(d))
    np.testing.assert_array_equal(mnp.square(x).asnumpy(), np.square(d))
    np.testing.assert_array_equal(mnp.negative(x).asnumpy(), -d)


@pytest.mark.parametrize("stype", STYPES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_multiply_and_divide_by_a_number_keep_the_storage_type(stype, dtype, itype):
    for shape, density, seed in cases():
        d = random_dense(shape, density, dtype, seed)
        x = make(stype, d, itype)
        for got, want in (
            (x * 2.5, d * 2.5),
            (2.5 * x, 2.5 * d),
            (x * 3, d * 3),
            (mnp.multiply(x, -1.5), d * -1.5),
            (x / 4.0, d / 4.0),
            (mnp.divide(x, 3), d / 3),
        ):
            assert got.stype == stype
            assert got.dtype == want.dtype.name
            assert_canonical(got, itype)
            np.testing.assert_array_equal(got.asnumpy(), want)
        assert mxffi.ops.dispatch("_npi_multiply_scalar", x, scalar=2.0) == (
            "fcompute_ex",
            [stype],
        )
        assert mxffi.ops.dispatch("_npi_true_divide_scalar", x, scalar=2.0) == (
            "fcompute_ex",
            [stype],
        )


@pytest.mark.parametrize("stype", STYPES)
def test_numbers_that_change_the_zeros_take_the_fallback(stype):
    d = random_dense((6, 5), 0.5, np.float64)
    x = make(stype, d)
    with np.errstate(invalid="ignore", divide="ignore"):
        for got, want, op, scalar in (
            (x * np.inf, d * np.inf, "_npi_multiply_scalar", np.inf),
            (x * np.nan, d * np.nan, "_npi_multiply_scalar", np.nan),
            (x / 0.0, d / 0.0, "_npi_true_divide_scalar", 0.0),
            (x / 0, d / 0, "_npi_true_divide_scalar", 0),
        ):
            assert mxffi.ops.dispatch(op, x, scalar=scalar) == ("fallback", ["default"])
            assert got.stype == "default"
            np.testing.assert_array_equal(got.asnumpy(), want)
    # Numbers that do not keep zeros at all (x + 1, 1 / x) take the fallback too.
    assert (x + 1.0).stype == "default"
    np.testing.assert_array_equal((x + 1.0).asnumpy(), d + 1.0)


# ---------------------------------------------------------------------------------------------
# Binary ops on two arrays


def _pair(shape, density, seed, dtype):
    a = random_dense(shape, density, dtype, seed)
    b = random_dense(shape, min(1.0, density * 2), dtype, seed + 1000)
    if a.size:  # some cancellation: b holds -a where both store a value
        both = (a != 0) & (b != 0)
        b[both & (np.arange(a.size).reshape(shape) % 3 == 0)] = -a[
            both & (np.arange(a.size).reshape(shape) % 3 == 0)
        ]
    return a, b


@pytest.mark.parametrize("stype", STYPES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_add_subtract_multiply_of_two_sparse_arrays_stay_sparse(stype, dtype, itype):
    for shape, density, seed in cases():
        a, b = _pair(shape, density, seed, dtype)
        x, y = make(stype, a, itype), make(stype, b, itype)
        for got, want, op in (
            (x + y, a + b, "_npi_add"),
            (mnp.add(x, y), a + b, "_npi_add"),
            (x - y, a - b, "_npi_subtract"),
            (y - x, b - a, "_npi_subtract"),
            (x * y, a * b, "_npi_multiply"),
            (mnp.multiply(y, x), b * a, "_npi_multiply"),
        ):
            assert mxffi.ops.dispatch(op, x, y) == ("fcompute_ex", [stype])
            assert got.stype == stype, op
            assert got.dtype == np.dtype(dtype).name
            assert_canonical(got, itype)
            np.testing.assert_array_equal(got.asnumpy(), want, err_msg=op)
        if stype == "csr":
            ref_add = (sp.csr_matrix(a) + sp.csr_matrix(b)).toarray()
            np.testing.assert_array_equal((x + y).asnumpy(), ref_add)
            ref_mul = sp.csr_matrix(a).multiply(sp.csr_matrix(b)).toarray()
            np.testing.assert_array_equal((x * y).asnumpy(), ref_mul)


@pytest.mark.parametrize("stype", STYPES)
def test_union_and_intersection_structure(stype):
    a = np.array([[1.0, 0, 2.0, 0], [0, 0, 0, 0], [3.0, 0, 0, 4.0]])
    b = np.array([[0, 5.0, -2.0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
    x, y = make(stype, a), make(stype, b)
    s, m = x + y, x * y
    if stype == "csr":
        # The cancellation at (0, 2) stays stored; nothing else is.
        np.testing.assert_array_equal(np.asarray(s.indptr), [0, 3, 3, 5])
        np.testing.assert_array_equal(np.asarray(s.indices), [0, 1, 2, 0, 3])
        np.testing.assert_array_equal(np.asarray(m.indices), [2])
        np.testing.assert_array_equal(np.asarray(m.indptr), [0, 1, 1, 1])
    else:
        np.testing.assert_array_equal(np.asarray(s.indices), [0, 2])
        np.testing.assert_array_equal(np.asarray(m.indices), [0])
    np.testing.assert_array_equal(s.asnumpy(), a + b)
    np.testing.assert_array_equal(m.asnumpy(), a * b)


@pytest.mark.parametrize("stype", STYPES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_dense_with_sparse(stype, dtype, itype):
    for shape, density, seed in cases():
        a, b = _pair(shape, density, seed, dtype)
        x, dn, dense_np = make(stype, a, itype), mnp.array(b), b
        for got, want, op, args, out_stype in (
            (x + dn, a + b, "_npi_add", (x, dn), "default"),
            (dn + x, b + a, "_npi_add", (dn, x), "default"),
            (x - dn, a - b, "_npi_subtract", (x, dn), "default"),
            (dn - x, b - a, "_npi_subtract", (dn, x), "default"),
            (x * dn, a * b, "_npi_multiply", (x, dn), stype),
            (dn * x, b * a, "_npi_multiply", (dn, x), stype),
        ):
            assert mxffi.ops.dispatch(op, *args) == ("fcompute_ex", [out_stype]), op
            assert got.stype == out_stype
            if out_stype != "default":
                assert got.nnz == x.nnz
                assert_canonical(got, itype)
            np.testing.assert_array_equal(got.asnumpy(), want, err_msg=op)
        # A numpy array on the other side is dense too.
        np.testing.assert_array_equal(mnp.add(x, dense_np).asnumpy(), a + b)


def test_dense_operand_strided_and_out_aliasing_the_dense_input():
    a = random_dense((6, 8), 0.3, np.float64)
    big = random_dense((8, 6), 1.0, np.float64, seed=3)
    x = sparse.csr_matrix(a)
    t = mnp.array(big).T  # a strided view
    np.testing.assert_array_equal((x - t).asnumpy(), a - big.T)
    np.testing.assert_array_equal((x * t).asnumpy(), a * big.T)
    out = mnp.array(big.T.copy())
    r = mnp.subtract(x, out, out=out)  # out is the dense input
    np.testing.assert_array_equal(r.asnumpy(), a - big.T)
    np.testing.assert_array_equal(out.asnumpy(), a - big.T)


@pytest.mark.parametrize("shape", [(4, 3), (5, 2, 3), (3,)])
def test_row_sparse_of_more_or_fewer_dimensions(shape):
    a, b = _pair(shape, 0.5, 7, np.float64)
    x, y = sparse.row_sparse_array(a), sparse.row_sparse_array(b)
    for got, want in ((x + y, a + b), (x - y, a - b), (x * y, a * b)):
        assert got.stype == "row_sparse"
        np.testing.assert_array_equal(got.asnumpy(), want)
    dn = mnp.array(b)
    np.testing.assert_array_equal((x + dn).asnumpy(), a + b)
    assert (dn * x).stype == "row_sparse"
    np.testing.assert_array_equal((dn * x).asnumpy(), a * b)


def test_two_index_dtypes_give_int64_and_one_keeps_its_own():
    a, b = _pair((6, 5), 0.5, 1, np.float64)
    x32, y64 = make("csr", a, np.int32), make("csr", b, np.int64)
    assert_canonical(x32 + y64, np.int64)
    np.testing.assert_array_equal((x32 + y64).asnumpy(), a + b)
    assert_canonical(x32 * make("csr", b, np.int32), np.int32)
    r32, r64 = make("row_sparse", a, np.int32), make("row_sparse", b, np.int64)
    assert_canonical(r32 - r64, np.int64)
    np.testing.assert_array_equal((r32 - r64).asnumpy(), a - b)


def test_mixed_value_dtypes_follow_numpy_promotion():
    a, b = _pair((5, 6), 0.5, 2, np.float32)
    x32 = sparse.csr_matrix(a)
    y64 = sparse.csr_matrix(b.astype(np.float64))
    r = x32 + y64
    assert r.stype == "csr" and r.dtype == "float64"
    np.testing.assert_array_equal(r.asnumpy(), a.astype(np.float64) + b.astype(np.float64))
    r = x32 * mnp.array(b.astype(np.float64))
    assert r.stype == "csr" and r.dtype == "float64"
    np.testing.assert_array_equal(r.asnumpy(), a.astype(np.float64) * b)
    r = mnp.array(b.astype(np.float64)) - x32
    assert r.stype == "default" and r.dtype == "float64"
    np.testing.assert_array_equal(r.asnumpy(), b.astype(np.float64) - a)
    # Integer values wrap as numpy's.
    i = np.array([[0, 2**62, 0], [5, 0, -3]], np.int64)
    xi = sparse.csr_matrix((i[i != 0], np.nonzero(i)[1], [0, 1, 3]), shape=i.shape)
    np.testing.assert_array_equal((xi + xi).asnumpy(), i + i)
    np.testing.assert_array_equal((xi * xi).asnumpy(), i * i)


def test_broadcasting_with_a_sparse_operand_takes_the_fallback():
    a = random_dense((5, 7), 0.4, np.float64)
    row = random_dense((1, 7), 1.0, np.float64, seed=4)
    x = sparse.csr_matrix(a)
    for other in (mnp.array(row), mnp.array(row[0]), sparse.csr_matrix(row)):
        for op, ref in (("_npi_add", np.add), ("_npi_multiply", np.multiply)):
            assert mxffi.ops.dispatch(op, x, other) == ("fallback", ["default"])
            got = getattr(mnp, op[5:])(x, other)
            assert got.stype == "default"
            np.testing.assert_array_equal(got.asnumpy(), ref(a, row))
    with pytest.raises(ValueError, match="could not be broadcast together"):
        x + sparse.csr_matrix(random_dense((4, 7), 0.5, np.float64))
    # out= of the broadcast shape with a sparse operand.
    out = mnp.zeros((5, 7))
    mnp.add(sparse.csr_matrix(row), mnp.array(a), out=out)
    np.testing.assert_array_equal(out.asnumpy(), row + a)


def test_csr_with_row_sparse_takes_the_fallback():
    a, b = _pair((4, 5), 0.5, 3, np.float64)
    x, r = sparse.csr_matrix(a), sparse.row_sparse_array(b)
    for op, ref in (("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply)):
        assert mxffi.ops.dispatch("_npi_" + op, x, r) == ("fallback", ["default"])
        got = getattr(mnp, op)(x, r)
        assert got.stype == "default"
        np.testing.assert_array_equal(got.asnumpy(), ref(a, b))


def test_binary_ops_on_dense_inputs_still_take_the_dense_kernel():
    d = mnp.array(np.ones((3, 4)))
    for op in ("_npi_add", "_npi_subtract", "_npi_multiply"):
        assert mxffi.ops.dispatch(op, d, d) == ("fcompute", ["default"])
    for op in ("_npi_multiply_scalar", "_npi_true_divide_scalar"):
        assert mxffi.ops.dispatch(op, d, scalar=2.0) == ("fcompute", ["default"])
    assert mxffi.ops.dispatch("quadratic", d, a=1.0) == ("fcompute", ["default"])
    assert mxffi.ops.dispatch("_sum", d, axis=(0,)) == ("fcompute", ["default"])
    assert mxffi.ops.dispatch("zeros_like", d) == ("fcompute", ["default"])


def test_sparse_out_argument():
    a, b = _pair((4, 6), 0.5, 5, np.float64)
    x, y = sparse.csr_matrix(a), sparse.csr_matrix(b)
    out = sparse.zeros("csr", (4, 6))
    r = mnp.add(x, y, out=out)
    assert r.stype == "csr"
    np.testing.assert_array_equal(out.asnumpy(), a + b)
    with pytest.raises(TypeError, match="storage type"):
        mnp.add(x, y, out=mnp.zeros((4, 6)))


# ---------------------------------------------------------------------------------------------
# Reductions, zeros_like, quadratic


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_sum_and_mean_of_csr(dtype, itype):
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for shape, density, seed in cases():
        d = random_dense(shape, density, dtype, seed)
        x = make("csr", d, itype)
        for axis in (0, 1, -1, -2, None, (0, 1)):
            for keepdims in (False, True):
                for name in ("sum", "mean"):
                    op = "_" + name
                    params = {"keepdims": keepdims}
                    if axis is not None:
                        params["axis"] = axis if isinstance(axis, tuple) else (axis,)
                    assert mxffi.ops.dispatch(op, x, **params) == ("fcompute_ex", ["default"])
                    with np.errstate(invalid="ignore", divide="ignore"):
                        want = getattr(np, name)(d, axis=axis, keepdims=keepdims)
                    got = getattr(mnp, name)(x, axis=axis, keepdims=keepdims)
                    assert got.stype == "default"
                    assert got.shape == want.shape, (name, axis, keepdims)
                    assert got.dtype == want.dtype.name
                    np.testing.assert_allclose(got.asnumpy(), want, rtol=rtol, atol=1e-6)


def test_sum_dtypes_and_the_fallbacks():
    d = random_dense((6, 5), 0.5, np.float32)
    x = sparse.csr_matrix(d)
    got = mnp.sum(x, axis=0, dtype="float64")
    assert got.dtype == "float64"
    np.testing.assert_allclose(got.asnumpy(), d.astype(np.float64).sum(axis=0), rtol=1e-12)
    i = np.array([[0, 3, 0], [7, 0, -2]], np.int32)
    xi = sparse.csr_matrix((i[i != 0], np.nonzero(i)[1], [0, 1, 3]), shape=i.shape)
    for axis in (0, 1, None):
        assert mnp.sum(xi, axis=axis).dtype == np.sum(i, axis=axis).dtype.name
        np.testing.assert_array_equal(mnp.sum(xi, axis=axis).asnumpy(), np.sum(i, axis=axis))
        np.testing.assert_allclose(mnp.mean(xi, axis=axis).asnumpy(), np.mean(i, axis=axis))
    # row_sparse and an empty axis tuple take the fallback, with numpy's answer.
    r = sparse.row_sparse_array(d)
    assert mxffi.ops.dispatch("_sum", r, axis=(0,)) == ("fallback", ["default"])
    np.testing.assert_allclose(mnp.sum(r, axis=0).asnumpy(), d.sum(axis=0), rtol=1e-6)
    assert mxffi.ops.dispatch("_sum", x, axis=()) == ("fallback", ["default"])
    np.testing.assert_array_equal(mnp.sum(x, axis=()).asnumpy(), d)
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        mnp.sum(x, axis=2)


@pytest.mark.parametrize("stype", STYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_zeros_like_keeps_the_storage_type(stype, itype):
    for shape, density, seed in cases():
        d = random_dense(shape, density, np.float32, seed)
        x = make(stype, d, itype)
        assert mxffi.ops.dispatch("zeros_like", x) == ("fcompute_ex", [stype])
        z = mnp.zeros_like(x)
        assert z.stype == stype and z.nnz == 0 and z.shape == shape and z.dtype == "float32"
        assert_canonical(z, itype)
        np.testing.assert_array_equal(z.asnumpy(), np.zeros(shape, np.float32))
        z64 = mnp.zeros_like(x, dtype="float64")
        assert z64.stype == stype and z64.dtype == "float64"
    dense = mnp.zeros_like(mnp.array(np.ones((2, 3), np.float32)))
    assert dense.stype == "default" and dense.dtype == "float32"


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_quadratic_of_csr(dtype, itype):
    rtol = 1e-6 if dtype == np.float32 else 1e-14
    for shape, density, seed in cases():
        d = random_dense(shape, density, dtype, seed)
        x = make("csr", d, itype)
        for fn in (mnp.quadratic, sparse.quadratic):
            got = fn(x, a=2.0, b=-3.0)
            assert mxffi.ops.dispatch("quadratic", x, a=2.0, b=-3.0) == ("fcompute_ex", ["csr"])
            assert got.stype == "csr" and got.dtype == np.dtype(dtype).name
            assert got.nnz == x.nnz
            assert_canonical(got, itype)
            np.testing.assert_allclose(got.asnumpy(), 2.0 * d * d - 3.0 * d, rtol=rtol)
            got = fn(x, 1.0, 0.5, 4.0)
            assert mxffi.ops.dispatch("quadratic", x, a=1.0, b=0.5, c=4.0) == (
                "fallback",
                ["default"],
            )
            assert got.stype == "default"
            np.testing.assert_allclose(got.asnumpy(), d * d + 0.5 * d + 4.0, rtol=rtol)


def test_quadratic_fallback_warns(monkeypatch):
    monkeypatch.delenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", raising=False)
    x = sparse.csr_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    with pytest.warns(mxffi.error.StorageFallbackWarning) as seen:
        sparse.quadratic(x, 1.0, 1.0, 0.25)
    assert "quadratic has no kernel for input storage types (csr,)" in str(seen[0].message)
    assert "c=0.25" in str(seen[0].message)
    r = sparse.row_sparse_array(np.array([[0.0, 1.0], [2.0, 0.0]]))
    assert mxffi.ops.dispatch("quadratic", r, a=1.0) == ("fallback", ["default"])
    np.testing.assert_array_equal(sparse.quadratic(r, 1.0).asnumpy(), [[0.0, 1.0], [4.0, 0.0]])


def test_sparse_api_argument_errors():
    with pytest.raises(
        TypeError, match="^sparse.quadratic: argument #0 'x' expected an ndarray, got mxffi.Array"
    ):
        sparse.quadratic([1.0], 1.0)
    with pytest.raises(
        TypeError, match="^sparse.relu: argument #0 'x' expected an ndarray, got str"
    ):
        sparse.relu("x")


def test_inputs_large_enough_to_be_split_across_the_pool():
    # Over 2**17 bounding entries: the csr merge cuts its rows into chunks (one per thread) and
    # moves them together afterwards; the column sums use one accumulator row per chunk.
    a = sp.random(300, 2000, density=0.3, format="csr", random_state=1, dtype=np.float64)
    b = sp.random(300, 2000, density=0.3, format="csr", random_state=2, dtype=np.float64)
    sparse_b = sp.random(300, 2000, density=0.001, format="csr", random_state=3)
    x, y, z = sparse.csr_matrix(a), sparse.csr_matrix(b), sparse.csr_matrix(sparse_b)
    for got, want in (
        (x + y, a + b),
        (x - y, a - b),
        (x * y, a.multiply(b)),  # kept in the scratch buffers
        (x * z, a.multiply(sparse_b)),  # a small result: copied out
    ):
        assert_canonical(got)
        np.testing.assert_array_equal(got.asnumpy(), want.toarray())
    np.testing.assert_allclose(mnp.sum(x, axis=0).asnumpy(), a.toarray().sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(mnp.mean(x, axis=1).asnumpy(), a.toarray().mean(axis=1))
    np.testing.assert_allclose(mnp.sum(x).asnumpy(), a.toarray().sum(), rtol=1e-12)
