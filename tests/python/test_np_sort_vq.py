"""np.sort of the lines that the vectorized quicksort sorts (the values of lines of at least 32
elements of the 16-, 32- and 64-bit integers, float32 and float64), bit for bit against a stable
sort: NaNs of either sign and several payloads last in their order, -0.0 and +0.0 in their
order, both infinities, the largest finite values and subnormals, the extreme integers, lines
of one or two distinct values, already sorted and reversed lines, just below and above the
length where the vectorized sort takes over and the 16-bit counting sort's length; contiguous
and strided lines (axis not last, transposed views), the in-place a.sort(), and stable=True
giving the same bits."""

import zlib

import numpy as np
import pytest

import mxffi.np as mnp

INTS = ["int16", "uint16", "int32", "uint32", "int64", "uint64"]
FLOATS = ["float32", "float64"]
LENGTHS = [31, 32, 33, 100, 1000, 4099]


def nans(dtype):
    """NaNs with either sign and different payloads, as the dtype's bits."""
    u = np.dtype(f"u{np.dtype(dtype).itemsize}")
    if dtype == "float32":
        bits = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFC00123, 0x7FFFFFFF]
    else:
        bits = [
            0x7FF8000000000000,
            0xFFF8000000000000,
            0x7FF0000000000001,
            0xFFF8000000000123,
            0x7FFFFFFFFFFFFFFF,
        ]
    return np.array(bits, dtype=u).view(dtype)


def line_values(dtype, shape, rng):
    """Many duplicates and every special value of the dtype."""
    if dtype in INTS:
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.min + 1, info.max - 1, info.max, 0, 1, 5], dtype=dtype)
        x = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
        pick = rng.random(shape) < 0.4
        x[pick] = rng.choice(pool, shape)[pick]
        return x
    info = np.finfo(dtype)
    special = np.concatenate(
        [
            np.array(
                [np.inf, -np.inf, info.max, -info.max, info.smallest_subnormal, 0.0, -0.0, 1.5],
                dtype=dtype,
            ),
            -np.array([info.smallest_subnormal, 1.5], dtype=dtype),
            nans(dtype),
        ]
    )
    x = rng.standard_normal(shape).astype(dtype)
    pick = rng.random(shape) < 0.3
    x[pick] = rng.choice(special, shape)[pick]
    return x


def stable_line(line, descending):
    """A stable sort of one line, NaNs last in their order (as mxffi orders both ways)."""
    vals = line.tolist()
    isnan = np.isnan(line) if line.dtype.kind == "f" else np.zeros(len(vals), bool)
    if descending:
        order = sorted(
            range(len(vals)), key=lambda i: (0, 0) if isnan[i] else (1, vals[i]), reverse=True
        )
        # reverse=True keeps equal keys in their order; the NaNs (key (0, 0)) come last.
    else:
        order = sorted(range(len(vals)), key=lambda i: (1, 0) if isnan[i] else (0, vals[i]))
    return line[np.array(order, dtype=np.int64)]


def stable_sort(x, axis, descending):
    moved = np.moveaxis(x, axis, -1)
    out = np.empty_like(moved)
    for idx in np.ndindex(moved.shape[:-1]):
        out[idx] = stable_line(moved[idx], descending)
    return np.moveaxis(out, -1, axis)


def assert_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes(), (got, want)


