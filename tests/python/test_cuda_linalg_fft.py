"""np.linalg on cuSOLVER and np.fft on cuFFT for CUDA arrays: each function on a GPU array
against the same function on the CPU (LAPACK, KissFFT) and numpy, for float32, float64,
complex64 and complex128, stacks of matrices, wide and tall matrices, every norm mode and axis,
and numpy's errors (a singular matrix, one not positive definite); on a GPU machine the library
must load, and each GPU call must have called it (mxffi.cuda._library_calls counts the calls),
so that the host fallback cannot pass these tests in its place. Also, without a GPU:
libmxffi.so has no link dependency on cuSOLVER or cuFFT, which are loaded only when a GPU array
first needs them, and cuda.library_unavailable_reason says why one cannot be loaded.
"""

import contextlib
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import mxffi_config

import mxffi.np as mnp
from mxffi import cuda

needs_gpu = pytest.mark.skipif(
    not cuda.is_available(), reason=f"no CUDA device: {cuda.unavailable_reason()}"
)

DEVICE = "cuda:0"
L = mnp.linalg
F = mnp.fft
DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}


@pytest.mark.parametrize("lib", ["cusolver", "cufft"])
def test_libmxffi_does_not_link_cusolver_or_cufft(lib):
    libdir = Path(mxffi_config("--libdir"))
    libs = sorted(libdir.glob("libmxffi.so*"))
    assert libs, f"no libmxffi.so in {libdir}"
    if shutil.which("ldd") is None:
        pytest.skip("ldd is not on PATH")
    for so in libs:
        out = subprocess.run(["ldd", str(so)], capture_output=True, text=True, check=True)
        assert lib not in out.stdout, out.stdout


LIBRARIES = [("cublas", "cuBLAS", "libcublas.so"), ("cusolver", "cuSOLVER", "libcusolver.so")]
LIBRARIES += [("cufft", "cuFFT", "libcufft.so")]


@pytest.mark.parametrize("name,label,file", LIBRARIES)
def test_library_unavailable_reason_says_why(name, label, file):
    why = cuda.library_unavailable_reason(name)
    assert why == cuda.library_unavailable_reason(name)  # loaded once; the same answer
    if not cuda.compiled():
        assert why == "mxffi was built without CUDA"
    elif why:
        # Each file tried with the loader's message, or the entry point the library lacks.
        assert why.startswith((f"{label} could not be loaded (", f"{label} lacks ")), why
        assert file in why or "lacks" in why, why


def test_library_unavailable_reason_refuses_other_names():
    with pytest.raises(ValueError, match=r"name must be 'cublas', 'cusolver' or 'cufft', got 'x'"):
        cuda.library_unavailable_reason("x")


def needs(name):
    """On a GPU machine, the tests of a library fail where it does not load: the host fallback
    would otherwise pass them without running it."""
    why = cuda.library_unavailable_reason(name)
    assert why == "", why


def calls(lib):
    return cuda._library_calls()[lib]


@contextlib.contextmanager
def runs_on(lib):
    """The block must call lib (cuSOLVER or cuFFT): the host path would leave its count alone."""
    before = calls(lib)
    yield
    assert calls(lib) > before, f"the block did not call {lib}: it took the host path"


def via(lib, fn, *args, **kwargs):
    """fn(*args, **kwargs), after checking that it called lib."""
    with runs_on(lib):
        return fn(*args, **kwargs)


def sol(fn, *args, **kwargs):
    return via("cusolver", fn, *args, **kwargs)


def fft(fn, *args, **kwargs):
    return via("cufft", fn, *args, **kwargs)


def test_library_calls_are_counted_per_library():
    got = cuda._library_calls()
    assert sorted(got) == ["cufft", "cusolver"]
    assert all(isinstance(v, int) and v >= 0 for v in got.values()), got
    # Arrays on the host never call the CUDA libraries.
    a = np.eye(3)
    L.inv(a)
    F.fft(a)
    assert cuda._library_calls() == got


