"""mxffi.nd.sparse.dot (the op "dot"): every storage combination against scipy and numpy, the
output storage type and dispatch mode of each, forward_stype, the dense fallback, and the errors
for bad input."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import run_python
from sparse_cases import random_dense

import mxffi
import mxffi.np as mnp
from mxffi.nd import sparse

DENSITIES = [0.0, 0.01, 0.5, 1.0]
VALUE_DTYPES = [np.float32, np.float64]
INDEX_DTYPES = [np.int32, np.int64]
# (m, k, n): op(lhs) is m x k, op(rhs) is k x n. n covers whole column blocks of the kernel
# (16 doubles, 32 floats), a block plus a remainder, and a remainder alone.
SHAPES = [
    (7, 5, 3),
    (30, 20, 17),
    (12, 9, 64),
    (9, 30, 40),
    (1, 1, 1),
    (0, 4, 3),
    (4, 0, 3),
    (4, 3, 0),
]


def tol(dtype):
    return {"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}


def to_csr(d, itype):
    """d as a CSRNDArray with itype indices, and the scipy matrix it was made from."""
    ref = sp.csr_matrix(d)
    ix, ip = ref.indices.astype(itype), ref.indptr.astype(itype)
    out = sparse.csr_matrix((ref.data, ix, ip), shape=d.shape)
    assert np.asarray(out.indices).dtype == itype
    return out, ref


def reference(a, b, dtype):
    """a @ b in float64 (a, b dense or scipy), as the value every result is compared with."""
    a = a.toarray() if sp.issparse(a) else a
    b = b.toarray() if sp.issparse(b) else b
    return np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64)


def check(out, expected, stype, dtype):
    classes = {
        "default": mxffi.NDArray,
        "csr": sparse.CSRNDArray,
        "row_sparse": sparse.RowSparseNDArray,
    }
    assert type(out) is classes[stype]
    assert out.stype == stype
    assert out.shape == expected.shape
    assert out.dtype == np.dtype(dtype).name
    np.testing.assert_allclose(
        np.asarray(out.asnumpy() if stype != "default" else out), expected, **tol(dtype)
    )


# ---------------------------------------------------------------------------------------------
# The three sparse kernels


@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_csr_times_dense(m, k, n, density, dtype, itype):
    d = random_dense((m, k), density, dtype)
    a, ref = to_csr(d, itype)
    b = np.random.default_rng(1).standard_normal((k, n)).astype(dtype)
    assert mxffi.ops.dispatch("dot", a, b) == ("fcompute_ex", ["default"])
    out = sparse.dot(a, b)
    check(out, reference(ref, b, dtype), "default", dtype)
    np.testing.assert_allclose(np.asarray(out), ref @ b, **tol(dtype))


@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_csr_transposed_times_dense_is_row_sparse(m, k, n, density, dtype, itype):
    # csr is k x m, so that csr.T is m x k.
    d = random_dense((k, m), density, dtype)
    a, ref = to_csr(d, itype)
    b = np.random.default_rng(1).standard_normal((k, n)).astype(dtype)
    expected = reference(ref.T, b, dtype)
    assert mxffi.ops.dispatch("dot", a, b, transpose_a=True) == ("fcompute_ex", ["row_sparse"])
    out = sparse.dot(a, b, transpose_a=True)
    assert type(out) is sparse.RowSparseNDArray
    check(out, expected, "row_sparse", dtype)
    # Its rows are the columns of csr holding a value, sorted, with csr's index dtype.
    rows = np.asarray(out.indices)
    assert rows.dtype == itype
    np.testing.assert_array_equal(rows, np.flatnonzero(np.diff(ref.tocsc().indptr)))
    assert out.data.shape == (len(rows), n)
    np.testing.assert_allclose(np.asarray(out.data), expected[rows], **tol(dtype))
    np.testing.assert_allclose(out.asnumpy(), ref.T @ b, **tol(dtype))

    params = {"transpose_a": True, "forward_stype": "default"}
    assert mxffi.ops.dispatch("dot", a, b, **params) == ("fcompute_ex", ["default"])
    dense = sparse.dot(a, b, **params)
    check(dense, expected, "default", dtype)


@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_dense_times_csr(m, k, n, density, dtype, itype):
    a = np.random.default_rng(1).standard_normal((m, k)).astype(dtype)
    d = random_dense((k, n), density, dtype)
    b, ref = to_csr(d, itype)
    assert mxffi.ops.dispatch("dot", a, b) == ("fcompute_ex", ["default"])
    out = sparse.dot(a, b)
    check(out, reference(a, ref, dtype), "default", dtype)
    np.testing.assert_allclose(np.asarray(out), a @ ref, **tol(dtype))


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_large_products_split_across_threads(dtype, itype):
    # Large enough for the pool: row ranges balanced by stored values (one dense row, many
    # empty ones), and the transpose's counting sort split in row ranges.
    d = random_dense((1500, 700), 0.05, dtype, seed=3)
    d[5] = np.random.default_rng(4).standard_normal(700)
    d[900:1100] = 0
    a, ref = to_csr(d, itype)
    b = np.random.default_rng(5).standard_normal((700, 64)).astype(dtype)
    bt = np.random.default_rng(6).standard_normal((1500, 64)).astype(dtype)
    c = np.random.default_rng(7).standard_normal((300, 1500)).astype(dtype)
    np.testing.assert_allclose(np.asarray(sparse.dot(a, b)), reference(ref, b, dtype), **tol(dtype))
    out = sparse.dot(a, bt, transpose_a=True)
    np.testing.assert_allclose(out.asnumpy(), reference(ref.T, bt, dtype), **tol(dtype))
    np.testing.assert_array_equal(np.asarray(out.indices), np.flatnonzero(d.any(axis=0)))
    np.testing.assert_allclose(np.asarray(sparse.dot(c, a)), reference(c, ref, dtype), **tol(dtype))


def test_repeated_calls_give_identical_results():
    # Each output row is summed by one thread in a fixed order: no run-to-run differences.
    d = random_dense((800, 900), 0.05, np.float64, seed=8)
    a, _ = to_csr(d, np.int32)
    b = np.random.default_rng(9).standard_normal((800, 64))
    first = sparse.dot(a, b, transpose_a=True).asnumpy()
    for _ in range(3):
        np.testing.assert_array_equal(sparse.dot(a, b, transpose_a=True).asnumpy(), first)


def test_strided_and_mxffi_dense_operands():
    d = random_dense((6, 8), 0.5, np.float64)
    a, ref = to_csr(d, np.int64)
    wide = np.random.default_rng(2).standard_normal((8, 10))
    b = wide[:, ::2]  # a strided numpy view, borrowed
    np.testing.assert_allclose(np.asarray(sparse.dot(a, b)), ref @ b)
    np.testing.assert_allclose(np.asarray(sparse.dot(a, mnp.array(b))), ref @ b)
    tall = np.random.default_rng(3).standard_normal((12, 8))[::2]
    np.testing.assert_allclose(sparse.dot(a, tall, transpose_a=True).asnumpy(), ref.T @ tall)
    lhs = np.random.default_rng(4).standard_normal((5, 12))[:, ::2]
    np.testing.assert_allclose(np.asarray(sparse.dot(lhs, a)), lhs @ ref)


def test_values_scipy_keeps_inf_and_nan():
    # Stored inf and nan propagate as in scipy; implicit zeros contribute nothing.
    d = np.array([[np.inf, 0.0, 1.0], [0.0, np.nan, 0.0]])
    a, ref = to_csr(d, np.int32)
    b = np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 1.0]])
    np.testing.assert_array_equal(np.asarray(sparse.dot(a, b)), ref @ b)
    np.testing.assert_array_equal(sparse.dot(a, b[:2], transpose_a=True).asnumpy(), ref.T @ b[:2])
    c = np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0], [1.0, 1.0]])
    np.testing.assert_array_equal(np.asarray(sparse.dot(c, a)), c @ ref)


# ---------------------------------------------------------------------------------------------
# Dense operands, transposes, forward_stype


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_dense_times_dense_runs_the_gemm(ta, tb, dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 7) if ta else (7, 5)).astype(dtype)
    b = rng.standard_normal((3, 5) if tb else (5, 3)).astype(dtype)
    params = {"transpose_a": ta, "transpose_b": tb}
    assert mxffi.ops.dispatch("dot", a, b, **params) == ("fcompute", ["default"])
    expected = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
    out = sparse.dot(a, b, **params)
    check(out, expected, "default", dtype)
    check(mxffi.ops.invoke("dot", a, b, **params), expected, "default", dtype)


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
def test_dense_times_dense_stored_as_forward_stype(stype):
    rng = np.random.default_rng(0)
    a = random_dense((6, 4), 0.5, np.float64)
    b = rng.standard_normal((4, 5))
    a[2] = 0
    assert mxffi.ops.dispatch("dot", a, b, forward_stype=stype) == ("fcompute_ex", [stype])
    out = sparse.dot(a, b, forward_stype=stype)
    check(out, a @ b, stype, np.float64)
    if stype == "row_sparse":
        np.testing.assert_array_equal(np.asarray(out.indices), np.flatnonzero((a @ b).any(axis=1)))
    assert mxffi.ops.dispatch("dot", a, b, forward_stype="default") == ("fcompute", ["default"])
    check(sparse.dot(a, b, forward_stype="default"), a @ b, "default", np.float64)


# (lhs stype, rhs stype, transpose_a, transpose_b): combinations without a kernel (csr with
# csr or row_sparse has kernels: test_sparse_spgemm.py).
FALLBACKS = [
    ("row_sparse", "default", False, False),
    ("default", "row_sparse", False, False),
    ("row_sparse", "row_sparse", False, False),
    ("row_sparse", "default", True, False),
    ("csr", "row_sparse", False, True),
    ("csr", "default", False, True),
    ("csr", "default", True, True),
    ("default", "csr", True, False),
    ("default", "csr", False, True),
]


def as_stype(d, stype, itype):
    if stype == "csr":
        return to_csr(d, itype)[0]
    if stype == "row_sparse":
        return sparse.row_sparse_array(d, idx_dtype=np.dtype(itype).name)
    return d


@pytest.mark.parametrize("lhs_stype,rhs_stype,ta,tb", FALLBACKS)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_other_combinations_fall_back_to_the_dense_product(
    lhs_stype, rhs_stype, ta, tb, dtype, monkeypatch
):
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")
    da = random_dense((9, 6) if ta else (6, 9), 0.4, dtype, seed=1)
    db = random_dense((5, 9) if tb else (9, 5), 0.4, dtype, seed=2)
    a, b = as_stype(da, lhs_stype, np.int32), as_stype(db, rhs_stype, np.int64)
    expected = reference(da.T if ta else da, db.T if tb else db, dtype)
    params = {"transpose_a": ta, "transpose_b": tb}
    assert mxffi.ops.dispatch("dot", a, b, **params) == ("fallback", ["default"])
    check(sparse.dot(a, b, **params), expected, "default", dtype)
    check(mxffi.ops.invoke("dot", a, b, **params), expected, "default", dtype)
    # forward_stype is still honoured: the dense result is cast to it.
    for stype in ("csr", "row_sparse"):
        assert mxffi.ops.dispatch("dot", a, b, forward_stype=stype, **params) == (
            "fallback",
            [stype],
        )
        check(sparse.dot(a, b, forward_stype=stype, **params), expected, stype, dtype)


@pytest.mark.parametrize(
    "lhs_stype,rhs_stype,ta,stype",
    [
        ("csr", "default", False, "csr"),
        ("csr", "default", False, "row_sparse"),
        ("csr", "default", True, "csr"),
        ("default", "csr", False, "row_sparse"),
    ],
)
def test_forward_stype_a_kernel_does_not_produce_falls_back(
    lhs_stype, rhs_stype, ta, stype, monkeypatch
):
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")
    da = random_dense((8, 6) if ta else (6, 8), 0.3, np.float64, seed=1)
    db = random_dense((8, 4), 0.3, np.float64, seed=2)
    a, b = as_stype(da, lhs_stype, np.int64), as_stype(db, rhs_stype, np.int64)
    params = {"transpose_a": ta, "forward_stype": stype}
    assert mxffi.ops.dispatch("dot", a, b, **params) == ("fallback", [stype])
    check(sparse.dot(a, b, **params), (da.T if ta else da) @ db, stype, np.float64)


def test_fallback_warns_naming_dot_and_its_parameters():
    result = run_python(
        """
        import numpy as np
        from mxffi.nd import sparse
        a = sparse.row_sparse_array(np.eye(3))
        out = sparse.dot(a, np.ones((3, 2)), transpose_b=False)
        assert np.array_equal(np.asarray(out), np.ones((3, 2))), out
        sparse.dot(a, np.ones((3, 2)))
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("storage fallback") == 1, result.stderr
    assert (
        "storage fallback: dot has no kernel for input storage types (row_sparse, default) and "
        "output storage types (default,) (parameters: {" in result.stderr
    )
    assert "transpose_a=0" in result.stderr or "transpose_a=False" in result.stderr


