"""Matrix products on a CUDA device: np.matmul, np.tensordot and np.dot (the ops _matmul and
_tensordot), and mxffi.nd.sparse.dot (the op dot) with dense and csr operands, each compared
with the same op on the CPU (exact for integers and bool) and, for the sparse products, with
scipy. Also: libmxffi.so has no link dependency on cuBLAS, which is loaded only when a float
product first runs on a GPU.
"""

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DTYPES, mxffi_config, np_dtype
from sparse_cases import random_dense

import mxffi
import mxffi.np as mnp
from mxffi import cuda
from mxffi.nd import sparse

needs_gpu = pytest.mark.skipif(
    not cuda.is_available(), reason=f"no CUDA device: {cuda.unavailable_reason()}"
)

DEVICE = "cuda:0"
# Relative tolerance of a float result, against the sum of the magnitudes of its products.
RTOL = {"float16": 1e-2, "bfloat16": 1e-2, "float32": 1e-5, "float64": 1e-12}


def test_libmxffi_does_not_link_cublas():
    libdir = Path(mxffi_config("--libdir"))
    libs = sorted(libdir.glob("libmxffi.so*"))
    assert libs, f"no libmxffi.so in {libdir}"
    if shutil.which("ldd") is None:
        pytest.skip("ldd is not on PATH")
    for lib in libs:
        out = subprocess.run(["ldd", str(lib)], capture_output=True, text=True, check=True)
        assert "cublas" not in out.stdout, out.stdout


def make(shape, dtype, rng):
    """Random values; integers over their whole range so that products wrap around."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    dt = np_dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.asarray(rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True))
    return np.asarray(rng.standard_normal(shape).astype(dt))


def gpu(x):
    """x (numpy or mxffi, dense or sparse) copied to the GPU."""
    if isinstance(x, np.ndarray):
        x = mnp.array(x)
    return x.to(DEVICE)


def assert_same_product(got, want, bound, dtype):
    """got (from the GPU) equals want (the CPU op's result): exactly for integers and bool,
    for floats within RTOL times bound, the same product over the operands' magnitudes."""
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
        return
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    tol = RTOL[str(want.dtype)] * np.asarray(bound, dtype=np.float64) + 1e-30
    assert (diff <= tol).all(), (diff.max(), float(np.min(tol)) if tol.size else tol)


def magnitude(func, a, b):
    """func over |a| and |b| in float64: the scale of each result's rounding error."""
    return np.asarray(func(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64))))


def check_on_gpu(func, a, b, dtype_name=None):
    """func(gpu a, gpu b) against func(cpu a, cpu b), with func an mxffi.np function."""
    want = func(mnp.array(a), mnp.array(b))
    got = func(gpu(a), gpu(b))
    assert str(got.device).startswith("cuda"), got.device
    return got.asnumpy(), want.asnumpy()


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((3,), (3, 4)),
    ((3, 4), (4,)),
    ((3,), (2, 3, 4)),
    ((2, 3, 4), (4,)),
    ((1, 1), (1, 1)),
    ((67, 129), (129, 33)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),  # both broadcast: a loop of strided-batched calls
    ((1, 3, 4), (2, 4, 5)),
    ((3, 1, 5, 7), (1, 4, 7, 6)),
    ((0, 3, 4), (4, 5)),
    ((2, 3, 0), (0, 5)),  # an empty sum: zeros
    ((2, 0, 4), (4, 5)),
    ((3, 4), (4, 0)),
    ((500, 8, 8), (8, 8)),
    ((2, 90, 70), (70, 80)),
    ((1, 257, 300), (300, 65)),
]


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_matches_cpu(dtype):
    rng = np.random.default_rng(DTYPES.index(dtype))
    for sa, sb in MATMUL_SHAPES:
        a, b = make(sa, dtype, rng), make(sb, dtype, rng)
        got, want = check_on_gpu(mnp.matmul, a, b)
        assert_same_product(got, want, magnitude(np.matmul, a, b), dtype)


