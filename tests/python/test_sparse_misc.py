"""mxffi.nd.sparse: sparse_retain, csr row slicing (CSRNDArray.__getitem__, sparse.slice), add_n,
sgd_update and adam_update, each against a numpy reference on random data, with the dispatch
mode each storage combination takes and every bad input's exception."""

import numpy as np
import pytest

import mxffi
import mxffi.np as mnp
from mxffi.nd import sparse
from mxffi.ndarray import from_dlpack

DENSITIES = [0.0, 0.01, 0.5, 1.0]
VALUE_DTYPES = [np.float32, np.float64]
INDEX_DTYPES = [np.int32, np.int64]
RSP_SHAPES = [(40, 3), (1, 1), (0, 2), (5, 0), (12, 2, 3)]


def random_dense(shape, density, dtype, seed=0):
    """A dense array with about density of its rows non-zero (row 1 always empty)."""
    rng = np.random.default_rng(seed)
    rows = rng.random(shape[0]) < density
    if shape[0] > 2 and density < 1.0:
        rows[1] = False
    mask = np.broadcast_to(rows.reshape((-1,) + (1,) * (len(shape) - 1)), shape)
    mask = mask & (rng.random(shape) < max(density, 0.5))
    if shape[0] > 0 and density >= 1.0:
        mask = np.ones(shape, bool)
    return np.where(mask, rng.standard_normal(shape) + 2.0, 0.0).astype(dtype)


def rsp(d, itype):
    return sparse.row_sparse_array(d, idx_dtype=np.dtype(itype).name)


def stored_rows(x):
    return np.asarray(x.indices)