def test_python_function_and_generic_invocation():
    assert "dot" in sparse.__all__
    assert str(inspect.signature(sparse.dot)) == (
        "(lhs: NDArrayLike, rhs: NDArrayLike, transpose_a: bool = False, transpose_b: bool = "
        "False, forward_stype: Optional[StorageTypeLike] = None) -> mxffi.NDArray"
    )
    assert sparse.dot.__doc__.startswith("The matrix product op(lhs) @ op(rhs)")
    assert "dot" in mxffi.ops.list_ops()
    info = mxffi.ops.info("dot")
    assert info["arguments"] == ["lhs", "rhs"]
    for field in ("transpose_a", "transpose_b", "forward_stype"):
        assert field in info["params"]
    d = random_dense((5, 4), 0.5, np.float64)
    a, ref = to_csr(d, np.int32)
    b = np.ones((5, 3))
    out = mxffi.ops.invoke("dot", a, b, transpose_a=True, forward_stype=None)
    assert out.stype == "row_sparse"
    np.testing.assert_allclose(out.asnumpy(), ref.T @ b)
    out = sparse.dot(lhs=a, rhs=b, transpose_a=True, forward_stype="default")
    np.testing.assert_allclose(np.asarray(out), ref.T @ b)


# ---------------------------------------------------------------------------------------------
# Errors


