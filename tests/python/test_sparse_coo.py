"""COONDArray and coo_matrix against scipy.sparse: construction from triplets (unsorted,
repeated pairs), every conversion to and from coo, canonical form and sum_duplicates, scipy
exchange both ways (values shared, ids copied), pickling, the ops that take coo through csr,
and bad input."""

import os
import pickle
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sps
from sparse_cases import random_dense

import mxffi
import mxffi.cuda
import mxffi.error
import mxffi.np as mnp
from mxffi.nd import sparse

DENSITIES = [0.0, 0.01, 0.5, 1.0]
INDEX_DTYPES = [np.int32, np.int64]
DTYPES = [np.float32, np.float64]


def triplets(shape, density, dtype, itype, seed=0):
    """(data, row, col) of a random matrix with an empty row and column, every stored value
    split in two for a third of the entries (repeated pairs), shuffled."""
    dense = random_dense(shape, density, dtype, seed)
    row, col = np.nonzero(dense)
    data = dense[row, col]
    rng = np.random.default_rng(seed + 1)
    dup = rng.random(len(row)) < 1 / 3
    part = (data[dup] * 0.25).astype(dtype)
    data = np.concatenate([data, part])
    data[: len(row)][dup] -= part
    row = np.concatenate([row, row[dup]]).astype(itype)
    col = np.concatenate([col, col[dup]]).astype(itype)
    order = rng.permutation(len(row))
    return data[order], row[order], col[order]


def tol(dtype):
    return {"rtol": 1e-5, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 0}


def same_csr(x, ref, dtype):
    """A CSRNDArray equal to a scipy csr matrix part for part (canonical, duplicates summed)."""
    ref = ref.tocsr()
    ref.sum_duplicates()
    assert x.stype == "csr" and tuple(x.shape) == ref.shape
    np.testing.assert_array_equal(np.asarray(x.indptr), ref.indptr)
    np.testing.assert_array_equal(np.asarray(x.indices), ref.indices)
    np.testing.assert_allclose(np.asarray(x.data), ref.data, **tol(dtype))


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_triplets_against_scipy(density, itype, dtype):
    shape = (9, 7)
    data, row, col = triplets(shape, density, dtype, itype)
    x = sparse.coo_matrix((data, (row, col)), shape=shape)
    ref = sps.coo_matrix((data, (row, col)), shape=shape)
    assert isinstance(x, sparse.COONDArray) and x.stype == "coo"
    assert tuple(x.shape) == shape and x.dtype == dtype and x.nnz == ref.nnz
    # kept as given: order and repeated pairs
    np.testing.assert_array_equal(np.asarray(x.row), row)
    np.testing.assert_array_equal(np.asarray(x.col), col)
    assert np.asarray(x.row).dtype == itype and np.asarray(x.col).dtype == itype
    np.testing.assert_array_equal(np.asarray(x.data), data)
    np.testing.assert_allclose(x.toarray(), ref.toarray(), **tol(dtype))
    np.testing.assert_allclose(x.asnumpy(), ref.toarray(), **tol(dtype))
    np.testing.assert_allclose(x.tostype("default").asnumpy(), ref.toarray(), **tol(dtype))
    csr = x.tocsr()
    same_csr(csr, ref, dtype)
    assert np.asarray(csr.indices).dtype == itype
    assert x.has_canonical_format == (ref.nnz <= 1)
    x.sum_duplicates()
    ref.sum_duplicates()
    assert x.has_canonical_format and x.nnz == ref.nnz
    np.testing.assert_array_equal(np.asarray(x.row), ref.row)
    np.testing.assert_array_equal(np.asarray(x.col), ref.col)
    np.testing.assert_allclose(np.asarray(x.data), ref.data, **tol(dtype))
    assert np.asarray(x.row).dtype == itype
    x.check_format()


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_conversions_to_coo_are_canonical(density, itype):
    dense = random_dense((8, 6), density, np.float64, seed=3)
    ref = sps.coo_matrix(dense)  # row-major, canonical
    csr = sparse.csr_matrix(dense, idx_dtype=itype.__name__)
    rsp = sparse.row_sparse_array(dense, idx_dtype=itype.__name__)
    for x in (
        csr.tocoo(),
        rsp.tocoo(),
        mnp.array(dense).tostype("coo", idx_dtype=itype.__name__),
        sparse.cast_storage(csr, "coo"),
        sparse.coo_matrix(dense, idx_dtype=itype.__name__),
        sparse.coo_matrix(csr),
        sparse.coo_matrix(rsp),
        sparse.coo_matrix(sps.csr_matrix(dense).astype(np.float64)),
    ):
        assert isinstance(x, sparse.COONDArray) and x.has_canonical_format
        np.testing.assert_array_equal(np.asarray(x.row), ref.row)
        np.testing.assert_array_equal(np.asarray(x.col), ref.col)
        np.testing.assert_array_equal(np.asarray(x.data), ref.data)
        np.testing.assert_array_equal(x.toarray(), dense)
    assert np.asarray(csr.tocoo().row).dtype == itype


