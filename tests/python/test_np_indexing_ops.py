"""The indexing ops against numpy: the advanced-index gather and scatter, nonzero, take and
take_along_axis; out= arrays that overlap an input (numpy computes as if into a temporary);
shares_memory / may_share_memory; and every op on negative-stride and zero-stride inputs.

numpy's fancy indexing is the oracle: `x[(slice(None),) * axis + tuple(idx)]` for k integer
arrays of one shape indexing consecutive axes gives x.shape[:axis] + B + x.shape[axis+k:], which
is what ndarray.advanced_gather(x, axis, *idx) computes.
"""

import ml_dtypes  # noqa: F401  (bfloat16 for np_dtype)
import numpy as np
import pytest
from conftest import DTYPES, np_dtype, seed_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mxffi
import mxffi.np as mnp

# The array type's advanced indexing, after its key is normalised (src/api/np_indexing.cc).
gather = mxffi.get_global_func("ndarray.advanced_gather")
scatter = mxffi.get_global_func("ndarray.advanced_scatter")
boolean_gather = mxffi.get_global_func("ndarray.boolean_gather")
boolean_scatter = mxffi.get_global_func("ndarray.boolean_scatter")

INDEX_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = {"float16", "bfloat16", "float32", "float64"}
HYPO = settings(
    max_examples=400,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def values(rng, shape, dtype):
    """Random elements of dtype (small integers, so every conversion below is exact)."""
    dt = np_dtype(dtype)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in FLOATS:
        return np.asarray((rng.standard_normal(shape) * 4).astype(dt))
    lo = 0 if dtype.startswith("u") else -50
    return np.asarray(rng.integers(lo, 50, size=shape).astype(dt))


def as_np(a):
    return np.asarray(a.asnumpy())


def same(got, want):
    got = as_np(got) if not isinstance(got, np.ndarray) else got
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind == "f" or want.dtype == np_dtype("bfloat16"):
        np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))
    else:
        np.testing.assert_array_equal(got, want)


def view_of(rng, a, kind):
    """a itself, or an equal array laid out differently: reversed (negative strides), a
    transposed copy transposed back, or an mxffi array over the same numpy view (DLPack)."""
    if kind == "reversed":
        v = a[(slice(None, None, -1),) * a.ndim].copy()
        return v[(slice(None, None, -1),) * a.ndim]
    if kind == "transposed":
        return np.ascontiguousarray(a.T).T
    if kind == "mxffi_reversed":
        if a.dtype == np_dtype("bfloat16"):  # numpy's DLPack has no bfloat16: an mxffi transpose
            return mnp.transpose(mnp.array(np.ascontiguousarray(a.T)))
        v = a[(slice(None, None, -1),) * a.ndim].copy()
        return mnp.from_dlpack(v[(slice(None, None, -1),) * a.ndim])
    return a


@st.composite
def gather_case(draw):
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    axis = draw(st.integers(0, ndim - 1))
    k = draw(st.integers(1, ndim - axis))
    bshape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=3)))
    if any(shape[axis + i] == 0 for i in range(k)):
        bshape = bshape + (0,)  # no valid index into an empty axis: no index at all
    dtype = draw(st.sampled_from(DTYPES))
    idx_dtypes = [draw(st.sampled_from(INDEX_DTYPES)) for _ in range(k)]
    layout = draw(st.sampled_from(["plain", "reversed", "transposed", "mxffi_reversed"]))
    seed = draw(st.integers(0, 2**32 - 1))
    return shape, axis, k, bshape, dtype, idx_dtypes, layout, seed


def make_indices(rng, shape, axis, k, bshape, idx_dtypes):
    idx = []
    for i in range(k):
        n = shape[axis + i]
        dt = np.dtype(idx_dtypes[i])
        lo = 0 if dt.kind == "u" else -n
        hi = max(n, 1)
        if dt.kind == "i":
            lo = max(lo, -(2 ** (8 * dt.itemsize - 1)))
            hi = min(hi, 2 ** (8 * dt.itemsize - 1))
        else:
            hi = min(hi, 2 ** (8 * dt.itemsize))
        idx.append(rng.integers(lo, hi, size=bshape).astype(dt))
    return idx


