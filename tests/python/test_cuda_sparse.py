"""Sparse ops on a CUDA device against the same ops on the CPU: cast_storage in every direction,
csr sum and mean, the zero-preserving ops on stored values, zeros_like, quadratic, slice_rows,
sparse_retain, and the dense fallback densifying a csr input on the GPU.

Inputs are built on the CPU and copied to the device; each GPU result is copied back and its
parts (data, indices, indptr) must equal the CPU result's exactly (canonical csr, the same index
dtype), as must its dense form, except where floats are summed in another order.
"""

import numpy as np
import pytest

import mxffi
import mxffi.np as mnp
from mxffi import cuda
from mxffi.nd import sparse

needs_gpu = pytest.mark.skipif(
    not cuda.is_available(), reason=f"no CUDA device: {cuda.unavailable_reason()}"
)
pytestmark = needs_gpu

GPU = "cuda:0"
DENSITIES = [0.0, 0.01, 0.2, 1.0]
SHAPES = [(0, 5), (4, 0), (1, 1), (1013, 77), (33, 4099), (8, 32)]
INDEX_DTYPES = ["int32", "int64"]
VALUE_DTYPES = [
    "bool",
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
]


@pytest.fixture(autouse=True)
def _quiet_fallback(monkeypatch):
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")


def random_dense(shape, density, dtype, seed=0):
    """About density of the entries non-zero, of both signs where the dtype has them, with an
    empty row and column where the shape has room; a few -0.0 and NaN among float zeros and
    values (-0.0 counts as a zero, NaN as a value)."""
    rng = np.random.default_rng(seed)
    mask = rng.random(shape) < density
    if len(shape) > 1 and shape[0] > 2 and density < 1.0:
        mask[1] = False
    if len(shape) > 1 and shape[1] > 2 and density < 1.0:
        mask[:, 2] = False
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return mask
    if dt.kind == "f":
        values = rng.standard_normal(shape) * 4
        values += np.sign(values)
        out = np.where(mask, values, 0.0).astype(dt)
        flat = out.reshape(-1)
        if flat.size > 8 and 0 < density < 1:
            flat[3] = -0.0
            flat[flat.size // 2] = np.nan
        return out
    lo = 0 if dt.kind == "u" else -100
    values = rng.integers(lo, 100, size=shape)
    values[values == 0] = 7
    return np.where(mask, values, 0).astype(dt)


def on_gpu(x):
    return x.device.type == "cuda"  # sparse arrays have no __dlpack_device__


def stype_of(x):
    return getattr(x, "stype", "default")  # dense arrays have no stype attribute


def parts(x):
    """The parts of x (a CPU array): the dense array, or data, indices (and indptr)."""
    if stype_of(x) == "default":
        return [np.asarray(x.asnumpy())]
    out = [np.asarray(x.data), np.asarray(x.indices)]
    if stype_of(x) == "csr":
        out.append(np.asarray(x.indptr))
    return out


def assert_same(got, want, rtol=None):
    """got (a GPU result) equals want (the CPU result): storage type, shape, dtype, parts and
    the dense form; values exactly, or to rtol where given."""
    assert on_gpu(got)
    assert stype_of(got) == stype_of(want)
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype == want.dtype
    host = got.to("cpu")
    assert not on_gpu(host)
    for g, w in zip(parts(host), parts(want), strict=True):
        assert g.dtype == w.dtype
        assert g.shape == w.shape
        if rtol is None or g.dtype.kind not in "fc":
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)
    if rtol is None:
        np.testing.assert_array_equal(host.asnumpy(), want.asnumpy())


def make(stype, dense, itype="int64"):
    if stype == "csr":
        return sparse.csr_matrix(dense, idx_dtype=itype)
    if stype == "row_sparse":
        return sparse.row_sparse_array(dense, idx_dtype=itype)
    return mnp.array(dense)


def cases(shapes=SHAPES):
    for i, shape in enumerate(shapes):
        for j, density in enumerate(DENSITIES):
            yield shape, density, 10 * i + j