def rand(shape, dtype, rng):
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def spd(shape, dtype, rng):
    """A stack of Hermitian positive-definite matrices."""
    a = rand(shape, dtype, rng)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def gpu(x):
    return mnp.array(x).to(DEVICE)


def host(r):
    """A GPU result as numpy, after checking that it stayed on the GPU."""
    assert str(r.device).startswith("cuda"), r.device
    return r.asnumpy()


def close(got, want, dtype, scale=1.0):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=TOL[dtype] * 10, atol=TOL[dtype] * scale)


def herm(x):
    return np.conj(np.swapaxes(x, -1, -2))


SQUARE = [(4, 4), (3, 5, 5), (2, 1, 3, 3), (1, 1), (33, 33)]
RECT = [(4, 4), (6, 3), (3, 6), (2, 5, 2), (2, 2, 7), (40, 17), (17, 40)]


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_inv_solve_det_slogdet_match_cpu(dtype):
    needs("cusolver")
    rng = np.random.default_rng(1)
    for shape in SQUARE:
        a = rand(shape, dtype, rng)
        n = shape[-1]
        close(host(sol(L.inv, gpu(a))), L.inv(a).asnumpy(), dtype, 50 * n)
        det = host(sol(L.det, gpu(a)))
        close(det, L.det(a).asnumpy(), dtype, 10 * abs(np.linalg.det(a)).max())
        got, want = sol(L.slogdet, gpu(a)), L.slogdet(a)
        close(host(got.sign), want.sign.asnumpy(), dtype)
        close(host(got.logabsdet), want.logabsdet.asnumpy(), dtype, 10 * n)
        for b in (rand(shape[:-1] + (3,), dtype, rng), rand((n,), dtype, rng)):
            close(host(sol(L.solve, gpu(a), gpu(b))), L.solve(a, b).asnumpy(), dtype, 50 * n)


