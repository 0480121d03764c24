"""np.sum, np.mean, np.max and np.min against numpy: values, result dtypes, every axis form,
keepdims, strided inputs, and the errors numpy raises.

bfloat16 inputs are checked against numpy computing on ml_dtypes arrays (whose sum and mean
round to bfloat16 after every addition, where mxffi accumulates in float32 and rounds once), so
float results are compared within a bound proportional to the sum of magnitudes.
"""

import itertools
import warnings

import numpy as np
import pytest
from conftest import DTYPES, np_dtype, seed_of
from numpy.exceptions import AxisError

import mxffi.np as mnp

SHAPES = [(), (0,), (7,), (0, 3), (3, 0), (4, 7), (3, 4, 5), (2, 3, 1, 4)]
# Relative bound on |mxffi - numpy| / sum(|x|) for float results (accumulated rounding).
REL = {"float16": 4e-3, "bfloat16": 3e-2, "float32": 2e-6, "float64": 1e-14}


def make(shape, dtype, rng):
    """Random values of dtype that make sums meaningful (no overflow in the result type)."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.startswith("int"):
        return np.asarray(rng.integers(-100, 100, shape).astype(dtype))
    if dtype.startswith("uint"):
        return np.asarray(rng.integers(0, 200, shape).astype(dtype))
    return np.asarray(rng.standard_normal(shape).astype(np_dtype(dtype)))


def axis_forms(ndim):
    """None, every int (and its negative), and every tuple/list of distinct axes."""
    forms = [None]
    for a in range(ndim):
        forms += [a, a - ndim]
    for k in range(0, ndim + 1):
        for combo in itertools.combinations(range(ndim), k):
            forms.append(combo)
            if k == 2:
                forms.append([combo[1] - ndim, combo[0]])  # a list, negative, out of order
    return forms


def check(name, x, axis, keepdims, dtype=None):
    """Compare mxffi's np.<name> with numpy's, or check both raise "zero-size array"."""
    npf, mxf = getattr(np, name), getattr(mnp, name)
    np_axis = tuple(axis) if isinstance(axis, list) else axis  # numpy takes no lists
    np_kwargs = {"axis": np_axis, "keepdims": keepdims}
    mx_kwargs = {"axis": axis, "keepdims": keepdims}
    if dtype is not None:
        np_kwargs["dtype"] = np_dtype(dtype)
        mx_kwargs["dtype"] = dtype
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = np.asarray(npf(x, **np_kwargs))
    except ValueError as e:
        assert "zero-size array" in str(e)
        with pytest.raises(ValueError, match="zero-size array"):
            mxf(x, **mx_kwargs)
        return
    got = mxf(x, **mx_kwargs).numpy()
    assert got.dtype == expected.dtype, (name, x.dtype, axis, got.dtype, expected.dtype)
    assert got.shape == expected.shape, (name, x.shape, axis, keepdims)
    if got.dtype.kind in "biu" or name in ("max", "min"):
        np.testing.assert_array_equal(got, expected, err_msg=f"{name} {x.dtype} axis={axis}")
        return
    # Float sums and means: within a bound proportional to the sum of magnitudes.
    mag = np.sum(np.abs(x.astype(np.float64)), axis=np_axis, keepdims=keepdims)
    if name == "mean":
        mag = mag / max(1, x.size // max(1, expected.size))
    rel = REL[str(got.dtype)]
    if "bfloat16" in (str(x.dtype), dtype):
        rel = REL["bfloat16"]
    g, e = got.astype(np.float64), expected.astype(np.float64)
    with np.errstate(invalid="ignore"):
        ok = (np.isnan(g) & np.isnan(e)) | (np.abs(g - e) <= rel * mag + 1e-30)
    assert ok.all(), (name, x.dtype, x.shape, axis, g, e)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
def test_matches_numpy(name, dtype):
    rng = np.random.default_rng(seed_of(name, dtype))
    for shape in SHAPES:
        x = make(shape, dtype, rng)
        for axis in axis_forms(len(shape)):
            for keepdims in (False, True):
                check(name, x, axis, keepdims)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
def test_strided_inputs(name, dtype):
    """Transposed, sliced and stepped views (never copied into a contiguous temporary)."""
    rng = np.random.default_rng(7)
    base = make((6, 8, 10), dtype, rng)
    views = [base.transpose(2, 0, 1), base[::2, 1:7, ::3], base[:, ::-1], base.T[3]]
    for x in views:
        for axis in axis_forms(x.ndim):
            check(name, x, axis, False)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("shape", [(400, 500), (500, 400, 2), (300001,)])
def test_large_parallel(name, shape):
    """Large enough for the pool: full, leading, trailing and middle reductions."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape)
    axes = [None, 0, -1] + ([(0, -1), 1] if len(shape) > 1 else [])
    for axis in axes:
        check(name, x, axis, False)
    xi = rng.integers(-1000, 1000, shape, dtype=np.int32)
    for axis in [None, 0, -1]:
        check(name, xi, axis, True)


