"""csr @ csr (sparse.dot, np.matmul and the @ operator), csr with row_sparse, and the csr
transpose (CSRNDArray.T, np.transpose and its kin), against scipy on random inputs."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import seed_of
from sparse_cases import random_dense

import mxffi
import mxffi.np as mnp
from mxffi.nd import sparse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DENSITIES = [0.0, 0.01, 0.5, 1.0]
VALUE_DTYPES = [np.float32, np.float64]
INDEX_PAIRS = [
    (np.int32, np.int32),
    (np.int64, np.int64),
    (np.int32, np.int64),
    (np.int64, np.int32),
]
# (m, k, n): a is m x k, b is k x n.
SHAPES = [(7, 5, 3), (30, 20, 17), (9, 40, 25), (1, 1, 1), (0, 4, 3), (4, 0, 3), (4, 3, 0)]


def to_csr(d, itype):
    """d as a CSRNDArray with itype indices, and as a scipy csr_array."""
    ref = sp.csr_array(d)
    out = sparse.csr_matrix(
        (ref.data, ref.indices.astype(itype), ref.indptr.astype(itype)), shape=d.shape
    )
    return out, ref


def parts(x):
    return np.asarray(x.data), np.asarray(x.indices), np.asarray(x.indptr)


def assert_canonical_equal(out, ref, dtype, itype=None):
    """out (a CSRNDArray) holds scipy's result ref: the same stored columns (sorted, no
    duplicates, no zeros), values equal within rounding, the index dtype itype."""
    ref = sp.csr_array(ref)
    ref.sort_indices()
    assert type(out) is sparse.CSRNDArray and out.shape == ref.shape
    assert out.dtype == np.dtype(dtype).name
    data, indices, indptr = parts(out)
    if itype is not None:
        assert indices.dtype == itype and indptr.dtype == itype
    np.testing.assert_array_equal(indptr, ref.indptr)
    np.testing.assert_array_equal(indices, ref.indices)
    rtol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(data, ref.data, rtol=rtol, atol=0)
    assert not np.any(data == 0)


# ---- csr @ csr ---------------------------------------------------------------------------------


@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itypes", INDEX_PAIRS)
def test_csr_at_csr_matches_scipy(m, k, n, density, dtype, itypes):
    da = random_dense((m, k), density, dtype, seed_of(m, k, n, density, 1))
    db = random_dense((k, n), density, dtype, seed_of(m, k, n, density, 2))
    a, ra = to_csr(da, itypes[0])
    b, rb = to_csr(db, itypes[1])
    expected = ra @ rb
    # The output index dtype: the wider of the inputs'.
    itype = np.int64 if np.int64 in itypes else np.int32
    assert mxffi.ops.dispatch("dot", a, b) == ("fcompute_ex", ["csr"])
    assert_canonical_equal(sparse.dot(a, b), expected, dtype, itype)
    assert_canonical_equal(a @ b, expected, dtype, itype)
    assert_canonical_equal(mnp.matmul(a, b), expected, dtype, itype)


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_transposed_operands(ta, tb, dtype):
    da = random_dense((12, 9) if ta else (9, 12), 0.3, dtype, seed_of(ta, tb, 1))
    db = random_dense((7, 12) if tb else (12, 7), 0.3, dtype, seed_of(ta, tb, 2))
    a, ra = to_csr(da, np.int32)
    b, rb = to_csr(db, np.int64)
    expected = (ra.T if ta else ra) @ (rb.T if tb else rb)
    out = sparse.dot(a, b, transpose_a=ta, transpose_b=tb)
    assert_canonical_equal(out, expected, dtype, np.int64)


def test_large_product_is_split_across_threads_and_repeatable():
    # A power-law-like graph: a few long rows, many short ones; the pool splits rows by work.
    rng = np.random.default_rng(5)
    n = 3000
    deg = np.minimum((rng.pareto(1.5, n) * 3 + 1).astype(np.int64), n)
    rows = np.repeat(np.arange(n), deg)
    cols = rng.integers(0, n, rows.size)
    ref = sp.csr_array((rng.standard_normal(rows.size), (rows, cols)), shape=(n, n))
    ref.sum_duplicates()
    a = sparse.csr_matrix(ref)
    expected = ref @ ref
    first = a @ a
    assert_canonical_equal(first, expected, np.float64, np.asarray(a.indices).dtype)
    for _ in range(3):
        again = a @ a
        for x, y in zip(parts(first), parts(again), strict=True):
            np.testing.assert_array_equal(x, y)


def test_wide_right_operand_sorts_each_row():
    # Far more columns than products: each row's products are sorted instead of accumulated
    # in a dense array of b's columns.
    rng = np.random.default_rng(7)
    n = (1 << 23) + 5
    # Rows of a dense enough that a row has more products than the short-row path takes.
    da = random_dense((40, 30), 0.9, np.float64, 1)
    # About 33 values per row of b (scipy's sp.random takes seconds for this many columns).
    rows, cols = rng.integers(0, 30, 1000), rng.integers(0, n, 1000)
    rb = sp.csr_array((rng.standard_normal(1000), (rows, cols)), shape=(30, n))
    # Two rows of b with a shared column, so that sums (and cancellations) happen.
    extra = sp.csr_array(([1.5, -2.0, 3.0], ([0, 3, 3], [n - 1, n - 1, 17])), shape=(30, n))
    rb = (rb + extra).tocsr()
    a, ra = to_csr(da, np.int64)
    b = sparse.csr_matrix(rb)
    assert_canonical_equal(a @ b, ra @ rb, np.float64)


def test_rows_of_every_length_over_many_columns():
    # b has more columns than a thread's accumulator keeps in cache: short rows sort their
    # products, long rows accumulate, and read their columns from the bit words when the
    # columns are close together or sort them when they are spread out.
    rng = np.random.default_rng(11)
    m, k, n = 600, 400, 100_000
    lengths = np.concatenate([rng.integers(0, 4, m - 20), rng.integers(50, 400, 20)])
    rows = np.repeat(np.arange(m), lengths)
    ra = sp.csr_array(
        (rng.standard_normal(rows.size), (rows, rng.integers(0, k, rows.size))), shape=(m, k)
    )
    # Rows of b: most spread over every column, some packed into one narrow band.
    nb = 12 * k
    brows = rng.integers(0, k, nb)
    bcols = np.where(brows % 3 == 0, rng.integers(0, 2000, nb), rng.integers(0, n, nb))
    rb = sp.csr_array((rng.standard_normal(nb), (brows, bcols)), shape=(k, n))
    ra.sum_duplicates()
    rb.sum_duplicates()
    for itype in (np.int32, np.int64):
        a = sparse.csr_matrix(
            sp.csr_array(
                (ra.data, ra.indices.astype(itype), ra.indptr.astype(itype)), shape=ra.shape
            )
        )
        b = sparse.csr_matrix(rb)
        assert_canonical_equal(a @ b, ra @ rb, np.float64)


def test_clustered_columns_with_a_far_outlier():
    # Long rows (1,202 products) whose 901 columns crowd one corner of a wide span: the buckets
    # that sort them are crowded too.
    n = 1 << 22
    cols0 = np.append(np.arange(600), n - 1)
    cols1 = np.arange(300, 900)
    rng = np.random.default_rng(9)
    rb = sp.csr_array(
        (
            rng.standard_normal(cols0.size + cols1.size),
            np.concatenate([cols0, cols1]),
            np.array([0, cols0.size, cols0.size + cols1.size]),
        ),
        shape=(2, n),
    )
    ra = sp.csr_array(rng.standard_normal((500, 2)))
    out = sparse.csr_matrix(ra) @ sparse.csr_matrix(rb)
    assert_canonical_equal(out, ra @ rb, np.float64)


def test_cancellation_to_exact_zero_is_dropped_as_scipy_drops_it():
    a = sparse.csr_matrix(np.array([[1.0, 1.0], [2.0, 0.0]]))
    b = sparse.csr_matrix(np.array([[1.0, 3.0], [-1.0, 4.0]]))
    out = a @ b
    # Row 0: 1*1 + 1*(-1) = 0 (dropped), 3 + 4 = 7; row 1: 2, 6.
    assert np.asarray(out.indptr).tolist() == [0, 1, 3]
    assert np.asarray(out.indices).tolist() == [1, 0, 1]
    assert np.asarray(out.data).tolist() == [7.0, 2.0, 6.0]
    ref = sp.csr_array(a.asnumpy()) @ sp.csr_array(b.asnumpy())
    assert ref.nnz == out.nnz == 3
    # Everything cancels: no stored values at all.
    full = a[0] @ sparse.csr_matrix(np.array([[1.0], [-1.0]]))
    assert full.nnz == 0 and full.shape == (1, 1)


@pytest.mark.parametrize("n", [300, (1 << 23) + 7])
def test_cancellation_in_long_rows(n):
    # 600 products per row: the dense accumulator (n = 300) or the sort of each row's products
    # (n past the dense accumulator's limit), each dropping the sums that cancel.
    cols = np.linspace(0, n - 1, 300).astype(np.int64)
    data = np.concatenate([np.ones(300), -np.ones(150), np.full(150, 2.0)])
    b = sparse.csr_matrix(
        (data, np.concatenate([cols, cols]), np.array([0, 300, 600])), shape=(2, n)
    )
    a = sparse.csr_matrix(np.array([[1.0, 1.0], [3.0, 0.0]]))
    out = a @ b
    d, ix, ip = parts(out)
    # Row 0: the first 150 columns cancel, the last 150 hold 3; row 1 is 3 x row 0 of b.
    assert ip.tolist() == [0, 150, 450]
    np.testing.assert_array_equal(ix[:150], cols[150:])
    np.testing.assert_array_equal(d[:150], np.full(150, 3.0))
    np.testing.assert_array_equal(ix[150:], cols)
    np.testing.assert_array_equal(d[150:], np.full(300, 3.0))


def test_stored_zeros_negative_zero_and_nan():
    # A stored zero multiplies to zero and is dropped; -0.0 is zero; NaN is kept (NaN != 0).
    a = sparse.csr_matrix((np.array([0.0, -0.0, np.nan]), [0, 1, 1], [0, 2, 3]), shape=(2, 2))
    b = sparse.csr_matrix(np.array([[1.0, 2.0], [3.0, 4.0]]))
    out = a @ b
    assert np.asarray(out.indptr).tolist() == [0, 0, 2]
    assert np.isnan(np.asarray(out.data)).all()


def test_single_value_rows_and_empty_operands():
    # A row of a with one value is a scaled row of b.
    a = sparse.csr_matrix(np.array([[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, -1.0]]))
    db = np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 5.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0]])
    out = a @ sparse.csr_matrix(db)
    assert_canonical_equal(out, sp.csr_array(a.asnumpy()) @ sp.csr_array(db), np.float64)
    empty = sparse.zeros("csr", (3, 4))
    assert (a @ empty).nnz == 0 and (a @ empty).shape == (3, 4)


def test_mixed_value_dtypes_promote_as_numpy():
    a = sparse.csr_matrix(np.eye(3, dtype=np.float32) * 2)
    b = sparse.csr_matrix(np.ones((3, 2), dtype=np.float64) / 3)
    for out in (a @ b, sparse.dot(a, b), b.T @ a):
        assert out.dtype == "float64" and out.stype == "csr"
    np.testing.assert_allclose((a @ b).asnumpy(), np.ones((3, 2)) * 2 / 3, rtol=1e-15)


def test_forward_stype_casts_the_product():
    da = random_dense((6, 5), 0.5, np.float64, 1)
    db = random_dense((5, 4), 0.5, np.float64, 2)
    a, b = sparse.csr_matrix(da), sparse.csr_matrix(db)
    assert mxffi.ops.dispatch("dot", a, b, forward_stype="default") == (
        "fcompute_ex",
        ["default"],
    )
    out = sparse.dot(a, b, forward_stype="default")
    assert type(out) is mxffi.NDArray
    np.testing.assert_allclose(out.asnumpy(), da @ db, rtol=1e-13)
    rsp = sparse.dot(a, b, forward_stype="row_sparse")
    assert rsp.stype == "row_sparse"
    np.testing.assert_allclose(rsp.asnumpy(), da @ db, rtol=1e-13)


def test_result_index_dtype_widens_when_columns_exceed_int32():
    # b has more columns than int32 counts, with int32 indices: the product's column ids need
    # int64, so the result widens rather than wrapping.
    n = 2**31 + 10
    b = sparse.csr_matrix(
        (np.array([1.0, 2.0]), np.array([5, 2**31 - 1], np.int32), np.array([0, 1, 2], np.int32)),
        shape=(2, n),
    )
    a = sparse.csr_matrix(np.array([[1.0, 1.0], [0.0, 3.0]]), idx_dtype="int32")
    assert np.asarray(b.indices).dtype == np.int32
    out = a @ b
    assert out.shape == (2, n)
    data, indices, indptr = parts(out)
    assert indices.dtype == np.int64
    assert indices.tolist() == [5, 2**31 - 1, 2**31 - 1]
    assert data.tolist() == [1.0, 2.0, 6.0]


# ---- shapes, dtypes and errors -----------------------------------------------------------------


def test_shape_mismatch_names_both_shapes():
    a = sparse.csr_matrix(np.ones((2, 3)))
    b = sparse.csr_matrix(np.ones((4, 2)))
    with pytest.raises(
        ValueError,
        match=re.escape("np.matmul: shapes (2,3) and (4,2) not aligned: 3 (dim 1) != 4 (dim 0)"),
    ):
        a @ b
    with pytest.raises(
        ValueError,
        match=re.escape("np.matmul: shapes (2,3) and (4,) not aligned: 3 (dim 1) != 4 (dim 0)"),
    ):
        a @ np.ones(4)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "dot: shapes (2, 3) and (4, 2) not aligned (transpose_a=False, transpose_b=False): "
            "lhs.shape[1]=3 != rhs.shape[0]=4"
        ),
    ):
        sparse.dot(a, b)


def test_integer_values_are_refused_by_name():
    a = sparse.csr_matrix(np.eye(2, dtype=np.int64))
    with pytest.raises(TypeError, match=r"^dot: lhs has dtype int64; expected float32 or float64"):
        a @ a


def test_matmul_with_dense_operands_and_vectors():
    da = random_dense((5, 4), 0.5, np.float64, 3)
    a = sparse.csr_matrix(da)
    m = np.arange(12.0).reshape(4, 3)
    left = np.arange(10.0).reshape(2, 5)
    v = np.arange(4.0)
    w = np.arange(5.0)
    for out, expected in (
        (a @ m, da @ m),
        (a @ mnp.array(m), da @ m),
        (mnp.array(left) @ a, left @ da),
        (left @ a, left @ da),
        (a @ v, da @ v),
        (mnp.matmul(w, a), w @ da),
    ):
        assert type(out) is mxffi.NDArray and out.shape == expected.shape
        np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-13)


def test_star_stays_elementwise():
    da = random_dense((4, 4), 0.6, np.float64, 4)
    a = sparse.csr_matrix(da)
    out = a * a
    assert out.stype == "csr"
    np.testing.assert_array_equal(out.asnumpy(), da * da)


# ---- csr with row_sparse -----------------------------------------------------------------------


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itypes", INDEX_PAIRS)
def test_csr_at_row_sparse_is_dense(density, dtype, itypes):
    da = random_dense((8, 10), density, dtype, seed_of(density, 1))
    dr = random_dense((10, 6), density, dtype, seed_of(density, 2))
    a = to_csr(da, itypes[0])[0]
    r = sparse.row_sparse_array(dr, idx_dtype=np.dtype(itypes[1]).name)
    assert mxffi.ops.dispatch("dot", a, r) == ("fcompute_ex", ["default"])
    for out in (sparse.dot(a, r), a @ r):
        assert type(out) is mxffi.NDArray and out.dtype == np.dtype(dtype).name
        np.testing.assert_allclose(out.asnumpy(), da.astype(np.float64) @ dr, rtol=1e-5)
    # csr.T @ row_sparse transposes the csr array first.
    out = sparse.dot(to_csr(da.T.copy(), itypes[0])[0], r, transpose_a=True)
    np.testing.assert_allclose(out.asnumpy(), da.astype(np.float64) @ dr, rtol=1e-5)


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_row_sparse_at_csr_is_row_sparse(density, dtype):
    dr = random_dense((9, 7), density, dtype, seed_of(density, 3))
    db = random_dense((7, 5), density, dtype, seed_of(density, 4))
    r = sparse.row_sparse_array(dr)
    b = sparse.csr_matrix(db, idx_dtype="int32")
    assert mxffi.ops.dispatch("dot", r, b) == ("fcompute_ex", ["row_sparse"])
    out = r @ b
    assert out.stype == "row_sparse"
    # Its rows are lhs's stored rows.
    np.testing.assert_array_equal(np.asarray(out.indices), np.asarray(r.indices))
    np.testing.assert_allclose(out.asnumpy(), dr.astype(np.float64) @ db, rtol=1e-5, atol=1e-6)
    out = sparse.dot(r, sparse.csr_matrix(db.T.copy()), transpose_b=True)
    np.testing.assert_allclose(out.asnumpy(), dr.astype(np.float64) @ db, rtol=1e-5, atol=1e-6)


# ---- the transpose -----------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(7, 5), (1, 30), (30, 1), (0, 4), (4, 0), (50, 60)])
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_transpose_matches_scipy_and_round_trips(shape, density, itype):
    d = random_dense(shape, density, np.float64, seed_of(shape, density))
    a, ra = to_csr(d, itype)
    t = a.T
    assert_canonical_equal(t, ra.T, np.float64, itype)
    for x, y in zip(parts(t.T), parts(a), strict=True):
        np.testing.assert_array_equal(x, y)
    for other in (
        a.transpose(),
        a.transpose(1, 0),
        a.transpose((1, 0)),
        a.mT,
        mnp.transpose(a),
        mnp.permute_dims(a, (1, 0)),
        mnp.matrix_transpose(a),
    ):
        for x, y in zip(parts(other), parts(t), strict=True):
            np.testing.assert_array_equal(x, y)
    assert a.transpose(0, 1).shape == shape


def test_transpose_shares_nothing_and_moves_any_value_dtype():
    a = sparse.csr_matrix(np.array([[1, 0, 2], [0, 3, 0]], dtype=np.int32))
    t = a.T
    assert t.dtype == "int32" and t.asnumpy().tolist() == [[1, 0], [0, 3], [2, 0]]
    t.data[:] = 0
    assert a.asnumpy().tolist() == [[1, 0, 2], [0, 3, 0]]


def test_large_transpose_is_split_across_threads():
    # Enough values per column that the counting sort runs in parallel ranges.
    rng = np.random.default_rng(11)
    ref = sp.random(4000, 300, density=0.2, format="csr", random_state=rng)
    a = sparse.csr_matrix(ref)
    assert_canonical_equal(a.T, ref.T, np.float64)


def test_transpose_bad_axes_and_other_storage_types():
    a = sparse.csr_matrix(np.eye(2))
    with pytest.raises(
        ValueError, match=re.escape("np.transpose: repeated axis in transpose; got (0, 0)")
    ):
        a.transpose(0, 0)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "np.transpose: axes don't match array; got (0, 1, 2) for an array of 2 dimensions"
        ),
    ):
        a.transpose(0, 1, 2)
    r = sparse.row_sparse_array(np.eye(2))
    with pytest.raises(TypeError, match=r"^mxffi.NDArray.T: the array is sparse \(row_sparse\)"):
        _ = r.T
    with pytest.raises(TypeError, match=r"^csr_transpose: data must be csr; got row_sparse"):
        mxffi.ops.invoke("csr_transpose", r)


# ---- the guide's example -----------------------------------------------------------------------


def _region(path, name):
    with open(path) as f:
        lines = f.read().splitlines()
    begin = lines.index(f"# [{name}.begin]")
    end = lines.index(f"# [{name}.end]")
    return "".join(s + "\n" for s in lines[begin + 1 : end])


def test_guide_example_runs_and_is_cut_into_the_guide():
    example = os.path.join(ROOT, "docs", "examples", "sparse_matmul.py")
    out = subprocess.run([sys.executable, example], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "sparse_matmul: ok"
    with open(os.path.join(ROOT, "docs", "sparse.md")) as f:
        page = f.read()
    marker = "<!-- cut: docs/examples/sparse_matmul.py matmul -->\n```python\n"
    assert marker in page
    block = page.split(marker, 1)[1].split("```\n", 1)[0]
    assert block == _region(example, "matmul")


# ---- on a CUDA device: the CPU's parts, exactly ------------------------------------------------

needs_gpu = pytest.mark.skipif(
    not mxffi.cuda.is_available(), reason=f"no CUDA device: {mxffi.cuda.unavailable_reason()}"
)


@needs_gpu
@pytest.mark.parametrize("m,k,n", [(7, 5, 3), (300, 200, 170), (0, 4, 3), (4, 0, 3), (1, 1, 1)])
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itypes", INDEX_PAIRS)
def test_gpu_csr_at_csr_equals_the_cpu(m, k, n, density, dtype, itypes):
    da = random_dense((m, k), density, dtype, seed_of(m, k, n, density, 3))
    db = random_dense((k, n), density, dtype, seed_of(m, k, n, density, 4))
    a, b = to_csr(da, itypes[0])[0], to_csr(db, itypes[1])[0]
    cpu = a @ b
    for ta, tb in ((False, False), (True, False), (False, True)):
        x = a.T if ta else a
        y = b.T if tb else b
        want = sparse.dot(x, y, transpose_a=ta, transpose_b=tb)
        got = sparse.dot(x.to("cuda:0"), y.to("cuda:0"), transpose_a=ta, transpose_b=tb)
        assert got.device.device_type == 2 and got.stype == "csr"
        for g, w in zip(parts(got.to("cpu")), parts(want), strict=True):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)
        for g, w in zip(parts(want), parts(cpu), strict=True):
            np.testing.assert_array_equal(g, w)


@needs_gpu
@pytest.mark.parametrize("shape", [(7, 5), (0, 4), (4, 0), (300, 1000)])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_gpu_transpose_equals_the_cpu(shape, itype):
    a = to_csr(random_dense(shape, 0.3, np.float32, seed_of(shape)), itype)[0]
    got = a.to("cuda:0").T
    assert got.device.device_type == 2
    for g, w in zip(parts(got.to("cpu")), parts(a.T), strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@needs_gpu
def test_gpu_row_sparse_at_csr_equals_the_cpu():
    r = sparse.row_sparse_array(random_dense((9, 7), 0.4, np.float64, 5))
    b = sparse.csr_matrix(random_dense((7, 5), 0.4, np.float64, 6))
    got = (r.to("cuda:0") @ b.to("cuda:0")).to("cpu")
    assert got.stype == "row_sparse"
    np.testing.assert_array_equal(got.asnumpy(), (r @ b).asnumpy())