@pytest.mark.parametrize("density", DENSITIES)
def test_conversions_from_coo(density):
    data, row, col = triplets((10, 6), density, np.float64, np.int64, seed=5)
    x = sparse.coo_matrix((data, (row, col)), shape=(10, 6))
    want = sps.coo_matrix((data, (row, col)), shape=(10, 6)).toarray()
    rsp = x.tostype("row_sparse")
    assert rsp.stype == "row_sparse"
    np.testing.assert_allclose(rsp.asnumpy(), want, rtol=1e-12)
    np.testing.assert_array_equal(
        np.asarray(rsp.indices), np.flatnonzero(np.bincount(row, minlength=10))
    )
    np.testing.assert_allclose(sparse.csr_matrix(x).asnumpy(), want, rtol=1e-12)
    np.testing.assert_allclose(sparse.row_sparse_array(x).asnumpy(), want, rtol=1e-12)
    y = x.tostype("coo")  # a copy in the same order
    np.testing.assert_array_equal(np.asarray(y.row), row)
    assert not np.shares_memory(np.asarray(y.data), np.asarray(x.data))


@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (0, 4), (5, 4)])
def test_empty_matrices(shape):
    for x in (
        sparse.coo_matrix(
            (np.zeros(0), (np.zeros(0, np.int64), np.zeros(0, np.int64))), shape=shape
        ),
        sparse.coo_matrix(shape),
        sparse.zeros("coo", shape, "float32"),
        sparse.empty("coo", shape),
    ):
        assert x.stype == "coo" and tuple(x.shape) == shape and x.nnz == 0
        assert x.has_canonical_format
        np.testing.assert_array_equal(x.toarray(), np.zeros(shape))
        assert x.tocsr().nnz == 0 and tuple(x.tocsr().shape) == shape
        assert x.asscipy().shape == shape


def test_large_edge_list_converts_in_cpp():
    """Two million edges, unsorted, with repeats: the conversion (a counting sort and a sort of
    each row, on the thread pool) matches scipy and takes far less than a Python loop would."""
    rng = np.random.default_rng(11)
    n, m = 50_000, 2_000_000
    row = rng.integers(0, n, m).astype(np.int64)
    col = rng.integers(0, n, m).astype(np.int64)
    row[:1000] = row[1000:2000]  # repeated pairs
    col[:1000] = col[1000:2000]
    data = rng.standard_normal(m)
    x = sparse.coo_matrix((data, (row, col)), shape=(n, n))
    t0 = time.perf_counter()
    csr = x.tocsr()
    elapsed = time.perf_counter() - t0
    same_csr(csr, sps.coo_matrix((data, (row, col)), shape=(n, n)), np.float64)
    assert elapsed < 10.0, f"coo -> csr of {m} entries took {elapsed:.2f} s"