def test_sum_is_pairwise():
    """float32 sums stay accurate over a million elements, as numpy's pairwise sum does (a
    running sum would be off by about 1%)."""
    x = np.full(1_000_000, 0.1, dtype=np.float32)
    got = float(mnp.sum(x).numpy())
    assert abs(got - 100000.0) < 2.0, got
    assert abs(got - float(np.sum(x))) < 2.0


def test_full_sum_does_not_depend_on_threads():
    x = np.random.default_rng(1).standard_normal(1_000_003).astype(np.float32)
    r1 = mnp.sum(x).numpy()
    r2 = mnp.sum(mnp.array(x)).numpy()
    assert r1 == r2


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("name", ["max", "min", "sum", "mean"])
def test_nan_propagates(name, dtype):
    rng = np.random.default_rng(5)
    # Short rows (scalar loops) and long ones (the vectorised max/min), NaN inside a vector
    # block and in the tail; infinities next to NaN.
    for shape, nans in [((5, 6), [(1, 2), (4, 0), (0, 0)]), ((4, 101), [(1, 37), (2, 100)])]:
        x = make(shape, dtype, rng)
        for ij in nans:
            x[ij] = np.nan
        x[3, 1] = np.inf
        x[3, 2] = -np.inf
        for axis in [None, 0, 1, (0, 1)]:
            got = getattr(mnp, name)(x, axis=axis).numpy().astype(np.float64)
            with np.errstate(invalid="ignore"):
                expected = np.asarray(getattr(np, name)(x, axis=axis)).astype(np.float64)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
            if name in ("max", "min"):
                np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    "name, src, dtype",
    [
        ("sum", "int8", "int8"),  # wraps around as numpy's
        ("sum", "int32", "int16"),
        ("sum", "uint8", "uint8"),
        ("sum", "int8", "uint64"),
        ("sum", "bool", "bool"),  # logical or
        ("sum", "float64", "float32"),
        ("sum", "float32", "float64"),
        ("sum", "int32", "float16"),
        ("sum", "float32", "int64"),  # each element truncated first
        ("sum", "float32", "bfloat16"),
        ("mean", "int16", "float32"),
        ("mean", "float16", "float16"),
        ("mean", "float64", "float32"),
        ("mean", "int8", "int8"),
        ("mean", "int32", "float64"),
    ],
)
def test_explicit_dtype(name, src, dtype):
    rng = np.random.default_rng(11)
    x = make((6, 50), src, rng)
    if src.startswith("int"):
        x = (x * 3).astype(src)  # int8 sums wrap
    for axis in [None, 0, 1]:
        for keepdims in (False, True):
            check(name, x, axis, keepdims, dtype=dtype)


@pytest.mark.parametrize(
    "dtype, expected",
    [
        ("bool", ("int64", "float64")),
        ("int8", ("int64", "float64")),
        ("int16", ("int64", "float64")),
        ("int32", ("int64", "float64")),
        ("int64", ("int64", "float64")),
        ("uint8", ("uint64", "float64")),
        ("uint16", ("uint64", "float64")),
        ("uint32", ("uint64", "float64")),
        ("uint64", ("uint64", "float64")),
        ("float16", ("float16", "float16")),
        ("bfloat16", ("bfloat16", "bfloat16")),
        ("float32", ("float32", "float32")),
        ("float64", ("float64", "float64")),
    ],
)
def test_result_dtypes(dtype, expected):
    """The table itself, checked against numpy too (with ml_dtypes for bfloat16)."""
    x = make((3, 4), dtype, np.random.default_rng(0))
    assert str(mnp.sum(x).dtype) == expected[0] == str(np.sum(x).dtype)
    assert str(mnp.mean(x).dtype) == expected[1] == str(np.mean(x).dtype)
    assert str(mnp.max(x, axis=0).dtype) == dtype
    assert str(mnp.min(x).dtype) == dtype


def test_float16_sum_accumulates_in_float32():
    x = np.full(4096, 1.0, dtype=np.float16)  # a float16 running sum sticks at 2048
    assert float(mnp.sum(x).numpy()) == 4096.0
    assert float(mnp.mean(x).numpy()) == 1.0


def test_zero_d():
    x = np.array(2.5)
    for name in ["sum", "mean", "max", "min"]:
        f = getattr(mnp, name)
        assert float(f(x).numpy()) == 2.5
        # numpy accepts an int axis of 0 or -1 on a 0-d array, but no tuple
        assert float(f(x, axis=0).numpy()) == 2.5
        assert float(f(x, axis=-1).numpy()) == 2.5
        assert f(x, axis=(), keepdims=True).shape == ()
        with pytest.raises(AxisError):
            f(x, axis=(0,))
        with pytest.raises(AxisError):
            f(x, axis=1)


