"""The GPU kernels of the sparse binary ops (add, subtract, multiply on csr and row_sparse
operands; maximum, minimum), the unary ops and comparisons that keep a sparse storage type, add_n
and the sgd/adam updates, each checked against the CPU op on the same inputs:
the same storage type, shape, dtype and index parts, integer and bool values equal, float values
within a relative 1e-6 (float32). Inputs are built on the CPU and moved with ``.to("cuda:0")``;
results come back with ``.to("cpu")``. Every test needs a CUDA device and skips without one."""

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
SHAPES = [(0, 5), (1, 1), (7, 9), (1013, 77)]
INDEX_DTYPES = [np.int32, np.int64]
BINARY_DTYPES = ["bool", "int8", "int32", "int64", "uint8", "uint64", "float16", "float32",
                 "float64"]  # fmt: skip
REAL_DTYPES = ["float32", "float64"]
STYPES = ["csr", "row_sparse"]
OPS = {
    "_npi_add": np.add,
    "_npi_subtract": np.subtract,
    "_npi_multiply": np.multiply,
}


@pytest.fixture(autouse=True)
def _quiet_fallback(monkeypatch):
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")


def random_values(shape, dtype, rng):
    """Values of dtype over its whole range for integers (so sums and products wrap), of both
    signs and away from zero for floats, True or False for bool."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return np.ones(shape, bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
        return np.where(v == 0, dt.type(1), v).astype(dt)
    v = rng.standard_normal(shape)
    v += np.sign(v)
    return v.astype(dt)


def random_dense(shape, density, dtype, seed):
    """A matrix with about density of its entries stored (non-zero), an empty row and column
    where the shape has room."""
    rng = np.random.default_rng(seed)
    mask = rng.random(shape) < density
    if shape[0] > 2 and density < 1.0:
        mask[1] = False
    if len(shape) > 1 and shape[1] > 2 and density < 1.0:
        mask[:, 2] = False
    values = random_values(shape, dtype, rng)
    return np.where(mask, values, np.zeros((), dtype)).astype(dtype)


def make(stype, dense, itype=np.int64):
    idx = np.dtype(itype).name
    if stype == "csr":
        return sparse.csr_matrix(dense, idx_dtype=idx)
    if stype == "row_sparse":
        return sparse.row_sparse_array(dense, idx_dtype=idx)
    return mnp.array(dense)


def on_gpu(x):
    y = x.to(GPU)
    assert y.device.type == "cuda"  # sparse arrays have no __dlpack_device__
    return y


def tolerance(dtype):
    dt = np.dtype(dtype)
    if dt == np.float32:
        return {"rtol": 1e-6, "atol": 0}
    if dt == np.float64:
        return {"rtol": 1e-12, "atol": 0}
    if dt == np.float16:
        return {"rtol": 1e-3, "atol": 0}
    return None  # exact


def assert_values(got, want, dtype):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    tol = tolerance(dtype)
    if tol is None:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, **tol)


def assert_same(gpu_result, cpu_result):
    """gpu_result (a CUDA array) holds what cpu_result holds: storage type, shape, dtype, index
    parts identical, values equal (within the float tolerance)."""
    assert gpu_result.device.type == "cuda"
    got = gpu_result.to("cpu")
    assert got.shape == cpu_result.shape
    assert str(got.dtype) == str(cpu_result.dtype)
    stype = getattr(cpu_result, "stype", "default")
    assert getattr(got, "stype", "default") == stype
    dtype = np.dtype(str(cpu_result.dtype))
    if stype == "default":
        assert_values(got.asnumpy(), cpu_result.asnumpy(), dtype)
        return
    for part in ["indices", "indptr"] if stype == "csr" else ["indices"]:
        g, w = np.asarray(getattr(got, part)), np.asarray(getattr(cpu_result, part))
        assert g.dtype == w.dtype, part
        np.testing.assert_array_equal(g, w, err_msg=part)
    assert_values(np.asarray(got.data), np.asarray(cpu_result.data), dtype)


def binary_pair(shape, density, seed, dtype):
    """Two operands; b cancels a (b = -a, or a for bool) at about a third of the shared places."""
    a = random_dense(shape, density, dtype, seed)
    b = random_dense(shape, min(1.0, density * 2), dtype, seed + 1000)
    if a.size:
        both = (a != 0) & (b != 0) & (np.arange(a.size).reshape(shape) % 3 == 0)
        b[both] = a[both] if a.dtype == np.bool_ else -a[both]
    return a, b


def run_op(op, *args, **params):
    return mxffi.ops.invoke(op, *args, **params)


def check_binary(op, x, y):
    """op(x, y) on the GPU against the CPU, with the dispatch the CPU storage rules give."""
    want = run_op(op, x, y)
    gx, gy = on_gpu(x), on_gpu(y)
    cpu_mode = mxffi.ops.dispatch(op, x, y)
    assert mxffi.ops.dispatch(op, gx, gy) == cpu_mode
    assert_same(run_op(op, gx, gy), want)


# ---------------------------------------------------------------------------------------------
# sparse op sparse


@pytest.mark.parametrize("stype", STYPES)
@pytest.mark.parametrize("dtype", BINARY_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_sparse_with_sparse_matches_cpu(stype, dtype, itype):
    for i, shape in enumerate(SHAPES):
        for j, density in enumerate(DENSITIES):
            a, b = binary_pair(shape, density, 10 * i + j, dtype)
            x, y = make(stype, a, itype), make(stype, b, itype)
            for op in OPS:
                if op == "_npi_subtract" and dtype == "bool":
                    continue
                check_binary(op, x, y)
                check_binary(op, y, x)


@pytest.mark.parametrize("stype", STYPES)
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_cancellation_keeps_or_drops_entries_as_the_cpu(stype, dtype):
    a = random_dense((57, 31), 0.3, dtype, seed=1)
    x = make(stype, a)
    neg = make(stype, -a)
    for op, args in [
        ("_npi_subtract", (x, x)),
        ("_npi_add", (x, neg)),
        ("_npi_add", (neg, x)),
        ("_npi_multiply", (x, neg)),
    ]:
        want = run_op(op, *args)
        got = run_op(op, *[on_gpu(v) for v in args])
        assert_same(got, want)
        assert got.to("cpu").nnz == want.nnz


@pytest.mark.parametrize("stype", STYPES)
def test_mixed_value_and_index_dtypes_match_cpu(stype):
    for da, db in [("float32", "float64"), ("int8", "float16"), ("int64", "float32"),
                   ("uint8", "int16"), ("bool", "int32")]:  # fmt: skip
        a, _ = binary_pair((41, 13), 0.3, 3, da)
        _, b = binary_pair((41, 13), 0.3, 3, db)
        for ia, ib in [(np.int32, np.int64), (np.int64, np.int32), (np.int32, np.int32)]:
            x, y = make(stype, a, ia), make(stype, b, ib)
            for op in OPS:
                check_binary(op, x, y)


@pytest.mark.parametrize("shape", [(6, 4), (5, 2, 3), (9,), (0, 3, 2)])
def test_row_sparse_of_more_or_fewer_dimensions(shape):
    a, b = binary_pair(shape, 0.5, 7, "float32")
    for op in OPS:
        check_binary(op, make("row_sparse", a), make("row_sparse", b))


# ---------------------------------------------------------------------------------------------
# dense with sparse


@pytest.mark.parametrize("stype", STYPES)
@pytest.mark.parametrize("dtype", BINARY_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_dense_with_sparse_matches_cpu(stype, dtype, itype):
    for i, shape in enumerate(SHAPES):
        for j, density in enumerate(DENSITIES):
            a, b = binary_pair(shape, density, 100 + 10 * i + j, dtype)
            x, dn = make(stype, a, itype), mnp.array(b)
            for op in OPS:
                if op == "_npi_subtract" and dtype == "bool":
                    continue
                check_binary(op, x, dn)
                check_binary(op, dn, x)


@pytest.mark.parametrize("stype", STYPES)
def test_dense_operand_of_another_dtype_strided_or_aliased_by_out(stype):
    a = random_dense((12, 10), 0.3, "float32", seed=2)
    big = random_dense((10, 12), 1.0, "float64", seed=3)
    x = make(stype, a, np.int32)
    t_cpu = mnp.array(big).T  # a strided view
    t_gpu = mnp.array(big, device=GPU).T
    for op in OPS:
        assert_same(run_op(op, on_gpu(x), t_gpu), run_op(op, x, t_cpu))
        assert_same(run_op(op, t_gpu, on_gpu(x)), run_op(op, t_cpu, x))
    # out= the dense input, on the GPU as on the CPU
    out_cpu = mnp.array(big.T.astype(np.float32))
    out_gpu = mnp.array(big.T.astype(np.float32), device=GPU)
    mnp.subtract(x, out_cpu, out=out_cpu)
    mnp.subtract(on_gpu(x), out_gpu, out=out_gpu)
    assert_same(out_gpu, out_cpu)


# ---------------------------------------------------------------------------------------------
# add_n


def add_n_inputs(kinds, shape, density, dtype, seed):
    xs = []
    for s, kind in enumerate(kinds):
        d = random_dense(shape, density, dtype, seed + s)
        xs.append(make(kind, d, INDEX_DTYPES[s % 2]))
    return xs


def check_add_n(xs):
    op = "add_n"  # one op; generic invocation sets num_args to the number of inputs
    want = run_op(op, *xs)
    gs = [on_gpu(x) for x in xs]
    assert mxffi.ops.dispatch(op, *gs) == mxffi.ops.dispatch(op, *xs)
    assert_same(run_op(op, *gs), want)
    assert_same(sparse.add_n(*gs), sparse.add_n(*xs))


@pytest.mark.parametrize("kind", ["default", "csr", "row_sparse"])
@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("k", [1, 2, 3, 16, 17, 40])
def test_add_n_of_one_storage_type_matches_cpu(kind, dtype, k):
    for i, shape in enumerate(SHAPES):
        for j, density in enumerate(DENSITIES):
            check_add_n(add_n_inputs([kind] * k, shape, density, dtype, 10 * i + j))


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_add_n_of_mixed_storage_types_matches_cpu(dtype):
    mixes = [
        ["default", "row_sparse"],
        ["row_sparse", "default", "csr"],
        ["csr", "row_sparse"],
        ["csr", "csr", "default", "row_sparse", "default"],
    ]
    for mix in mixes:
        for i, shape in enumerate(SHAPES):
            for density in DENSITIES:
                check_add_n(add_n_inputs(mix, shape, density, dtype, 7 * i))


def test_add_n_keeps_cancelled_csr_columns_and_sums_more_than_one_kernel_takes():
    a = random_dense((33, 17), 0.4, "float64", seed=4)
    check_add_n([make("csr", a), make("csr", -a, np.int32)])
    check_add_n([make("row_sparse", a), make("row_sparse", -a, np.int32)])
    # More summands than one GPU kernel launch takes (16): summed in launches of up to 16.
    check_add_n(add_n_inputs(["csr"] * 20, (40, 9), 0.2, "float32", 5))
    check_add_n(add_n_inputs(["default", "csr", "row_sparse"] * 12, (40, 9), 0.2, "float64", 6))


# ---------------------------------------------------------------------------------------------
# sgd_update and adam_update

HYPER = [
    {"lr": 0.1, "wd": 0.0, "rescale_grad": 1.0, "clip_gradient": -1.0},
    {"lr": 0.05, "wd": 0.01, "rescale_grad": 0.5, "clip_gradient": 1.5},
]


def gradients(shape, dtype, step, itype):
    """The gradients of one step: dense, row_sparse with few rows, with all rows, with none."""
    rng = np.random.default_rng(step)
    g = rng.standard_normal(shape).astype(dtype) * 2
    few = g.copy()
    keep = rng.random(shape[0]) < 0.1
    few[~keep] = 0
    return [
        mnp.array(g),
        make("row_sparse", few, itype),
        make("row_sparse", g, itype),
        make("row_sparse", np.zeros(shape, dtype), itype),
    ]


@pytest.mark.parametrize("shape", [(1013, 7), (1, 1), (0, 3), (10, 2, 3)])
@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("hp", HYPER)
@pytest.mark.parametrize("lazy", [True, False])
def test_sgd_update_steps_match_cpu(shape, dtype, itype, hp, lazy):
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal(shape).astype(dtype)
    w_cpu, w_gpu = mnp.array(w0), mnp.array(w0, device=GPU)
    for step in range(3):
        for g in gradients(shape, dtype, step, itype):
            kw = dict(hp, lazy_update=lazy)
            assert mxffi.ops.dispatch("sgd_update", w_gpu, on_gpu(g), **kw) == (
                mxffi.ops.dispatch("sgd_update", w_cpu, g, **kw)
            )
            out = sparse.sgd_update(w_gpu, on_gpu(g), **kw)
            assert out is w_gpu  # updated in place
            sparse.sgd_update(w_cpu, g, **kw)
            assert_same(w_gpu, w_cpu)


@pytest.mark.parametrize("shape", [(1013, 7), (1, 1), (0, 3), (10, 2, 3)])
@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("hp", HYPER)
@pytest.mark.parametrize("lazy", [True, False])
def test_adam_update_steps_match_cpu(shape, dtype, itype, hp, lazy):
    rng = np.random.default_rng(2)
    w0 = rng.standard_normal(shape).astype(dtype)
    m0 = (rng.standard_normal(shape) * 0.1).astype(dtype)
    v0 = (rng.random(shape) * 0.1).astype(dtype)
    cpu = [mnp.array(a) for a in (w0, m0, v0)]
    gpu = [mnp.array(a, device=GPU) for a in (w0, m0, v0)]
    kw = dict(hp, lazy_update=lazy, beta1=0.8, beta2=0.99, epsilon=1e-6)
    for step in range(3):
        for g in gradients(shape, dtype, 10 + step, itype):
            w, m, v = gpu
            out = sparse.adam_update(w, on_gpu(g), m, v, **kw)
            assert out is w
            sparse.adam_update(cpu[0], g, cpu[1], cpu[2], **kw)
            for got, want in zip(gpu, cpu, strict=True):
                assert_same(got, want)


def test_adam_through_the_op_writes_separate_outputs_as_the_cpu():
    rng = np.random.default_rng(3)
    shape = (50, 4)
    w0, g0 = rng.standard_normal(shape), rng.standard_normal(shape)
    g0[rng.random(50) < 0.7] = 0
    m0, v0 = np.zeros(shape), np.full(shape, 0.01)
    for g in (mnp.array(g0), make("row_sparse", g0)):
        for lazy in (True, False):
            ins = [mnp.array(w0), g, mnp.array(m0), mnp.array(v0)]
            want = run_op("adam_update", *ins, lr=0.01, lazy_update=lazy)
            got = run_op("adam_update", *[on_gpu(x) for x in ins], lr=0.01, lazy_update=lazy)
            for a, b in zip(got, want, strict=True):
                assert_same(a, b)


STATE_OPTIMIZERS = {
    "sgd_mom_update": ({"lr": 0.1, "momentum": 0.9}, 1),
    "ftrl_update": ({"lr": 0.1, "lamda1": 0.05, "beta": 1.5}, 2),
    "adagrad_update": ({"lr": 0.1, "epsilon": 1e-6}, 1),
}


@pytest.mark.parametrize("name", list(STATE_OPTIMIZERS))
@pytest.mark.parametrize("shape", [(1013, 7), (1, 1), (0, 3), (10, 2, 3)])
@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("hp", HYPER)
@pytest.mark.parametrize("lazy", [True, False])
def test_state_optimizer_steps_match_cpu(name, shape, dtype, itype, hp, lazy):
    extra, k = STATE_OPTIMIZERS[name]
    rng = np.random.default_rng(5)
    w0 = rng.standard_normal(shape).astype(dtype)
    s0 = [(rng.random(shape) * 0.1).astype(dtype) for _ in range(k)]  # n, history >= 0
    cpu = [mnp.array(a) for a in (w0, *s0)]
    gpu = [mnp.array(a, device=GPU) for a in (w0, *s0)]
    kw = dict(hp, lazy_update=lazy, **extra)
    update = getattr(sparse, name)
    for step in range(3):
        for g in gradients(shape, dtype, 20 + step, itype):
            assert mxffi.ops.dispatch(name, gpu[0], on_gpu(g), *gpu[1:], **kw) == (
                mxffi.ops.dispatch(name, cpu[0], g, *cpu[1:], **kw)
            )
            out = update(gpu[0], on_gpu(g), *gpu[1:], **kw)
            assert out is gpu[0]
            update(cpu[0], g, *cpu[1:], **kw)
            for got, want in zip(gpu, cpu, strict=True):
                assert_same(got, want)


# ---- the ops MXNet keeps sparse, comparisons and maximum/minimum, on the GPU -------------------


@pytest.mark.parametrize("stype", STYPES)
def test_surface_ops_on_the_gpu_match_cpu(stype):
    rng = np.random.default_rng(7)
    d = np.where(rng.random((37, 11)) < 0.3, rng.uniform(-0.9, 0.9, (37, 11)), 0.0)
    e = np.where(rng.random((37, 11)) < 0.3, rng.uniform(-0.9, 0.9, (37, 11)), 0.0)
    make = sparse.csr_matrix if stype == "csr" else sparse.row_sparse_array
    x, y = make(d), make(e)
    xg, yg = x.to(GPU), y.to(GPU)
    cases = [
        (lambda a, b: mnp.tanh(a), True),
        (lambda a, b: mnp.cbrt(a), True),
        (lambda a, b: mnp.degrees(a), True),
        (lambda a, b: mnp.fix(a), True),
        (lambda a, b: a > 0, True),
        (lambda a, b: a != 0, True),
        (lambda a, b: mnp.clip(a, -0.5, 0.5), True),
        (lambda a, b: a**2, True),
        (lambda a, b: a + 1.5, False),  # dense: the same values, a new structure
        (lambda a, b: mnp.maximum(a, b), False),
        (lambda a, b: mnp.minimum(a, b), False),
    ]
    for i, (fn, same_parts) in enumerate(cases):
        want, got = fn(x, y), fn(xg, yg).to("cpu")
        assert got.stype == want.stype and str(got.dtype) == str(want.dtype), i
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-12, err_msg=str(i))
        if same_parts and want.stype != "default":
            assert np.asarray(got.indices).tolist() == np.asarray(want.indices).tolist(), i