TENSORDOT_CASES = [
    ((3, 4), (4, 5), 1),
    ((3, 4), (3, 4), 2),
    ((3, 4), (5, 6), 0),
    ((2, 3, 4), (3, 4, 5), 2),
    ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])),
    ((2, 3, 4), (4, 2, 5), ([2, 0], [0, 1])),  # a's summed axes not adjacent: packed
    ((40, 30), (40, 50), ([0], [0])),  # a transposed: read as it lies
    ((30, 40), (50, 40), ([1], [1])),  # b transposed
    ((40, 30), (50, 40), ([0], [1])),  # both
    ((2, 3, 4, 5), (5, 4, 3), ([3, 2, 1], [0, 1, 2])),
    ((2, 3, 4, 5), (3, 5, 6), ([1, 3], [0, 1])),
    ((0, 4), (4, 3), 1),
    ((4, 0), (0, 3), 1),
    ((), (), 0),
    ((), (3,), 0),
    ((67, 129), (129, 33), 1),
]


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_tensordot_matches_cpu(dtype):
    rng = np.random.default_rng(200 + DTYPES.index(dtype))
    for sa, sb, axes in TENSORDOT_CASES:
        a, b = make(sa, dtype, rng), make(sb, dtype, rng)
        np_axes = axes if isinstance(axes, int) else tuple(axes)

        def func(x, y, ax=axes):
            return mnp.tensordot(x, y, axes=ax)

        got, want = check_on_gpu(func, a, b)
        bound = magnitude(lambda x, y, ax=np_axes: np.tensordot(x, y, ax), a, b)
        assert_same_product(got, want, bound, dtype)


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_np_dot_matches_cpu(dtype):
    rng = np.random.default_rng(300 + DTYPES.index(dtype))
    for sa, sb in [((4,), (4,)), ((3, 4), (4,)), ((67, 129), (129, 33)), ((2, 3, 4), (5, 4, 2))]:
        a, b = make(sa, dtype, rng), make(sb, dtype, rng)
        got, want = check_on_gpu(mnp.dot, a, b)
        assert_same_product(got, want, magnitude(np.dot, a, b), dtype)


MIXED = [
    ("int8", "float32"),
    ("uint64", "int64"),
    ("bool", "int8"),
    ("float16", "float32"),
    ("bfloat16", "float32"),
    ("uint8", "float16"),
    ("int32", "float64"),
    ("uint16", "int16"),
]


@needs_gpu
@pytest.mark.parametrize("da, db", MIXED)
def test_mixed_dtypes_match_cpu(da, db):
    rng = np.random.default_rng(1)
    for sa, sb in [((3, 4), (4, 5)), ((24, 40), (40, 16)), ((2, 5, 6), (6, 3))]:
        a, b = make(sa, da, rng), make(sb, db, rng)
        for func, ref in [(mnp.matmul, np.matmul), (mnp.dot, np.dot)]:
            got, want = check_on_gpu(func, a, b)
            assert_same_product(got, want, magnitude(ref, a, b), str(want.dtype))


@needs_gpu
def test_integer_wraparound_and_bool():
    a = np.full((3, 70), 2**31 - 1, dtype=np.int32)
    b = np.full((70, 2), 3, dtype=np.int32)
    got = mnp.matmul(gpu(a), gpu(b)).asnumpy()
    np.testing.assert_array_equal(got, a @ b)
    x = np.array([[True, False, True], [False, False, False]])
    y = np.array([[True, False], [True, True], [False, False]])
    np.testing.assert_array_equal(mnp.matmul(gpu(x), gpu(y)).asnumpy(), x @ y)


@needs_gpu
def test_large_float32_has_no_tf32_rounding():
    # TF32 keeps 10 bits of mantissa: its error on a 512-long sum would be about 1e-3 relative.
    rng = np.random.default_rng(5)
    a = rng.standard_normal((256, 512)).astype(np.float32)
    b = rng.standard_normal((512, 384)).astype(np.float32)
    got = mnp.matmul(gpu(a), gpu(b)).asnumpy()
    want = a.astype(np.float64) @ b.astype(np.float64)
    bound = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    assert (np.abs(got - want) <= 1e-5 * bound).all()


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "bool"])
def test_strided_operands_through_dlpack(dtype):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    rng = np.random.default_rng(9)
    a = make((70, 90), dtype, rng)
    b = make((90, 60), dtype, rng)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    pairs = [
        (ta.t().contiguous().t(), tb),  # a transposed view
        (ta, tb.t().contiguous().t()),  # b transposed view
        (ta[:, ::2], tb[::2]),  # stepped: packed
        (ta[::2], tb),  # every other row: a leading dimension wider than the row
    ]
    for x, y in pairs:
        xn, yn = x.cpu().numpy(), y.cpu().numpy()
        gx, gy = mnp.from_dlpack(x), mnp.from_dlpack(y)
        for func, ref in [(mnp.matmul, np.matmul), (mnp.dot, np.dot)]:
            got = func(gx, gy).asnumpy()
            want = func(mnp.array(xn), mnp.array(yn)).asnumpy()
            assert_same_product(got, want, magnitude(ref, xn, yn), dtype)
    torch.cuda.synchronize()