# ---------------------------------------------------------------------------------------------
# cast_storage


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_cast_from_dense_matches_cpu(dtype, itype):
    for shape, density, seed in cases():
        d = random_dense(shape, density, dtype, seed)
        x = mnp.array(d)
        xg = x.to(GPU)
        for stype in ("csr", "row_sparse", "default"):
            want = sparse.cast_storage(x, stype, idx_dtype=itype)
            got = sparse.cast_storage(xg, stype, idx_dtype=itype)
            assert_same(got, want)


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_cast_between_sparse_types_matches_cpu(dtype, itype):
    for shape, density, seed in cases():
        d = random_dense(shape, density, dtype, seed)
        for src in ("csr", "row_sparse"):
            x = make(src, d, itype)
            xg = x.to(GPU)
            for stype in ("default", "csr", "row_sparse"):
                want = sparse.cast_storage(x, stype)
                got = sparse.cast_storage(xg, stype)
                assert_same(got, want)
                assert stype_of(got.to("cpu")) == stype


@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_cast_row_sparse_of_more_dimensions(itype):
    for density in DENSITIES:
        d = random_dense((37, 3, 5), density, "float32", 5)
        x = mnp.array(d)
        want = sparse.cast_storage(x, "row_sparse", idx_dtype=itype)
        got = sparse.cast_storage(x.to(GPU), "row_sparse", idx_dtype=itype)
        assert_same(got, want)
        back = sparse.cast_storage(got, "default")
        np.testing.assert_array_equal(back.to("cpu").asnumpy(), d)


def test_cast_of_a_strided_dense_array():
    d = random_dense((64, 90), 0.2, "float64", 3)
    xg = mnp.array(d).to(GPU)
    view = mnp.transpose(xg)  # a transposed view: not C-contiguous
    want = sparse.cast_storage(mnp.array(np.ascontiguousarray(d.T)), "csr")
    assert_same(sparse.cast_storage(view, "csr"), want)
    want = sparse.cast_storage(mnp.array(np.ascontiguousarray(d.T)), "row_sparse")
    assert_same(sparse.cast_storage(view, "row_sparse"), want)


def test_cast_of_a_wide_matrix_uses_every_segment():
    # Rows longer than one segment (4096 columns), 16-byte aligned (vector loads) or not.
    for cols in (4096, 8192 + 3, 12288):
        d = random_dense((5, cols), 0.05, "float32", cols)
        x = mnp.array(d)
        assert_same(sparse.cast_storage(x.to(GPU), "csr"), sparse.cast_storage(x, "csr"))


def test_cast_to_int32_indices_is_refused_when_they_do_not_fit():
    # Checked before any large allocation: cols beyond int32 with int32 indices.
    x = mnp.zeros((0, 2**31 + 1), device=GPU)
    with pytest.raises(ValueError, match="do not fit int32 indices"):
        sparse.cast_storage(x, "csr", idx_dtype="int32")


# ---------------------------------------------------------------------------------------------
# The fallback: a dense op given csr inputs on the GPU


