"""sparse.spmm, sparse.sddmm and sparse.edge_softmax: the graph neural network kernels on a csr
adjacency matrix (rows: destination nodes, columns: sources), against numpy loops over the
stored entries, scipy and torch.sparse where it has the op; bad inputs and their messages; the
CUDA kernels against the CPU ones (skipped without a device)."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import seed_of

import mxffi.np as mnp
import mxffi.testing as mxtesting
from mxffi import cuda
from mxffi.nd import sparse

DENSITIES = [0.0, 0.01, 0.5, 1.0]
DTYPES = ["float32", "float64"]
ITYPES = ["int32", "int64"]
TOL = {"float32": dict(rtol=2e-5, atol=2e-5), "float64": dict(rtol=1e-12, atol=1e-12)}


def random_adj(rows, cols, density, dtype, itype, seed):
    """A canonical scipy csr matrix whose first row and second column are empty, values in
    [-1.5, -0.5) U [0.5, 1.5)."""
    rng = np.random.default_rng(seed)
    a = sp.random(rows, cols, density=density, format="csr", random_state=rng, dtype=np.float64)
    a = a.tolil()
    if rows:
        a[0, :] = 0
    if cols > 1:
        a[:, 1] = 0
    a = a.tocsr()
    a.eliminate_zeros()
    a.sort_indices()
    a.data = (np.sign(rng.random(a.nnz) - 0.3) * (rng.random(a.nnz) + 0.5)).astype(dtype)
    a.indices = a.indices.astype(itype)
    a.indptr = a.indptr.astype(itype)
    return a


def to_mx(a):
    m = sparse.csr_matrix(a, idx_dtype=str(a.indices.dtype))
    assert str(m.indices.dtype) == str(a.indices.dtype)
    return m


def ref_spmm(a, x, reduce):
    """The reduction of data[p] * x[indices[p]] over each row's stored entries, in numpy."""
    x2 = x.reshape(x.shape[0], -1)
    out = np.zeros((a.shape[0], x2.shape[1]), dtype=np.result_type(a.dtype, x.dtype))
    arg = np.full(out.shape, -1, dtype=np.int64)
    for i in range(a.shape[0]):
        b, e = a.indptr[i], a.indptr[i + 1]
        if b == e:
            continue
        prod = a.data[b:e, None].astype(out.dtype) * x2[a.indices[b:e]].astype(out.dtype)
        if reduce in ("sum", "mean"):
            out[i] = prod.sum(0) / (e - b if reduce == "mean" else 1)
        else:
            pick = prod.argmax(0) if reduce == "max" else prod.argmin(0)
            out[i] = prod[pick, np.arange(prod.shape[1])]
            arg[i] = b + pick
    return out.reshape((a.shape[0],) + x.shape[1:]), arg.reshape((a.shape[0],) + x.shape[1:])


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", ITYPES)
@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min"])
# Widths reaching every path of the vector kernels: whole blocks of 4 vectors, single vectors,
# a scalar tail.
@pytest.mark.parametrize("width", [1, 7, 20, 64, 70])
def test_spmm_matches_numpy(density, dtype, itype, reduce, width):
    seed = seed_of("spmm", density, dtype, itype, reduce, width)
    a = random_adj(37, 29, density, dtype, itype, seed)
    x = np.random.default_rng(seed).standard_normal((29, width)).astype(dtype)
    want, want_arg = ref_spmm(a, x, reduce)
    got = sparse.spmm(to_mx(a), mnp.array(x), reduce=reduce)
    if reduce in ("max", "min"):
        assert isinstance(got, tuple) and len(got) == 2
        got, arg = got
        assert str(arg.dtype) == "int64" and arg.shape == want.shape
        np.testing.assert_array_equal(arg.asnumpy(), want_arg)
    assert str(got.dtype) == dtype and got.shape == (37, width)
    np.testing.assert_allclose(got.asnumpy(), want, **TOL[dtype])
    if reduce == "sum":
        np.testing.assert_allclose(got.asnumpy(), a @ x, **TOL[dtype])


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("density", DENSITIES)
def test_spmm_matches_torch(reduce, density):
    torch = pytest.importorskip("torch")
    seed = seed_of("spmm-torch", reduce, density)
    a = random_adj(40, 33, density, "float64", "int64", seed)
    x = np.random.default_rng(seed).standard_normal((33, 16))
    t = torch.sparse_csr_tensor(
        torch.from_numpy(a.indptr),
        torch.from_numpy(a.indices),
        torch.from_numpy(a.data),
        size=a.shape,
    )
    treduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    want = torch.sparse.mm(t, torch.from_numpy(x), reduce=treduce).numpy()
    got = sparse.spmm(to_mx(a), x, reduce=reduce)
    got = got[0] if reduce in ("max", "min") else got
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12, atol=1e-12)


