"""np.fft against numpy.fft: every transform for real and complex dtypes, n=/s= cropping and
padding, axes, the three norms, result dtypes (complex64 for the 32-bit and narrower floats),
prime and large lengths, the frequency helpers, the shifts, and numpy's errors."""

import numpy as np
import pytest

import mxffi.np as mnp

F = mnp.fft
DTYPES = ["float16", "float32", "float64", "complex64", "complex128", "int32", "bool"]
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]


def make(shape, dtype, rng):
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def assert_matches(got, expected, dtype):
    got = got.numpy()
    assert got.shape == expected.shape and got.dtype == expected.dtype
    single = dtype in ("float16", "float32", "complex64")
    scale = max(1.0, float(np.abs(expected).max())) if expected.size else 1.0
    tol = 1e-3 if single else 1e-9
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ONE_D)
def test_one_dimensional(name, dtype):
    if name in ("rfft", "ihfft") and dtype.startswith("complex"):
        pytest.skip("real input only")
    rng = np.random.default_rng(ONE_D.index(name))
    x = make((3, 8, 5), dtype, rng)
    for n in (None, 1, 2, 4, 7, 12):
        for axis in (-1, 0, 1):
            for norm in (None, "backward", "ortho", "forward"):
                got = getattr(F, name)(x, n=n, axis=axis, norm=norm)
                ref = getattr(np.fft, name)(x, n=n, axis=axis, norm=norm)
                assert_matches(got, ref, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", N_D)
def test_n_dimensional(name, dtype):
    if name.startswith("rfft") and dtype.startswith("complex"):
        pytest.skip("real input only")
    rng = np.random.default_rng(N_D.index(name))
    x = make((3, 8, 5), dtype, rng)
    cases = [(None, None), (None, (0, 2)), ((5, 3), (2, 0)), (None, (1,)), ((4, 6), (0, 1))]
    if name.endswith("2"):
        cases = [(None, None), ((5, 3), (2, 0)), ((4, 6), (0, 1))]
    for s, axes in cases:
        for norm in (None, "ortho", "forward"):
            got = getattr(F, name)(x, s=s, axes=axes, norm=norm)
            ref = getattr(np.fft, name)(x, s=s, axes=axes, norm=norm)
            assert_matches(got, ref, dtype)


@pytest.mark.parametrize("n", [1000, 1009, 4096, 2 * 3 * 5 * 7 * 11])
def test_long_and_prime_lengths(n):
    rng = np.random.default_rng(n)
    x = make((n,), "complex128", rng)
    assert_matches(F.fft(x), np.fft.fft(x), "complex128")
    assert_matches(F.ifft(F.fft(x)), x, "complex128")
    r = make((2, n), "float64", rng)
    assert_matches(F.irfft(F.rfft(r), n=n), r, "float64")


def test_round_trip_float32_keeps_its_precision():
    rng = np.random.default_rng(3)
    x = make((64, 64), "float32", rng)
    y = F.irfft2(F.rfft2(x), s=x.shape)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.numpy(), x, atol=1e-5)


def test_frequencies():
    for n in (1, 2, 5, 8):
        for d in (1.0, 0.25):
            np.testing.assert_allclose(F.fftfreq(n, d).numpy(), np.fft.fftfreq(n, d))
            np.testing.assert_allclose(F.rfftfreq(n, d).numpy(), np.fft.rfftfreq(n, d))
    assert F.fftfreq(4).dtype == np.float64
    assert F.fftfreq(4, dtype=mnp.float32).dtype == np.float32
    with pytest.raises(ValueError, match=r"^np\.fft\.fftfreq: n must be a positive int, got 0"):
        F.fftfreq(0)
    with pytest.raises(TypeError, match=r"dtype must be a real floating dtype, got int32"):
        F.rfftfreq(4, dtype=mnp.int32)


@pytest.mark.parametrize("axes", [None, 0, 1, -1, (0, 1), (1, 1)])
def test_shifts(axes):
    x = np.arange(30).reshape(5, 6)
    np.testing.assert_array_equal(F.fftshift(x, axes=axes).numpy(), np.fft.fftshift(x, axes=axes))
    np.testing.assert_array_equal(F.ifftshift(x, axes=axes).numpy(), np.fft.ifftshift(x, axes=axes))
    f = F.fftfreq(7)
    np.testing.assert_allclose(F.ifftshift(F.fftshift(f)).numpy(), f.numpy())


def test_strided_input():
    rng = np.random.default_rng(4)
    base = make((8, 10), "complex128", rng)
    view = mnp.asarray(base)[::2, ::-3]
    assert_matches(F.fft(view), np.fft.fft(base[::2, ::-3]), "complex128")


def test_errors():
    x = np.ones(4)
    with pytest.raises(ValueError, match=r"^np\.fft\.fft: Invalid number of FFT data points \(0\)"):
        F.fft(x, n=0)
    with pytest.raises(ValueError, match=r"Invalid number of FFT data points \(0\)"):
        F.irfft(np.ones(1))
    with pytest.raises(ValueError, match=r'^np\.fft\.ifft: Invalid norm value x; should be "back'):
        F.ifft(x, norm="x")
    with pytest.raises(TypeError, match=r"^np\.fft\.rfft: x must be real-valued, got complex128"):
        F.rfft(np.ones(4, complex))
    with pytest.raises(ValueError, match=r"^np\.fft\.fft: x must have at least one dimension"):
        F.fft(np.array(1.0))
    with pytest.raises(ValueError, match=r"Shape and axes have different lengths"):
        F.fftn(np.ones((2, 2)), s=(2,), axes=(0, 1))
    with pytest.raises(np.exceptions.AxisError, match=r"^np\.fft\.fft: axis 2 is out of bounds"):
        F.fft(np.ones((2, 2)), axis=2)


@pytest.mark.parametrize("name", ["fft", "ifft2", "rfft", "irfftn", "fftshift"])
def test_sparse_arrays_are_refused_by_name(name):
    # The transforms read the dense buffer of their input: a sparse array crashed them.
    from mxffi.nd import sparse

    c = sparse.csr_matrix(np.eye(3))
    with pytest.raises(TypeError, match=rf"^np\.fft\.{name}: takes a dense array; got storage"):
        getattr(F, name)(c)
