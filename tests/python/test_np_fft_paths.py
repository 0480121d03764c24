"""np.fft's ways through KissFFT against numpy.fft, each on lengths that take it and lengths
that do not: the four-step split of long lengths (from 2^14 with a divisor of at least 16 up to
sqrt(n)), lengths 2 * 4^j as two transforms of half the length, real transforms of even
lengths through the complex transform of half the length, lines along other axes gathered a
block of columns at a time (and a long one a column at a time), and the same results, bit for
bit, on one thread and two (every line's arithmetic is the same whichever thread runs it; plans
with a stage of a radix above 5 are copied per thread). The file runs again in a child with the
transforms compiled for the baseline instruction set (test_the_baseline_build_matches_numpy)."""

import os
import platform
import subprocess
import sys

import numpy as np
import pytest
from conftest import run_test_file

import mxffi.np as mnp

F = mnp.fft


def rel_error(got, want):
    got = got.numpy()
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.size == 0:
        return 0.0
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-300))


def bound(n, single):
    """numpy's accuracy: a relative error of about eps * log2(n), with room."""
    return (1e-5 if single else 1e-13) * max(1.0, np.log2(max(n, 2)))


# 2^14 - 1 = 3 * 43 * 127 and 11 * 1499 (a prime) keep the library's own transform; the others
# split: 2^14 = 128 * 128, 3 * 2^14 = 192 * 256, 10^6 = 1000 * 1000, 2^20 = 1024 * 1024.
LENGTHS = [2**14 - 1, 2**14, 3 * 2**14, 11 * 1499, 10**6, 2**20]


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_lengths(n, dtype):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    single = dtype == "complex64"
    for norm in (None, "ortho", "forward"):
        assert rel_error(F.fft(x, norm=norm), np.fft.fft(x, norm=norm)) < bound(n, single)
        assert rel_error(F.ifft(x, norm=norm), np.fft.ifft(x, norm=norm)) < bound(n, single)


# 2 * 4^j (32, 128, ..., 8192): KissFFT's plan of half the length, run on the even and the odd
# samples and joined; 2 * 4^j + 2 and 4^j keep the plan of their own length. 2^19 splits as
# 512 * 1024 and 2^15 as 128 * 256, their first pass a length 2 * 4^j.
@pytest.mark.parametrize("n", [32, 34, 128, 256, 512, 2048, 8192, 2**15, 2**19])
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_twice_a_power_of_four(n, dtype):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((3, n)) + 1j * rng.standard_normal((3, n))).astype(dtype)
    single = dtype == "complex64"
    for norm in (None, "ortho"):
        assert rel_error(F.fft(x, norm=norm), np.fft.fft(x, norm=norm)) < bound(n, single)
        assert rel_error(F.ifft(x, norm=norm), np.fft.ifft(x, norm=norm)) < bound(n, single)
    r = x.real.copy()  # real lines of length 2n: a complex transform of length n inside
    assert rel_error(F.rfft(r), np.fft.rfft(r)) < bound(n, single)
    spec = np.fft.rfft(r)
    assert rel_error(F.irfft(spec, n=n), np.fft.irfft(spec, n=n)) < bound(n, single)


@pytest.mark.parametrize("n", [2**15, 37789, 2**15 - 2, 2 * 10**6, 2**20, 510510])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_real_lengths(n, dtype):
    # Even n: the complex transform of n / 2 pairs (split in four steps from n / 2 = 2^14; 510510
    # = 2 * 3 * 5 * 7 * 11 * 13 * 17, its half split as 455 * 561 with private plans);
    # odd n (37789 = 23 * 31 * 53, split as 31 * 1219): the complex transform of the line.
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(dtype)
    single = dtype == "float32"
    for norm in (None, "ortho", "forward"):
        assert rel_error(F.rfft(x, norm=norm), np.fft.rfft(x, norm=norm)) < bound(n, single)
        assert rel_error(F.ihfft(x, norm=norm), np.fft.ihfft(x, norm=norm)) < bound(n, single)
    spec = np.fft.rfft(x)
    # The terms it reads cropped or zero-padded (lengths with small factors only: KissFFT takes
    # O(n p) for a prime factor p).
    for m in (n, n - 1, n + 2) if n < 40000 else (n,):
        for norm in (None, "ortho"):
            got, want = F.irfft(spec, n=m, norm=norm), np.fft.irfft(spec, n=m, norm=norm)
            assert rel_error(got, want) < bound(m, single)


def test_small_real_lengths_all_parities():
    rng = np.random.default_rng(5)
    for n in list(range(1, 40)) + [64, 100, 127, 128, 1000]:
        x = rng.standard_normal((3, n))
        assert rel_error(F.rfft(x), np.fft.rfft(x)) < bound(n, False)
        spec = np.fft.rfft(x)
        for m in {n, max(n - 1, 1), n + 1}:
            assert rel_error(F.irfft(spec, n=m), np.fft.irfft(spec, n=m)) < bound(m, False)
            assert rel_error(F.hfft(spec, n=m), np.fft.hfft(spec, n=m)) < bound(m, False)