def test_spmm_vector_and_promotion():
    a = random_adj(20, 15, 0.3, "float32", "int32", seed_of("vector"))
    x = np.random.default_rng(1).standard_normal(15)  # float64: promotes float32 adj
    got = sparse.spmm(to_mx(a), x)
    assert got.shape == (20,) and str(got.dtype) == "float64"
    np.testing.assert_allclose(got.asnumpy(), a.astype(np.float64) @ x, rtol=1e-12, atol=1e-12)
    values, arg = sparse.spmm(to_mx(a), x, reduce="min")
    want, want_arg = ref_spmm(a.astype(np.float64), x, "min")
    assert values.shape == arg.shape == (20,)
    np.testing.assert_array_equal(arg.asnumpy(), want_arg)
    np.testing.assert_allclose(values.asnumpy(), want, rtol=1e-12)
    # An integer x with a float32 adj computes in float64, as numpy's promotion says.
    got = sparse.spmm(to_mx(a), np.arange(15, dtype=np.int32))
    assert str(got.dtype) == "float64"
    np.testing.assert_allclose(got.asnumpy(), a.astype(np.float64) @ np.arange(15), rtol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("repeat", [1, 40])  # 2 columns (scalar code) or 80 (vector code)
def test_spmm_ties_pick_the_first_stored_entry_and_nan_wins(dtype, repeat):
    # Row 0 stores columns 0, 1, 2 whose products tie in every column; row 1 has a NaN product.
    a = sparse.csr_matrix(
        ([1.0, 1.0, 1.0, 2.0, 1.0], [0, 1, 2, 0, 2], [0, 3, 5, 5]), shape=(3, 3), dtype=dtype
    )
    x = np.array([[1.0, 5.0], [1.0, 5.0], [1.0, 5.0]], dtype=dtype)
    x[2, 1] = np.nan
    x = np.tile(x, (1, repeat))
    for reduce in ("max", "min"):
        values, arg = sparse.spmm(a, x, reduce=reduce)
        # Row 0: columns tie (column 1 has the NaN at entry 2, which wins); row 1: entry 3 is
        # 2.0 (max) and entry 4 is 1.0 (min) in column 0, the NaN of entry 4 in column 1;
        # row 2 is empty.
        want_arg = np.tile([[0, 2], [3 if reduce == "max" else 4, 4], [-1, -1]], (1, repeat))
        np.testing.assert_array_equal(arg.asnumpy(), want_arg)
        v = values.asnumpy()
        assert np.all(v[0, 0::2] == 1.0) and np.all(np.isnan(v[:2, 1::2]))
        assert np.all(v[1, 0::2] == (2.0 if reduce == "max" else 1.0)) and np.all(v[2] == 0)


def test_spmm_nan_first_stays():
    # A NaN at the first entry stays chosen (numpy's argmax: the first NaN), in both code paths.
    a = sparse.csr_matrix(([1.0, 1.0, 1.0], [0, 1, 2], [0, 3]), shape=(1, 3))
    for width in (1, 64):
        x = np.ones((3, width))
        x[0] = np.nan
        x[2] = np.nan
        for reduce in ("max", "min"):
            values, arg = sparse.spmm(a, x, reduce=reduce)
            assert np.all(np.isnan(values.asnumpy())) and np.all(arg.asnumpy() == 0)


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", ITYPES)
@pytest.mark.parametrize("width", [1, 5, 64])
def test_sddmm_matches_numpy_and_torch(density, dtype, itype, width):
    seed = seed_of("sddmm", density, dtype, itype, width)
    rng = np.random.default_rng(seed)
    adj = random_adj(31, 26, density, dtype, itype, seed)
    a = rng.standard_normal((31, width)).astype(dtype)
    b = rng.standard_normal((26, width)).astype(dtype)
    m = to_mx(adj)
    got = sparse.sddmm(m, a, b)
    assert isinstance(got, sparse.CSRNDArray) and str(got.dtype) == dtype
    assert got.shape == adj.shape and str(got.indices.dtype) == itype
    np.testing.assert_array_equal(got.indptr.asnumpy(), adj.indptr)
    np.testing.assert_array_equal(got.indices.asnumpy(), adj.indices)
    rows = np.repeat(np.arange(31), np.diff(adj.indptr))
    want = adj.data * np.einsum("ij,ij->i", a[rows], b[adj.indices])
    np.testing.assert_allclose(got.data.asnumpy(), want, **TOL[dtype])
    torch = pytest.importorskip("torch")
    t = torch.sparse_csr_tensor(
        torch.from_numpy(adj.indptr.astype(np.int64)),
        torch.from_numpy(adj.indices.astype(np.int64)),
        torch.from_numpy(adj.data),
        size=adj.shape,
    )
    # torch's convention: beta * adj + alpha * (a @ b.T) at adj's entries; ours multiplies by
    # the stored values.
    tw = torch.sparse.sampled_addmm(t, torch.from_numpy(a), torch.from_numpy(b).T, beta=0.0)
    np.testing.assert_allclose(got.data.asnumpy(), adj.data * tw.values().numpy(), **TOL[dtype])


def ref_softmax(adj, s):
    out = np.zeros_like(s)
    for i in range(adj.shape[0]):
        b, e = adj.indptr[i], adj.indptr[i + 1]
        if b < e:
            z = np.exp(s[b:e] - s[b:e].max(0))
            out[b:e] = z / z.sum(0)
    return out


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", ITYPES)
@pytest.mark.parametrize("heads", [None, 1, 4])
def test_edge_softmax_matches_numpy(density, dtype, itype, heads):
    seed = seed_of("softmax", density, dtype, itype, heads)
    adj = random_adj(30, 30, density, "float64", itype, seed)
    shape = (adj.nnz,) if heads is None else (adj.nnz, heads)
    # Large scores: a softmax that did not subtract the row's maximum would overflow.
    s = (np.random.default_rng(seed).standard_normal(shape) * 300).astype(dtype)
    got = sparse.edge_softmax(to_mx(adj), s)
    assert got.shape == shape and str(got.dtype) == dtype
    np.testing.assert_allclose(got.asnumpy(), ref_softmax(adj, s), **TOL[dtype])
    assert np.all(np.isfinite(got.asnumpy()))
    if adj.nnz:
        sums = np.add.reduceat(got.asnumpy(), adj.indptr[:-1][np.diff(adj.indptr) > 0], axis=0)
        np.testing.assert_allclose(sums, 1.0, rtol=1e-5)


def test_edge_softmax_reads_only_the_structure():
    adj = sparse.csr_matrix(([True, True, True], [0, 2, 1], [0, 2, 3]), shape=(2, 3))
    got = sparse.edge_softmax(adj, np.array([0.0, np.log(3.0), 5.0]))
    np.testing.assert_allclose(got.asnumpy(), [0.25, 0.75, 1.0], rtol=1e-12)


# ---- bad inputs ------------------------------------------------------------------------------


def small():
    return sparse.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]))