def test_shape_mismatch_is_a_value_error_naming_both_shapes():
    a, _ = to_csr(random_dense((3, 4), 0.5, np.float64), np.int32)
    with pytest.raises(
        ValueError,
        match=r"^dot: shapes \(3, 4\) and \(5, 6\) not aligned "
        r"\(transpose_a=False, transpose_b=False\): lhs.shape\[1\]=4 != "
        r"rhs.shape\[0\]=5",
    ):
        sparse.dot(a, np.ones((5, 6)))
    with pytest.raises(
        ValueError,
        match=r"^dot: shapes \(3, 4\) and \(4, 2\) not aligned "
        r"\(transpose_a=True, transpose_b=False\): lhs.shape\[0\]=3 != "
        r"rhs.shape\[0\]=4",
    ):
        sparse.dot(a, np.ones((4, 2)), transpose_a=True)
    with pytest.raises(ValueError, match=r"^dot: shapes \(2, 5\) and \(3, 4\) not aligned "):
        sparse.dot(np.ones((2, 5)), a)
    with pytest.raises(ValueError, match=r"^dot: shapes \(2, 3\) and \(5, 4\) not aligned "):
        mxffi.ops.invoke("dot", np.ones((2, 3)), np.ones((5, 4)))
    with pytest.raises(
        ValueError, match=r"transpose_b=True\): lhs.shape\[1\]=3 != rhs.shape\[1\]=4"
    ):
        sparse.dot(np.ones((2, 3)), np.ones((5, 4)), transpose_b=True)