def test_dense_op_on_csr_falls_back_on_the_gpu():
    d = random_dense((50, 13), 0.2, "float32", 1)
    x = sparse.csr_matrix(d)
    xg = x.to(GPU)
    # c != 0 fills every element, and exp has no sparse kernel: both make xg dense on the GPU.
    assert mxffi.ops.dispatch("quadratic", xg, a=1.0, b=2.0, c=3.0) == ("fallback", ["default"])
    want = mxffi.ops.invoke("quadratic", x, a=1.0, b=2.0, c=3.0)
    got = mxffi.ops.invoke("quadratic", xg, a=1.0, b=2.0, c=3.0)
    assert on_gpu(got) and stype_of(got) == "default"
    np.testing.assert_allclose(got.to("cpu").asnumpy(), want.asnumpy(), rtol=1e-6)
    assert mxffi.ops.dispatch("_npi_exp", xg) == ("fallback", ["default"])
    got = mnp.exp(xg)
    assert on_gpu(got) and stype_of(got) == "default"
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(got.to("cpu").asnumpy(), np.exp(d), rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# sum and mean of csr


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_csr_sum_and_mean_match_cpu(dtype, itype):
    for shape, density, seed in cases():
        d = random_dense(shape, density, dtype, seed)
        if np.dtype(dtype).kind == "f":
            d = np.nan_to_num(d)
        x = sparse.csr_matrix(d, idx_dtype=itype)
        xg = x.to(GPU)
        for axis in (0, 1, None, (0, 1), -1):
            for keepdims in (False, True):
                for fn in (mnp.sum, mnp.mean):
                    want = fn(x, axis=axis, keepdims=keepdims)
                    assert mxffi.ops.dispatch(
                        "_sum" if fn is mnp.sum else "_mean", xg, axis=axis, keepdims=keepdims
                    ) == ("fcompute_ex", ["default"])
                    got = fn(xg, axis=axis, keepdims=keepdims)
                    assert_same(got, want, rtol=1e-5)
        got = mnp.sum(xg, axis=0, dtype="float64")
        assert_same(got, mnp.sum(x, axis=0, dtype="float64"), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64"])
def test_csr_sum_to_an_integer_dtype_converts_floats_as_the_cpu(dtype):
    # Negative, out-of-range, NaN and infinite floats cast as numpy's astype (through int64),
    # not as a saturating device cast.
    d = np.array(
        [[-1.0, 0, 300.5, 0], [3e9, -2.5, 0, 7.0], [0, 0, 0, 0], [np.nan, np.inf, 0, -1e30]]
    )
    x = sparse.csr_matrix(d)
    xg = x.to(GPU)
    for axis in (0, 1, None):
        want = mnp.sum(x, axis=axis, dtype=dtype)
        assert mxffi.ops.dispatch("_sum", xg, axis=axis, dtype=dtype)[0] == "fcompute_ex"
        assert_same(mnp.sum(xg, axis=axis, dtype=dtype), want)


# ---------------------------------------------------------------------------------------------
# Ops on the stored values


UNARY = ["_npi_negative", "_npi_absolute", "_npi_square", "_npi_sqrt", "_npi_sign", "relu"]


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int8", "float16"])
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_values_ops_match_cpu(stype, dtype, itype):
    for shape, density, seed in cases(SHAPES[:4]):
        d = random_dense(shape, density, dtype, seed)
        x = make(stype, d, itype)
        xg = x.to(GPU)
        for op in UNARY:
            assert mxffi.ops.dispatch(op, xg) == ("fcompute_ex", [stype])
            with np.errstate(all="ignore"):
                want = mxffi.ops.invoke(op, x)
            # sqrt may differ from the CPU's in the last ulp; the rest are exact.
            rtol = (1e-3 if dtype in ("float16", "int8") else 1e-6) if op == "_npi_sqrt" else None
            assert_same(mxffi.ops.invoke(op, xg), want, rtol=rtol)
        for op, scalar in (("_npi_multiply_scalar", -1.5), ("_npi_true_divide_scalar", 4.0)):
            want = mxffi.ops.invoke(op, x, scalar=scalar)
            got = mxffi.ops.invoke(op, xg, scalar=scalar)
            assert got.stype == stype
            assert_same(got, want)


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_zeros_like_matches_cpu(stype, itype):
    for shape, density, seed in cases():
        d = random_dense(shape, density, "float32", seed)
        x = make(stype, d, itype)
        xg = x.to(GPU)
        assert mxffi.ops.dispatch("zeros_like", xg) == ("fcompute_ex", [stype])
        assert_same(mnp.zeros_like(xg), mnp.zeros_like(x))
        assert_same(mnp.zeros_like(xg, dtype="int16"), mnp.zeros_like(x, dtype="int16"))
    dense = mnp.array(random_dense((7, 9), 1.0, "float64")).to(GPU)
    assert mxffi.ops.dispatch("zeros_like", dense) == ("fcompute", ["default"])
    z = mnp.zeros_like(dense)
    assert on_gpu(z)
    np.testing.assert_array_equal(z.to("cpu").asnumpy(), np.zeros((7, 9)))
    z = mnp.zeros_like(mnp.transpose(dense), dtype="uint8")  # a strided input
    np.testing.assert_array_equal(z.to("cpu").asnumpy(), np.zeros((9, 7), np.uint8))


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_quadratic_of_csr_matches_cpu(dtype, itype):
    for shape, density, seed in cases():
        d = random_dense(shape, density, dtype, seed)
        x = sparse.csr_matrix(d, idx_dtype=itype)
        xg = x.to(GPU)
        for a, b in ((2.0, -3.0), (0.5, 0.25), (0.0, 1.0)):
            assert mxffi.ops.dispatch("quadratic", xg, a=a, b=b) == ("fcompute_ex", ["csr"])
            want = mxffi.ops.invoke("quadratic", x, a=a, b=b)
            got = mxffi.ops.invoke("quadratic", xg, a=a, b=b)
            assert_same(got, want)


# ---------------------------------------------------------------------------------------------
# slice_rows and sparse_retain

RANGES = [(0, None), (1, 4), (3, 3), (0, 0), (-1, None), (2, -1)]


@pytest.mark.parametrize("stype", ["default", "csr", "row_sparse"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "bool", "float16"])
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_slice_rows_matches_cpu(stype, dtype, itype):
    for shape, density, seed in cases():
        d = random_dense(shape, density, dtype, seed)
        x = make(stype, d, itype)
        xg = x.to(GPU)
        rows = shape[0]
        for b, e in RANGES:
            begin, end, _ = slice(b, e).indices(rows)
            end = max(begin, end)
            want = mxffi.ops.invoke("slice_rows", x, begin=begin, end=end)
            got = mxffi.ops.invoke("slice_rows", xg, begin=begin, end=end)
            assert_same(got, want)
    d = random_dense((11, 3, 4), 0.3, "float32", 9)
    for stype in ("default", "row_sparse"):
        x = make(stype, d)
        want = mxffi.ops.invoke("slice_rows", x, begin=2, end=9)
        assert_same(mxffi.ops.invoke("slice_rows", x.to(GPU), begin=2, end=9), want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "float16"])
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("req_itype", INDEX_DTYPES)
def test_sparse_retain_matches_cpu(dtype, itype, req_itype):
    rng = np.random.default_rng(4)
    for shape in [(0, 3), (1, 1), (1013, 7), (50, 2, 3), (9, 0)]:
        for density in DENSITIES:
            d = random_dense(shape, density, dtype, 7)
            x = sparse.row_sparse_array(d, idx_dtype=itype)
            xg = x.to(GPU)
            rows = shape[0]
            for n in (0, 1, rows // 2, 2 * rows):
                req = rng.integers(0, max(rows, 1), size=n if rows else 0).astype(req_itype)
                want = sparse.sparse_retain(x, mnp.array(req))
                got = sparse.sparse_retain(xg, mnp.array(req).to(GPU))
                assert_same(got, want)


def test_sparse_retain_out_of_range_on_the_gpu():
    x = sparse.row_sparse_array(random_dense((5, 3), 0.5, "float32")).to(GPU)
    with pytest.raises(
        ValueError, match=r"sparse_retain: indices\[1\]=5 is out of range .* 5 rows"
    ):
        sparse.sparse_retain(x, mnp.array(np.array([0, 5, 1, 7])).to(GPU))
    with pytest.raises(ValueError, match=r"sparse_retain: indices\[0\]=-1 is out of range"):
        sparse.sparse_retain(x, mnp.array(np.array([-1], np.int32)).to(GPU))
    # The device and the array are usable afterwards.
    got = sparse.sparse_retain(x, mnp.array(np.array([4, 0])).to(GPU))
    assert got.to("cpu").asnumpy().shape == (5, 3)