def first_line(e):
    return str(e.value).splitlines()[0]


@pytest.mark.parametrize(
    "call, kind, message",
    [
        (
            lambda: sparse.spmm(small(), np.ones((4, 2))),
            ValueError,
            "sparse.spmm: x must have one row per column of adj (its source nodes); expected "
            "x.shape=(3,) or (3, F) for adj.shape=(2, 3), got x.shape=(4, 2)",
        ),
        (
            lambda: sparse.spmm(small(), np.ones(4)),
            ValueError,
            "sparse.spmm: x must have one row per column of adj (its source nodes); expected "
            "x.shape=(3,) or (3, F) for adj.shape=(2, 3), got x.shape=(4,)",
        ),
        (
            lambda: sparse.spmm(small(), np.ones((3, 2, 2))),
            ValueError,
            "sparse.spmm: x must have one row per column of adj (its source nodes); expected "
            "x.shape=(3,) or (3, F) for adj.shape=(2, 3), got x.shape=(3, 2, 2)",
        ),
        (
            lambda: sparse.spmm(small(), np.ones((3, 2)), reduce="avg"),
            ValueError,
            "sparse.spmm: reduce must be 'sum', 'mean', 'max' or 'min'; got 'avg'",
        ),
        (
            lambda: sparse.spmm(mnp.ones((2, 3)), np.ones((3, 2))),
            TypeError,
            "sparse.spmm: adj must be a csr or coo array; got storage type 'default'",
        ),
        (
            lambda: sparse.spmm(small(), sparse.csr_matrix(np.ones((3, 2)))),
            TypeError,
            "sparse.spmm: x must be a dense array; got storage type 'csr'",
        ),
        (
            lambda: sparse.spmm(
                sparse.csr_matrix(np.eye(3, dtype=np.float16)), np.ones((3, 2), dtype=np.float16)
            ),
            TypeError,
            "sparse.spmm: adj and x (float16 and float16) compute in float16; expected float32 "
            "or float64",
        ),
        (
            lambda: sparse.spmm(
                sparse.csr_matrix(np.eye(3, dtype=np.int64)), np.ones((3, 2), "i8")
            ),
            TypeError,
            "sparse.spmm: adj and x (int64 and int64) compute in int64; expected float32 or "
            "float64 (float16, bfloat16, complex, integer and bool values are refused)",
        ),
        (
            lambda: sparse.spmm(small(), np.ones((3, 2), dtype=np.complex128)),
            TypeError,
            "sparse.spmm: adj and x (float64 and complex128): expected float32 or float64 "
            "(float16, bfloat16, complex, integer and bool values are refused)",
        ),
        (
            lambda: sparse.sddmm(small(), np.ones((2, 4)), np.ones((3, 5))),
            ValueError,
            "sparse.sddmm: expected a.shape=(2, F) and b.shape=(3, F) for adj.shape=(2, 3), got "
            "a.shape=(2, 4) and b.shape=(3, 5)",
        ),
        (
            lambda: sparse.sddmm(small(), np.ones((3, 4)), np.ones((3, 4))),
            ValueError,
            "sparse.sddmm: expected a.shape=(2, F) and b.shape=(3, F) for adj.shape=(2, 3), got "
            "a.shape=(3, 4) and b.shape=(3, 4)",
        ),
        (
            lambda: sparse.sddmm(np.ones((2, 3)), np.ones((2, 4)), np.ones((3, 4))),
            TypeError,
            "sparse.sddmm: adj must be a csr or coo array; got storage type 'default'",
        ),
        (
            lambda: sparse.edge_softmax(small(), np.ones(4)),
            ValueError,
            "sparse.edge_softmax: scores must have one row per stored entry of adj; expected "
            "shape (3,) or (3, heads), got scores.shape=(4,)",
        ),
        (
            lambda: sparse.edge_softmax(small(), np.ones((3, 2, 1))),
            ValueError,
            "sparse.edge_softmax: scores must have one row per stored entry of adj; expected "
            "shape (3,) or (3, heads), got scores.shape=(3, 2, 1)",
        ),
        (
            lambda: sparse.edge_softmax(small(), np.ones(3, dtype=np.int64)),
            TypeError,
            "sparse.edge_softmax: scores has dtype int64; expected float32 or float64 (float16, "
            "bfloat16, complex, integer and bool values are refused)",
        ),
    ],
    ids=[
        "spmm-rows",
        "spmm-vector-rows",
        "spmm-3d",
        "spmm-reduce",
        "spmm-dense-adj",
        "spmm-sparse-x",
        "spmm-float16",
        "spmm-integers",
        "spmm-complex",
        "sddmm-width",
        "sddmm-rows",
        "sddmm-dense-adj",
        "softmax-length",
        "softmax-3d",
        "softmax-int",
    ],
)
def test_bad_inputs(call, kind, message):
    with pytest.raises(kind) as e:
        call()
    assert first_line(e).startswith(message), first_line(e)