@pytest.mark.parametrize("dtype", INTS + FLOATS)
@pytest.mark.parametrize("n", LENGTHS)
def test_lines_bitwise_as_stable_sort(dtype, n):
    rng = np.random.default_rng(zlib.crc32(f"{dtype}{n}".encode()))
    x = line_values(dtype, (3, n), rng)
    for descending in (False, True):
        want = stable_sort(x, -1, descending)
        assert_bits(mnp.sort(x, descending=descending).numpy(), want)
        assert_bits(mnp.sort(x, descending=descending, stable=True).numpy(), want)
        # the same lines along axis 0 of the transpose: strided, copied through a buffer
        t = np.ascontiguousarray(x.T)
        assert_bits(mnp.sort(t, axis=0, descending=descending).numpy(), want.T)
        assert_bits(mnp.sort(mnp.asarray(x).T, axis=0, descending=descending).numpy(), want.T)


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_uniform_and_ordered_lines(dtype):
    """Lines where a quicksort's pivot is the smallest or largest value, or every value."""
    if dtype in INTS:
        info = np.iinfo(dtype)
        lo, hi = info.min, info.max
    else:
        lo, hi = -np.inf, np.inf
    rng = np.random.default_rng(5)
    lines = [
        np.full(1000, hi, dtype),
        np.full(1000, lo, dtype),
        rng.choice(np.array([lo, hi], dtype), 1000),
        rng.choice(np.array([hi - 1 if dtype in INTS else 0, hi], dtype), 3000),
        np.arange(5000).astype(dtype),
        np.arange(5000)[::-1].astype(dtype),
    ]
    if dtype in FLOATS:
        info = np.finfo(dtype)
        lines += [
            rng.choice(np.array([info.max, np.inf], dtype), 3000),
            rng.choice(np.array([-info.max, -np.inf, info.max], dtype), 3000),
            rng.choice(np.array([0.0, -0.0], dtype), 2000),
            rng.choice(np.array([0.0, info.smallest_subnormal], dtype), 2000),
            rng.choice(nans(dtype), 500),
            np.concatenate([np.full(600, 1e30, dtype), nans(dtype)]),
        ]
    for line in lines:
        for descending in (False, True):
            assert_bits(
                mnp.sort(line, descending=descending).numpy(), stable_line(line, descending)
            )


@pytest.mark.parametrize("dtype", ["int16", "uint16"])
def test_16bit_lines_around_the_counting_length(dtype):
    rng = np.random.default_rng(6)
    for n in (2**17 - 1, 2**17):
        x = line_values(dtype, (n,), rng)
        for descending in (False, True):
            want = np.sort(x)[::-1] if descending else np.sort(x)
            assert_bits(mnp.sort(x, descending=descending).numpy(), want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_values_as_numpy(dtype):
    """Against numpy itself: without NaNs and signed zeros every sort agrees."""
    rng = np.random.default_rng(8)
    x = line_values(dtype, (4, 2000), rng)
    x[np.isnan(x) | (x == 0)] = 2.5
    assert_bits(mnp.sort(x).numpy(), np.sort(x))
    assert_bits(mnp.sort(x, axis=0).numpy(), np.sort(x, axis=0))
    assert_bits(mnp.sort(x, axis=None).numpy(), np.sort(x, axis=None))


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_in_place_method_and_empty(dtype):
    rng = np.random.default_rng(9)
    x = line_values(dtype, (2, 700), rng)
    a = mnp.asarray(x.copy())
    a.sort()
    assert_bits(a.numpy(), stable_sort(x, -1, False))
    b = mnp.asarray(x.copy())
    b.sort(axis=0, descending=True)
    assert_bits(b.numpy(), stable_sort(x, 0, True))
    for shape in ((0, 40), (40, 0)):
        e = np.zeros(shape, dtype)
        assert_bits(mnp.sort(e).numpy(), e)
        assert_bits(mnp.sort(e, axis=0).numpy(), e)


def test_argsort_of_long_lines_stays_stable():
    """argsort keeps its stable order (ties by position) on the lengths np.sort vectorizes."""
    rng = np.random.default_rng(10)
    x = line_values("float64", (2, 3000), rng)
    np.testing.assert_array_equal(mnp.argsort(x).numpy(), np.argsort(x, kind="stable"))
    i = line_values("int32", (3000,), rng) % 7
    np.testing.assert_array_equal(mnp.argsort(i).numpy(), np.argsort(i, kind="stable"))