@HYPO
@given(gather_case())
def test_gather_matches_numpy_fancy_indexing(case):
    shape, axis, k, bshape, dtype, idx_dtypes, layout, seed = case
    rng = np.random.default_rng(seed)
    x = values(rng, shape, dtype)
    idx = make_indices(rng, shape, axis, k, bshape, idx_dtypes)
    want = x[(slice(None),) * axis + tuple(idx)]
    got = gather(view_of(rng, x, layout), axis, *idx)
    same(got, want)


@HYPO
@given(gather_case(), st.sampled_from(["same", "int64", "float64", "scalar"]), st.booleans())
def test_scatter_matches_numpy_assignment(case, value_kind, broadcast):
    shape, axis, k, bshape, dtype, idx_dtypes, layout, seed = case
    rng = np.random.default_rng(seed)
    x = values(rng, shape, dtype)
    idx = make_indices(rng, shape, axis, k, bshape, idx_dtypes)
    key = (slice(None),) * axis + tuple(idx)
    target = x[key].shape
    vshape = target[len(target) - 1 :] if broadcast and target else target
    if value_kind == "scalar":
        v = 3 if dtype != "bool" else True
    else:
        vdtype = dtype if value_kind == "same" else value_kind
        v = (
            np.abs(values(rng, vshape, vdtype))
            if dtype.startswith("u")
            else values(rng, vshape, vdtype)
        )
    want = x.copy()
    want[key] = v
    arr = mnp.array(x)
    out = scatter(arr, v, axis, *idx)
    same(arr, want)
    same(out, want)  # x itself is returned


def test_scatter_repeated_indices_last_write_wins():
    x = mnp.zeros(5)
    scatter(x, np.arange(6.0), 0, np.array([1, 3, 1, 1, 3, 0]))
    np.testing.assert_array_equal(as_np(x), [5.0, 3.0, 0.0, 4.0, 0.0])
    m = mnp.zeros((3, 3), dtype="int32")
    scatter(m, np.array([7, 8, 9]), 0, np.array([0, 2, 0]), np.array([1, 1, 1]))
    want = np.zeros((3, 3), np.int32)
    want[[0, 2, 0], [1, 1, 1]] = [7, 8, 9]
    np.testing.assert_array_equal(as_np(m), want)


def test_scatter_into_strided_views_writes_only_indexed_elements():
    base = np.arange(24.0).reshape(4, 6)
    want = base.copy()
    want[::-1, ::2][[0, 2], [1, 1]] = -1.0
    view = mnp.from_dlpack(base[::-1, ::2])
    scatter(view, -1.0, 0, np.array([0, 2]), np.array([1, 1]))
    np.testing.assert_array_equal(base, want)


def test_scatter_values_overlapping_x():
    """values read from x itself (a reversed view): numpy reads them before writing."""
    n = np.arange(6.0)
    want = n.copy()
    want[[0, 1, 2]] = want[::-1][:3].copy()
    a = mnp.from_dlpack(n)
    scatter(a, mnp.from_dlpack(n[::-1][:3]), 0, np.array([0, 1, 2]))
    np.testing.assert_array_equal(n, want)


def test_scatter_index_or_values_that_are_x_itself():
    """x[x] = v and x[perm] = x: numpy reads the index and the values before writing."""
    n = np.array([2, 0, 1])
    want = n.copy()
    want[want] = 5
    x = mnp.array(n)
    scatter(x, 5, 0, x)
    same(x, want)
    n = np.array([4.0, 5.0, 6.0])
    want = n.copy()
    want[[1, 2, 0]] = want
    x = mnp.array(n)
    scatter(x, x, 0, np.array([1, 2, 0]))
    same(x, want)
    n = np.array([2, 0, 1])
    want = n.copy()
    want[want] = want
    x = mnp.array(n)
    scatter(x, x, 0, x)
    same(x, want)