@pytest.mark.parametrize(
    "lhs,rhs,message",
    [
        (np.ones(3), np.ones((3, 2)), r"^dot: lhs must be 2-D; got lhs.shape=\(3,\)"),
        (np.ones((2, 3)), np.ones(3), r"^dot: rhs must be 2-D; got rhs.shape=\(3,\)"),
        (np.ones((2, 3, 1)), np.ones((3, 2)), r"^dot: lhs must be 2-D; got lhs.shape=\(2, 3, 1\)"),
        (np.array(1.0), np.ones((3, 2)), r"^dot: lhs must be 2-D; got lhs.shape=\(\)"),
    ],
)
def test_inputs_that_are_not_2d_raise_value_error(lhs, rhs, message):
    with pytest.raises(ValueError, match=message):
        sparse.dot(lhs, rhs)


def test_row_sparse_input_that_is_not_2d():
    a = sparse.row_sparse_array(np.ones((3, 2, 2)))
    with pytest.raises(ValueError, match=r"^dot: lhs must be 2-D; got lhs.shape=\(3, 2, 2\)"):
        sparse.dot(a, np.ones((2, 2)))


@pytest.mark.parametrize(
    ("ldtype", "rdtype"),
    [
        (np.float32, np.float64),
        (np.float64, np.float32),
        (np.float64, np.int32),
        (np.int64, np.float64),
        (np.float16, np.float64),
        (np.int32, np.float32),  # numpy: float64
    ],
)
@pytest.mark.parametrize("sparse_side", ["lhs", "rhs"])
def test_mixed_dtypes_promote_as_numpy(ldtype, rdtype, sparse_side):
    rng = np.random.default_rng(3)
    x = (rng.random((3, 4)) * 4).astype(ldtype)
    y = (rng.random((4, 2)) * 4).astype(rdtype)
    want = x @ y
    if sparse_side == "lhs":
        got = sparse.dot(sparse.csr_matrix(x), mnp.asarray(y))
    else:
        got = sparse.dot(mnp.asarray(x), sparse.csr_matrix(y))
    assert str(got.dtype) == want.dtype.name
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def test_dtypes_must_be_one_float_dtype():
    # Mixed dtypes promote (above); a promoted dtype the kernel lacks is the TypeError.
    a, _ = to_csr(random_dense((3, 4), 0.5, np.float64), np.int32)
    ints = sparse.csr_matrix((np.array([1, 2], dtype=np.int32), [0, 1], [0, 1, 2]), shape=(2, 2))
    with pytest.raises(TypeError, match=r"^dot: lhs has dtype int32; expected float32 or float64"):
        sparse.dot(ints, np.ones((2, 2), dtype=np.int32))
    with pytest.raises(TypeError, match=r"^dot: lhs has dtype int64; expected float32 or float64"):
        sparse.dot(np.ones((2, 2), dtype=np.int64), ints)  # both int64 once promoted
    h = sparse.csr_matrix(np.eye(2, dtype=np.float16))
    with pytest.raises(TypeError, match=r"^dot: lhs has dtype float16; expected float32"):
        sparse.dot(h, np.ones((2, 2), dtype=np.float16))
    # the op itself takes one dtype: sparse.dot is where promotion happens
    with pytest.raises(
        TypeError,
        match=r"^dot: lhs and rhs must have the same dtype; got lhs float64 and rhs float32",
    ):
        mxffi.ops.invoke("dot", a, np.ones((4, 2), dtype=np.float32))
    with pytest.raises(TypeError, match=r"^dot: lhs has dtype int32"):
        mxffi.ops.invoke("dot", ints, np.ones((2, 2)))


def test_bad_arguments_name_the_function():
    a, _ = to_csr(random_dense((3, 4), 0.5, np.float64), np.int32)
    with pytest.raises(
        ValueError,
        match=r"^sparse.dot: argument #4 'forward_stype': unknown storage type 'dense'; expected "
        r"'default', 'csr', 'row_sparse' or 'coo'",
    ):
        sparse.dot(a, np.ones((4, 2)), forward_stype="dense")
    with pytest.raises(
        TypeError,
        match=r"^sparse.dot: argument #4 'forward_stype' expected None or a storage type "
        r"\('default', 'csr', 'row_sparse' or 'coo'\), got int",
    ):
        sparse.dot(a, np.ones((4, 2)), forward_stype=1)
    with pytest.raises(TypeError, match=r"^sparse.dot: argument #1 'rhs' expected an ndarray, got"):
        sparse.dot(a, [[1.0]])
    with pytest.raises(ValueError, match=r"^dot: invalid parameter: .*'dense'.*'row_sparse'"):
        mxffi.ops.invoke("dot", a, np.ones((4, 2)), forward_stype="dense")