# ---------------------------------------------------------------------------------------------
# The dot op: dense operands and csr ones


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_dot_dense_matches_cpu(dtype, ta, tb):
    rng = np.random.default_rng(11)
    for m, k, n in [(67, 129, 33), (1, 5, 1), (0, 3, 4), (3, 0, 4), (40, 50, 60)]:
        a = make((k, m) if ta else (m, k), dtype, rng)
        b = make((n, k) if tb else (k, n), dtype, rng)
        want = sparse.dot(mnp.array(a), mnp.array(b), transpose_a=ta, transpose_b=tb)
        got = sparse.dot(gpu(a), gpu(b), transpose_a=ta, transpose_b=tb)
        oa, ob = (a.T if ta else a), (b.T if tb else b)
        assert_same_product(got.asnumpy(), want.asnumpy(), magnitude(np.dot, oa, ob), dtype)


DENSITIES = [0.0, 0.01, 0.2, 1.0]
WIDTHS = [1, 7, 32, 100]
SPARSE_TOL = {np.float32: 1e-5, np.float64: 1e-12}


def to_csr(d, itype):
    """d as a CPU CSRNDArray with itype indices, and the scipy matrix it was made from."""
    ref = sp.csr_matrix(d)
    ix, ip = ref.indices.astype(itype), ref.indptr.astype(itype)
    return sparse.csr_matrix((ref.data, ix, ip), shape=d.shape), ref


def assert_close(got, want, bound, dtype):
    diff = np.abs(np.asarray(got, dtype=np.float64) - np.asarray(want, dtype=np.float64))
    tol = SPARSE_TOL[dtype] * np.asarray(bound, dtype=np.float64) + 1e-30
    assert (diff <= tol).all(), (diff.max(), float(np.min(tol)) if tol.size else tol)


SPARSE_SHAPES = [(67, 129), (1, 1), (0, 5), (5, 0), (300, 200)]


@needs_gpu
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_csr_times_dense(density, dtype, itype):
    for m, k in SPARSE_SHAPES:
        d = random_dense((m, k), density, dtype)
        a, ref = to_csr(d, itype)
        ga = gpu(a)
        for n in WIDTHS:
            b = np.random.default_rng(n).standard_normal((k, n)).astype(dtype)
            assert mxffi.ops.dispatch("dot", ga, gpu(b)) == ("fcompute_ex", ["default"])
            got = sparse.dot(ga, gpu(b))
            assert got.stype == "default" and str(got.device).startswith("cuda")
            got = got.asnumpy()
            assert got.dtype == dtype and got.shape == (m, n)
            bound = abs(ref) @ np.abs(b).astype(np.float64)
            assert_close(got, np.asarray(sparse.dot(a, b)), bound, dtype)
            assert_close(got, ref @ b, bound, dtype)


@needs_gpu
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_csr_transposed_times_dense(density, dtype, itype):
    for k, m in SPARSE_SHAPES:  # csr is k x m; csr.T is m x k
        d = random_dense((k, m), density, dtype)
        a, ref = to_csr(d, itype)
        ga = gpu(a)
        for n in WIDTHS:
            b = np.random.default_rng(n).standard_normal((k, n)).astype(dtype)
            bound = abs(ref.T) @ np.abs(b).astype(np.float64)
            want = sparse.dot(a, b, transpose_a=True)
            got = sparse.dot(ga, gpu(b), transpose_a=True)
            assert got.stype == "row_sparse"
            rows = got.indices.asnumpy() if hasattr(got.indices, "asnumpy") else got.indices
            rows = np.asarray(rows)
            assert rows.dtype == itype
            np.testing.assert_array_equal(rows, np.asarray(want.indices))
            np.testing.assert_array_equal(rows, np.flatnonzero(np.diff(ref.tocsc().indptr)))
            dense = got.asnumpy()
            assert dense.dtype == dtype and dense.shape == (m, n)
            assert_close(dense, want.asnumpy(), bound, dtype)
            assert_close(dense, ref.T @ b, bound, dtype)
            # forward_stype="default": the same product written densely.
            params = {"transpose_a": True, "forward_stype": "default"}
            full = sparse.dot(ga, gpu(b), **params)
            assert full.stype == "default"
            assert_close(full.asnumpy(), ref.T @ b, bound, dtype)