def test_scipy_exchange_shares_values_and_copies_ids():
    data = np.array([1.0, 2.0, 3.0])
    row = np.array([2, 0, 2], np.int32)
    col = np.array([1, 1, 1], np.int32)
    s = sps.coo_matrix((data, (row, col)), shape=(3, 2))
    x = sparse.coo_matrix(s)
    np.testing.assert_array_equal(x.toarray(), s.toarray())
    s.data[0] = 10.0  # the values are shared
    assert x.toarray()[2, 1] == 13.0
    s.row[0] = 1  # the ids are not
    np.testing.assert_array_equal(np.asarray(x.row), [2, 0, 2])
    out = x.asscipy()
    assert isinstance(out, sps.coo_matrix) and out.shape == (3, 2)
    np.testing.assert_array_equal(out.row, [2, 0, 2])
    np.testing.assert_array_equal(out.toarray(), x.toarray())
    out.data[1] = -1.0  # asscipy shares the values too
    assert x.toarray()[0, 1] == -1.0
    out.row[1] = 2  # and copies the ids
    np.testing.assert_array_equal(np.asarray(x.row), [2, 0, 2])
    # numpy values given to the triplet form are shared as well; ids are copied
    vals = np.array([1.0, 2.0])
    ids = np.array([0, 1])
    y = sparse.coo_matrix((vals, (ids, ids)), shape=(2, 2))
    vals[1] = 5.0
    ids[1] = 7
    np.testing.assert_array_equal(y.toarray(), [[1.0, 0.0], [0.0, 5.0]])
    # a scipy coo_array and other formats come in as well
    a = sps.coo_array(([4.0, 5.0], ([1, 1], [0, 0])), shape=(2, 3))
    z = sparse.coo_matrix(a)
    assert z.nnz == 2 and z.toarray()[1, 0] == 9.0
    np.testing.assert_array_equal(sparse.coo_matrix(sps.csc_matrix(s)).toarray(), s.toarray())


def test_transpose_astype_copy():
    data, row, col = triplets((6, 4), 0.5, np.float64, np.int32, seed=9)
    x = sparse.coo_matrix((data, (row, col)), shape=(6, 4))
    want = x.toarray()
    t = x.T
    assert isinstance(t, sparse.COONDArray) and tuple(t.shape) == (4, 6)
    np.testing.assert_array_equal(np.asarray(t.row), col)
    np.testing.assert_array_equal(np.asarray(t.col), row)
    np.testing.assert_array_equal(t.toarray(), want.T)
    np.testing.assert_array_equal(x.transpose().toarray(), want.T)
    assert x.transpose(0, 1) is x
    f = x.astype("float32")
    assert f.stype == "coo" and f.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(f.row), row)
    np.testing.assert_allclose(f.toarray(), want, rtol=1e-6)
    assert x.astype("float64", copy=False) is x
    c = x.copy()
    np.testing.assert_array_equal(np.asarray(c.row), row)
    np.asarray(c.data)[:] = 0  # the copy's values are its own
    np.testing.assert_array_equal(x.toarray(), want)
    assert x.tocoo() is x and x.tocoo(copy=True) is not x


@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_pickle_round_trip_and_validation(itype):
    data, row, col = triplets((5, 5), 0.5, np.float64, itype, seed=2)
    x = sparse.coo_matrix((data, (row, col)), shape=(5, 5))
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, sparse.COONDArray) and tuple(y.shape) == (5, 5)
    np.testing.assert_array_equal(np.asarray(y.row), row)
    np.testing.assert_array_equal(np.asarray(y.col), col)
    np.testing.assert_array_equal(np.asarray(y.data), data)
    fn, state = x.__reduce_ex__(2)
    assert state[0] == "coo"
    bad_row = state[5].copy()
    bad_row[0] = 5
    with pytest.raises(
        ValueError, match=r"^sparse array unpickling: row\[0\]=5 is out of range for 5 rows"
    ):
        fn(*state[:5], bad_row, state[6])
    with pytest.raises(
        ValueError, match=r"row \(int.*\) and col \(int.*\) must have the same dtype"
    ):
        fn(*state[:5], state[5].astype(np.int32 if itype == np.int64 else np.int64), state[6])
    with pytest.raises(ValueError, match=r"data, row and col must be 1-D with one length"):
        fn(*state[:5], state[5][:-1], state[6])


