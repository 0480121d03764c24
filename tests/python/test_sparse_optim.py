"""sgd_mom_update, ftrl_update and adagrad_update against numpy references written from MXNet's
formulas: dense and row_sparse gradients, lazy and not, float32/float64, clipping on and off,
MXNet's defaults, and the errors for bad inputs."""

import numpy as np
import pytest

import mxffi
import mxffi.np as mnp
from mxffi.nd import sparse


@pytest.fixture(autouse=True)
def _quiet_fallback(monkeypatch):
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")


def random_grad(shape, dtype, seed):
    """A gradient with about a third of its rows non-zero (row 1 always zero)."""
    rng = np.random.default_rng(seed)
    g = (rng.standard_normal(shape) * 2).astype(dtype)
    if shape[0]:
        keep = rng.random(shape[0]) < 0.35
        if shape[0] > 2:
            keep[1] = False
        g[~keep] = 0
    return g


def rsp(d, itype):
    return sparse.row_sparse_array(d, idx_dtype=np.dtype(itype).name)


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def tol(dtype):
    return {"rtol": 4e-6, "atol": 2e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}


def clip(x, c):
    return np.clip(x, -c, c) if c >= 0 else x


def mom_ref(w, g, mom, lr, momentum, wd, rescale, c):
    t = w.dtype.type
    mom = t(momentum) * mom - t(lr) * (clip(t(rescale) * g, t(c)) + t(wd) * w)
    return w + mom, mom


def ftrl_ref(w, g, z, n, lr, lamda1, beta, wd, rescale, c):
    t = w.dtype.type
    g = clip(t(rescale) * g, t(c))
    z = z + (g - (np.sqrt(n + g * g) - np.sqrt(n)) * w / t(lr))
    n = n + g * g
    w = np.where(
        np.abs(z) > t(lamda1),
        (np.sign(z) * t(lamda1) - z) / ((t(beta) + np.sqrt(n)) / t(lr) + t(wd)),
        t(0),
    ).astype(w.dtype)
    return w, z, n


def adagrad_ref(w, g, h, lr, eps, wd, rescale, c):
    t = w.dtype.type
    g = clip(t(rescale) * g, t(c))
    h = h + g * g
    return w - t(lr) * (g / np.sqrt(h + t(eps)) + t(wd) * w), h


COMMON = [
    {"wd": 0.0, "rescale_grad": 1.0, "clip_gradient": -1.0},
    {"wd": 0.01, "rescale_grad": 0.5, "clip_gradient": 0.75},
]

