"""np.linalg against numpy.linalg: values for float32, float64, complex64, complex128 and
integers (computed in float64), stacks of matrices, empty matrices, strided inputs, the named
tuple results, and numpy's errors (LinAlgError is numpy's class where numpy is installed)."""

import json
import os
import platform
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mxffi.np as mnp
from mxffi._ffi import libinfo

L = mnp.linalg
DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}


def rand(shape, dtype, rng):
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def spd(shape, dtype, rng):
    """A stack of Hermitian positive-definite matrices."""
    a = rand(shape, dtype, rng)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def close(got, expected, dtype, scale=1.0):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    assert got.shape == np.shape(expected), (got.shape, np.shape(expected))
    np.testing.assert_allclose(got, expected, rtol=TOL[dtype] * 10, atol=TOL[dtype] * scale)


@pytest.mark.parametrize("dtype", DTYPES)
def test_inv_det_slogdet(dtype):
    rng = np.random.default_rng(1)
    for shape in [(4, 4), (3, 5, 5), (2, 1, 3, 3), (1, 1)]:
        a = rand(shape, dtype, rng)
        inv = L.inv(a)
        assert inv.dtype == a.dtype
        close(inv, np.linalg.inv(a), dtype, 50)
        det = L.det(a)
        assert det.dtype == np.linalg.det(a).dtype
        close(det, np.linalg.det(a), dtype, 10)
        res = L.slogdet(a)
        ref = np.linalg.slogdet(a)
        assert res.sign.dtype == ref.sign.dtype and res.logabsdet.dtype == ref.logabsdet.dtype
        close(res.sign, ref.sign, dtype)
        close(res.logabsdet, ref.logabsdet, dtype, 10)
        sign, logabs = res  # a named tuple, as numpy's
        assert sign is res[0] and logabs is res[1]


def test_integers_compute_in_float64():
    a = np.array([[2, 1], [1, 3]], dtype=np.int32)
    assert L.inv(a).dtype == np.float64
    np.testing.assert_allclose(L.inv(a).numpy(), np.linalg.inv(a))
    assert L.det(np.array([[True, False], [False, True]])).numpy() == 1.0
    assert L.det(np.array([[1, 2], [3, 4]], dtype=np.uint8)).dtype == np.float64