def test_bad_input_is_a_value_error():
    d = np.ones(3)
    r = np.array([0, 1, 2])
    with pytest.raises(ValueError, match=r"^coo_matrix: row\[1\]=-1 is out of range for 3 rows"):
        sparse.coo_matrix((d, (np.array([0, -1, 2]), r)), shape=(3, 3))
    with pytest.raises(ValueError, match=r"^coo_matrix: col\[2\]=3 is out of range for 3 columns"):
        sparse.coo_matrix((d, (r, np.array([0, 1, 3]))), shape=(3, 3))
    with pytest.raises(ValueError, match=r"^coo_matrix: row\[1\]=-1 is negative"):
        sparse.coo_matrix((d, (np.array([0, -1, 2]), r)))
    with pytest.raises(
        ValueError, match=r"^coo_matrix: data, row and col must be 1-D with one length"
    ):
        sparse.coo_matrix((d, (r[:2], r)), shape=(3, 3))
    with pytest.raises(
        ValueError, match=r"^coo_matrix: row ids must be integers, got dtype float64"
    ):
        sparse.coo_matrix((d, (r.astype(float), r)), shape=(3, 3))
    with pytest.raises(ValueError, match=r"^coo_matrix: row ids must fit int64$|must be integers"):
        sparse.coo_matrix((d[:1], ([1 << 70], [0])), shape=(3, 3))
    with pytest.raises(
        ValueError, match=r"^coo_matrix: col\[0\]=18446744073709551615 does not fit int64"
    ):
        sparse.coo_matrix((d[:1], (np.array([0], np.uint64), np.array([2**64 - 1], np.uint64))))
    with pytest.raises(
        ValueError, match=r"^coo_matrix: row\[0\]=4294967296 does not fit int32 ids"
    ):
        sparse.coo_matrix((d[:1], ([1 << 32], [0])), shape=(1 << 33, 3), idx_dtype="int32")
    with pytest.raises(
        ValueError, match=r"^coo_matrix: cannot infer the shape from no stored values"
    ):
        sparse.coo_matrix((np.zeros(0), (np.zeros(0, int), np.zeros(0, int))))
    with pytest.raises(
        ValueError, match=r"^coo_matrix: shape \(4, 4\) does not match the data's \(3, 3\)"
    ):
        sparse.coo_matrix(sps.eye(3, format="coo"), shape=(4, 4))
    with pytest.raises(
        ValueError, match=r"^coo_matrix: a dense argument must be 2-D, got shape \(3,\)"
    ):
        sparse.coo_matrix(np.ones(3))
    with pytest.raises(
        ValueError, match=r"^coo_matrix: the COO form is \(data, \(row, col\)\); got 3"
    ):
        sparse.coo_matrix((d, (r, r, r)), shape=(3, 3))
    with pytest.raises(
        ValueError, match=r"^cast_storage: a coo array is 2-D; the input has 3 dimensions"
    ):
        mnp.zeros((2, 2, 2)).tostype("coo")
    with pytest.raises(AttributeError, match=r"'COONDArray' object .*has no attribute 'indices'"):
        sparse.coo_matrix((3, 3)).indices  # noqa: B018