def test_the_ops_check_their_own_inputs():
    # The registered ops, reached without sparse.spmm's conversions (mxffi.ops.invoke).
    import mxffi

    a = small()
    x = mnp.ones((3, 2), dtype="float64")
    cases = [
        (
            lambda: mxffi.ops.invoke("_sparse_spmm", a, x, reduce="max"),
            ValueError,
            "_sparse_spmm: reduce 'max' is computed by _sparse_spmm_arg; sparse.spmm chooses "
            "the op for each reduce",
        ),
        (
            lambda: mxffi.ops.invoke("_sparse_spmm_arg", a, x, reduce="sum"),
            ValueError,
            "_sparse_spmm_arg: reduce 'sum' is computed by _sparse_spmm",
        ),
        (
            lambda: mxffi.ops.invoke("_sparse_spmm", a, mnp.ones((3, 2), dtype="float32")),
            TypeError,
            "sparse.spmm: adj and x must have the same dtype; got float64 and float32",
        ),
        (
            lambda: mxffi.ops.invoke("_sparse_sddmm", mnp.ones((2, 3)), x[:2], x),
            TypeError,
            "sparse.sddmm: adj must be a csr array; got storage type 'default'",
        ),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind) as e:
            call()
        assert first_line(e).startswith(message), first_line(e)
    values, arg = mxffi.ops.invoke("_sparse_spmm_arg", a, x, reduce="min")
    assert values.tolist() == [[1.0, 1.0], [3.0, 3.0]] and arg.tolist() == [[0, 0], [2, 2]]