def test_singular_and_zero_pivot():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError, match=r"^np\.linalg\.inv: Singular matrix"):
        L.inv(a)
    with pytest.raises(mnp.linalg.LinAlgError):
        L.inv(np.stack([np.eye(2), a]))  # one singular matrix of the stack
    assert L.det(a).numpy() == 0.0
    sign, logabs = L.slogdet(a)
    assert sign.numpy() == 0.0 and logabs.numpy() == -np.inf
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        L.solve(a, np.ones(2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve(dtype):
    rng = np.random.default_rng(2)
    a = rand((3, 4, 4), dtype, rng) + 4 * np.eye(4, dtype=dtype)
    cases = [
        (a, rand((3, 4, 2), dtype, rng)),  # stacks
        (a, rand((4,), dtype, rng)),  # a vector: numpy 2 and the array API
        (a[0], rand((4, 3), dtype, rng)),
        (a, rand((4, 1), dtype, rng)),  # b's stack broadcast
        (a[:1], rand((5, 4, 2), dtype, rng)),  # a's stack broadcast
        (a[0], rand((2, 3, 4, 2), dtype, rng)),
    ]
    for x1, x2 in cases:
        close(L.solve(x1, x2), np.linalg.solve(x1, x2), dtype, 50)


def test_solve_promotes_and_checks_shapes():
    a = np.array([[3.0, 1.0], [1.0, 2.0]], dtype=np.float32)
    x = L.solve(a, np.array([9, 8]))  # float32 with int64 (float64): float64
    assert x.dtype == np.float64
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, np.array([9, 8])))
    with pytest.raises(ValueError, match=r"^np\.linalg\.solve: x2 has 3 rows but x1 is 2 x 2"):
        L.solve(a, np.ones(3))
    with pytest.raises(ValueError, match=r"^np\.linalg\.solve: operands could not be broadcast"):
        L.solve(np.stack([a, a, a]), np.ones((2, 2, 1)))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        L.solve(np.ones((2, 3)), np.ones(2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky(dtype):
    rng = np.random.default_rng(3)
    a = spd((3, 5, 5), dtype, rng)
    close(L.cholesky(a), np.linalg.cholesky(a), dtype, 20)
    close(L.cholesky(a, upper=True), np.linalg.cholesky(a, upper=True), dtype, 20)
    # Only the named triangle is read.
    junk = a + np.triu(np.full((5, 5), 100.0, dtype=dtype), 1)
    close(L.cholesky(junk), np.linalg.cholesky(a), dtype, 20)
    with pytest.raises(
        np.linalg.LinAlgError, match=r"^np\.linalg\.cholesky: Matrix is not positive definite"
    ):
        L.cholesky(-np.eye(3, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh_eigvalsh(dtype):
    rng = np.random.default_rng(4)
    a = rand((2, 6, 6), dtype, rng)
    a = (a + np.conj(np.swapaxes(a, -1, -2))) / 2
    for uplo in ("L", "U"):
        w, v = L.eigh(a, UPLO=uplo)
        rw, rv = np.linalg.eigh(a, UPLO=uplo)
        assert w.dtype == rw.dtype and v.dtype == rv.dtype
        close(w, rw, dtype, 20)
        # Eigenvectors are unique up to a phase: check a v = v diag(w) and orthonormality.
        vn, wn = v.numpy(), w.numpy()
        close(a @ vn, vn * wn[..., None, :], dtype, 50)
        close(np.conj(np.swapaxes(vn, -1, -2)) @ vn, np.broadcast_to(np.eye(6), (2, 6, 6)), dtype)
        close(L.eigvalsh(a, UPLO=uplo), rw, dtype, 20)
    res = L.eigh(a)
    assert res.eigenvalues is res[0] and res.eigenvectors is res[1]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (0, 3), (3, 0)])
def test_svd_svdvals_qr(dtype, shape):
    rng = np.random.default_rng(5)
    a = rand(shape, dtype, rng)
    k = min(shape[-2:])
    for full in (True, False):
        u, s, vh = L.svd(a, full_matrices=full)
        ru, rs, rvh = np.linalg.svd(a, full_matrices=full)
        assert (u.shape, s.shape, vh.shape) == (ru.shape, rs.shape, rvh.shape)
        assert s.dtype == rs.dtype and u.dtype == ru.dtype
        close(s, rs, dtype, 20)
        un, vn = u.numpy()[..., :, :k], vh.numpy()[..., :k, :]
        close((un * s.numpy()[..., None, :]) @ vn, a, dtype, 50)
    close(L.svdvals(a), np.linalg.svdvals(a), dtype, 20)
    for mode in ("reduced", "complete"):
        q, r = L.qr(a, mode=mode)
        rq, rr = np.linalg.qr(a, mode=mode)
        assert q.shape == rq.shape and r.shape == rr.shape and q.dtype == rq.dtype
        close(q.numpy() @ r.numpy(), a, dtype, 50)
        close(np.abs(r.numpy()), np.abs(rr), dtype, 50)  # R is unique up to row phases
        close(np.triu(r.numpy()), r.numpy(), dtype)
    assert L.qr(a, mode="r").shape == np.linalg.qr(a, mode="r").shape


@pytest.mark.parametrize("dtype", DTYPES)
def test_pinv_matrix_rank(dtype):
    rng = np.random.default_rng(6)
    for shape in [(5, 3), (3, 5), (2, 4, 4)]:
        a = rand(shape, dtype, rng)
        close(L.pinv(a), np.linalg.pinv(a), dtype, 50)
        assert L.matrix_rank(a).dtype == np.int64
        np.testing.assert_array_equal(L.matrix_rank(a).numpy(), np.linalg.matrix_rank(a))
    low = (rand((6, 2), dtype, rng) @ rand((2, 6), dtype, rng)).astype(dtype)
    assert L.matrix_rank(low).numpy() == 2
    close(L.pinv(low), np.linalg.pinv(low, rtol=6 * np.finfo(low.dtype).eps), dtype, 200)
    assert L.matrix_rank(np.diag([1.0, 1e-3, 1e-9]), rtol=1e-4).numpy() == 2
    np.testing.assert_allclose(
        L.pinv(np.diag([1.0, 1e-3]), rtol=1e-2).numpy(), np.diag([1.0, 0.0]), atol=1e-12
    )


def test_rtol_arrays_broadcast_against_the_stack():
    x = np.stack([np.diag([1.0, 1e-3, 1e-9]), np.diag([1.0, 0.5, 1e-2])])
    rtol = np.array([1e-4, 0.1])
    np.testing.assert_array_equal(
        L.matrix_rank(x, rtol=rtol).numpy(), np.linalg.matrix_rank(x, rtol=rtol)
    )
    np.testing.assert_array_equal(L.matrix_rank(x, rtol=mnp.asarray(rtol)).numpy(), [2, 2])
    np.testing.assert_allclose(
        L.pinv(x, rtol=rtol).numpy(), np.linalg.pinv(x, rtol=rtol), atol=1e-12
    )
    with pytest.raises(ValueError, match=r"^np\.linalg\.pinv: operands could not be broadcast"):
        L.pinv(x, rtol=np.ones(3))
    with pytest.raises(TypeError, match=r"rtol must be a real number or a real array, got an "):
        L.pinv(x, rtol=np.ones(2, complex))
    with pytest.raises(
        TypeError,
        match=r"^np\.linalg\.matrix_rank: argument #1 'rtol' expected None or an ndarray or a "
        r"number, got str",
    ):
        L.matrix_rank(x, rtol="a")


def test_empty_matrices():
    assert L.det(np.zeros((0, 0))).numpy() == 1.0
    assert L.inv(np.zeros((2, 0, 0))).shape == (2, 0, 0)
    assert L.eigvalsh(np.zeros((0, 0))).shape == (0,)
    assert L.solve(np.zeros((0, 0)), np.zeros(0)).shape == (0,)
    assert L.matrix_rank(np.zeros((3, 0))).numpy() == 0
    assert L.pinv(np.zeros((3, 0))).shape == (0, 3)


def test_strided_inputs():
    rng = np.random.default_rng(7)
    base = rng.standard_normal((6, 8))
    a = mnp.asarray(base)[::2, 1:7:2].T  # a (3, 3) view with odd strides
    ref = base[::2, 1:7:2].T
    np.testing.assert_allclose(L.inv(a).numpy(), np.linalg.inv(ref))
    np.testing.assert_allclose(L.det(a).numpy(), np.linalg.det(ref))


def test_matrix_power():
    fib = np.array([[1, 1], [1, 0]])
    for n in (0, 1, 2, 5, 10, 31):
        got = L.matrix_power(fib, n)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got.numpy(), np.linalg.matrix_power(fib, n))
    a = np.array([[[2.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [0.0, 1.0]]])
    for n in (-1, -3, 4):
        np.testing.assert_allclose(L.matrix_power(a, n).numpy(), np.linalg.matrix_power(a, n))
    x = mnp.asarray(a)
    assert not np.shares_memory(L.matrix_power(x, 1).numpy(), a)  # a new array, as numpy
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        L.matrix_power(np.ones((2, 3)), 2)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        L.matrix_power(np.ones((2, 2)), -1)


@pytest.mark.parametrize("offset", [-3, -1, 0, 1, 2, 4, 5])
def test_diagonal_trace(offset):
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    d = L.diagonal(a, offset=offset)
    np.testing.assert_array_equal(d.numpy(), np.linalg.diagonal(a, offset=offset))
    t = L.trace(a, offset=offset)
    ref = np.linalg.trace(a, offset=offset)
    assert t.dtype == ref.dtype
    np.testing.assert_array_equal(t.numpy(), ref)
    assert L.trace(a, offset=offset, dtype=mnp.float32).dtype == np.float32


def test_diagonal_is_a_view():
    x = mnp.asarray(np.arange(9.0).reshape(3, 3))
    assert np.shares_memory(L.diagonal(x).numpy(), x.numpy())


def test_outer():
    np.testing.assert_array_equal(
        L.outer(np.arange(3), np.arange(2.0)).numpy(), np.linalg.outer(np.arange(3), np.arange(2.0))
    )
    assert L.outer(np.arange(3, dtype=np.int8), np.arange(2, dtype=np.int8)).dtype == np.int8
    with pytest.raises(ValueError, match=r"^np\.linalg\.outer: Input arrays must be one-dim"):
        L.outer(np.ones((2, 2)), np.ones(2))


def test_errors_name_the_function():
    with pytest.raises(np.linalg.LinAlgError, match=r"^np\.linalg\.det: 1-dimensional array"):
        L.det(np.ones(3))
    with pytest.raises(np.linalg.LinAlgError, match=r"square, got shape \(2,3\)"):
        L.eigvalsh(np.ones((2, 3)))
    with pytest.raises(TypeError, match=r"^np\.linalg\.inv: array type float16 is unsupported"):
        L.inv(np.eye(2, dtype=np.float16))
    with pytest.raises(ValueError, match=r"^np\.linalg\.qr: Unrecognized mode 'raw'"):
        L.qr(np.eye(2), mode="raw")
    with pytest.raises(ValueError, match=r"^np\.linalg\.eigh: UPLO argument must be 'L' or 'U'"):
        L.eigh(np.eye(2), UPLO="X")
    with pytest.raises(TypeError, match="positional"):
        L.inv(x=np.eye(2))
    with pytest.raises(TypeError):
        L.cholesky(np.eye(2), True)  # upper is keyword-only


def test_namespace():
    assert L.matmul is mnp.matmul and L.vecdot is mnp.vecdot
    assert L.tensordot is mnp.tensordot and L.matrix_transpose is mnp.matrix_transpose
    assert issubclass(L.LinAlgError, np.linalg.LinAlgError)
    assert issubclass(L.LinAlgError, ValueError)
    for name in ("inv", "solve", "det", "slogdet", "cholesky", "qr", "eigh", "eigvalsh", "svd"):
        assert name in L.__all__


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "bool"])
def test_vector_norm(dtype):
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((3, 4, 5)) * 3).astype(dtype)
    for ord in (2, 1, 0, np.inf, -np.inf, 3, -1, 0.5):
        for axis in (None, -1, (0, 2), 1):
            for keepdims in (False, True):
                got = L.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord).numpy()
                with np.errstate(divide="ignore"):  # numpy's |0| ** -1
                    ref = np.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
                assert got.shape == ref.shape and got.dtype == ref.dtype, (ord, axis, keepdims)
                np.testing.assert_allclose(got, ref, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matrix_norm(dtype):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 4, 3)).astype(dtype)
    for ord in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        for keepdims in (False, True):
            got = L.matrix_norm(x, keepdims=keepdims, ord=ord).numpy()
            ref = np.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
            assert got.shape == ref.shape and got.dtype == ref.dtype, (ord, keepdims)
            np.testing.assert_allclose(got, ref, rtol=1e-5)
    with pytest.raises(ValueError, match=r"^np\.linalg\.matrix_norm: Invalid norm order 3 "):
        L.matrix_norm(x, ord=3)
    with pytest.raises(ValueError, match=r"Invalid norm order 'max' for matrices"):
        L.matrix_norm(x, ord="max")
    with pytest.raises(ValueError, match=r"at least 2 dimensions, got shape \(3,\)"):
        L.matrix_norm(np.ones(3))
    with pytest.raises(
        TypeError,
        match=r"^np\.linalg\.matrix_norm: argument #2 'ord' expected 'fro', 'nuc' or a number, "
        r"got mxffi.Array",
    ):
        L.matrix_norm(x, ord=[1])