# name, extra hyper-parameters, state names, (shape, dtype, rng) -> initial states, reference
OPTIMIZERS = {
    "sgd_mom_update": (
        {"lr": 0.1, "momentum": 0.9},
        lambda shape, dtype, rng: [(rng.standard_normal(shape) * 0.1).astype(dtype)],
        lambda w, g, s, hp: mom_ref(w, g, s[0], hp["lr"], hp["momentum"], hp["wd"],
                                    hp["rescale_grad"], hp["clip_gradient"]),
    ),
    "ftrl_update": (
        {"lr": 0.1, "lamda1": 0.05, "beta": 1.5},
        lambda shape, dtype, rng: [
            rng.standard_normal(shape).astype(dtype),
            rng.random(shape).astype(dtype),
        ],
        lambda w, g, s, hp: ftrl_ref(w, g, s[0], s[1], hp["lr"], hp["lamda1"], hp["beta"],
                                     hp["wd"], hp["rescale_grad"], hp["clip_gradient"]),
    ),
    "adagrad_update": (
        {"lr": 0.1, "epsilon": 1e-6},
        lambda shape, dtype, rng: [rng.random(shape).astype(dtype)],
        lambda w, g, s, hp: adagrad_ref(w, g, s[0], hp["lr"], hp["epsilon"], hp["wd"],
                                        hp["rescale_grad"], hp["clip_gradient"]),
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(OPTIMIZERS))
@pytest.mark.parametrize("shape", [(30, 4), (1, 1), (0, 3), (10, 2, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("common", COMMON)
def test_update_matches_numpy(name, shape, dtype, itype, common):
    extra, init, ref_fn = OPTIMIZERS[name]
    hp = dict(extra, **common)
    rng = np.random.default_rng(7)
    w0 = rng.standard_normal(shape).astype(dtype)
    s0 = init(shape, dtype, rng)
    gd = random_grad(shape, dtype, 8)
    present = np.zeros(shape[0], bool)
    present[np.asarray(rsp(gd, itype).indices)] = True
    refs = ref_fn(w0, gd, s0, hp)
    for grad, lazy, mode in [
        (mnp.array(gd), True, "fcompute"),
        (gd, False, "fcompute"),
        (rsp(gd, itype), True, "fcompute_ex"),
        (rsp(gd, itype), False, "fcompute_ex"),
    ] + ([(sparse.csr_matrix(gd), True, "fallback")] if len(shape) == 2 else []):
        w = mnp.array(w0)
        states = [mnp.array(s) for s in s0]
        views = [np.from_dlpack(a) for a in [w, *states]]
        kw = dict(hp, lazy_update=lazy)
        assert mxffi.ops.dispatch(name, w, grad, *states, **kw) == (
            mode,
            ["default"] * (1 + len(states)),
        )
        out = getattr(sparse, name)(w, grad, *states, **kw)
        assert out is w  # the weight itself, updated in place
        for view, ref, before in zip(views, refs, [w0, *s0], strict=True):
            if isinstance(grad, sparse.RowSparseNDArray) and lazy:
                np.testing.assert_allclose(view[present], ref[present], **tol(dtype))
                np.testing.assert_array_equal(bits(view[~present]), bits(before[~present]))
            else:
                np.testing.assert_allclose(view, ref, **tol(dtype))


@pytest.mark.parametrize("name", list(OPTIMIZERS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stored_zero_rows_and_empty_gradients(name, dtype):
    """A row the gradient stores, even all zero, takes a step when lazy; a row_sparse gradient
    with no stored rows changes nothing when lazy and everything (zero-gradient steps) when
    not."""
    extra, init, ref_fn = OPTIMIZERS[name]
    hp = dict(extra, wd=0.1, rescale_grad=1.0, clip_gradient=-1.0)
    rng = np.random.default_rng(11)
    shape = (6, 3)
    w0 = rng.standard_normal(shape).astype(dtype)
    s0 = init(shape, dtype, rng)
    data = np.zeros((2, 3), dtype)
    data[1] = [1.0, -2.0, 0.5]
    g = sparse.row_sparse_array((data, np.array([2, 4])), shape=shape)
    gd = np.zeros(shape, dtype)
    gd[4] = data[1]
    refs = ref_fn(w0, gd, s0, hp)
    w, states = mnp.array(w0), [mnp.array(s) for s in s0]
    getattr(sparse, name)(w, g, *states, **hp)
    for got, ref, before in zip([w, *states], refs, [w0, *s0], strict=True):
        got = np.asarray(got)
        np.testing.assert_allclose(got[[2, 4]], ref[[2, 4]], **tol(dtype))
        np.testing.assert_array_equal(bits(got[[0, 1, 3, 5]]), bits(before[[0, 1, 3, 5]]))
    empty = sparse.zeros("row_sparse", shape, dtype=np.dtype(dtype).name)
    refs = ref_fn(w0, np.zeros(shape, dtype), s0, hp)
    for lazy in (True, False):
        w, states = mnp.array(w0), [mnp.array(s) for s in s0]
        getattr(sparse, name)(w, empty, *states, lazy_update=lazy, **hp)
        for got, ref, before in zip([w, *states], refs, [w0, *s0], strict=True):
            if lazy:
                np.testing.assert_array_equal(bits(np.asarray(got)), bits(before))
            else:
                np.testing.assert_allclose(np.asarray(got), ref, **tol(dtype))


def test_defaults_are_mxnets():
    rng = np.random.default_rng(0)
    w0, g = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    w, mom = mnp.array(w0), mnp.array(np.full((5, 3), 0.5))
    sparse.sgd_mom_update(w, g, mom, 0.1)  # momentum=0: mom becomes the plain step
    want = mom_ref(w0, g, np.full((5, 3), 0.5), 0.1, 0.0, 0.0, 1.0, -1.0)
    for got, ref in zip((w, mom), want, strict=True):
        np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-12)
    w, z, n = mnp.array(w0), mnp.zeros((5, 3)), mnp.zeros((5, 3))
    sparse.ftrl_update(w, g, z, n, 0.1)
    want = ftrl_ref(w0, g, np.zeros((5, 3)), np.zeros((5, 3)), 0.1, 0.01, 1.0, 0.0, 1.0, -1.0)
    for got, ref in zip((w, z, n), want, strict=True):
        np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-12)
    w, h = mnp.array(w0), mnp.zeros((5, 3))
    sparse.adagrad_update(w, g, h, 0.1)
    want = adagrad_ref(w0, g, np.zeros((5, 3)), 0.1, 1e-7, 0.0, 1.0, -1.0)
    for got, ref in zip((w, h), want, strict=True):
        np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-12)


def test_repeated_steps_accumulate_state():
    """Three lazy momentum steps on alternating rows match three reference steps."""
    rng = np.random.default_rng(5)
    w0 = rng.standard_normal((4, 2))
    w, mom = mnp.array(w0), mnp.zeros((4, 2))
    wr, mr = w0.copy(), np.zeros((4, 2))
    for step, rows in enumerate(([0, 2], [2], [1, 2, 3])):
        d = rng.standard_normal((len(rows), 2))
        sparse.sgd_mom_update(
            w, sparse.row_sparse_array((d, np.array(rows)), shape=(4, 2)), mom, 0.1, momentum=0.9
        )
        gd = np.zeros((4, 2))
        gd[rows] = d
        nw, nm = mom_ref(wr, gd, mr, 0.1, 0.9, 0.0, 1.0, -1.0)
        wr[rows], mr[rows] = nw[rows], nm[rows]
        np.testing.assert_allclose(np.asarray(w), wr, rtol=1e-12, err_msg=f"step {step}")
        np.testing.assert_allclose(np.asarray(mom), mr, rtol=1e-12, err_msg=f"step {step}")


def test_bad_inputs():
    w = mnp.array(np.ones((4, 3)))
    g = np.ones((4, 3))
    with pytest.raises(
        ValueError,
        match=r"^sgd_mom_update: mom.shape=\(4, 4\) does not match weight.shape=\(4, 3\)",
    ):
        sparse.sgd_mom_update(w, g, mnp.zeros((4, 4)), 0.1)
    with pytest.raises(
        ValueError, match=r"^ftrl_update: grad.shape=\(5, 3\) does not match weight.shape=\(4, 3\)"
    ):
        sparse.ftrl_update(
            w, rsp(np.ones((5, 3)), np.int64), mnp.zeros((4, 3)), mnp.zeros((4, 3)), 0.1
        )
    with pytest.raises(
        ValueError, match=r"^ftrl_update: n.shape=\(3, 4\) does not match weight.shape=\(4, 3\)"
    ):
        sparse.ftrl_update(w, g, mnp.zeros((4, 3)), mnp.zeros((3, 4)), 0.1)
    with pytest.raises(
        TypeError,
        match="^adagrad_update: history.dtype=float32 does not match weight.dtype=float64",
    ):
        sparse.adagrad_update(w, g, mnp.zeros((4, 3), dtype="float32"), 0.1)
    with pytest.raises(
        TypeError, match="^adagrad_update: weight must be float32 or float64; got int32"
    ):
        sparse.adagrad_update(
            mnp.array(np.ones((4, 3), np.int32)), g.astype(np.int32),
            mnp.zeros((4, 3), dtype="int32"), 0.1,
        )  # fmt: skip
    with pytest.raises(
        TypeError, match="^ftrl_update: z must be a dense array, got a row_sparse one"
    ):
        sparse.ftrl_update(w, g, rsp(np.ones((4, 3)), np.int64), mnp.zeros((4, 3)), 0.1)
    with pytest.raises(
        TypeError, match="^sgd_mom_update: weight must be a dense array, got a row_sparse one"
    ):
        sparse.sgd_mom_update(rsp(np.ones((4, 3)), np.int64), g, mnp.zeros((4, 3)), 0.1)
    with pytest.raises(
        TypeError, match="^adagrad_update: history must be a dense array, got a csr one"
    ):
        sparse.adagrad_update(w, g, sparse.csr_matrix(np.ones((4, 3))), 0.1)
    with pytest.raises(
        ValueError,
        match="^adagrad_update: weight and history are the same memory; each is updated in place",
    ):
        sparse.adagrad_update(w, g, w, 0.1)
    z = mnp.zeros((4, 3))
    with pytest.raises(ValueError, match="^ftrl_update: z and n are the same memory"):
        sparse.ftrl_update(w, g, z, z, 0.1)
    with pytest.raises(
        TypeError, match="^sparse.ftrl_update: argument #4 'lr' expected float, got str"
    ):
        sparse.ftrl_update(w, g, z, mnp.zeros((4, 3)), "0.1")
    with pytest.raises(
        TypeError,
        match="^sparse.sgd_mom_update: argument #2 'mom' expected a writable mxffi ndarray, got",
    ):
        sparse.sgd_mom_update(w, g, np.zeros((4, 3)), 0.1)
    np.testing.assert_array_equal(np.asarray(w), np.ones((4, 3)))  # nothing was written