def unchecked(data, indices, indptr, shape, itype="int64"):
    """A csr array holding parts that break the csr rules (constructors would repair them)."""
    return mxtesting.csr_unchecked(
        shape[0],
        shape[1],
        mnp.array(np.asarray(data, dtype=np.float64)),
        mnp.array(np.asarray(indices, dtype=itype)),
        mnp.array(np.asarray(indptr, dtype=itype)),
    )


@pytest.mark.parametrize("itype", ITYPES)
@pytest.mark.parametrize(
    "parts, message",
    [
        (
            ([1.0, 2.0, 3.0], [0, 2, 2], [0, 1, 3]),
            "adj is not canonical: indices[2]=2 follows indices[1]=2 in row 1; columns must "
            "strictly increase within a row (sparse.csr_matrix sorts them and sums duplicates)",
        ),
        (
            ([1.0, 2.0, 3.0], [2, 0, 1], [0, 2, 3]),
            "adj is not canonical: indices[1]=0 follows indices[0]=2 in row 0",
        ),
        (([1.0, 2.0, 3.0], [0, 9, 1], [0, 2, 3]), "indices[1]=9 is out of range for 3 columns"),
        (([1.0, 2.0, 3.0], [0, 1, 1], [0, 2, 1]), "indptr must be non-decreasing; indptr[1]=2 >"),
        (([1.0, 2.0, 3.0], [0, 1, 1], [1, 2, 3]), "indptr[0] must be 0, got 1"),
        (([1.0, 2.0, 3.0], [0, 1, 1], [0, 2, 2]), "indptr[-1] must equal the number of values 3"),
    ],
    ids=["duplicate", "unsorted", "out-of-range", "indptr-order", "indptr-start", "indptr-end"],
)
def test_non_canonical_adj_is_refused(itype, parts, message):
    adj = unchecked(*parts, shape=(2, 3), itype=itype)
    calls = {
        "sparse.spmm": lambda: sparse.spmm(adj, np.ones((3, 2))),
        "sparse.spmm ": lambda: sparse.spmm(adj, np.ones((3, 2)), reduce="max"),
        "sparse.sddmm": lambda: sparse.sddmm(adj, np.ones((2, 2)), np.ones((3, 2))),
        "sparse.edge_softmax": lambda: sparse.edge_softmax(adj, np.ones(3)),
    }
    for name, call in calls.items():
        with pytest.raises(ValueError) as e:
            call()
        assert first_line(e).startswith(f"{name.strip()}: {message}"), first_line(e)


