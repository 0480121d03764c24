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
