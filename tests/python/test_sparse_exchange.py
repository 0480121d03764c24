"""Sparse exchange with torch both ways (csr_matrix / coo_matrix / array taking torch.sparse_csr
and torch.sparse_coo tensors, astorch giving them): values shared, index tensors copied and
checked, bad tensors refused by name. The __binsparse__ protocol is tested in
test_sparse_binsparse.py."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from conftest import run_python, seed_of
from sparse_cases import random_dense

import mxffi.np as mnp
from mxffi.nd import sparse

DENSITIES = [0.0, 0.01, 0.5, 1.0]
INDEX_DTYPES = ["int32", "int64"]
DTYPES = [np.float32, np.float64]
SHAPES = [(0, 4), (3, 0), (9, 7), (40, 33)]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        # torch's notes that sparse CSR is in beta and invariant checks are off by default
        warnings.simplefilter("ignore", UserWarning)
        yield torch


def ptr(a):
    """The address of an mxffi dense array's (or numpy's) first element."""
    return np.from_dlpack(a).ctypes.data


def torch_csr(torch, dense, itype):
    """A torch.sparse_csr tensor of dense's non-zeros with itype crow/col indices."""
    t = torch.from_numpy(dense).to_sparse_csr()
    it = getattr(torch, itype)
    return torch.sparse_csr_tensor(
        t.crow_indices().to(it), t.col_indices().to(it), t.values(), size=dense.shape
    )


# ---- torch -> mxffi --------------------------------------------------------------------------


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_csr_from_torch_csr_shares_values(torch, shape, itype, dtype, density):
    dense = random_dense(shape, density, dtype, seed=seed_of(shape, itype) % 1000)
    t = torch_csr(torch, dense, itype)
    x = sparse.csr_matrix(t)
    assert type(x) is sparse.CSRNDArray and x.shape == shape and x.dtype == dtype
    assert str(x.indices.dtype) == itype and str(x.indptr.dtype) == itype
    np.testing.assert_array_equal(x.asnumpy(), dense)
    x.check_format()
    if x.nnz:
        assert ptr(x.data) == t.values().data_ptr()  # shared, not copied
        t.values()[0] = 99.0  # written through torch, seen by mxffi
        assert x.asnumpy()[tuple(np.argwhere(dense)[0])] == 99.0


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_coo_from_torch_coo_keeps_order_and_shares_values(torch, shape, itype, dtype, density):
    dense = random_dense(shape, density, dtype, seed=7)
    row, col = np.nonzero(dense)
    # uncoalesced: reversed order, the first entry split in two (a repeated pair)
    data = dense[row, col][::-1].copy()
    row, col = row[::-1], col[::-1]
    if len(data):
        data = np.concatenate([data, data[:1] * 0.5]).astype(dtype)
        data[0] *= 0.5
        row, col = np.concatenate([row, row[:1]]), np.concatenate([col, col[:1]])
    ids = torch.from_numpy(np.stack([row, col]).astype(np.int64))
    t = torch.sparse_coo_tensor(ids, torch.from_numpy(data), size=shape)
    x = sparse.coo_matrix(t, idx_dtype=itype)
    assert type(x) is sparse.COONDArray and x.shape == shape and x.dtype == dtype
    assert str(x.row.dtype) == itype
    np.testing.assert_array_equal(np.asarray(x.row), row)  # the stored order, as given
    np.testing.assert_array_equal(np.asarray(x.col), col)
    np.testing.assert_allclose(x.toarray(), dense, rtol=1e-6)
    c = sparse.csr_matrix(t)  # converted: sorted, the repeated pair summed
    np.testing.assert_allclose(c.asnumpy(), dense, rtol=1e-6)
    assert c.nnz == np.count_nonzero(dense)
    if len(data):
        assert ptr(x.data) == t._values().data_ptr()
        x.data[...] = 1.0  # written through mxffi, seen by torch
        assert float(t._values()[0]) == 1.0


def test_array_keeps_the_torch_layout_and_applies_dtype_shape_device(torch):
    d = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 3.0]])
    t = torch.from_numpy(d).to_sparse_csr()
    assert type(sparse.array(t)) is sparse.CSRNDArray
    assert type(sparse.array(t.to_sparse_coo())) is sparse.COONDArray
    y = sparse.array(t, dtype="float32", device=mnp.cpu(1))
    assert y.dtype == np.float32 and str(y.device) == "cpu:1"
    np.testing.assert_array_equal(y.asnumpy(), d.astype(np.float32))
    r = sparse.row_sparse_array(t)
    assert r.stype == "row_sparse" and r.nnz == 2
    np.testing.assert_array_equal(r.asnumpy(), d)
    c = sparse.coo_matrix(t)  # a csr tensor as coo: the canonical order
    assert c.has_canonical_format and np.asarray(c.col).tolist() == [1, 0, 2]
    assert str(sparse.csr_matrix(t.to_sparse_coo(), idx_dtype="int32").indices.dtype) == "int32"
    with pytest.raises(ValueError, match=r"csr_matrix: shape \(3, 3\) does not match the data's"):
        sparse.csr_matrix(t, shape=(3, 3))
    z = sparse.zeros("csr", (2, 3))
    z[:] = t  # assignment takes torch tensors as it takes scipy matrices
    np.testing.assert_array_equal(z.asnumpy(), d)