def test_ops_without_a_coo_kernel_go_through_csr(monkeypatch):
    monkeypatch.delenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", raising=False)
    data, row, col = triplets((7, 5), 0.5, np.float64, np.int64, seed=4)
    x = sparse.coo_matrix((data, (row, col)), shape=(7, 5))
    ref = sps.coo_matrix((data, (row, col)), shape=(7, 5))
    w = np.random.default_rng(0).standard_normal((5, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", mxffi.error.StorageFallbackWarning)
        out = sparse.dot(x, mnp.array(w))
        total = x + x
    np.testing.assert_allclose(out.asnumpy(), ref.tocsr() @ w, rtol=1e-12)
    assert total.stype == "csr"
    np.testing.assert_allclose(total.asnumpy(), 2 * ref.toarray(), rtol=1e-12)
    texts = [
        str(c.message) for c in caught if issubclass(c.category, mxffi.error.StorageFallbackWarning)
    ]
    assert any(
        "dot has no kernel for coo inputs; input storage types (coo, default)" in t for t in texts
    ), texts
    assert any("(coo, coo)" in t for t in texts), texts
    with warnings.catch_warnings():
        warnings.simplefilter("error", mxffi.error.StorageFallbackWarning)
        with pytest.raises(mxffi.error.StorageFallbackWarning, match=r"_npi_sin has no kernel"):
            mnp.sin(x)
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")
    np.testing.assert_allclose(mnp.sin(x).asnumpy(), np.sin(ref.toarray()), rtol=1e-12)
    np.testing.assert_allclose(
        sparse.square_sum(x).asnumpy(), np.sum(ref.toarray() ** 2), rtol=1e-12
    )


def test_assignment_and_copyto_keep_coo():
    x = sparse.coo_matrix(([1.0, 2.0], ([0, 1], [1, 0])), shape=(2, 2), idx_dtype="int32")
    dense = np.array([[0.0, 3.0], [4.0, 5.0]])
    x[:] = dense
    assert x.stype == "coo" and np.asarray(x.row).dtype == np.int32
    np.testing.assert_array_equal(x.toarray(), dense)
    sparse.csr_matrix(np.eye(2)).copyto(x)
    assert x.stype == "coo"
    np.testing.assert_array_equal(x.toarray(), np.eye(2))
    x[:] = 0
    assert x.nnz == 0


def test_repr_and_stype():
    x = sparse.coo_matrix(([1.0, 2.0, 3.0], ([0, 0, 1], [1, 1, 0])), shape=(2, 3))
    assert repr(x) == "<COONDArray 2x3 dtype=float64 nnz=3 @cpu:0>"
    assert x.stype == "coo"
    assert sparse.array(x).stype == "coo"


def _region(path, name):
    with open(path) as f:
        lines = f.read().splitlines()
    begin = lines.index(f"# [{name}.begin]")
    end = lines.index(f"# [{name}.end]")
    return "".join(s + "\n" for s in lines[begin + 1 : end])


def test_guide_example_runs_and_is_cut_into_the_guide():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    example = os.path.join(root, "docs", "examples", "sparse_coo.py")
    out = subprocess.run([sys.executable, example], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "sparse_coo: ok"
    with open(os.path.join(root, "docs", "sparse.md")) as f:
        page = f.read()
    marker = "<!-- cut: docs/examples/sparse_coo.py coo -->\n```python\n"
    assert marker in page
    block = page.split(marker, 1)[1].split("```\n", 1)[0]
    assert block == _region(example, "coo")


def test_dot_with_forward_stype_coo_converts_the_product():
    a = sparse.csr_matrix(random_dense((5, 4), 0.5, np.float64, seed=8))
    w = np.random.default_rng(1).standard_normal((4, 3))
    out = sparse.dot(a, mnp.array(w), forward_stype="coo")
    assert out.stype == "coo" and out.has_canonical_format
    np.testing.assert_allclose(out.toarray(), a.asnumpy() @ w, rtol=1e-12)
    # float32 coo with a float64 operand: the values promoted, the ids kept
    x = sparse.coo_matrix(([1.0, 2.0], ([1, 0], [0, 1])), shape=(2, 2), dtype="float32")
    y = sparse.dot(x, mnp.array(np.eye(2)))
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y.asnumpy(), [[0.0, 2.0], [1.0, 0.0]])


# ---- on a CUDA device: the CPU's parts, exactly ------------------------------------------------

needs_gpu = pytest.mark.skipif(
    not mxffi.cuda.is_available(), reason=f"no CUDA device: {mxffi.cuda.unavailable_reason()}"
)


@needs_gpu
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "float16", "bool"])
@pytest.mark.parametrize("shape", [(0, 4), (3, 0), (9, 7), (300, 41)])
def test_conversions_on_a_cuda_device_give_the_cpus_parts(density, itype, dtype, shape):
    data, row, col = triplets(shape, density, np.float64, itype, seed=6)
    x = sparse.coo_matrix((data.astype(dtype), (row, col)), shape=shape)
    g = x.to("cuda:0")
    assert g.stype == "coo" and g.device.device_type == 2
    for stype in ("csr", "default", "row_sparse"):
        want, got = x.tostype(stype), g.tostype(stype).to("cpu")
        assert got.stype == stype
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
        if stype == "csr":
            np.testing.assert_array_equal(np.asarray(got.indptr), np.asarray(want.indptr))
            np.testing.assert_array_equal(np.asarray(got.indices), np.asarray(want.indices))
            np.testing.assert_array_equal(np.asarray(got.data), np.asarray(want.data))
    for src in (x.tocsr(), x.tostype("row_sparse"), x.tostype("default")):
        want, got = src.tostype("coo"), src.to("cuda:0").tostype("coo").to("cpu")
        for part in ("row", "col", "data"):
            np.testing.assert_array_equal(
                np.asarray(getattr(got, part)), np.asarray(getattr(want, part))
            )
    g.sum_duplicates()
    assert g.has_canonical_format
    np.testing.assert_array_equal(g.to("cpu").toarray(), x.toarray())