@pytest.mark.parametrize(
    "shape,axis",
    [
        ((1024, 3, 5), 0),  # columns of 15, one block
        ((7, 300, 40), 1),  # 40 columns in blocks of 27: a full block and a part
        ((6, 5000), 0),  # short lines, blocks of 8 columns
        ((2**15, 3), 0),  # long lines down the columns: one at a time, in four steps
        ((3, 2**15, 2), 1),
    ],
)
def test_other_axes(shape, axis):
    rng = np.random.default_rng(len(shape) + axis)
    x = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    n = shape[axis]
    assert rel_error(F.fft(x, axis=axis), np.fft.fft(x, axis=axis)) < bound(n, False)
    m = n + n // 2  # zero-padded
    assert rel_error(F.ifft(x, axis=axis, n=m), np.fft.ifft(x, axis=axis, n=m)) < bound(m, False)
    r = x.real.copy()
    assert rel_error(F.rfft(r, axis=axis), np.fft.rfft(r, axis=axis)) < bound(n, False)
    spec = np.fft.rfft(r, axis=axis)
    got, want = F.irfft(spec, n=n, axis=axis), np.fft.irfft(spec, n=n, axis=axis)
    assert rel_error(got, want) < bound(n, False)


def test_two_dimensional_leaves_the_input_alone():
    # fft2 writes its first axis into a new array and transforms that one in place after.
    rng = np.random.default_rng(8)
    x = rng.standard_normal((512, 384)) + 1j * rng.standard_normal((512, 384))
    mx = mnp.asarray(x)
    before = mx.numpy().copy()
    for name in ("fft2", "ifft2", "fftn"):
        assert rel_error(getattr(F, name)(mx), getattr(np.fft, name)(x)) < bound(512 * 384, False)
    np.testing.assert_array_equal(mx.numpy(), before)
    r = x.real.copy()
    assert rel_error(F.rfft2(r), np.fft.rfft2(r)) < bound(512 * 384, False)
    spec = np.fft.rfft2(r)
    assert rel_error(F.irfft2(spec, s=r.shape), np.fft.irfft2(spec, s=r.shape)) < bound(
        512 * 384, False
    )


def test_empty_batches():
    for shape, axis in (((0, 4), -1), ((4, 0, 3), 0)):
        x = np.zeros(shape, complex)
        assert F.fft(x, axis=axis).shape == np.fft.fft(x, axis=axis).shape
        assert F.rfft(x.real, axis=axis).shape == np.fft.rfft(x.real, axis=axis).shape


_THREADS_SCRIPT = r"""
import sys
import numpy as np
import mxffi.np as mnp
rng = np.random.default_rng(11)
z = rng.standard_normal(2**16) + 1j * rng.standard_normal(2**16)
m = rng.standard_normal((256, 1001)) + 1j * rng.standard_normal((256, 1001))
r = rng.standard_normal(2**17)
c = rng.standard_normal((2**15, 3))
out = {
    "fft": mnp.fft.fft(z).numpy(),                  # four steps, passes split
    "generic": mnp.fft.fft(m).numpy(),              # 1001 = 7 * 11 * 13: private plans
    "fft2": mnp.fft.fft2(m).numpy(),                # columns in blocks
    "rfft": mnp.fft.rfft(r).numpy(),                # half length in four steps
    "irfft": mnp.fft.irfft(mnp.fft.rfft(r)).numpy(),
    "column": mnp.fft.rfft(c, axis=0).numpy(),      # a long line down a column
}
np.savez(sys.argv[1], **out)
"""


def test_one_and_two_threads_give_the_same_bits(tmp_path):
    results = {}
    for threads in (1, 2):
        path = tmp_path / f"t{threads}.npz"
        env = dict(os.environ, MXFFI_NUM_THREADS=str(threads))
        subprocess.run([sys.executable, "-c", _THREADS_SCRIPT, str(path)], env=env, check=True)
        results[threads] = np.load(path)
    rng = np.random.default_rng(11)
    z = rng.standard_normal(2**16) + 1j * rng.standard_normal(2**16)
    m = rng.standard_normal((256, 1001)) + 1j * rng.standard_normal((256, 1001))
    want = {"fft": np.fft.fft(z), "generic": np.fft.fft(m), "fft2": np.fft.fft2(m)}
    for key in results[1].files:
        np.testing.assert_array_equal(results[1][key], results[2][key], err_msg=key)
        if key in want:
            err = np.abs(results[2][key] - want[key]).max() / np.abs(want[key]).max()
            assert err < bound(2**16, False), key


@pytest.mark.skipif(
    platform.machine() != "x86_64" or not sys.platform.startswith("linux"),
    reason="the transforms are compiled for AVX2 and the baseline on x86-64",
)
@pytest.mark.skipif(
    bool(os.environ.get("MXFFI_SIMD_TARGET")), reason="this is the parent run that starts the child"
)
def test_the_baseline_build_matches_numpy():
    """The transforms are compiled twice, for AVX2 and the baseline instruction set, and run
    the one the vectorized kernels' target chooses: this file again in a child whose target is
    capped to the baseline (on a CPU without AVX2 the parent has run it already)."""
    proc = run_test_file(__file__, {"MXFFI_SIMD_TARGET": "scalar"})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout
