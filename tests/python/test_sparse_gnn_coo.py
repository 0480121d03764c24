"""sparse.spmm, sparse.sddmm and sparse.edge_softmax on a coo adjacency matrix: each stored entry
an edge of its own (a repeated (row, col) pair two edges, nothing summed), edge ids the coo
positions. Checked against numpy loops over the edge list (torch_scatter's scatter reductions
written out), and against the csr results where the coo array is canonical."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import seed_of

import mxffi.np as mnp
from mxffi.nd import sparse

DENSITIES = [0.0, 0.01, 0.5, 1.0]
DTYPES = ["float32", "float64"]
ITYPES = ["int32", "int64"]
TOL = {"float32": dict(rtol=2e-5, atol=2e-5), "float64": dict(rtol=1e-12, atol=1e-12)}


def edge_list(rows, cols, density, dtype, itype, seed, repeats=True):
    """A shuffled edge list (row, col, value): row 0 and column 1 empty; with repeats, some
    (row, col) pairs twice, with values of their own."""
    rng = np.random.default_rng(seed)
    a = sp.random(rows, cols, density=density, format="coo", random_state=rng)
    keep = (a.row != 0) & (a.col != 1)
    row, col = a.row[keep], a.col[keep]
    if repeats and row.size:
        pick = rng.integers(0, row.size, size=max(1, row.size // 3))
        row, col = np.concatenate([row, row[pick]]), np.concatenate([col, col[pick]])
    order = rng.permutation(row.size)
    row, col = row[order].astype(itype), col[order].astype(itype)
    val = (np.sign(rng.random(row.size) - 0.3) * (rng.random(row.size) + 0.5)).astype(dtype)
    return row, col, val


def ref_spmm(rows, row, col, val, x, reduce):
    """torch_scatter's scatter(val[:, None] * x[col], row, reduce=...) with its argmax/argmin
    (the first edge of equal products), 0 and -1 for a node without edges."""
    out = np.zeros((rows, x.shape[1]), dtype=np.result_type(val.dtype, x.dtype))
    arg = np.full(out.shape, -1, dtype=np.int64)
    prod = val[:, None].astype(out.dtype) * x[col].astype(out.dtype)
    for i in range(rows):
        edges = np.flatnonzero(row == i)
        if edges.size == 0:
            continue
        p = prod[edges]
        if reduce in ("sum", "mean"):
            out[i] = p.sum(0) / (edges.size if reduce == "mean" else 1)
        else:
            pick = p.argmax(0) if reduce == "max" else p.argmin(0)
            out[i] = p[pick, np.arange(p.shape[1])]
            arg[i] = edges[pick]
    return out, arg


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", ITYPES)
@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min"])
def test_spmm_on_coo_is_edge_by_edge(density, dtype, itype, reduce):
    rows, cols, feats = 23, 17, 5
    seed = seed_of(density, dtype, itype, reduce)
    row, col, val = edge_list(rows, cols, density, dtype, itype, seed)
    adj = sparse.coo_matrix((val, (row, col)), shape=(rows, cols))
    assert str(adj.row.dtype) == itype and adj.nnz == row.size  # kept as given
    x = np.random.default_rng(seed + 1).standard_normal((cols, feats)).astype(dtype)
    want, want_arg = ref_spmm(rows, row, col, val, x, reduce)
    got = sparse.spmm(adj, x, reduce=reduce)
    if reduce in ("max", "min"):
        got, arg = got
        np.testing.assert_array_equal(arg.asnumpy(), want_arg)  # coo positions: edge ids
    np.testing.assert_allclose(got.asnumpy(), want, **TOL[dtype])
    assert np.asarray(adj.row).tolist() == row.tolist()  # adj untouched


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("itype", ITYPES)
def test_coo_without_repeats_matches_csr(density, itype):
    """A coo array with no repeated pair gives the csr results, edge ids mapped by position."""
    rows, cols = 31, 19
    seed = seed_of("csr", density, itype)
    row, col, val = edge_list(rows, cols, density, "float64", itype, seed, repeats=False)
    adj = sparse.coo_matrix((val, (row, col)), shape=(rows, cols))
    csr = adj.tocsr()
    # the csr position of each coo entry: csr order is (row, col)
    order = np.lexsort((col, row))
    x = np.random.default_rng(seed).standard_normal((cols, 3))
    np.testing.assert_allclose(
        sparse.spmm(adj, x).asnumpy(), sparse.spmm(csr, x).asnumpy(), rtol=1e-12, atol=1e-12
    )
    v1, a1 = sparse.spmm(adj, x, reduce="max")
    v2, a2 = sparse.spmm(csr, x, reduce="max")
    np.testing.assert_array_equal(v1.asnumpy(), v2.asnumpy())
    a2 = a2.asnumpy()
    want = np.full_like(a2, -1)
    want[a2 >= 0] = order[a2[a2 >= 0]]
    np.testing.assert_array_equal(a1.asnumpy(), want)
    a = np.random.default_rng(seed + 2).standard_normal((rows, 4))
    b = np.random.default_rng(seed + 3).standard_normal((cols, 4))
    s1, s2 = sparse.sddmm(adj, a, b), sparse.sddmm(csr, a, b)
    assert s1.stype == "coo" and s2.stype == "csr"
    np.testing.assert_allclose(np.asarray(s1.data)[order], np.asarray(s2.data), rtol=1e-12)
    scores = np.random.default_rng(seed + 4).standard_normal((row.size, 2))
    e1 = sparse.edge_softmax(adj, scores).asnumpy()
    e2 = sparse.edge_softmax(csr, scores[order]).asnumpy()
    np.testing.assert_allclose(e1[order], e2, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", ITYPES)
def test_sddmm_on_coo_keeps_adjs_order(density, dtype, itype):
    rows, cols, feats = 13, 29, 6
    seed = seed_of("sddmm", density, dtype, itype)
    row, col, val = edge_list(rows, cols, density, dtype, itype, seed)
    adj = sparse.coo_matrix((val, (row, col)), shape=(rows, cols))
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((rows, feats)).astype(dtype)
    b = rng.standard_normal((cols, feats)).astype(dtype)
    out = sparse.sddmm(adj, a, b)
    assert type(out) is sparse.COONDArray and out.shape == (rows, cols)
    assert str(out.dtype) == dtype and out.nnz == row.size
    assert np.asarray(out.row).tolist() == row.tolist()  # adj's own order, repeats kept
    assert np.asarray(out.col).tolist() == col.tolist()
    want = val * np.einsum("ef,ef->e", a[row], b[col])
    np.testing.assert_allclose(np.asarray(out.data), want, **TOL[dtype])


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("heads", [None, 3])
def test_edge_softmax_on_coo_in_adjs_order(density, dtype, heads):
    rows, cols = 19, 11
    seed = seed_of("softmax", density, dtype, heads)
    row, col, val = edge_list(rows, cols, density, dtype, "int64", seed)
    adj = sparse.coo_matrix((val, (row, col)), shape=(rows, cols))
    shape = (row.size,) if heads is None else (row.size, heads)
    scores = (np.random.default_rng(seed).standard_normal(shape) * 4).astype(dtype)
    out = sparse.edge_softmax(adj, scores).asnumpy()
    assert out.shape == shape and str(out.dtype) == dtype
    s2 = scores.reshape(row.size, heads or 1).astype(np.float64)
    want = np.zeros_like(s2)
    for i in range(rows):  # torch_scatter's scatter_softmax over the edges into node i
        e = np.flatnonzero(row == i)
        if e.size:
            z = np.exp(s2[e] - s2[e].max(0))
            want[e] = z / z.sum(0)
    np.testing.assert_allclose(out.reshape(row.size, heads or 1), want, **TOL[dtype])


def test_repeated_edges_stay_apart():
    """Two stored (0, 1) entries are two edges: mean divides by 2 edges' count, max picks one
    of them by its coo position, softmax spreads over both."""
    adj = sparse.coo_matrix(([1.0, 3.0, 2.0], ([0, 1, 0], [1, 0, 1])), shape=(2, 2))
    x = np.array([[10.0], [1.0]])
    assert sparse.spmm(adj, x).tolist() == [[3.0], [30.0]]
    assert sparse.spmm(adj, x, reduce="mean").tolist() == [[1.5], [30.0]]
    values, arg = sparse.spmm(adj, x, reduce="max")
    assert values.tolist() == [[2.0], [30.0]] and arg.tolist() == [[2], [1]]
    values, arg = sparse.spmm(adj, x, reduce="min")
    assert values.tolist() == [[1.0], [30.0]] and arg.tolist() == [[0], [1]]
    tie = sparse.coo_matrix(([2.0, 1.0, 2.0], ([0, 1, 0], [1, 0, 1])), shape=(2, 2))
    assert sparse.spmm(tie, x, reduce="max")[1].tolist() == [[0], [1]]  # the first edge wins
    att = sparse.edge_softmax(adj, np.array([0.0, 7.0, 0.0])).asnumpy()
    assert att.tolist() == [0.5, 1.0, 0.5]
    s = sparse.sddmm(adj, np.ones((2, 1)), np.ones((2, 1)))
    assert np.asarray(s.data).tolist() == [1.0, 3.0, 2.0] and s.nnz == 3


def test_coo_errors():
    adj = sparse.coo_matrix(([1.0, 2.0], ([0, 1], [2, 0])), shape=(2, 3))
    with pytest.raises(ValueError) as e:
        sparse.spmm(adj, np.ones((2, 2)))
    assert str(e.value).startswith(
        "sparse.spmm: x must have one row per column of adj (its source nodes); expected "
        "x.shape=(3,) or (3, F) for adj.shape=(2, 3), got x.shape=(2, 2)"
    )
    with pytest.raises(ValueError) as e:
        sparse.edge_softmax(adj, np.ones(3))
    assert str(e.value).startswith(
        "sparse.edge_softmax: scores must have one row per stored entry of adj; expected "
        "shape (2,) or (2, heads), got scores.shape=(3,)"
    )
    with pytest.raises(TypeError) as e:
        sparse.sddmm(mnp.ones((2, 3)), np.ones((2, 1)), np.ones((3, 1)))
    assert str(e.value).startswith(
        "sparse.sddmm: adj must be a csr or coo array; got storage type 'default'"
    )
    with pytest.raises(TypeError) as e:
        sparse.spmm(adj.astype("int64"), np.ones((3, 2), dtype="int64"))
    assert "compute in int64; expected float32 or float64" in str(e.value)
    v = sparse.spmm(adj, np.arange(3.0))  # a vector x gives a vector
    assert v.tolist() == [2.0, 0.0]


def test_large_edge_list_on_the_pool():
    """300,000 random edges (many repeated pairs): the sort by row splits across threads."""
    rng = np.random.default_rng(7)
    n, m = 5000, 300_000
    row, col = rng.integers(0, n, m), rng.integers(0, n, m)
    val = rng.standard_normal(m)
    adj = sparse.coo_matrix((val, (row, col)), shape=(n, n))
    x = rng.standard_normal((n, 4))
    prod = val[:, None] * x[col]
    want = np.zeros((n, 4))
    np.add.at(want, row, prod)
    np.testing.assert_allclose(sparse.spmm(adj, x).asnumpy(), want, rtol=1e-10, atol=1e-10)
    values, arg = sparse.spmm(adj, x, reduce="max")
    values, arg = values.asnumpy(), arg.asnumpy()
    top = np.full((n, 4), -np.inf)
    np.maximum.at(top, row, prod)
    has = np.isin(np.arange(n), row)
    np.testing.assert_array_equal(values[has], top[has])
    assert (arg[~has] == -1).all() and (values[~has] == 0).all()
    e = arg[has]
    assert (row[e] == np.nonzero(has)[0][:, None]).all()  # the chosen edge goes into node i
    np.testing.assert_array_equal(prod[e, np.arange(4)], values[has])
    a, b = rng.standard_normal((n, 3)), rng.standard_normal((n, 3))
    s = sparse.sddmm(adj, a, b)
    np.testing.assert_allclose(
        np.asarray(s.data), val * (a[row] * b[col]).sum(1), rtol=1e-12, atol=1e-12
    )
