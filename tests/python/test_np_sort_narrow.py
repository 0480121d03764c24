"""np.sort of long 32- and 64-bit integer lines whose values span a narrow range, which are
counted (fewer than 2^16 distinct values, lines of at least 2^17 elements) or, for 64-bit
integers within 2^32 of the smallest, sorted as 32-bit offsets (lines of at least 2^16
elements): bit for bit against numpy's sort, ascending and descending, at and around the
lengths and ranges where each path starts, near the extreme values of each dtype, with an
outlier that the line's sample misses, on contiguous and strided lines and in place."""

import numpy as np
import pytest

import mxffi.np as mnp

INTS32 = ["int32", "uint32"]
INTS64 = ["int64", "uint64"]


def narrow(rng, dtype, n, lo, span):
    """n values of dtype drawn from [lo, lo + span], both ends present."""
    unsigned = np.dtype(dtype).str.replace("i", "u")
    off = rng.integers(0, span, n, endpoint=True, dtype=np.uint64)
    x = (off + np.uint64(lo % 2**64)).astype(unsigned).view(dtype)
    x[rng.integers(0, n, 2)] = np.array([lo, lo + span], dtype=dtype)
    return x


def check(x, axis=-1):
    for descending in (False, True):
        want = np.sort(x, axis=axis)
        if descending:
            want = np.flip(want, axis=axis)
        got = mnp.sort(x, axis=axis, descending=descending).numpy()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def lows(dtype, span):
    """Smallest values of ranges of span to test: around 0, negative, at both ends of dtype."""
    info = np.iinfo(dtype)
    out = [0, 1000, int(info.max) - span]
    if info.min < 0:
        out += [-70000, int(info.min)]
    return out


@pytest.mark.parametrize("dtype", INTS32 + INTS64)
def test_counted_lines_around_the_length_and_range(dtype):
    rng = np.random.default_rng(11)
    for n in (2**17 - 1, 2**17, 2**17 + 3):
        for span in (0, 1, 7, 2**16 - 1, 2**16, 2**20):
            for lo in lows(dtype, span):
                check(narrow(rng, dtype, n, lo, span))


@pytest.mark.parametrize("dtype", INTS64)
def test_64bit_lines_as_32bit_offsets(dtype):
    rng = np.random.default_rng(12)
    info = np.iinfo(dtype)
    for n in (2**16 - 1, 2**16, 2**16 + 5, 300001):
        for span in (2**24, 2**32 - 1, 2**32, 2**40):
            for lo in (0, -(2**31) if info.min < 0 else 5, int(info.min), int(info.max) - span):
                check(narrow(rng, dtype, n, lo, span))


@pytest.mark.parametrize("dtype", INTS32 + INTS64)
def test_an_outlier_that_the_sample_misses(dtype):
    """A narrow line but for one element between the sampled ones: the exact range is wide."""
    rng = np.random.default_rng(13)
    info = np.iinfo(dtype)
    for n in (2**17, 2**17 + 1001):
        for far in (int(info.max), int(info.min), 2**17 + 10):
            x = narrow(rng, dtype, n, 100, 50)
            x[1] = far
            check(x)
            x = narrow(rng, dtype, n, 100, 50)
            x[n - 2] = far
            check(x)


@pytest.mark.parametrize("dtype", INTS32 + INTS64)
def test_ordered_uniform_and_strided_narrow_lines(dtype):
    rng = np.random.default_rng(14)
    n = 2**17 + 17
    base = narrow(rng, dtype, n, 3, 999)
    for x in (np.sort(base), np.sort(base)[::-1].copy(), np.full(n, base[0]), base % 3):
        check(x)
    # Lines along axis 0 (inner > 1) and a transposed view.
    x = narrow(rng, dtype, 2 * n, 10, 2**12).reshape(n, 2)
    check(x, axis=0)
    check(np.ascontiguousarray(x.T), axis=1)
    np.testing.assert_array_equal(mnp.sort(mnp.asarray(x).T, axis=1).numpy(), np.sort(x.T, axis=1))
    a = mnp.asarray(base.copy())
    a.sort(descending=True)
    np.testing.assert_array_equal(a.numpy(), np.sort(base)[::-1])
    if np.dtype(dtype).itemsize == 8:
        w = narrow(rng, dtype, 2 * 70000, 0, 2**31).reshape(70000, 2)
        check(w, axis=0)