@needs_gpu
def test_solve_broadcasts_and_promotes_on_gpu():
    needs("cusolver")
    rng = np.random.default_rng(2)
    a = rand((3, 4, 4), "float32", rng)
    b = rand((4, 2), "float64", rng)
    close(host(sol(L.solve, gpu(a), gpu(b))), np.linalg.solve(a, b), "float64", 1e6)


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_singular_matrices_as_numpy(dtype):
    needs("cusolver")
    a = np.array([[[1, 2], [2, 4]], [[1, 0], [0, 1]]], dtype=dtype)
    x = gpu(a)
    with (
        runs_on("cusolver"),
        pytest.raises(np.linalg.LinAlgError, match=r"^np\.linalg\.inv: Singular matrix"),
    ):
        L.inv(x)
    with (
        runs_on("cusolver"),
        pytest.raises(np.linalg.LinAlgError, match=r"^np\.linalg\.solve: Singular matrix"),
    ):
        L.solve(x, gpu(np.ones((2, 2, 1), dtype)))
    res = sol(L.slogdet, x)
    ref = np.linalg.slogdet(a)
    np.testing.assert_array_equal(host(res.sign), ref.sign)
    np.testing.assert_array_equal(host(res.logabsdet), ref.logabsdet)
    np.testing.assert_array_equal(host(sol(L.det, x)), np.linalg.det(a))


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_cholesky_matches_cpu_and_refuses_indefinite(dtype):
    needs("cusolver")
    rng = np.random.default_rng(3)
    for shape in [(4, 4), (3, 6, 6), (1, 1), (40, 40)]:
        a = spd(shape, dtype, rng)
        scale = float(np.abs(a).max())
        for upper in (False, True):
            # Only the triangle numpy reads (the upper one for upper=True): spoil the other one.
            spoiled = np.tril(a, -1) * 7 + np.triu(a) if upper else np.triu(a, 1) * 7 + np.tril(a)
            got = host(sol(L.cholesky, gpu(spoiled), upper=upper))
            close(got, L.cholesky(a, upper=upper).asnumpy(), dtype, scale)
            close(got, np.linalg.cholesky(a, upper=upper), dtype, scale)
            tri = np.triu(got) if upper else np.tril(got)
            np.testing.assert_array_equal(got, tri)
    bad = np.array([[1, 2], [2, 1]], dtype=dtype)
    with (
        runs_on("cusolver"),
        pytest.raises(np.linalg.LinAlgError, match="Matrix is not positive definite"),
    ):
        L.cholesky(gpu(bad))
    with (
        runs_on("cusolver"),
        pytest.raises(np.linalg.LinAlgError, match="Matrix is not positive definite"),
    ):
        L.cholesky(gpu(np.stack([np.eye(2, dtype=dtype), bad])), upper=True)


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh_and_eigvalsh_match_cpu(dtype):
    needs("cusolver")
    rng = np.random.default_rng(4)
    for shape in [(4, 4), (3, 5, 5), (1, 1), (33, 33)]:
        a = rand(shape, dtype, rng)
        a = a + herm(a)
        scale = 10 * float(np.abs(a).max()) * shape[-1]
        for uplo in ("L", "U"):
            # Only the named triangle is read: spoil the other one.
            spoiled = (
                np.triu(a, 1) * 7 + np.tril(a) if uplo == "L" else np.tril(a, -1) * 7 + np.triu(a)
            )
            w, v = sol(L.eigh, gpu(spoiled), UPLO=uplo)
            w, v = host(w), host(v)
            ref_w = L.eigvalsh(a).asnumpy()
            close(w, ref_w, dtype, scale)
            close(host(sol(L.eigvalsh, gpu(spoiled), UPLO=uplo)), ref_w, dtype, scale)
            # Vectors are unique up to a phase: check a v = v diag(w) and v^H v = I.
            close(a @ v, v * w[..., None, :].astype(v.dtype), dtype, scale)
            eye = np.broadcast_to(np.eye(shape[-1], dtype=dtype), v.shape)
            close(herm(v) @ v, eye, dtype, 10 * shape[-1])


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_qr_matches_cpu(dtype):
    needs("cusolver")
    rng = np.random.default_rng(5)
    for shape in RECT:
        a = rand(shape, dtype, rng)
        m, n = shape[-2:]
        scale = 10 * max(m, n) * float(np.abs(a).max())
        for mode in ("reduced", "complete"):
            q, r = sol(L.qr, gpu(a), mode=mode)
            q, r = host(q), host(r)
            ref = L.qr(a, mode=mode)
            assert q.shape == ref.Q.shape and r.shape == ref.R.shape
            np.testing.assert_array_equal(r, np.triu(r))
            close(q @ r, a, dtype, scale)
            eye = np.broadcast_to(
                np.eye(q.shape[-1], dtype=dtype), q.shape[:-2] + (q.shape[-1],) * 2
            )
            close(herm(q) @ q, eye, dtype, 10 * m)
            # Householder QR fixes the signs the same way in LAPACK and cuSOLVER.
            close(r, ref.R.asnumpy(), dtype, scale)
        close(host(sol(L.qr, gpu(a), mode="r")), L.qr(a, mode="r").asnumpy(), dtype, scale)


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_svd_and_svdvals_match_cpu(dtype):
    needs("cusolver")
    rng = np.random.default_rng(6)
    for shape in RECT:
        a = rand(shape, dtype, rng)
        m, n = shape[-2:]
        k = min(m, n)
        scale = 10 * max(m, n) * float(np.abs(a).max())
        ref_s = L.svdvals(a).asnumpy()
        close(host(sol(L.svdvals, gpu(a))), ref_s, dtype, scale)
        for full in (True, False):
            u, s, vh = sol(L.svd, gpu(a), full_matrices=full)
            u, s, vh = host(u), host(s), host(vh)
            ref = L.svd(a, full_matrices=full)
            assert u.shape == ref.U.shape and vh.shape == ref.Vh.shape
            close(s, ref_s, dtype, scale)
            close(
                (u[..., :, :k] * s[..., None, :].astype(u.dtype)) @ vh[..., :k, :], a, dtype, scale
            )
            close(
                herm(u) @ u,
                np.broadcast_to(
                    np.eye(u.shape[-1], dtype=dtype), herm(u).shape[:-1] + (u.shape[-1],)
                ),
                dtype,
                10 * m,
            )
            close(
                vh @ herm(vh),
                np.broadcast_to(np.eye(vh.shape[-2], dtype=dtype), vh.shape[:-1] + (vh.shape[-2],)),
                dtype,
                10 * n,
            )