def test_scatter_value_conversion_as_numpy():
    x = np.zeros(3, np.int8)
    m = mnp.array(x)
    with pytest.raises(OverflowError, match="Python integer 1000 out of bounds for int8"):
        scatter(m, 1000, 0, np.array([0]))
    scatter(m, np.array([300, -1.5, 2.7]), 0, np.array([0, 1, 2]))
    want = x.copy()
    want[[0, 1, 2]] = np.array([300, -1.5, 2.7])
    np.testing.assert_array_equal(as_np(m), want)
    with pytest.raises(ValueError, match="could not be broadcast to indexing result of shape"):
        scatter(m, np.ones(2), 0, np.array([0, 1, 2]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_and_scatter_every_dtype(dtype):
    rng = np.random.default_rng(1)
    x = values(rng, (4, 5), dtype)
    i, j = np.array([[3, -1], [0, 2]]), np.array([[4, 0], [-5, 1]])
    same(gather(x, 0, i, j), x[i, j])
    same(gather(x, 1, j), x[:, j])
    m = mnp.array(x)
    v = values(rng, (2, 2), dtype)
    scatter(m, v, 0, i, j)
    want = x.copy()
    want[i, j] = v
    same(m, want)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_gather_and_scatter_complex(dtype):
    """The gather and scatter move elements as bits, so complex arrays index too."""
    x = (np.arange(12) + 1j * np.arange(12, 0, -1)).astype(dtype).reshape(3, 4)
    i = np.array([2, -1, 0])
    same(gather(x, 1, i), x[:, i])
    same(mnp.take(x, [5, 0]), np.take(x, [5, 0]))
    m = mnp.from_dlpack(x.copy())
    v = x[:, :3][::-1].copy()
    scatter(m, v, 1, i)
    want = x.copy()
    want[:, i] = v
    same(m, want)


def test_bounds_errors_have_numpy_text():
    x = np.zeros((2, 3))
    for key, axis, idx in [
        ((slice(None), np.array([5])), 1, [np.array([5])]),
        ((np.array([-3]),), 0, [np.array([-3])]),
        ((np.array([0, 1]), np.array([0, 3])), 0, [np.array([0, 1]), np.array([0, 3])]),
    ]:
        with pytest.raises(IndexError) as want:
            x[key]
        with pytest.raises(IndexError) as got:
            gather(x, axis, *idx)
        assert str(got.value) == str(want.value)
        with pytest.raises(IndexError) as got:
            scatter(mnp.array(x), 1.0, axis, *idx)
        assert str(got.value) == str(want.value)
    assert str(want.value) == "index 3 is out of bounds for axis 1 with size 3"
    # numpy reads uint64 indices as its intp: 2**64 - 1 is -1, 2**63 is -2**63.
    x = np.arange(3.0)
    big = np.array([2**64 - 1], np.uint64)
    same(gather(x, 0, big), x[big])
    big = np.array([2**63], np.uint64)
    with pytest.raises(IndexError) as want:
        x[big]
    with pytest.raises(IndexError) as got:
        gather(x, 0, big)
    assert str(got.value) == str(want.value)


def test_zero_d_cases():
    x0 = np.array(5.0)
    same(mnp.take(x0, 0), np.take(x0, 0))
    same(mnp.take(x0, [0, 0]), np.take(x0, [0, 0]))
    with pytest.raises(IndexError, match="array is 0-dimensional, but 1 were indexed"):
        gather(x0, 0, np.array([0]))
    y = np.arange(6.0).reshape(2, 3)
    i, j = np.array(1), np.array(-1)  # 0-d index arrays: a 0-d result
    same(gather(y, 0, i, j), y[i, j])
    same(gather(y, 1, j), y[:, j])
    m = mnp.array(y)
    scatter(m, 7.0, 0, i, j)
    want = y.copy()
    want[i, j] = 7.0
    same(m, want)


def test_gather_bad_calls():
    x = np.zeros((2, 3))
    with pytest.raises(IndexError, match="too many indices for array: array is 2-dimensional, "):
        gather(x, 1, np.array([0]), np.array([0]))
    with pytest.raises(IndexError, match="must be of integer type"):
        gather(x, 0, np.array([0.0]))
    with pytest.raises(ValueError, match="index arrays must have one shape"):
        gather(x, 0, np.array([0]), np.array([0, 1]))
    with pytest.raises(TypeError, match="at least one index array"):
        gather(x, 0)
    with pytest.raises(TypeError):
        scatter(x, 1.0, 0, np.array([0]))  # a numpy array is not written into


# ---- nonzero ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0,), (7,), (3, 4), (2, 0, 3), (2, 3, 4)])
@pytest.mark.parametrize("density", [0.0, 0.5, 1.0])
def test_nonzero_matches_numpy(dtype, shape, density):
    rng = np.random.default_rng(seed_of(dtype, shape, density))
    x = values(rng, shape, dtype)
    x = np.where(rng.random(shape) < density, x, np.zeros((), x.dtype)).astype(x.dtype)
    for view in [x, x[..., ::-1], x.T]:
        got = mnp.nonzero(view)
        want = np.nonzero(view)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            same(g, w.astype(np.int64))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_nonzero_complex(dtype):
    x = np.array([[0, 1j, -0.0 + 0j], [2, 0, complex(0, np.nan)]], dtype)
    for view in [x, x[:, ::-1]]:
        for g, w in zip(mnp.nonzero(view), np.nonzero(view), strict=True):
            same(g, w.astype(np.int64))


def test_nonzero_special_values_and_0d():
    x = np.array([0.0, -0.0, np.nan, 1.0, np.inf])
    (got,) = mnp.nonzero(x)
    np.testing.assert_array_equal(as_np(got), [2, 3, 4])
    with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
        mnp.nonzero(np.array(1.0))
    with pytest.raises(ValueError, match="Calling nonzero on 0d arrays is not allowed"):
        np.nonzero(np.array(1.0))
    big = np.zeros(300_001, np.int8)
    big[[0, 77, 300_000]] = 1
    np.testing.assert_array_equal(as_np(mnp.nonzero(big)[0]), [0, 77, 300_000])


@pytest.mark.parametrize("dtype", ["bool", "int32", "float16", "float64"])
def test_boolean_gather_and_scatter(dtype):
    rng = np.random.default_rng(8)
    x = values(rng, (3, 4, 5), dtype)
    for axis, mshape in [(0, (3,)), (0, (3, 4)), (1, (4, 5)), (0, (3, 4, 5)), (2, (5,))]:
        mask = rng.random(mshape) < 0.5
        key = (slice(None),) * axis + (mask,)
        for view in [x, x[::-1, :, ::-1]]:
            same(boolean_gather(view, axis, mask), view[key])
        m = mnp.array(x)
        v = values(rng, x[key].shape[-1:], dtype)
        boolean_scatter(m, v, axis, mask)
        want = x.copy()
        want[key] = v
        same(m, want)
    with pytest.raises(IndexError) as want:
        x[np.ones(4, bool)]
    with pytest.raises(IndexError) as got:
        boolean_gather(x, 0, np.ones(4, bool))
    assert str(got.value) == str(want.value)
    with pytest.raises(TypeError, match="mask must be a boolean array"):
        boolean_gather(x, 0, np.ones(3, np.int8))


# ---- take and take_along_axis ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["bool", "int16", "uint64", "float16", "bfloat16", "float64"])
def test_take_matches_numpy(dtype):
    rng = np.random.default_rng(5)
    x = values(rng, (3, 4, 5), dtype)
    cases = [
        (np.array([0, -1, 2]), None),
        (np.array([[1, 0], [3, -4]]), 1),
        (np.array([4, 4, 0]), 2),
        (np.array([], np.int64), 0),
        ([2, 0, -3], 0),
        (1, 1),
        (np.array([True, False]), 0),
        (np.array([7], np.uint8), None),
    ]
    for indices, axis in cases:
        for view in [x, x[::-1, :, ::-1]]:
            same(mnp.take(view, indices, axis=axis), np.take(view, indices, axis=axis))


def test_take_errors():
    x = np.zeros((2, 3))
    for indices, axis in [([5], 1), ([-7], None), ([2], 0)]:
        with pytest.raises(IndexError) as want:
            np.take(x, indices, axis=axis)
        with pytest.raises(IndexError) as got:
            mnp.take(x, indices, axis=axis)
        assert str(got.value) == str(want.value)
    with pytest.raises(IndexError, match="out of bounds"):  # numpy's AxisError
        mnp.take(x, [0], axis=2)
    with pytest.raises(TypeError, match="np.take: indices must be an integer array"):
        mnp.take(x, [0.5])


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_take_along_axis_matches_numpy(axis):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((4, 5))
    if axis is None:
        cases = [np.argsort(x, axis=None)[:7], np.array([-1, 0, 19])]
    else:
        cases = [
            np.argsort(x, axis=axis),
            np.argmax(x, axis=axis, keepdims=True),
            rng.integers(-x.shape[axis], x.shape[axis], size=(4, 5)).astype(np.int32),
        ]
    for ind in cases:
        for view in [x, x[::-1, ::-1]]:
            same(mnp.take_along_axis(view, ind, axis=axis), np.take_along_axis(view, ind, axis))


def test_take_along_axis_broadcasts_and_errors():
    x = np.arange(12.0).reshape(3, 4)
    ind = np.array([[0], [3], [1]])
    same(mnp.take_along_axis(x, ind, axis=1), np.take_along_axis(x, ind, axis=1))
    ind = np.array([[2, 0, 1, 1]])
    col = np.array([[0], [0]])  # (2, 1) against (1, 4): both broadcast
    same(mnp.take_along_axis(x[:1], col, axis=0), np.take_along_axis(x[:1], col, axis=0))
    same(mnp.take_along_axis(x, ind, axis=0), np.take_along_axis(x, ind, axis=0))
    with pytest.raises(ValueError, match="must have the same number of dimensions"):
        mnp.take_along_axis(x, np.array([0]), axis=1)
    with pytest.raises(IndexError, match="must be an integer array"):
        mnp.take_along_axis(x, np.array([[0.0]]), axis=1)
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
        mnp.take_along_axis(x, np.array([[4]]), axis=1)


# ---- out= overlapping an input ----------------------------------------------------------------


def pair(n):
    """An mxffi array over the numpy array n (shared memory) and a copy of n for numpy."""
    return mnp.from_dlpack(n), n.copy()


def test_out_exactly_an_input_and_transposed():
    a, w = pair(np.arange(9.0).reshape(3, 3))
    mnp.add(a, mnp.transpose(a), out=a)
    np.add(w, w.T, out=w)
    np.testing.assert_array_equal(as_np(a), w)
    np.testing.assert_array_equal(w, [[0, 4, 8], [4, 8, 12], [8, 12, 16]])
    a, w = pair(np.arange(12.0).reshape(3, 4))
    mnp.multiply(a, a, out=a)
    np.multiply(w, w, out=w)
    np.testing.assert_array_equal(as_np(a), w)
    a, w = pair(np.arange(9.0).reshape(3, 3) / 10)
    mnp.exp(mnp.transpose(a), out=a)
    np.exp(w.T, out=w)
    np.testing.assert_allclose(as_np(a), w, rtol=1e-15)


@pytest.mark.parametrize("shift", [1, -1, 2])
def test_out_a_shifted_view(shift):
    n = np.arange(10.0)
    w = n.copy()
    src, dst = (
        (slice(0, 10 - shift), slice(shift, 10))
        if shift > 0
        else (slice(-shift, 10), slice(0, 10 + shift))
    )
    mnp.add(mnp.from_dlpack(n[src]), 1.0, out=mnp.from_dlpack(n[dst]))
    np.add(w[src], 1.0, out=w[dst])
    np.testing.assert_array_equal(n, w)
    n = np.arange(10.0)
    w = n.copy()
    mnp.multiply(
        mnp.from_dlpack(n[src]), mnp.from_dlpack(n[::-1][src]), out=mnp.from_dlpack(n[dst])
    )
    np.multiply(w[src], w[::-1][src], out=w[dst])
    np.testing.assert_array_equal(n, w)


def test_out_overlap_matmul_sum_copyto():
    rng = np.random.default_rng(2)
    a, w = pair(rng.standard_normal((4, 4)))
    mnp.matmul(a, mnp.transpose(a), out=a)
    np.matmul(w, w.T, out=w)
    np.testing.assert_allclose(as_np(a), w, rtol=1e-12)
    a, w = pair(rng.standard_normal((4, 4)))
    mnp.matmul(a, a, out=a)
    np.matmul(w, w, out=w)
    np.testing.assert_allclose(as_np(a), w, rtol=1e-12)
    n = rng.standard_normal((3, 4))
    w = n.copy()
    mnp.sum(mnp.from_dlpack(n), axis=0, out=mnp.from_dlpack(n[1]))
    np.sum(w, axis=0, out=w[1])
    np.testing.assert_allclose(n, w, rtol=1e-12)
    n = np.arange(16.0).reshape(4, 4)
    w = n.copy()
    mnp.copyto(mnp.from_dlpack(n), mnp.from_dlpack(n.T))
    np.copyto(w, w.T)
    np.testing.assert_array_equal(n, w)
    n = np.arange(5.0)
    w = n.copy()
    mnp.copyto(mnp.from_dlpack(n[1:]), mnp.from_dlpack(n[:-1]))
    np.copyto(w[1:], w[:-1])
    np.testing.assert_array_equal(n, w)
    n = np.arange(6.0).reshape(2, 3)
    w = n.copy()
    mnp.copyto(mnp.from_dlpack(n), mnp.from_dlpack(n[1]))  # a broadcast row of itself
    np.copyto(w, w[1])
    np.testing.assert_array_equal(n, w)


def test_out_errors_and_casting():
    m = mnp.zeros((2, 2), dtype="int64")
    with pytest.raises(TypeError, match="np.matmul: cannot cast the result from float64"):
        mnp.matmul(np.ones((2, 2)), np.ones((2, 2)), out=m)
    with pytest.raises(ValueError, match=r"np.matmul: out has shape \(2, 2\) but the result"):
        mnp.matmul(np.ones((3, 2)), np.ones((2, 2)), out=m)
    s = mnp.zeros((), dtype="int64")
    mnp.sum(np.ones(3) * 1.5, out=s)  # unsafe, as numpy's reductions
    assert int(as_np(s)) == 4
    with pytest.raises(TypeError) as want:
        np.copyto(np.zeros(3, np.int64), np.ones(3))
    with pytest.raises(TypeError) as got:
        mnp.copyto(mnp.zeros(3, dtype="int64"), np.ones(3))
    assert str(want.value) in str(got.value)
    for casting in ["same_kind", "unsafe"]:
        with pytest.raises(OverflowError, match="Python integer 1000 out of bounds for int8"):
            mnp.copyto(mnp.zeros(3, dtype="int8"), 1000, casting=casting)
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(3,\)"):
        mnp.copyto(mnp.zeros((2, 2)), np.ones(3))
    with pytest.raises(ValueError, match="casting must be one of"):
        mnp.copyto(mnp.zeros(2), np.ones(2), casting="sometimes")
    d = mnp.zeros(3, dtype="int8")
    mnp.copyto(d, np.array([1.7, -2.2, 300.0]), casting="unsafe")
    np.testing.assert_array_equal(as_np(d), np.array([1.7, -2.2, 300.0]).astype(np.int8))


# ---- shares_memory / may_share_memory -----------------------------------------------------------


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(st.data())
def test_shares_memory_is_numpy_exact(data):
    base = np.zeros(
        data.draw(st.integers(1, 60)), dtype=data.draw(st.sampled_from(["u1", "i4", "f8"]))
    )

    def view(b):
        start = data.draw(st.integers(0, b.size - 1))
        step = data.draw(st.sampled_from([1, 2, 3, -1, -2, 5]))
        v = b[start::step] if step > 0 else b[start::step]
        if v.size >= 4 and data.draw(st.booleans()):
            rows = data.draw(st.integers(1, 2))
            v = v[: (v.size // rows) * rows].reshape(rows, -1)[
                :, :: data.draw(st.sampled_from([1, 2, -1]))
            ]
        return v

    a, b = view(base), view(base)
    if data.draw(st.booleans()) and base.itemsize > 1:
        b = b.view(np.uint8) if b.flags.c_contiguous else b
    ma, mb = mnp.from_dlpack(a), mnp.from_dlpack(b)
    assert mnp.shares_memory(ma, mb) == np.shares_memory(a, b)
    assert mnp.shares_memory(a, b) == np.shares_memory(a, b)  # numpy arrays, lent
    assert mnp.may_share_memory(ma, mb) == np.may_share_memory(a, b)
    assert mnp.may_share_memory(ma, mb, max_work=-1) == np.shares_memory(a, b)


def test_shares_memory_cases():
    x = np.arange(20.0)
    assert not mnp.shares_memory(x[::2], x[1::2])
    assert mnp.may_share_memory(x[::2], x[1::2])
    assert mnp.shares_memory(x[::2], x[4::3])
    assert not mnp.shares_memory(x[:10], x[10:])
    assert not mnp.shares_memory(x, np.arange(3.0))
    assert not mnp.shares_memory(x, [1, 2])
    assert not mnp.shares_memory(x[:0], x)
    assert mnp.shares_memory(np.broadcast_to(x[3:4], (4, 5)), x[3:5])
    assert not mnp.shares_memory(np.broadcast_to(x[3:4], (4, 5)), x[4:5])
    m = mnp.array(x)
    assert mnp.shares_memory(mnp.reshape(m, (4, 5)), mnp.transpose(mnp.reshape(m, (4, 5))))
    assert not mnp.shares_memory(m, x)


# ---- negative and zero strides through every op -------------------------------------------------


def strided_inputs():
    """(numpy view, the same view as an mxffi array) pairs: reversed rows and columns, a
    reversed column, a broadcast row (zero strides), and a broadcast scalar."""
    rng = np.random.default_rng(4)
    m = rng.standard_normal((4, 5)) + 2.0
    views = [
        m[::-1, ::-1],
        np.concatenate([m, m])[::-2, ::-1],
        np.ascontiguousarray(m.T)[::-1].T,
        np.broadcast_to(m[1], (4, 5)),
        np.broadcast_to(m[2, 3], (4, 5)),
        np.broadcast_to(m[:, :1], (4, 5))[::-1],
    ]
    return [(v, mnp.from_dlpack(v)) for v in views]


UNARY_OPS = ["negative", "absolute", "square", "sqrt", "exp", "log", "sign", "sin"]
BINARY_OPS = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum"]


def close(got, want):
    got = as_np(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("k", range(6))
@np.errstate(invalid="ignore", divide="ignore")
def test_every_op_on_negative_and_zero_strides(k):
    n, x = strided_inputs()[k]
    n2, x2 = strided_inputs()[(k + 1) % 6]
    for name in UNARY_OPS:
        close(getattr(mnp, name)(x), getattr(np, name)(n))
        close(getattr(mnp, name)(n), getattr(np, name)(n))
    for name in BINARY_OPS:
        close(getattr(mnp, name)(x, x2), getattr(np, name)(n, n2))
        close(getattr(mnp, name)(x, 1.5), getattr(np, name)(n, 1.5))
        close(getattr(mnp, name)(2.0, x), getattr(np, name)(2.0, n))
    for name in ["sum", "mean", "max", "min"]:
        for axis in [None, 0, 1, (0, 1)]:
            close(getattr(mnp, name)(x, axis=axis), getattr(np, name)(n, axis=axis))
    close(mnp.dot(x, mnp.transpose(x2)), np.dot(n, n2.T))
    close(mnp.matmul(mnp.transpose(x), x2), np.matmul(n.T, n2))
    close(mnp.tensordot(x, x2, axes=([0], [0])), np.tensordot(n, n2, axes=([0], [0])))
    close(mnp.copy(x), n.copy())
    close(mnp.astype(x, "float32"), n.astype(np.float32))
    close(mnp.reshape(x, (5, 4)), n.reshape(5, 4))
    close(mnp.transpose(x), n.T)
    close(mnp.array(x), np.array(n))
    close(mnp.zeros_like(x), np.zeros_like(n))
    close(mnp.quadratic(x, a=1.0, b=-2.0, c=0.5), n * n - 2.0 * n + 0.5)
    close(mnp.take(x, [3, 0, -1], axis=1), np.take(n, [3, 0, -1], axis=1))
    close(mnp.take(x, [7, 0]), np.take(n, [7, 0]))
    order = np.argsort(n, axis=1)
    close(mnp.take_along_axis(x, order, axis=1), np.take_along_axis(n, order, axis=1))
    for g, w in zip(mnp.nonzero(mnp.subtract(x, 2.5)), np.nonzero(n - 2.5), strict=True):
        np.testing.assert_array_equal(as_np(g), w)
    close(gather(x, 0, np.array([[3, 0], [1, 1]])), n[np.array([[3, 0], [1, 1]])])


def test_from_dlpack_keeps_negative_and_zero_strides():
    n = np.arange(12.0).reshape(3, 4)
    for v in [n[::-1], n[:, ::-2], np.broadcast_to(n[0], (5, 4))]:
        m = mnp.from_dlpack(v)
        assert m.shape == v.shape
        np.testing.assert_array_equal(as_np(m), v)
        assert mnp.shares_memory(m, n)


def test_ops_by_name():
    """The ops through generic invocation: num_args defaults to the inputs given."""
    x = np.arange(12.0).reshape(3, 4)
    same(mxffi.ops.invoke("_npi_advanced_gather", x, np.array([3, 0]), axis=1), x[:, [3, 0]])
    same(mxffi.ops.invoke("_npi_count_nonzero", x), np.array(11))
    same(mxffi.ops.invoke("_npi_nonzero", np.array([0, 1, 1]), count=2), np.array([[1, 2]]))
    with pytest.raises(ValueError, match="_npi_nonzero: count=1 but x has 2 nonzero elements"):
        mxffi.ops.invoke("_npi_nonzero", np.array([0, 1, 1]), count=1)
    with pytest.raises(ValueError, match="num_args=2 leaves no index array"):
        mxffi.ops.invoke("_npi_advanced_scatter", x, np.array([1.0]))
    out = mxffi.ops.invoke("_npi_advanced_scatter", x, np.array([-1.0]), np.array([1]))
    want = x.copy()
    want[[1]] = -1.0
    same(out, want)  # x itself is not written: out is a new array
    assert x[1, 0] == 4.0