def test_unsorted_torch_csr_is_made_canonical_in_a_copy(torch):
    # torch does not require sorted columns; mxffi's csr does: the values are then copied
    t = torch.sparse_csr_tensor(
        torch.tensor([0, 2]), torch.tensor([2, 0]), torch.tensor([1.0, 2.0]), size=(1, 3)
    )
    x = sparse.csr_matrix(t)
    assert np.asarray(x.indices).tolist() == [0, 2] and np.asarray(x.data).tolist() == [2.0, 1.0]
    assert ptr(x.data) != t.values().data_ptr()
    assert t.values().tolist() == [1.0, 2.0]  # torch's values untouched


def test_values_needing_grad_or_of_narrow_dtypes_come_through(torch):
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    t = torch.sparse_csr_tensor(torch.tensor([0, 1, 2]), torch.tensor([1, 0]), v, size=(2, 2))
    x = sparse.csr_matrix(t)
    assert ptr(x.data) == v.data_ptr()
    h = sparse.csr_matrix(torch.eye(3, dtype=torch.float16).to_sparse_csr())
    assert h.dtype == np.float16 and h.nnz == 3
    bf = sparse.coo_matrix(torch.eye(3, dtype=torch.bfloat16).to_sparse())
    assert str(bf.dtype) == "bfloat16" and bf.astorch().to_dense().equal(torch.eye(3).bfloat16())
    b = sparse.coo_matrix(torch.eye(2, dtype=torch.bool).to_sparse())
    assert b.dtype == np.bool_ and b.toarray().tolist() == [[True, False], [False, True]]


def test_changing_torchs_indices_later_never_reaches_mxffi(torch):
    dense = random_dense((6, 5), 0.5, np.float64, seed=3)
    t = torch.from_numpy(dense).to_sparse_csr()
    x = sparse.csr_matrix(t)
    c = torch.from_numpy(dense).to_sparse_coo()
    y = sparse.coo_matrix(c)
    t.col_indices()[0] = 10**9  # out of bounds, after the fact
    t.crow_indices()[1] = -5
    c._indices()[0, 0] = 10**9
    x.check_format()
    y.check_format()
    np.testing.assert_array_equal(x.asnumpy(), dense)
    np.testing.assert_array_equal(y.toarray(), dense)
    out = sparse.dot(x, mnp.array(np.ones((5, 2))))
    np.testing.assert_allclose(out.asnumpy(), dense @ np.ones((5, 2)))


# ---- mxffi -> torch --------------------------------------------------------------------------


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_astorch_csr_shares_values_and_copies_indices(torch, shape, itype, dtype, density):
    dense = random_dense(shape, density, dtype, seed=11)
    x = sparse.csr_matrix(dense, idx_dtype=itype)
    t = x.astorch()
    assert t.layout is torch.sparse_csr and tuple(t.shape) == shape
    assert t.crow_indices().dtype == getattr(torch, itype) and t.values().dtype == getattr(
        torch, np.dtype(dtype).name
    )
    np.testing.assert_array_equal(t.to_dense().numpy(), dense)
    if x.nnz:
        assert t.values().data_ptr() == ptr(x.data)
        t.values()[-1] = -7.0  # torch writes, mxffi sees
        assert np.asarray(x.data)[-1] == -7.0
        t.col_indices()[0] = 10**6  # torch's copy: mxffi's indices unchanged
        x.check_format()
        assert np.asarray(x.indices)[0] == np.nonzero(dense)[1][0]
    back = sparse.csr_matrix(x.astorch())  # the round trip
    np.testing.assert_array_equal(back.asnumpy(), x.asnumpy())


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_astorch_coo_is_coalesced_only_when_canonical(torch, shape, itype, density):
    dense = random_dense(shape, density, np.float32, seed=5)
    x = sparse.coo_matrix(dense, idx_dtype=itype)  # from dense values: canonical
    t = x.astorch()
    assert t.layout is torch.sparse_coo and t.is_coalesced()
    assert t._indices().dtype == torch.int64  # torch's coo indices are int64
    np.testing.assert_array_equal(t.to_dense().numpy(), dense)
    if x.nnz:
        assert t._values().data_ptr() == ptr(x.data)
        t._indices()[0, 0] = -1  # a copy: mxffi keeps its ids
        x.check_format()
    # not canonical: unsorted, a repeated pair
    u = sparse.coo_matrix(([1.0, 2.0, 4.0], ([1, 0, 1], [0, 1, 0])), shape=(2, 2))
    tu = u.astorch()
    assert not tu.is_coalesced()
    assert tu._indices().tolist() == [[1, 0, 1], [0, 1, 0]]
    assert tu.coalesce().to_dense().tolist() == [[0.0, 2.0], [5.0, 0.0]]