@needs_gpu
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
def test_dense_times_csr(density, dtype, itype):
    for k, n in SPARSE_SHAPES:
        d = random_dense((k, n), density, dtype)
        b, ref = to_csr(d, itype)
        gb = gpu(b)
        for m in WIDTHS:
            a = np.random.default_rng(m).standard_normal((m, k)).astype(dtype)
            got = sparse.dot(gpu(a), gb)
            assert got.stype == "default"
            got = got.asnumpy()
            bound = np.abs(a).astype(np.float64) @ abs(ref)
            assert_close(got, np.asarray(sparse.dot(a, b)), bound, dtype)
            assert_close(got, a @ ref, bound, dtype)


@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_sparse_products_and_determinism(dtype):
    d = random_dense((3000, 2000), 0.01, dtype, seed=3)
    d[5] = np.random.default_rng(4).standard_normal(2000)  # one long row
    d[900:1100] = 0
    a, ref = to_csr(d, np.int32)
    ga = gpu(a)
    for n in [64, 100, 300]:
        b = np.random.default_rng(n).standard_normal((2000, n)).astype(dtype)
        bound = abs(ref) @ np.abs(b).astype(np.float64)
        assert_close(sparse.dot(ga, gpu(b)).asnumpy(), ref @ b, bound, dtype)
    bt = np.random.default_rng(6).standard_normal((3000, 64)).astype(dtype)
    first = sparse.dot(ga, gpu(bt), transpose_a=True).asnumpy()
    assert_close(first, ref.T @ bt, abs(ref.T) @ np.abs(bt).astype(np.float64), dtype)
    for _ in range(3):
        np.testing.assert_array_equal(sparse.dot(ga, gpu(bt), transpose_a=True).asnumpy(), first)


@needs_gpu
def test_sparse_dot_keeps_inf_and_nan():
    d = np.array([[np.inf, 0.0, 1.0], [0.0, np.nan, 0.0]])
    a, ref = to_csr(d, np.int32)
    b = np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 1.0]])
    np.testing.assert_array_equal(sparse.dot(gpu(a), gpu(b)).asnumpy(), ref @ b)
    np.testing.assert_array_equal(
        sparse.dot(gpu(a), gpu(b[:2]), transpose_a=True).asnumpy(), ref.T @ b[:2]
    )
    c = np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0], [1.0, 1.0]])
    np.testing.assert_array_equal(sparse.dot(gpu(c), gpu(a)).asnumpy(), c @ ref)


@needs_gpu
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_products_match_cpu(dtype):
    """complex64 and complex128 products through cuBLAS (CUDA_C_32F, CUDA_C_64F): the CPU's
    results (cgemm, zgemm) within rounding, operands contiguous, transposed, packed and
    batched; vecdot conjugates x1 on the GPU too."""
    rng = np.random.default_rng(31)

    def crand(shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)

    rtol = 1e-4 if dtype == "complex64" else 1e-11
    a, b = crand((2, 30, 40)), crand((40, 20))
    pairs = [(a, b), (a.transpose(0, 2, 1)[:, :30, :], crand((30, 7))), (a[:, ::2, ::3], b[::3])]
    for x, y in pairs:
        got = mnp.matmul(gpu(x), gpu(y))
        assert got.device.type == "cuda" and got.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got.to("cpu").numpy(), mnp.matmul(x, y).numpy(), rtol=rtol)
    v1, v2 = crand((3, 50)), crand((3, 50))
    np.testing.assert_allclose(
        mnp.vecdot(gpu(v1), gpu(v2)).to("cpu").numpy(), np.vecdot(v1, v2), rtol=rtol
    )
    mixed = mnp.tensordot(gpu(a[0]), gpu(np.ones((40, 3), np.float32)), axes=1)
    np.testing.assert_allclose(mixed.to("cpu").numpy(), a[0] @ np.ones((40, 3)), rtol=rtol)