def bits(a):
    """The bytes of a float array as unsigned integers, for bit-for-bit comparison."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def tol(dtype):
    return {"rtol": 2e-6, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}


# ---------------------------------------------------------------------------------------------
# sparse_retain


@pytest.mark.parametrize("shape", RSP_SHAPES)
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("req_itype", INDEX_DTYPES)
def test_sparse_retain_matches_numpy(shape, density, dtype, itype, req_itype):
    d = random_dense(shape, density, dtype, seed=shape[0])
    x = rsp(d, itype)
    rng = np.random.default_rng(1)
    # unsorted, with duplicates, naming stored and unstored rows alike
    req = rng.integers(0, max(shape[0], 1), size=shape[0] // 2 + 3).astype(req_itype)
    if shape[0] == 0:
        req = req[:0]
    out = sparse.sparse_retain(x, req)
    assert type(out) is sparse.RowSparseNDArray and out.stype == "row_sparse"
    assert out.shape == shape and out.dtype == np.dtype(dtype).name
    keep = np.zeros(shape[0], bool)
    keep[req] = True
    expected = np.where(keep.reshape((-1,) + (1,) * (len(shape) - 1)), d, 0)
    np.testing.assert_array_equal(out.asnumpy(), expected)
    want_rows = np.intersect1d(stored_rows(x), req)
    np.testing.assert_array_equal(stored_rows(out), want_rows)
    assert np.asarray(out.indices).dtype == itype
    assert mxffi.ops.dispatch("sparse_retain", x, req) == ("fcompute_ex", ["row_sparse"])
    # the result shares nothing with the input
    if out.nnz and out.data.size:
        before = x.asnumpy().copy()
        np.from_dlpack(out.data)[...] = 123.0
        np.testing.assert_array_equal(x.asnumpy(), before)


def test_sparse_retain_all_and_none():
    d = random_dense((10, 4), 0.5, np.float64)
    x = rsp(d, np.int64)
    np.testing.assert_array_equal(sparse.sparse_retain(x, np.arange(10)).asnumpy(), d)
    empty = sparse.sparse_retain(x, np.zeros(0, np.int64))
    assert empty.nnz == 0 and empty.shape == (10, 4)
    np.testing.assert_array_equal(empty.asnumpy(), np.zeros((10, 4)))


def test_sparse_retain_bad_inputs():
    x = rsp(random_dense((5, 3), 0.5, np.float32), np.int32)
    with pytest.raises(
        ValueError, match=r"sparse_retain: indices\[1\]=5 is out of range .* 5 rows"
    ):
        sparse.sparse_retain(x, np.array([0, 5, 1]))
    with pytest.raises(ValueError, match=r"sparse_retain: indices\[0\]=-1 is out of range"):
        sparse.sparse_retain(x, np.array([-1], np.int32))
    with pytest.raises(
        TypeError, match="sparse_retain: indices must be int32 or int64; got float64"
    ):
        sparse.sparse_retain(x, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"sparse_retain: indices must be 1-D; got shape \(1, 2\)"):
        sparse.sparse_retain(x, np.array([[0, 1]]))
    with pytest.raises(
        TypeError, match="sparse_retain: data must be a row_sparse array, got a default"
    ):
        sparse.sparse_retain(mnp.array(np.ones((5, 3))), np.array([0]))
    with pytest.raises(
        TypeError, match="sparse_retain: data must be a row_sparse array, got a csr"
    ):
        sparse.sparse_retain(sparse.csr_matrix(np.eye(3)), np.array([0]))
    with pytest.raises(
        TypeError, match="^sparse.sparse_retain: argument #1 'indices' expected an ndarray"
    ):
        sparse.sparse_retain(x, [0, 1])
    with pytest.raises(
        TypeError, match="sparse_retain: indices must be a dense array, got a row_sparse"
    ):
        sparse.sparse_retain(x, x)
    with pytest.raises(TypeError, match="sparse_retain: data must be row_sparse and indices dense"):
        mxffi.ops.dispatch("sparse_retain", mnp.array(np.ones((2, 2))), np.array([0]))


# ---------------------------------------------------------------------------------------------
# csr row slicing


def random_csr_dense(shape, density, dtype, seed=0):
    rng = np.random.default_rng(seed)
    mask = rng.random(shape) < density
    if shape[0] > 2 and density < 1.0:
        mask[1] = False
    return np.where(mask, rng.standard_normal(shape) + 2.0, 0.0).astype(dtype)


SLICES = [
    slice(None),
    slice(1, 4),
    slice(-3, None),
    slice(None, -2),
    slice(2, 100),
    slice(-100, 3),
    slice(4, 2),
    slice(0, 0),
    slice(1, 4, 1),
    slice(100, None),
]


@pytest.mark.parametrize("shape", [(7, 5), (1, 1), (0, 3), (6, 0)])
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_csr_getitem_matches_numpy(shape, density, dtype, itype):
    import scipy.sparse as sp

    d = random_csr_dense(shape, density, dtype)
    x = sparse.csr_matrix(d, idx_dtype=np.dtype(itype).name)
    for key in SLICES:
        out = x[key]
        assert type(out) is sparse.CSRNDArray, key
        np.testing.assert_array_equal(out.asnumpy(), d[key])
        ref = sp.csr_matrix(d[key])
        np.testing.assert_array_equal(np.asarray(out.indptr), ref.indptr)
        np.testing.assert_array_equal(np.asarray(out.indices), ref.indices)
        assert np.asarray(out.indices).dtype == itype
        assert np.asarray(out.indptr).dtype == itype
        assert out.dtype == np.dtype(dtype).name
    for i in list(range(shape[0])) + list(range(-shape[0], 0)):
        for key in (i, np.int64(i), np.int32(i)):
            row = x[key]
            assert type(row) is sparse.CSRNDArray
            assert row.shape == (1, shape[1])  # MXNet's choice: one row, still 2-D
            np.testing.assert_array_equal(row.asnumpy(), d[i : i + 1 if i != -1 else None])


def test_csr_slice_shares_nothing():
    d = random_csr_dense((6, 4), 0.6, np.float64)
    x = sparse.csr_matrix(d)
    part = x[1:5]
    np.from_dlpack(part.data)[...] = -7.0
    np.testing.assert_array_equal(x.asnumpy(), d)
    whole = x[:]
    np.from_dlpack(x.data)[...] = 1.0
    np.testing.assert_array_equal(whole.asnumpy(), d)


@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_sparse_slice_api_on_every_storage_type(itype):
    d = random_dense((9, 2, 3), 0.5, np.float64)
    r = rsp(d, itype)
    d2 = random_csr_dense((9, 4), 0.5, np.float32)
    c = sparse.csr_matrix(d2, idx_dtype=np.dtype(itype).name)
    for b, e in [(None, None), (2, 7), (-4, None), (None, -1), (5, 3), (-50, 50), (0, 0)]:
        key = slice(b, e)
        out = sparse.slice(r, b, e)
        assert out.stype == "row_sparse"
        np.testing.assert_array_equal(out.asnumpy(), d[key])
        assert np.asarray(out.indices).dtype == itype
        assert sparse.slice(c, b, e).stype == "csr"
        np.testing.assert_array_equal(sparse.slice(c, b, e).asnumpy(), d2[key])
        dense = sparse.slice(mnp.array(d), b, e)
        assert not isinstance(dense, sparse.BaseSparseNDArray)
        np.testing.assert_array_equal(np.asarray(dense), d[key])
    assert mxffi.ops.dispatch("slice_rows", c, begin=1, end=3) == ("fcompute_ex", ["csr"])
    assert mxffi.ops.dispatch("slice_rows", r, begin=1, end=3) == ("fcompute_ex", ["row_sparse"])
    assert mxffi.ops.dispatch("slice_rows", mnp.array(d), begin=1, end=3) == (
        "fcompute",
        ["default"],
    )


def test_csr_getitem_bad_keys():
    x = sparse.csr_matrix(np.eye(4))
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        x[4]
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 0 with size 4"):
        x[-5]
    with pytest.raises(TypeError, match=r"step 1 .* slice\(0, 4, 2\)"):
        x[0:4:2]
    with pytest.raises(TypeError, match=r"step 1 .* slice\(None, None, -1\)"):
        x[::-1]
    with pytest.raises(TypeError, match=r"got \(0, 1\) of type tuple"):
        x[0, 1]
    with pytest.raises(TypeError, match="of type ndarray"):
        x[np.array([0, 1])]
    with pytest.raises(TypeError, match="got True of type bool"):
        x[True]
    with pytest.raises(TypeError, match="got 1.0 of type float"):
        x[1.0]
    with pytest.raises(TypeError, match=r"bounds must be ints or None; got slice\(0.5, 2, None\)"):
        x[0.5:2]
    with pytest.raises(
        TypeError, match=r"^sparse.slice: argument #1 'begin' expected Optional\[int\], got float"
    ):
        sparse.slice(x, 1.5, 2)
    with pytest.raises(
        ValueError, match=r"slice_rows: expected 0 <= begin <= end <= 4 .* begin=3, end=9"
    ):
        mxffi.ops.invoke("slice_rows", x, begin=3, end=9)
    with pytest.raises(ValueError, match="sparse.slice: cannot slice the rows of a 0-d array"):
        sparse.slice(mnp.array(np.float64(1.0)), 0, 1)


# ---------------------------------------------------------------------------------------------
# add_n


@pytest.mark.parametrize("shape", RSP_SHAPES)
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("k", [1, 2, 3, 20])
def test_add_n_row_sparse_matches_numpy(shape, density, dtype, k):
    ds = [random_dense(shape, density, dtype, seed=s) for s in range(k)]
    itypes = [INDEX_DTYPES[s % 2] if k > 1 else np.int32 for s in range(k)]
    xs = [rsp(d, it) for d, it in zip(ds, itypes, strict=True)]
    out = sparse.add_n(*xs)
    assert type(out) is sparse.RowSparseNDArray and out.shape == shape
    expected = ds[0].copy()
    for d in ds[1:]:
        expected += d
    np.testing.assert_allclose(out.asnumpy(), expected, **tol(dtype))
    union = np.unique(np.concatenate([stored_rows(x) for x in xs]).astype(np.int64))
    np.testing.assert_array_equal(stored_rows(out), union)
    assert np.asarray(out.indices).dtype == (np.int64 if np.int64 in itypes else np.int32)
    assert mxffi.ops.dispatch("add_n", *xs) == ("fcompute_ex", ["row_sparse"])


@pytest.mark.parametrize("shape", [(9, 7), (1, 1), (0, 3), (4, 0)])
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("k", [1, 2, 3, 20])
def test_add_n_csr_matches_scipy(shape, density, dtype, k):
    import scipy.sparse as sp

    ds = [random_csr_dense(shape, density, dtype, seed=s) for s in range(k)]
    itypes = [INDEX_DTYPES[s % 2] if k > 1 else np.int32 for s in range(k)]
    xs = [
        sparse.csr_matrix(d, idx_dtype=np.dtype(it).name) for d, it in zip(ds, itypes, strict=True)
    ]
    out = sparse.add_n(*xs)
    assert type(out) is sparse.CSRNDArray and out.shape == shape
    expected = ds[0].copy()
    for d in ds[1:]:
        expected += d
    np.testing.assert_allclose(out.asnumpy(), expected, **tol(dtype))
    # the stored columns are the union of the summands' (values here never cancel)
    ref = sp.csr_matrix(sum((d != 0).astype(np.int8) for d in ds))
    np.testing.assert_array_equal(np.asarray(out.indptr), ref.indptr)
    np.testing.assert_array_equal(np.asarray(out.indices), ref.indices)
    assert np.asarray(out.indices).dtype == (np.int64 if np.int64 in itypes else np.int32)
    assert mxffi.ops.dispatch("add_n", *xs) == ("fcompute_ex", ["csr"])


def test_add_n_csr_keeps_cancelled_columns_as_zeros():
    a = sparse.csr_matrix(np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]))
    b = sparse.csr_matrix(np.array([[-1.0, 5.0, 0.0], [0.0, 0.0, 0.0]]))
    out = sparse.add_n(a, b)
    np.testing.assert_array_equal(out.asnumpy(), [[0.0, 5.0, 2.0], [0.0, 3.0, 0.0]])
    np.testing.assert_array_equal(np.asarray(out.indptr), [0, 3, 4])
    np.testing.assert_array_equal(np.asarray(out.indices), [0, 1, 2, 1])


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_add_n_mixed_storage(density, dtype, itype):
    shape = (8, 5)
    d = [random_csr_dense(shape, density, dtype, seed=s) for s in range(4)]
    dense = mnp.array(d[0])
    r = rsp(d[1], itype)
    c = sparse.csr_matrix(d[2], idx_dtype=np.dtype(itype).name)
    c2 = sparse.csr_matrix(d[3], idx_dtype=np.dtype(itype).name)
    cases = [
        ((dense, r), "default", "fcompute_ex"),
        ((r, dense, c), "default", "fcompute_ex"),
        ((c, r), "default", "fcompute_ex"),
        ((dense, mnp.array(d[1])), "default", "fcompute"),
        ((c, c2), "csr", "fcompute_ex"),
    ]
    vals = {id(dense): d[0], id(r): d[1], id(c): d[2], id(c2): d[3]}
    for arrays, stype, mode in cases:
        out = sparse.add_n(*arrays)
        assert getattr(out, "stype", "default") == stype
        expected = sum(vals.get(id(a), d[1]) for a in arrays)
        np.testing.assert_allclose(np.asarray(out.asnumpy()), expected, **tol(dtype))
        assert mxffi.ops.dispatch("add_n", *arrays) == (mode, [stype])
    # numpy arrays are summands too, and the result never is one of the inputs
    a = d[0].copy()
    out = sparse.add_n(a)
    np.testing.assert_array_equal(out.asnumpy(), d[0])
    np.from_dlpack(out)[...] = 0
    np.testing.assert_array_equal(a, d[0])


@pytest.mark.parametrize("k", [1, 2, 17, 100])
@pytest.mark.parametrize("kind", ["default", "csr", "row_sparse", "mixed"])
def test_add_n_is_one_op_of_any_number_of_inputs(k, kind):
    import scipy.sparse as sp

    shape, dtype = (12, 7), np.float64
    ds = [random_csr_dense(shape, 0.3, dtype, seed=s) for s in range(k)]
    kinds = ["default", "csr", "row_sparse"] if kind == "mixed" else [kind]
    xs = []
    for s, d in enumerate(ds):
        stype = kinds[s % len(kinds)]
        if stype == "default":
            xs.append(mnp.array(d))
        elif stype == "csr":
            xs.append(sparse.csr_matrix(d, idx_dtype=np.dtype(INDEX_DTYPES[s % 2]).name))
        else:
            xs.append(rsp(d, INDEX_DTYPES[s % 2]))
    out = sparse.add_n(*xs)
    expected = ds[0].copy()
    for d in ds[1:]:
        expected += d  # left to right, as the kernels sum
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-13, atol=1e-13)
    stype = "default" if kind == "mixed" else kind
    assert getattr(out, "stype", "default") == stype
    if stype == "csr":
        ref = sp.csr_matrix(sum((d != 0).astype(np.int8) for d in ds))
        np.testing.assert_array_equal(np.asarray(out.indptr), ref.indptr)
        np.testing.assert_array_equal(np.asarray(out.indices), ref.indices)
    # One op, its input count from its num_args parameter, which generic invocation fills in.
    got = mxffi.ops.invoke("add_n", *xs)
    np.testing.assert_array_equal(got.asnumpy(), out.asnumpy())
    dense_only = all(getattr(x, "stype", "default") == "default" for x in xs)
    mode = "fcompute" if dense_only else "fcompute_ex"
    assert mxffi.ops.dispatch("add_n", *xs) == (mode, [stype])
    np.testing.assert_array_equal(
        mxffi.ops.invoke("add_n", *xs, num_args=k).asnumpy(), out.asnumpy()
    )


def test_add_n_describes_itself_as_taking_any_number_of_inputs():
    info = mxffi.ops.info("add_n")
    assert info["num_inputs"] is None and info["num_inputs_param"] == "num_args"
    assert info["arguments"] == ["arrays"] and info["num_outputs"] == 1
    assert "num_args : int, required" in info["params"]
    assert mxffi.ops.info("_npi_add")["num_inputs"] == 2
    assert mxffi.ops.info("_npi_add")["num_inputs_param"] is None
    assert not any(name.startswith("add_n_") for name in mxffi.ops.list_ops())
    a = mnp.ones((2, 2))
    with pytest.raises(TypeError, match=r"^add_n: expected 3 input\(s\) \(num_args=3\), got 2"):
        mxffi.ops.invoke("add_n", a, a, num_args=3)
    with pytest.raises(ValueError, match=r"^add_n: invalid parameter: .*num_args"):
        mxffi.ops.invoke("add_n", num_args=0)
    with pytest.raises(TypeError, match=r"^add_n: expected 2 input\(s\) \(num_args=2\), got 3"):
        mxffi.get_global_func("ops.invoke")("add_n", 3, a, a, a, "num_args", "2")


def test_add_n_bad_inputs():
    a = rsp(np.ones((3, 2)), np.int64)
    with pytest.raises(
        ValueError, match=r"add_n: .*arrays\[0\].shape=\(3, 2\) but arrays\[2\].shape=\(3, 3\)"
    ):
        sparse.add_n(a, a, rsp(np.ones((3, 3)), np.int64))
    with pytest.raises(
        TypeError, match=r"add_n: .*arrays\[0\] is float64 but arrays\[1\] is float32"
    ):
        sparse.add_n(a, rsp(np.ones((3, 2), np.float32), np.int64))
    with pytest.raises(
        TypeError, match=r"add_n: arrays must be float32 or float64; arrays\[0\] is int32"
    ):
        sparse.add_n(np.ones((2, 2), np.int32), np.ones((2, 2), np.int32))
    with pytest.raises(TypeError, match="add_n: expected at least one array, got 0"):
        sparse.add_n()
    with pytest.raises(
        TypeError, match=r"^sparse.add_n: argument #1 expected an ndarray, got float"
    ):
        sparse.add_n(a, 3.0)


# ---------------------------------------------------------------------------------------------
# sgd_update and adam_update


def clip(x, c):
    return np.clip(x, -c, c) if c >= 0 else x


def sgd_ref(w, g, lr, wd, rescale, c):
    t = w.dtype.type
    return w - t(lr) * (clip(t(rescale) * g, t(c)) + t(wd) * w)


def adam_ref(w, g, m, v, lr, b1, b2, eps, wd, rescale, c):
    t = w.dtype.type
    g = clip(t(rescale) * g + t(wd) * w, t(c))  # MXNet clips after weight decay
    m = t(b1) * m + (t(1) - t(b1)) * g
    v = t(b2) * v + (t(1) - t(b2)) * g * g
    return w - t(lr) * m / (np.sqrt(v) + t(eps)), m, v


HYPER = [
    {"lr": 0.1, "wd": 0.0, "rescale_grad": 1.0, "clip_gradient": -1.0},
    {"lr": 0.05, "wd": 0.01, "rescale_grad": 0.5, "clip_gradient": 1.5},
]


def as_mxffi(a):
    return mnp.array(a)


@pytest.mark.parametrize("shape", [(30, 4), (1, 1), (0, 3), (10, 2, 3)])
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("hp", HYPER)
def test_sgd_update_matches_numpy(shape, density, dtype, itype, hp):
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal(shape).astype(dtype)
    gd = random_dense(shape, density, dtype, seed=5) * 2
    present = np.zeros(shape[0], bool)
    present[stored_rows(rsp(gd, itype))] = True
    for grad, lazy, mode in [
        (as_mxffi(gd), True, "fcompute"),
        (gd, True, "fcompute"),
        (rsp(gd, itype), True, "fcompute_ex"),
        (rsp(gd, itype), False, "fcompute_ex"),
    ]:
        w = as_mxffi(w0)
        view = np.from_dlpack(w)
        assert mxffi.ops.dispatch("sgd_update", w, grad, lazy_update=lazy, **hp) == (
            mode,
            ["default"],
        )
        out = sparse.sgd_update(w, grad, lazy_update=lazy, **hp)
        assert out is w  # the weight itself, updated in place
        ref = sgd_ref(w0, gd, hp["lr"], hp["wd"], hp["rescale_grad"], hp["clip_gradient"])
        if isinstance(grad, sparse.RowSparseNDArray) and lazy:
            np.testing.assert_allclose(view[present], ref[present], **tol(dtype))
            np.testing.assert_array_equal(bits(view[~present]), bits(w0[~present]))
        else:
            np.testing.assert_allclose(view, ref, **tol(dtype))


@pytest.mark.parametrize("shape", [(30, 4), (1, 1), (0, 3), (10, 2, 3)])
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("hp", HYPER)
def test_adam_update_matches_numpy(shape, density, dtype, itype, hp):
    rng = np.random.default_rng(4)
    w0 = rng.standard_normal(shape).astype(dtype)
    m0 = rng.standard_normal(shape).astype(dtype) * 0.1
    v0 = rng.random(shape).astype(dtype) * 0.1
    gd = random_dense(shape, density, dtype, seed=6) * 2
    present = np.zeros(shape[0], bool)
    present[stored_rows(rsp(gd, itype))] = True
    extra = {"beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6}
    for grad, lazy, mode in [
        (as_mxffi(gd), True, "fcompute"),
        (rsp(gd, itype), True, "fcompute_ex"),
        (rsp(gd, itype), False, "fcompute_ex"),
    ]:
        w, m, v = as_mxffi(w0), as_mxffi(m0), as_mxffi(v0)
        views = [np.from_dlpack(a) for a in (w, m, v)]
        kw = dict(hp, lazy_update=lazy, **extra)
        assert mxffi.ops.dispatch("adam_update", w, grad, m, v, **kw) == (mode, ["default"] * 3)
        out = sparse.adam_update(w, grad, m, v, **kw)
        assert out is w
        refs = adam_ref(
            w0, gd, m0, v0, hp["lr"], extra["beta1"], extra["beta2"], extra["epsilon"],
            hp["wd"], hp["rescale_grad"], hp["clip_gradient"],
        )  # fmt: skip
        for view, ref, before in zip(views, refs, (w0, m0, v0), strict=True):
            if isinstance(grad, sparse.RowSparseNDArray) and lazy:
                np.testing.assert_allclose(view[present], ref[present], **tol(dtype))
                np.testing.assert_array_equal(bits(view[~present]), bits(before[~present]))
            else:
                np.testing.assert_allclose(view, ref, **tol(dtype))


def test_adam_defaults_are_mxnets():
    rng = np.random.default_rng(0)
    w0, g = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    w, m, v = mnp.array(w0), mnp.zeros((5, 3)), mnp.zeros((5, 3))
    sparse.adam_update(w, g, m, v, 0.01)
    ref = adam_ref(w0, g, np.zeros((5, 3)), np.zeros((5, 3)), 0.01, 0.9, 0.999, 1e-8, 0, 1, -1)
    for got, want in zip((w, m, v), ref, strict=True):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


def test_updates_write_through_strided_weights():
    base = np.arange(40, dtype=np.float64).reshape(5, 8)
    w = from_dlpack(base[:, ::2])  # a strided view of base's memory
    g = np.zeros((5, 4))
    g[2] = 1.0
    expected = base.copy()
    expected[:, ::2] = sgd_ref(base[:, ::2], g, 0.5, 0.0, 1.0, -1.0)
    sparse.sgd_update(w, rsp(g, np.int64), 0.5)
    np.testing.assert_array_equal(base, expected)
    sparse.sgd_update(w, g, 0.5)
    expected[:, ::2] = sgd_ref(expected[:, ::2], g, 0.5, 0.0, 1.0, -1.0)
    np.testing.assert_array_equal(base, expected)


def test_csr_gradient_takes_the_dense_fallback():
    w0 = np.ones((4, 3))
    g = np.zeros((4, 3))
    g[1, 2] = 2.0
    w = mnp.array(w0)
    c = sparse.csr_matrix(g)
    assert mxffi.ops.dispatch("sgd_update", w, c, lr=0.1, wd=0.1) == ("fallback", ["default"])
    sparse.sgd_update(w, c, 0.1, wd=0.1)
    np.testing.assert_allclose(np.asarray(w), sgd_ref(w0, g, 0.1, 0.1, 1.0, -1.0))


def test_update_bad_inputs():
    w = mnp.array(np.ones((4, 3)))
    m, v = mnp.zeros((4, 3)), mnp.zeros((4, 3))
    g = np.ones((4, 3))
    with pytest.raises(
        ValueError, match=r"sgd_update: grad.shape=\(4, 2\) does not match weight.shape=\(4, 3\)"
    ):
        sparse.sgd_update(w, np.ones((4, 2)), 0.1)
    with pytest.raises(ValueError, match=r"sgd_update: grad.shape=\(5, 3\) does not match"):
        sparse.sgd_update(w, rsp(np.ones((5, 3)), np.int64), 0.1)
    with pytest.raises(
        TypeError, match="sgd_update: grad.dtype=float32 does not match weight.dtype=float64"
    ):
        sparse.sgd_update(w, g.astype(np.float32), 0.1)
    with pytest.raises(TypeError, match="sgd_update: weight must be float32 or float64; got int64"):
        sparse.sgd_update(mnp.array(np.ones((4, 3), np.int64)), g, 0.1)
    with pytest.raises(
        TypeError,
        match=r"^sparse.sgd_update: argument #0 'weight' expected a writable mxffi ndarray, got "
        r"DLTensor\*",
    ):
        sparse.sgd_update(np.ones((4, 3)), g, 0.1)
    with pytest.raises(
        TypeError, match="sgd_update: weight must be a dense array, got a row_sparse"
    ):
        sparse.sgd_update(rsp(np.ones((4, 3)), np.int64), g, 0.1)
    ro = np.ones((4, 3))
    ro.flags.writeable = False
    with pytest.raises(
        ValueError, match="^sparse.sgd_update: argument #0 'weight': the array is read-only"
    ):
        sparse.sgd_update(from_dlpack(ro), g, 0.1)
    with pytest.raises(
        TypeError, match="^sparse.sgd_update: argument #2 'lr' expected float, got str"
    ):
        sparse.sgd_update(w, g, "0.1")
    with pytest.raises(
        TypeError, match="^sparse.sgd_update: argument #6 'lazy_update' expected bool, got str"
    ):
        sparse.sgd_update(w, g, 0.1, lazy_update="yes")
    with pytest.raises(
        TypeError, match="^sparse.sgd_update: argument #1 'grad' expected an ndarray, got"
    ):
        sparse.sgd_update(w, [[1.0]], 0.1)
    with pytest.raises(
        ValueError, match=r"adam_update: var.shape=\(4, 4\) does not match weight.shape=\(4, 3\)"
    ):
        sparse.adam_update(w, g, m, mnp.zeros((4, 4)), 0.1)
    with pytest.raises(TypeError, match="adam_update: mean.dtype=float32 does not match"):
        sparse.adam_update(w, g, mnp.zeros((4, 3), dtype="float32"), v, 0.1)
    with pytest.raises(
        TypeError, match="adam_update: mean must be a dense array, got a row_sparse"
    ):
        sparse.adam_update(w, g, rsp(np.ones((4, 3)), np.int32), v, 0.1)
    with pytest.raises(
        TypeError, match="^sparse.adam_update: argument #3 'var' expected a writable mxffi ndarray"
    ):
        sparse.adam_update(w, g, m, np.zeros((4, 3)), 0.1)
    with pytest.raises(ValueError, match="adam_update: mean and var are the same memory"):
        sparse.adam_update(w, g, m, m, 0.1)
    with pytest.raises(ValueError, match="adam_update: weight and mean are the same memory"):
        sparse.adam_update(w, g, w, v, 0.1)
    with pytest.raises(
        TypeError, match="^sparse.adam_update: argument #5 'beta1' expected float, got None"
    ):
        sparse.adam_update(w, g, m, v, 0.1, beta1=None)
    with pytest.raises(TypeError, match="adam_update: weight must be a dense array"):
        mxffi.ops.dispatch("adam_update", rsp(np.ones((4, 3)), np.int32), g, m, v, lr=0.1)
    # nothing was written by the calls that failed
    np.testing.assert_array_equal(np.asarray(w), np.ones((4, 3)))
    np.testing.assert_array_equal(np.asarray(m), np.zeros((4, 3)))


def test_large_inputs_split_across_the_pool():
    """Inputs big enough that the kernels split their work across threads."""
    import scipy.sparse as sp

    rng = np.random.default_rng(7)
    shape = (6000, 48)
    ds = [random_dense(shape, 0.5, np.float64, seed=s) for s in range(3)]
    xs = [rsp(d, np.int64) for d in ds]
    np.testing.assert_allclose(sparse.add_n(*xs).asnumpy(), ds[0] + ds[1] + ds[2], rtol=1e-12)
    np.testing.assert_allclose(
        sparse.add_n(mnp.array(ds[0]), xs[1], mnp.array(ds[2])).asnumpy(),
        ds[0] + ds[1] + ds[2],
        rtol=1e-12,
    )
    cs = [sp.random(6000, 300, 0.2, format="csr", random_state=s) for s in range(3)]
    out = sparse.add_n(*[sparse.csr_matrix(c) for c in cs])
    np.testing.assert_allclose(out.asnumpy(), (cs[0] + cs[1] + cs[2]).toarray(), rtol=1e-12)
    req = rng.integers(0, shape[0], 4000)
    keep = np.zeros(shape[0], bool)
    keep[req] = True
    np.testing.assert_array_equal(
        sparse.sparse_retain(xs[0], req).asnumpy(), np.where(keep[:, None], ds[0], 0)
    )
    present = np.asarray(xs[1].indices)
    for lazy in (True, False):
        w0 = rng.standard_normal(shape)
        w, m, v = mnp.array(w0), mnp.zeros(shape), mnp.zeros(shape)
        sparse.adam_update(w, xs[1], m, v, 0.01, wd=0.1, lazy_update=lazy)
        ref = adam_ref(w0, ds[1], 0 * w0, 0 * w0, 0.01, 0.9, 0.999, 1e-8, 0.1, 1.0, -1.0)[0]
        rows = present if lazy else slice(None)
        np.testing.assert_allclose(np.asarray(w)[rows], ref[rows], rtol=1e-12)
        w = mnp.array(w0)
        sparse.sgd_update(w, xs[1], 0.01, wd=0.1, lazy_update=lazy)
        ref = sgd_ref(w0, ds[1], 0.01, 0.1, 1.0, -1.0)
        np.testing.assert_allclose(np.asarray(w)[rows], ref[rows], rtol=1e-12)
        if lazy:
            absent = np.setdiff1d(np.arange(shape[0]), present)
            np.testing.assert_array_equal(bits(np.asarray(w)[absent]), bits(w0[absent]))