@needs_gpu
def test_linalg_on_gpu_leaves_its_input_alone_and_takes_integers():
    needs("cusolver")
    rng = np.random.default_rng(7)
    a = rand((5, 5), "float64", rng)
    x = gpu(a)
    # Each routine factors a copy: the input array keeps its values.
    for fn in (L.inv, L.det, L.slogdet, L.svd, L.svdvals, L.qr, L.eigh, L.eigvalsh):
        sol(fn, x)
    np.testing.assert_array_equal(x.asnumpy(), a)
    i = np.array([[2, 1], [1, 3]], dtype=np.int32)
    got = sol(L.inv, gpu(i))
    assert got.dtype == np.float64
    np.testing.assert_allclose(host(got), np.linalg.inv(i))


@needs_gpu
def test_empty_stacks_on_gpu():
    needs("cusolver")
    before = calls("cusolver")
    for fn, shape, want in [
        (L.inv, (0, 3, 3), (0, 3, 3)),
        (L.det, (2, 0, 0), (2,)),
        (L.svdvals, (0, 2, 4), (0, 2)),
    ]:
        got = fn(gpu(np.zeros(shape)))
        assert got.shape == want
        np.testing.assert_array_equal(got.asnumpy(), fn(np.zeros(shape)).asnumpy())
    # Stacks with no elements take the host path: cuSOLVER is not called.
    assert calls("cusolver") == before


# ---- np.fft on cuFFT ----

FFT_DTYPES = ["float32", "float64", "complex64", "complex128", "float16", "int32"]
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]


def fft_close(got, cpu, dtype):
    got = host(got)
    cpu = cpu.asnumpy()
    assert got.shape == cpu.shape and got.dtype == cpu.dtype, (got.shape, got.dtype, cpu.dtype)
    single = dtype in ("float16", "float32", "complex64")
    scale = max(1.0, float(np.abs(cpu).max())) if cpu.size else 1.0
    tol = 1e-4 if single else 1e-10
    if got.dtype == np.float16:
        tol = 4e-3  # irfft/hfft of float16: float32 results a rounding apart can round apart
    np.testing.assert_allclose(got, cpu, rtol=tol, atol=tol * scale)


@needs_gpu
@pytest.mark.parametrize("dtype", FFT_DTYPES)
@pytest.mark.parametrize("name", ONE_D)
def test_fft_one_dimensional_matches_cpu(name, dtype):
    needs("cufft")
    if name in ("rfft", "ihfft") and dtype.startswith("complex"):
        pytest.skip("real input only")
    rng = np.random.default_rng(ONE_D.index(name))
    x = rand((3, 8, 5), dtype, rng) if dtype != "int32" else rng.integers(-9, 9, (3, 8, 5))
    x = x.astype(dtype)
    g = gpu(x)
    for n in (None, 1, 4, 7, 12):
        for axis in (-1, 0, 1):
            for norm in (None, "backward", "ortho", "forward"):
                got = fft(getattr(F, name), g, n=n, axis=axis, norm=norm)
                fft_close(got, getattr(F, name)(x, n=n, axis=axis, norm=norm), dtype)


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("name", N_D)
def test_fft_n_dimensional_matches_cpu(name, dtype):
    needs("cufft")
    if name.startswith("rfft") and dtype.startswith("complex"):
        pytest.skip("real input only")
    rng = np.random.default_rng(N_D.index(name))
    x = rand((3, 8, 5), dtype, rng)
    g = gpu(x)
    cases = [(None, None), (None, (0, 2)), ((5, 3), (2, 0)), (None, (1,)), ((4, 6), (0, 1))]
    if name.endswith("2"):
        cases = [(None, None), ((5, 3), (2, 0)), ((4, 6), (0, 1))]
    for s, axes in cases:
        for norm in (None, "ortho", "forward"):
            got = fft(getattr(F, name), g, s=s, axes=axes, norm=norm)
            fft_close(got, getattr(F, name)(x, s=s, axes=axes, norm=norm), dtype)