def test_cross():
    rng = np.random.default_rng(10)
    for sa, sb, axis in [((3,), (3,), -1), ((4, 3), (2, 1, 3), -1), ((3, 4), (3, 1), 0)]:
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)
        np.testing.assert_allclose(L.cross(a, b, axis=axis).numpy(), np.cross(a, b, axis=axis))
    ints = L.cross(np.array([1, 2, 3], np.int32), np.array([4, 5, 6], np.int32))
    assert ints.dtype == np.int32 and ints.tolist() == [-3, 6, -3]
    with pytest.raises(ValueError, match=r"^np\.linalg\.cross: x1 and x2 must have 3 elements"):
        L.cross(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"^np\.linalg\.cross: operands could not be broadcast"):
        L.cross(np.ones(2), np.ones(3))


@pytest.mark.parametrize(
    "name,call",
    [
        ("np.linalg.inv", lambda c: L.inv(c)),
        ("np.linalg.det", lambda c: L.det(c)),
        ("np.linalg.pinv", lambda c: L.pinv(c)),
        ("np.linalg.solve", lambda c: L.solve(c, c)),
        ("np.linalg.trace", lambda c: L.trace(c)),
        ("np.linalg.vector_norm", lambda c: L.vector_norm(c)),
        ("np.vecdot", lambda c: mnp.vecdot(c, c)),
    ],
)
def test_sparse_arrays_are_refused_by_name(name, call):
    # The LAPACK paths read the dense buffer of their input: a sparse array crashed them.
    from mxffi.nd import sparse

    c = sparse.csr_matrix(np.eye(3))
    with pytest.raises(TypeError, match=rf"^{name}: takes a dense array; got storage type csr"):
        call(c)


NONFINITE = {
    "nan": np.array([[np.nan, 0.0], [0.0, 1.0]]),
    "inf": np.array([[1.0, np.inf], [0.0, 1.0]]),
    "-inf": np.array([[-1.0, -np.inf], [0.0, -1.0]]),
    "all-nan complex": np.full((2, 2), complex(np.nan, np.nan)),
}
NONFINITE_FUNCS = ["eigh", "eigvalsh", "svd", "svdvals", "solve", "inv", "det", "slogdet",
                   "cholesky", "qr", "pinv", "matrix_rank"]  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("case", list(NONFINITE))
@pytest.mark.parametrize("name", NONFINITE_FUNCS)
def test_nan_and_inf_entries_reach_lapack_as_numpys_do(name, case, dtype):
    # LAPACKE's own NaN check would refuse these as a bad argument; numpy hands them to LAPACK:
    # a NaN flows into the results, or the routine reports a failure as LinAlgError.
    if case.endswith("complex") and not dtype.startswith("complex"):
        pytest.skip("complex entries need a complex dtype")
    a = NONFINITE[case].astype(dtype)
    args = (a, np.ones(2, dtype)) if name == "solve" else (a,)
    with np.errstate(all="ignore"):
        try:
            want = getattr(np.linalg, name)(*args)
        except np.linalg.LinAlgError as e:
            with pytest.raises(np.linalg.LinAlgError, match=rf"^np\.linalg\.{name}: {e}"):
                getattr(mnp.linalg, name)(*args)
            return
    got = getattr(mnp.linalg, name)(*args)
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        g = np.asarray(g)
        assert g.shape == np.shape(w) and g.dtype == np.asarray(w).dtype
    # Values where the routine's path does not depend on the LAPACK build: the LU of a
    # triangular matrix (no pivoting), and the rank of a matrix whose SVD is NaN.
    if name in ("det", "slogdet", "matrix_rank") and case != "all-nan complex":
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrices_wider_than_a_layout_tile(dtype):
    # Row-major arrays go to LAPACK's column-major workspaces and back through 32 x 32 tiles:
    # sides that are and are not multiples of 32, wide and tall, stacked.
    rng = np.random.default_rng(32)
    for n in (32, 33, 70):
        a = rand((n, n), dtype, rng) + n * np.eye(n, dtype=dtype)
        close(L.inv(a), np.linalg.inv(a), dtype, 10)
        close(L.det(a / n), np.linalg.det(a / n), dtype, 10)
        for b in (rand((n,), dtype, rng), rand((n, 37), dtype, rng), rand((2, n, 65), dtype, rng)):
            close(L.solve(a, b), np.linalg.solve(a, b), dtype, 10)
        s = spd((n, n), dtype, rng)
        close(L.cholesky(s), np.linalg.cholesky(s), dtype, 10 * n)
        close(L.eigvalsh(s), np.linalg.eigvalsh(s), dtype, 10 * n)
    for shape in ((70, 45), (45, 70), (2, 33, 64)):
        a = rand(shape, dtype, rng)
        close(L.svdvals(a), np.linalg.svd(a, compute_uv=False), dtype, 10)
        close(L.pinv(a), np.linalg.pinv(a), dtype, 10)
        q, r = L.qr(a)
        close(mnp.matmul(q, r), a, dtype, 10)
        close(np.abs(r.numpy()), np.abs(np.linalg.qr(a)[1]), dtype, 10)


# ---------------------------------------------------------------------------------------------
# The OpenBLAS under np.linalg runs the kernels of this CPU's features

_KERNELS_SCRIPT = """
import json, os, subprocess
import mxffi
from mxffi._ffi import libinfo
import threadpoolctl

lib = os.path.join(libinfo.lib_dir(), "libmxffi.so")
linked = [line.split("=>")[1].split()[0] for line in subprocess.run(
    ["ldd", lib], capture_output=True, text=True, check=True).stdout.splitlines()
    if "libopenblas" in line and "=>" in line]
arch = [i["architecture"] for i in threadpoolctl.threadpool_info()
        if linked and os.path.realpath(i["filepath"]) == os.path.realpath(linked[0])]
print(json.dumps({"linked": linked, "arch": arch,
                  "left": os.environ.get("OPENBLAS_CORETYPE")}))
"""


def _env_without_coretype(**extra):
    """This process's environment without OPENBLAS_CORETYPE, plus extra."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    env.update(extra)
    return env


@pytest.mark.parametrize("user", [None, "HASWELL"], ids=["chosen", "set-by-user"])
def test_openblas_runs_the_kernels_of_the_cpu_features(user):
    pytest.importorskip("threadpoolctl")
    if shutil.which("ldd") is None or platform.machine() != "x86_64":
        pytest.skip("needs ldd on x86-64")
    chosen = libinfo.openblas_core_type(libinfo.cpu_features())
    if chosen is None:
        pytest.skip("this CPU has neither AVX-512 nor AVX2 with FMA")
    env = _env_without_coretype()
    if user is not None:
        env["OPENBLAS_CORETYPE"] = user
    proc = subprocess.run(
        [sys.executable, "-c", _KERNELS_SCRIPT], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    if not got["linked"]:
        pytest.skip("libmxffi does not link a shared OpenBLAS")
    if not got["arch"]:
        pytest.skip("threadpoolctl does not see libmxffi's OpenBLAS")
    # SKYLAKEX runs as "SkylakeX", HASWELL as "Haswell"
    assert got["arch"][0].lower() == (user or chosen).lower(), got
    assert got["left"] == user  # removed again after loading, unless the user set it


_VALGRIND_SCRIPT = """
import numpy as np
import mxffi.np as mnp
a = np.arange(64 * 64, dtype="float64").reshape(64, 64) / 4096
got = mnp.matmul(mnp.asarray(a), mnp.asarray(a)).asnumpy()
np.testing.assert_allclose(got, a @ a, rtol=1e-12)
print("ok")
"""


def test_the_kernels_chosen_are_ones_the_process_runs():
    """Under valgrind the process runs no AVX-512 (CPUID inside it says so) while
    /proc/cpuinfo still lists it: the kernels OPENBLAS_CORETYPE names come from what the process
    can run (numpy's CPU dispatch), so a dgemm there is not an illegal instruction."""
    valgrind = shutil.which("valgrind")
    if valgrind is None or platform.machine() != "x86_64":
        pytest.skip("needs valgrind on x86-64")
    env = _env_without_coretype(OPENBLAS_NUM_THREADS="1", MXFFI_NUM_THREADS="1")
    proc = subprocess.run(
        [valgrind, "--tool=none", "-q", sys.executable, "-c", _VALGRIND_SCRIPT],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["ok"]
