"""More sparse ops against numpy and scipy: divide of two sparse arrays (numpy's nan and inf
where the divisor stores nothing), in-place operators that refuse before computing, and where,
concatenate and take on csr arrays with their storage-keeping kernels."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import seed_of

import mxffi
import mxffi.np as mnp
import mxffi.testing as mxtesting
from mxffi import cuda
from mxffi.nd import _sparse_parts, sparse

DENSITIES = [0.0, 0.01, 0.5, 1.0]
DTYPES = ["float32", "float64"]
ITYPES = ["int32", "int64"]


def random_dense(shape, density, dtype, seed, empty_row=True, empty_col=True):
    """Values in [-2, -0.5) U [0.5, 2) at about density of the positions; the first row and the
    last column empty when asked (and the shape allows)."""
    rng = np.random.default_rng(seed)
    keep = rng.random(shape) < density
    vals = np.sign(rng.random(shape) - 0.5) * (rng.random(shape) * 1.5 + 0.5)
    out = np.where(keep, vals, 0).astype(dtype)
    if empty_row and shape[0] > 1:
        out[0] = 0
    if empty_col and len(shape) > 1 and shape[1] > 1:
        out[:, -1] = 0
    return out


def make(stype, dense, itype="int64"):
    if stype == "csr":
        return sparse.csr_matrix(dense, idx_dtype=itype)
    return sparse.row_sparse_array(dense, idx_dtype=itype)


# ---- divide of two sparse arrays ---------------------------------------------------------------


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", ITYPES)
def test_divide_of_two_sparse_arrays_is_numpys(stype, density, dtype, itype):
    """0/0 is nan and x/0 is +-inf where the divisor stores nothing, so the result is dense
    (through the fallback, which warns), with numpy's values, bit for bit."""
    seed = seed_of("divide", stype, density, dtype, itype)
    a = random_dense((9, 7), density, dtype, seed)
    b = random_dense((9, 7), density, dtype, seed + 1, empty_row=False)
    b[2, 3] = 0.0  # a stored zero in the divisor: x/0 too
    x, y = make(stype, a, itype), make(stype, b, itype)
    if stype == "csr":  # (2, 3) stored, holding 0
        c = sp.coo_matrix(b)
        parts = (np.append(c.row, 2), np.append(c.col, 3))
        y = sparse.csr_matrix((np.append(c.data, 0).astype(dtype), parts), shape=b.shape)
        assert y.nnz == c.nnz + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mxffi.error.StorageFallbackWarning)
        got = x / y
        also = mnp.divide(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = a / b
    assert got.stype == "default" and str(got.dtype) == dtype
    np.testing.assert_array_equal(got.asnumpy(), want)  # nan == nan here, inf signs included
    np.testing.assert_array_equal(also.asnumpy(), want)
    assert mxffi.ops.dispatch("_npi_true_divide", x, y) == ("fallback", ["default"])


# ---- in-place operators decide before computing ------------------------------------------------

METHODS = ["__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__", "__pow__"]


def operands(stype, dense):
    """The kinds of right operands an in-place operator meets."""
    other = "row_sparse" if stype == "csr" else "csr"
    return [
        0,
        0.0,
        2,
        2.5,
        -1.0,
        True,
        float("inf"),
        float("nan"),
        np.float32(3.0),
        np.int64(2),
        make(stype, dense),
        make(other, dense),
        mnp.array(dense),
        dense,
        dense[:1],  # broadcast: the fallback
        mnp.array(dense.astype(np.float32)),
        dense.astype(np.int32),
    ]


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("method", METHODS)
def test_in_place_outcome_is_what_the_op_gives(stype, dtype, method):
    """The storage type and dtype told before computing are those of the computed result."""
    a = random_dense((5, 4), 0.5, np.float64, seed_of("outcome", stype, dtype, method)) * 4
    a = np.trunc(a).astype(dtype)
    x = make(stype, a)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for other in operands(stype, np.trunc(a) + 1):
            stype_told, dtype_told = _sparse_parts._inplace_outcome(x, other, method)
            try:
                result = getattr(mnp.ndarray, method)(x, other)
            except (TypeError, ValueError):
                continue  # (int ** negative int and the like): the operator raises its own
            assert stype_told is not None, (method, other)
            assert stype_told == getattr(result, "stype", "default"), (method, repr(other))
            assert dtype_told == str(result.dtype), (method, repr(other))


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
def test_refused_in_place_operator_computes_nothing(stype, monkeypatch):
    a = random_dense((6, 5), 0.5, np.float64, seed=3)
    calls = []

    def compute(self, other, method):
        calls.append(method)
        raise AssertionError("computed before refusing")

    monkeypatch.setattr(_sparse_parts, "_compute", compute)
    cls = "CSRNDArray" if stype == "csr" else "RowSparseNDArray"
    for fn, op, other, kind in (
        (lambda x: x.__iadd__(1), "+", "int", "dense"),
        (lambda x: x.__isub__(mnp.array(a)), "-", "default", "dense"),
        (lambda x: x.__iadd__(a), "+", "ndarray", "dense"),
        (lambda x: x.__itruediv__(0.0), "/", "float", "dense"),
        (lambda x: x.__ipow__(0), "**", "int", "dense"),
        (lambda x: x.__imul__(np.ones((1, 5))), "*", "ndarray", "dense"),  # broadcast
        (lambda x: x.__itruediv__(make(stype, a)), "/", stype, "dense"),
    ):
        x = make(stype, a)
        with pytest.raises(TypeError) as e:
            fn(x)
        assert str(e.value).startswith(f"{cls}.__i")
        assert str(e.value).endswith(
            f": {stype} {op} {other} gives a {kind} result; an in-place operation keeps the "
            f"{stype} storage type, so write x = x {op} y"
        ), str(e.value)
        np.testing.assert_array_equal(x.asnumpy(), a)
    # the dtype rule refuses first too: int64 / 2 is float64
    x = make(stype, (a * 4).astype(np.int64))
    with pytest.raises(TypeError) as e:
        x /= 2
    assert str(e.value) == (
        f"{cls}.__itruediv__: cannot cast the result from float64 to int64 (numpy's same_kind "
        "rule for in-place operations)"
    )
    with pytest.raises(TypeError, match="cannot cast the result from float64 to int64"):
        x *= mnp.array(np.ones((6, 5)))  # dense * sparse keeps the storage type, not the dtype
    assert calls == []


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
def test_refusal_under_error_filter_is_the_type_error(stype):
    """A refused op that would have run through the fallback raises the TypeError, not the
    fallback's warning: nothing ran."""
    a = random_dense((4, 4), 0.5, np.float64, seed=5)
    x = make(stype, a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError, match="gives a dense result"):
            x += np.ones((1, 4))
        with pytest.raises(TypeError, match="gives a dense result"):
            x /= make(stype, a)
    np.testing.assert_array_equal(x.asnumpy(), a)


def test_in_place_operators_still_compute():
    a = random_dense((5, 4), 0.5, np.float32, seed=8)
    x = sparse.csr_matrix(a)
    x *= np.float64(3.0)  # a numpy scalar is weak, as mxffi's operators take it
    x /= 2
    x += sparse.csr_matrix(a)
    x **= 2
    assert x.stype == "csr" and str(x.dtype) == "float32"
    np.testing.assert_allclose(x.asnumpy(), (a * 3 / 2 + a) ** 2, rtol=1e-6)
    with pytest.raises(ValueError, match="could not be broadcast"):
        x += np.ones((2, 2))  # the op's own error, not a refusal


# ---- take, concatenate and where on csr ---------------------------------------------------------


def scipy_of(x):
    return sp.csr_matrix(x.asnumpy())


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", ITYPES)
def test_take_csr_rows_against_numpy(density, dtype, itype):
    seed = seed_of("take", density, dtype, itype)
    a = random_dense((11, 8), density, dtype, seed)
    x = make("csr", a, itype)
    rng = np.random.default_rng(seed)
    idx = rng.integers(-11, 11, size=17)
    for ind in (idx, idx.astype(np.int32), [0, 0, 10], np.zeros(0, np.int64), [-1]):
        got = mnp.take(x, ind, axis=0)
        want = np.take(a, np.asarray(ind, dtype=np.int64), axis=0)
        assert type(got) is sparse.CSRNDArray and got.shape == want.shape
        assert str(got.dtype) == dtype and str(got.indices.dtype) == itype
        np.testing.assert_array_equal(got.asnumpy(), want)
        assert got.check_format() is None  # canonical: each row's columns as stored
        assert got.nnz == (want != 0).sum()
    big = np.arange(-30, 30)
    for mode, ref in (("wrap", np.mod(big, 11)), ("clip", np.clip(big, 0, 10))):
        got = sparse.take(x, big, mode=mode)
        np.testing.assert_array_equal(got.asnumpy(), a[ref])
    np.testing.assert_array_equal(sparse.take(x, idx, mode="raise").asnumpy(), a[idx])
    np.testing.assert_array_equal(sparse.take(x, idx).asnumpy(), a[np.clip(idx, 0, 10)])


def test_take_csr_large_on_the_pool():
    rng = np.random.default_rng(1)
    s = sp.random(20000, 300, density=0.05, format="csr", random_state=rng)
    x = sparse.csr_matrix(s)
    idx = rng.integers(0, 20000, 50000)
    got = mnp.take(x, idx, axis=0)
    want = s[idx]
    assert (got.asscipy() != want).nnz == 0 and got.nnz == want.nnz


def test_take_csr_errors_and_other_cases():
    x = sparse.csr_matrix(np.eye(3))
    with pytest.raises(IndexError) as e:
        mnp.take(x, [0, 3], axis=0)
    assert str(e.value).startswith("index 3 is out of bounds for axis 0 with size 3")
    with pytest.raises(IndexError, match="index -4 is out of bounds for axis 0 with size 3"):
        sparse.take(x, [-4], mode="raise")
    with pytest.raises(ValueError) as e:
        sparse.take(x, [0], mode="fold")
    assert str(e.value).startswith(
        "sparse.take: mode must be 'raise', 'wrap' or 'clip'; got 'fold'"
    )
    with pytest.raises(ValueError) as e:
        sparse.take(x, [0], axis=1)
    assert str(e.value).startswith(
        "sparse.take: a csr array is taken along axis 0 only (MXNet's rule); got axis=1"
    )
    with pytest.raises(ValueError) as e:
        sparse.take(x, [[0, 1]])
    assert str(e.value).startswith(
        "sparse.take: csr rows are taken by a 1-D array of indices; got indices.shape=(1, 2)"
    )
    with pytest.raises(TypeError) as e:
        sparse.take(x, [0.5])
    assert str(e.value).startswith("sparse.take: indices must be an integer array; got dtype")
    with pytest.raises(TypeError) as e:
        sparse.take(mnp.ones((2, 2)), [0])
    assert str(e.value).startswith("sparse.take: a must be a csr array; got storage type 'default'")
    empty = sparse.zeros("csr", (0, 4))
    with pytest.raises(IndexError, match="cannot do a non-empty take from an empty axis"):
        sparse.take(empty, [0], mode="clip")
    assert sparse.take(empty, np.zeros(0, np.int64)).shape == (0, 4)
    # other axes and index shapes: numpy's answer, dense
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = mnp.take(x, [[0, 1]], axis=0)
        c = mnp.take(x, [2, 0], axis=1)
    assert d.stype == "default" and d.shape == (1, 2, 3)
    np.testing.assert_array_equal(c.asnumpy(), np.eye(3)[:, [2, 0]])


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("itype", ITYPES)
def test_concatenate_csr_along_axis_0(density, itype):
    seed = seed_of("concat", density, itype)
    parts = [random_dense((m, 6), density, "float64", seed + m) for m in (4, 0, 1, 7)]
    xs = [make("csr", p, itype) for p in parts]
    got = mnp.concatenate(xs, axis=0)
    assert type(got) is sparse.CSRNDArray and got.shape == (12, 6)
    assert str(got.indices.dtype) == itype and got.check_format() is None
    np.testing.assert_array_equal(got.asnumpy(), np.concatenate(parts, axis=0))
    assert (got.asscipy() != sp.vstack([sp.csr_matrix(p) for p in parts])).nnz == 0
    # mixed dtypes and index dtypes: numpy's result_type, int64 indices
    other = "int64" if itype == "int32" else "int32"
    y = make("csr", parts[0].astype(np.float32), other)
    mixed = mnp.concatenate([y, xs[0]], axis=-2)
    assert str(mixed.dtype) == "float64" and str(mixed.indices.dtype) == "int64"
    want = np.concatenate([parts[0].astype(np.float32), parts[0]])
    np.testing.assert_array_equal(mixed.asnumpy(), want)
    as32 = mnp.concatenate([xs[0], xs[3]], dtype="float32")
    assert str(as32.dtype) == "float32" and as32.stype == "csr"


def test_concatenate_csr_errors():
    a, b = sparse.csr_matrix(np.eye(2)), sparse.csr_matrix(np.ones((2, 3)))
    with pytest.raises(ValueError) as e:
        mnp.concatenate([a, b])
    assert str(e.value).startswith(
        "np.concatenate: all the input array dimensions except for the concatenation axis must "
        "match exactly, but the array at index 0 has shape (2, 2) and the array at index 1 has "
        "shape (2, 3)"
    )
    with pytest.raises(TypeError) as e:
        mnp.concatenate([a, a], axis=1)
    assert str(e.value).startswith(
        "np.concatenate: csr arrays are joined along axis 0 only (MXNet's rule), into a csr "
        "array; got axis=1"
    )
    with pytest.raises(TypeError, match=r"arrays\[1\] must be a dense array, got storage type"):
        mnp.concatenate([mnp.ones((2, 2)), a])
    with pytest.raises(TypeError, match="Cannot cast array data from dtype"):
        mnp.concatenate([a, a], dtype="int32")


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES + ["int32", "bool"])
@pytest.mark.parametrize("itype", ITYPES)
def test_where_with_a_csr_condition(density, dtype, itype):
    seed = seed_of("where", density, dtype, itype)
    c = random_dense((9, 13), density, "float64", seed)
    c[c > 1.5] = 0  # some stored zeros below: false, though stored
    cond = make("csr", c.astype(dtype), itype)
    if dtype == "float64" and cond.nnz:
        cond.data[0] = 0.0
        cond.data[-1] = -0.0
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal((9, 13)), rng.standard_normal((9, 13))
    assert mxffi.ops.dispatch("_npi_where", cond, mnp.array(x), mnp.array(y)) == (
        "fcompute_ex",
        ["default"],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback
        got = mnp.where(cond, x, y)
    assert type(got) is mnp.ndarray and str(got.dtype) == "float64"
    np.testing.assert_array_equal(got.asnumpy(), np.where(cond.asnumpy(), x, y))
    xi = mnp.array(np.arange(117, dtype=np.int16).reshape(9, 13))
    got = mnp.where(cond, xi, mnp.zeros((9, 13), dtype="int16"))
    np.testing.assert_array_equal(got.asnumpy(), np.where(cond.asnumpy(), xi.asnumpy(), 0))


def test_where_csr_nan_and_complex_conditions_and_broadcast():
    c = np.array([[np.nan, 0.0, -0.0], [1e-300, 0, 0]])
    cond = sparse.csr_matrix(([np.nan, -0.0, 1e-300], [0, 2, 0], [0, 2, 3]), shape=(2, 3))
    assert cond.nnz == 3
    got = mnp.where(cond, mnp.ones((2, 3)), mnp.zeros((2, 3)))
    np.testing.assert_array_equal(got.asnumpy(), np.where(c, 1.0, 0.0))  # NaN true, -0.0 false
    h = np.array([-0.0, np.nan, 0.0, 2.0], dtype=np.float16)  # a 16-bit float condition
    z = sparse.csr_matrix((h, [0, 1, 0, 1], [0, 2, 4]), shape=(2, 2))
    assert z.nnz == 4 and str(z.dtype) == "float16"
    got = mnp.where(z, mnp.ones((2, 2)), mnp.zeros((2, 2)))
    np.testing.assert_array_equal(got.asnumpy(), [[0.0, 1.0], [0.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a number or a row broadcasts: the fallback, dense
        b = mnp.where(cond, 5.0, mnp.zeros((1, 3)))
        r = mnp.where(sparse.row_sparse_array(c), 1.0, 0.0)
    np.testing.assert_array_equal(b.asnumpy(), np.where(c, 5.0, 0.0))
    np.testing.assert_array_equal(r.asnumpy(), np.where(c, 1.0, 0.0))
    large = sp.random(3000, 400, density=0.1, format="csr", random_state=2)
    x = np.random.default_rng(3).standard_normal((3000, 400))
    got = mnp.where(sparse.csr_matrix(large), x, -x)
    np.testing.assert_array_equal(got.asnumpy(), np.where(large.toarray() != 0, x, -x))


# ---- the CUDA kernels against the CPU ones -----------------------------------------------------

needs_gpu = pytest.mark.skipif(
    not cuda.is_available(), reason=f"no CUDA device: {cuda.unavailable_reason()}"
)
GPU = "cuda:0"


@needs_gpu
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("itype", ITYPES)
def test_gpu_take_concat_where_match_cpu(density, itype):
    seed = seed_of("gpu", density, itype)
    a = random_dense((300, 70), density, "float64", seed)
    x = make("csr", a, itype)
    g = x.to(GPU)
    idx = np.random.default_rng(seed).integers(-300, 300, 500)
    for got, want in (
        (mnp.take(g, mnp.array(idx).to(GPU), axis=0), mnp.take(x, idx, axis=0)),
        (
            sparse.take(g, mnp.array(idx * 3).to(GPU), mode="wrap"),
            sparse.take(x, idx * 3, mode="wrap"),
        ),
        (mnp.concatenate([g, g[:7], g]), mnp.concatenate([x, x[:7], x])),
    ):
        assert got.stype == "csr" and got.device.device_type == 2
        host = got.to("cpu")
        for part in ("data", "indices", "indptr"):
            np.testing.assert_array_equal(
                np.asarray(getattr(host, part)), np.asarray(getattr(want, part))
            )
    with pytest.raises(IndexError, match="index 300 is out of bounds for axis 0 with size 300"):
        mnp.take(g, mnp.array([1, 300]).to(GPU), axis=0)
    xs, ys = np.ones((300, 70)), -np.ones((300, 70))
    got = mnp.where(g, mnp.array(xs).to(GPU), mnp.array(ys).to(GPU)).to("cpu")
    np.testing.assert_array_equal(got.asnumpy(), np.where(a, xs, ys))


def unchecked(data, indices, indptr, shape):
    """A csr array holding parts that break the csr rules (constructors would repair them)."""
    return mxtesting.csr_unchecked(
        shape[0],
        shape[1],
        mnp.array(np.asarray(data, dtype=np.float64)),
        mnp.array(np.asarray(indices, dtype=np.int64)),
        mnp.array(np.asarray(indptr, dtype=np.int64)),
    )


@pytest.mark.parametrize("device", ["cpu", pytest.param(GPU, marks=needs_gpu)])
def test_gnn_ops_take_unsorted_rows_when_told(device):
    """The row-grouped form of a coo adj (sorted_columns=False): columns out of order and
    repeated pass, a column out of range does not; by default the strict check stays."""
    adj = unchecked([1.0, 2.0, 3.0], [2, 0, 2], [0, 3, 3], shape=(2, 3)).to(device)
    x = mnp.array(np.arange(6.0).reshape(3, 2)).to(device)
    out = mxffi.ops.invoke("_sparse_spmm", adj, x, reduce="sum", sorted_columns=False)
    assert out.to("cpu").tolist() == [[16.0, 22.0], [0.0, 0.0]]
    with pytest.raises(ValueError, match="adj is not canonical: indices"):
        mxffi.ops.invoke("_sparse_spmm", adj, x, reduce="sum")
    bad = unchecked([1.0, 2.0], [0, 3], [0, 2, 2], shape=(2, 3)).to(device)
    with pytest.raises(ValueError, match=r"indices\[1\]=3 is out of range for 3 columns"):
        mxffi.ops.invoke("_sparse_sddmm", bad, x[:2], x, sorted_columns=False)