def test_mxffi_array_input():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    a = mnp.array(x)
    np.testing.assert_array_equal(mnp.sum(a, axis=(0, 2)).numpy(), x.sum(axis=(0, 2)))
    np.testing.assert_array_equal(mnp.max(mnp.transpose(a), axis=1).numpy(), x.T.max(axis=1))


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
def test_axis_out_of_range(name):
    f = getattr(mnp, name)
    x = np.ones((2, 3))
    for axis in [2, -3, (0, 2), [5]]:
        with pytest.raises(AxisError, match=rf"np\.{name}: axis -?\d is out of bounds"):
            f(x, axis=axis)
    with pytest.raises(IndexError):
        f(x, axis=7)  # AxisError is also an IndexError, as numpy's


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
def test_duplicate_axis(name):
    f = getattr(mnp, name)
    with pytest.raises(ValueError, match=rf"np\.{name}: duplicate value in 'axis'"):
        f(np.ones((2, 3)), axis=(0, 0))
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        f(np.ones((2, 3)), axis=(1, -1))


@pytest.mark.parametrize("name, word", [("max", "maximum"), ("min", "minimum")])
def test_empty_reduction_without_identity(name, word):
    f = getattr(mnp, name)
    msg = f"zero-size array to reduction operation {word} which has no identity"
    for shape, axis in [((0,), None), ((0, 3), 0), ((0, 0), 1), ((3, 0), None)]:
        with pytest.raises(ValueError, match=msg):
            f(np.ones(shape), axis=axis)
    # An empty output over non-empty reduced axes is fine, as in numpy.
    assert f(np.ones((0, 3)), axis=1).shape == (0,)
    assert f(np.ones((0, 3)), axis=()).shape == (0, 3)


def test_bad_arguments():
    x = np.ones((2, 3))
    with pytest.raises(TypeError, match="not understood"):
        mnp.sum(x, dtype="foo")
    with pytest.raises(TypeError, match="not understood"):
        mnp.mean(x, dtype="float33")
    with pytest.raises(
        TypeError,
        match=r"^np\.sum: argument #1 'axis' expected None, an int or a sequence of ints, "
        "got float",
    ):
        mnp.sum(x, axis=1.5)
    with pytest.raises(
        TypeError, match=r"^np\.max: argument #1 'axis' element 1 expected an int, got str"
    ):
        mnp.max(x, axis=(0, "1"))
    with pytest.raises(
        TypeError, match=r"^np\.sum: argument #0 'a' expected an ndarray, got mxffi.Array"
    ):
        mnp.sum([1, 2, 3])
    with pytest.raises(TypeError, match=r"^np\.sum: unsupported dtype int32x4"):
        mnp.sum(mnp.zeros((2,), dtype="int32x4"))
    with pytest.raises(TypeError):
        mnp.max(x, dtype="float32")  # np.max takes no dtype


def test_bfloat16_made_in_mxffi():
    """bfloat16 arrays made by mxffi (not only ml_dtypes arrays from numpy) reduce the same."""
    x = make((4, 9), "bfloat16", np.random.default_rng(2))
    y = mnp.astype(x.astype(np.float32), "bfloat16")  # exact: the values are bfloat16 already
    for name in ["sum", "mean", "max", "min"]:
        for axis in [None, 0, 1]:
            got = getattr(mnp, name)(y, axis=axis).numpy()
            direct = getattr(mnp, name)(x, axis=axis).numpy()
            assert got.dtype == np_dtype("bfloat16")
            np.testing.assert_array_equal(got, direct)


def test_bool_views_of_bytes_read_as_numpy_reads_them():
    # numpy's True is any nonzero byte, and a view of bytes as bool holds such bytes; the kernels
    # once read them as they are, so this sum was 2 + 122 + 1 = 125.
    a = np.frombuffer(b"\x02\x00\x7a\x01", dtype=np.bool_)
    assert int(np.asarray(mnp.sum(a))) == int(np.sum(a)) == 3
    np.testing.assert_array_equal(np.asarray(mnp.astype(a, "int64")), a.astype(np.int64))
    assert bytes(a) == b"\x02\x00\x7a\x01"  # the caller's memory is left alone


def test_misaligned_arrays_are_reduced_like_aligned_ones():
    buf = np.zeros(1 + 5 * 4, dtype=np.uint8)
    a = buf[1:].view(np.uint32)  # one byte into the buffer: not 4-byte aligned
    a[:] = [3, 1, 4, 1, 5]
    assert not a.flags.aligned
    assert int(np.asarray(mnp.max(a))) == 5
    assert int(np.asarray(mnp.sum(a))) == 14