@needs_gpu
def test_fft_long_lengths_round_trip_and_match_numpy():
    needs("cufft")
    rng = np.random.default_rng(8)
    for n in (1009, 4096, 2 * 3 * 5 * 7 * 11, 1 << 16):
        x = rand((n,), "complex128", rng)
        got = host(fft(F.fft, gpu(x)))
        np.testing.assert_allclose(got, np.fft.fft(x), rtol=1e-9, atol=1e-9 * n)
        back = host(fft(F.ifft, F.fft(gpu(x))))
        np.testing.assert_allclose(back, x, atol=1e-10)
        r = rand((2, n), "float64", rng)
        np.testing.assert_allclose(host(fft(F.irfft, F.rfft(gpu(r)), n=n)), r, atol=1e-10)


@needs_gpu
def test_irfft_ignores_the_imaginary_parts_numpy_ignores():
    needs("cufft")
    rng = np.random.default_rng(9)
    c = rand((4, 5), "complex128", rng)  # imaginary zero and Nyquist terms, n = 8
    for n in (8, 9):
        got = host(fft(F.irfft, gpu(c), n=n))
        np.testing.assert_allclose(got, np.fft.irfft(c, n=n), atol=1e-12)


@needs_gpu
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_irfft_hfft_ignore_inf_nan_imaginary_parts_and_keep_huge_real_parts(dtype):
    needs("cufft")
    rng = np.random.default_rng(11)
    big = 0.6 * float(np.finfo(np.float32 if dtype == "complex64" else np.float64).max)
    c = rand((4, 5), dtype, rng)  # n = 8: column 0 the zero term, column 4 the Nyquist term
    # Imaginary parts numpy ignores: inf, -inf and NaN; real parts past half the dtype's max
    # (doubled, they would overflow), one a line so that the transform itself stays finite.
    c[0, 0] = complex(big, np.inf)
    c[1, 0] = complex(1.5, np.nan)
    c[1, 4] = complex(big, -np.inf)
    c[2, 4] = complex(-2.0, np.nan)
    c[3, 0] = complex(-big, np.nan)
    c[3, 4] = complex(0.5, np.inf)
    tol = 2e-5 if dtype == "complex64" else 1e-12
    g = gpu(c)
    for name in ("irfft", "hfft"):
        for n in (8, 7):  # 7: the first 4 terms; the Nyquist column is cropped away
            got = host(fft(getattr(F, name), g, n=n))
            want = getattr(np.fft, name)(c, n=n)
            assert got.dtype == want.dtype and np.isfinite(got).all(), (name, n, got)
            for row_got, row_want in zip(got, want, strict=True):
                scale = float(np.abs(row_want).max())
                np.testing.assert_allclose(row_got, row_want, rtol=tol, atol=tol * scale)
    np.testing.assert_array_equal(g.asnumpy(), c)  # the input keeps its inf and NaN


@needs_gpu
def test_fft_leaves_its_input_alone_and_handles_empty_lines():
    needs("cufft")
    rng = np.random.default_rng(10)
    x = rand((4, 6), "complex64", rng)
    g = gpu(x)
    # The transforms work on copies (cuFFT's complex-to-real overwrites its input).
    for fn, kw in ((F.fft, {}), (F.ifft, {"axis": 0}), (F.irfft, {}), (F.hfft, {"axis": 0})):
        fft(fn, g, **kw)
    np.testing.assert_array_equal(g.asnumpy(), x)
    before = calls("cufft")
    e = F.fft(gpu(np.zeros((0, 4), np.complex64)))
    assert e.shape == (0, 4) and e.dtype == np.complex64
    assert calls("cufft") == before  # nothing to transform: cuFFT is not called