# ---- the CUDA kernels against the CPU ones -----------------------------------------------------

needs_gpu = pytest.mark.skipif(
    not cuda.is_available(), reason=f"no CUDA device: {cuda.unavailable_reason()}"
)
GPU = "cuda:0"


@needs_gpu
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", ITYPES)
def test_gpu_matches_cpu(density, dtype, itype):
    seed = seed_of("gpu", density, dtype, itype)
    rng = np.random.default_rng(seed)
    adj = random_adj(300, 200, density, dtype, itype, seed)
    m = to_mx(adj)
    g = m.to(GPU)
    x = rng.standard_normal((200, 67)).astype(dtype)
    for reduce in ("sum", "mean", "max", "min"):
        cpu = sparse.spmm(m, mnp.array(x), reduce=reduce)
        gpu = sparse.spmm(g, mnp.array(x).to(GPU), reduce=reduce)
        if reduce in ("max", "min"):
            np.testing.assert_array_equal(gpu[1].to("cpu").asnumpy(), cpu[1].asnumpy())
            cpu, gpu = cpu[0], gpu[0]
        np.testing.assert_allclose(gpu.to("cpu").asnumpy(), cpu.asnumpy(), **TOL[dtype])
    a = rng.standard_normal((300, 33)).astype(dtype)
    b = rng.standard_normal((200, 33)).astype(dtype)
    cpu = sparse.sddmm(m, a, b)
    gpu = sparse.sddmm(g, mnp.array(a).to(GPU), mnp.array(b).to(GPU))
    np.testing.assert_allclose(gpu.data.to("cpu").asnumpy(), cpu.data.asnumpy(), **TOL[dtype])
    s = (rng.standard_normal((adj.nnz, 3)) * 50).astype(dtype)
    cpu = sparse.edge_softmax(m, s)
    gpu = sparse.edge_softmax(g, mnp.array(s).to(GPU))
    np.testing.assert_allclose(gpu.to("cpu").asnumpy(), cpu.asnumpy(), **TOL[dtype])


@needs_gpu
def test_gpu_refuses_non_canonical_adj():
    adj = unchecked([1.0, 2.0, 3.0], [2, 0, 1], [0, 2, 3], shape=(2, 3)).to(GPU)
    with pytest.raises(ValueError) as e:
        sparse.spmm(adj, mnp.ones((3, 2), dtype="float64").to(GPU))
    assert first_line(e).startswith(
        "sparse.spmm: adj is not canonical: indices[1]=0 follows indices[0]=2 in row 0"
    )


def test_docs_example_runs():
    # docs/sparse.md cuts its GNN section from this file (the C++ Docs test compares them).
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run(
        [sys.executable, os.path.join(root, "docs", "examples", "sparse_gnn.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "sparse_gnn: ok"