def test_astorch_layouts_and_conversions(torch):
    d = np.array([[0.0, 1.0], [2.0, 0.0]])
    x = sparse.csr_matrix(d)
    assert x.astorch("coo").layout is torch.sparse_coo
    assert x.astorch(torch.sparse_coo).to_dense().tolist() == d.tolist()
    c = sparse.coo_matrix(d)
    assert c.astorch(torch.sparse_csr).layout is torch.sparse_csr
    r = sparse.row_sparse_array(d)
    assert r.astorch().layout is torch.sparse_csr and r.astorch().to_dense().tolist() == d.tolist()
    with pytest.raises(ValueError, match=r"CSRNDArray.astorch: layout must be None, 'csr', 'coo'"):
        x.astorch("bsr")
    r3 = sparse.row_sparse_array(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match=r"RowSparseNDArray.astorch: .*2-D; the shape is"):
        r3.astorch()


# ---- bad torch tensors -----------------------------------------------------------------------


def test_bad_torch_tensors_are_refused_by_name(torch):
    hybrid = torch.ones(3, 4, 2).to_sparse_csr(dense_dim=1)
    with pytest.raises(ValueError, match=r"csr_matrix: a hybrid torch sparse tensor .*dense_dim"):
        sparse.csr_matrix(hybrid)
    batched = torch.ones(2, 3, 4).to_sparse_csr()
    with pytest.raises(ValueError, match=r"coo_matrix: a batched torch sparse tensor with"):
        sparse.coo_matrix(batched)
    coo3 = torch.ones(2, 2, 2).to_sparse()
    with pytest.raises(ValueError, match=r"sparse.array: a torch sparse tensor with sparse_dim"):
        sparse.array(coo3)
    with pytest.raises(ValueError, match=r"csr_matrix: torch layout torch.sparse_csc is not"):
        sparse.csr_matrix(torch.eye(2).to_sparse_csc())
    # parts torch accepted without checking: mxffi checks them
    crow, col, val = torch.tensor([0, 2, 1]), torch.tensor([0, 1]), torch.tensor([1.0, 2.0])
    bad = torch.sparse_csr_tensor(crow, col, val, size=(2, 4), check_invariants=False)
    with pytest.raises(
        ValueError, match=r"csr_matrix: indptr must be non-decreasing; indptr\[1\]=2 > indptr\[2\]"
    ):
        sparse.csr_matrix(bad)
    far = torch.sparse_csr_tensor(
        torch.tensor([0, 1, 2]), torch.tensor([0, 9]), val, size=(2, 4), check_invariants=False
    )
    with pytest.raises(ValueError, match=r"indices\[1\]=9 is out of range for 4 columns \(row 1"):
        sparse.csr_matrix(far)
    ids = torch.tensor([[0, 5], [1, 1]])
    out = torch.sparse_coo_tensor(ids, val, size=(3, 3), check_invariants=False)
    with pytest.raises(ValueError, match=r"coo_matrix: row\[1\]=5 is out of range for 3 rows"):
        sparse.coo_matrix(out)
    neg = torch.sparse_coo_tensor(
        torch.tensor([[0, 1], [-1, 1]]), val, (3, 3), check_invariants=False
    )
    with pytest.raises(ValueError, match=r"csr_matrix: col\[0\]=-1 is out of range for 3 columns"):
        sparse.csr_matrix(neg)
    meta = torch.eye(2).to_sparse_csr().to("meta")
    with pytest.raises(ValueError, match=r"csr_matrix: the torch tensor is on meta; only cpu and"):
        sparse.csr_matrix(meta)
    with pytest.raises(ValueError, match=r"coo_matrix: idx_dtype must be int32 or int64, got int8"):
        sparse.coo_matrix(torch.eye(2).to_sparse(), idx_dtype="int8")


def test_a_dense_torch_tensor_is_dense_values():
    torch = pytest.importorskip("torch")
    x = sparse.csr_matrix(torch.eye(2))  # no sparse layout: read as dense values, as before
    assert x.nnz == 2 and x.asnumpy().tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_importing_mxffi_does_not_import_torch():
    out = run_python(
        """
        import sys
        import numpy as np
        import mxffi, mxffi.np
        from mxffi.nd import sparse
        x = sparse.csr_matrix(np.eye(2))
        x.__binsparse_descriptor__()
        sparse.from_binsparse(x)
        sparse.csr_matrix(np.eye(2))
        print("torch" in sys.modules)
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_guide_example_runs_and_is_cut_into_the_guide():
    pytest.importorskip("torch")
    example = os.path.join(ROOT, "docs", "examples", "sparse_exchange.py")
    out = subprocess.run([sys.executable, example], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "sparse_exchange: ok"
    with open(os.path.join(ROOT, "docs", "sparse.md")) as f:
        page = f.read()
    with open(example) as f:
        lines = f.read().splitlines()
    for name in ("torch", "binsparse"):
        begin, end = lines.index(f"# [{name}.begin]"), lines.index(f"# [{name}.end]")
        region = "".join(s + "\n" for s in lines[begin + 1 : end])
        marker = f"<!-- cut: docs/examples/sparse_exchange.py {name} -->\n```python\n"
        assert marker in page
        assert page.split(marker, 1)[1].split("```\n", 1)[0] == region
