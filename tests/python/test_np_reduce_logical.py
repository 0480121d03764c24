"""np.all and np.any (and the array methods) against numpy: every dtype read as x != 0 (NaN
true, -0.0 false), bool results, every axis form, keepdims, empty inputs and empty axes,
strided inputs, large inputs through the thread pool, out=, and the errors numpy raises."""

import itertools

import numpy as np
import pytest
from conftest import DTYPES, np_dtype, seed_of
from numpy.exceptions import AxisError

import mxffi.np as mnp

SHAPES = [(), (0,), (1,), (7,), (0, 3), (3, 0), (4, 7), (3, 4, 5), (2, 3, 1, 4), (2, 0, 3)]
NAMES = ["all", "any"]


def make(shape, dtype, rng, p_zero=0.1):
    """Values of dtype, about p_zero of them zero (-0.0 among the float zeros); floats also hold
    NaN and infinities, which are true."""
    zero = rng.random(shape) < p_zero
    if dtype == "bool":
        return np.asarray(~zero)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        v = rng.integers(1, min(info.max, 1000), shape).astype(dtype)
        if dtype.startswith("int"):
            v = np.where(rng.random(shape) < 0.5, -v, v).astype(dtype)
        return np.asarray(np.where(zero, 0, v).astype(dtype))
    v = rng.standard_normal(shape)
    special = rng.random(shape)
    v = np.where(special < 0.05, np.nan, v)
    v = np.where((special >= 0.05) & (special < 0.08), np.inf, v)
    v = np.where(zero, np.where(rng.random(shape) < 0.5, -0.0, 0.0), v)
    return np.asarray(v.astype(np_dtype(dtype)))


def axis_forms(ndim):
    forms = [None]
    for a in range(ndim):
        forms += [a, a - ndim]
    for k in range(0, ndim + 1):
        for combo in itertools.combinations(range(ndim), k):
            forms.append(combo)
            if k == 2:
                forms.append([combo[1] - ndim, combo[0]])
    return forms


def check(name, x, axis, keepdims):
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    expected = np.asarray(getattr(np, name)(x, axis=np_axis, keepdims=keepdims))
    got = getattr(mnp, name)(x, axis=axis, keepdims=keepdims).numpy()
    assert got.dtype == np.bool_, (name, x.dtype, axis, got.dtype)
    assert got.shape == expected.shape, (name, x.shape, axis, keepdims, got.shape)
    np.testing.assert_array_equal(got, expected, err_msg=f"{name} {x.dtype} {x.shape} {axis}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", NAMES)
def test_matches_numpy(name, dtype):
    rng = np.random.default_rng(seed_of(name, dtype))
    for shape in SHAPES:
        # Mostly-true and mostly-false inputs, so both results occur along every axis.
        for p_zero in (0.05, 0.9):
            x = make(shape, dtype, rng, p_zero)
            for axis in axis_forms(len(shape)):
                for keepdims in (False, True):
                    check(name, x, axis, keepdims)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_nan_is_true_and_negative_zero_false(dtype):
    t = np_dtype(dtype)
    assert bool(mnp.all(np.array([np.nan, 1, -np.inf], dtype=t)).numpy()) is True
    assert bool(mnp.any(np.array([0.0, -0.0, np.nan], dtype=t)).numpy()) is True
    assert bool(mnp.any(np.array([0.0, -0.0, 0.0], dtype=t)).numpy()) is False
    assert bool(mnp.all(np.array([1.0, -0.0], dtype=t)).numpy()) is False
    # Long rows (the 8-accumulator loop and its tail) with a single deciding element.
    for n in (8, 9, 63, 64, 1000):
        for pos in (0, n // 2, n - 1):
            ones = np.ones(n, dtype=t)
            ones[pos] = 0
            assert bool(mnp.all(ones).numpy()) is False, (n, pos)
            zeros = np.zeros(n, dtype=t)
            zeros[pos] = np.nan
            assert bool(mnp.any(zeros).numpy()) is True, (n, pos)


def test_integer_extremes_are_true():
    for dtype in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        info = np.iinfo(dtype)
        # The lowest value and the top bit alone (a truth read through a narrower type would
        # lose them), and a value whose low byte is zero.
        top = np.array(1 << (info.bits - 1), dtype=np.uint64).astype(dtype)
        x = np.array([info.min or 1, info.max, 256 % (int(info.max) + 1) or 1], dtype=dtype)
        x = np.append(x, top)
        assert bool(mnp.all(x).numpy()) is True, dtype
        assert bool(mnp.any(x[:0]).numpy()) is False


def test_empty_inputs_and_axes():
    """all of nothing is True, any of nothing False; an empty axis tuple reads each element."""
    for shape, axis in [((0,), None), ((0, 3), 0), ((3, 0), 1), ((3, 0), None), ((2, 0, 3), 1)]:
        x = np.ones(shape)
        e_all, e_any = np.all(x, axis=axis), np.any(x, axis=axis)
        np.testing.assert_array_equal(mnp.all(x, axis=axis).numpy(), e_all)
        np.testing.assert_array_equal(mnp.any(x, axis=axis).numpy(), e_any)
    x = np.array([[0.0, 2.0], [np.nan, -0.0]])
    for name in NAMES:
        got = getattr(mnp, name)(x, axis=()).numpy()
        np.testing.assert_array_equal(got, getattr(np, name)(x, axis=()))
        assert got.dtype == np.bool_
    assert mnp.all(np.ones((0, 3)), axis=1).shape == (0,)
    assert mnp.any(np.ones((0, 3)), axis=1, keepdims=True).shape == (0, 1)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float16", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_strided_inputs(name, dtype):
    rng = np.random.default_rng(7)
    base = make((6, 8, 10), dtype, rng, 0.05)
    views = [base.transpose(2, 0, 1), base[::2, 1:7, ::3], base[:, ::-1], base.T[3]]
    for x in views:
        for axis in axis_forms(x.ndim):
            check(name, x, axis, False)
            check(name, x, axis, True)
    # mxffi views (a transposed and a stepped one) read through their strides.
    a = mnp.array(base)
    got = mnp.all(mnp.transpose(a), axis=(0, 2)).numpy()
    np.testing.assert_array_equal(got, np.all(base.T, axis=(0, 2)))
    got = a[:, ::-3].any(axis=1).numpy()
    np.testing.assert_array_equal(got, np.any(base[:, ::-3], axis=1))


@pytest.mark.parametrize("shape", [(400, 500), (500, 400, 2), (300001,)])
def test_large_parallel(shape):
    rng = np.random.default_rng(3)
    for dtype in ["float64", "int32", "bool"]:
        for p_zero in (1e-5, 0.999):
            x = make(shape, dtype, rng, p_zero)
            axes = [None, 0, -1] + ([(0, -1), 1] if len(shape) > 1 else [])
            for name in NAMES:
                for axis in axes:
                    check(name, x, axis, False)
    # One deciding element in a large array, in the last chunk of a full reduction.
    x = np.ones(1_000_003)
    x[-2] = 0
    assert bool(mnp.all(x).numpy()) is False
    assert bool(mnp.any(1 - x).numpy()) is True


def test_methods():
    x = np.array([[1, 0, 3], [4, 5, 6]], dtype=np.int16)
    a = mnp.array(x)
    np.testing.assert_array_equal(a.all().numpy(), x.all())
    np.testing.assert_array_equal(a.all(0).numpy(), x.all(0))
    np.testing.assert_array_equal(a.any(axis=1, keepdims=True).numpy(), x.any(1, keepdims=True))
    np.testing.assert_array_equal(a.all(axis=(0, 1)).numpy(), x.all(axis=(0, 1)))
    out = mnp.zeros((3,), dtype="bool")
    r = a.all(axis=0, out=out)
    np.testing.assert_array_equal(r.numpy(), x.all(0))
    np.testing.assert_array_equal(out.numpy(), x.all(0))


def test_out():
    x = np.array([[1.0, 0.0], [2.0, 3.0]])
    out = mnp.zeros((2,), dtype="bool")
    mnp.any(x, axis=1, out=out)
    np.testing.assert_array_equal(out.numpy(), [True, True])
    # numpy converts the result into out='s dtype unsafely.
    outf = mnp.zeros((2,), dtype="float32")
    mnp.all(x, axis=0, out=outf)
    np.testing.assert_array_equal(outf.numpy(), np.array([1.0, 0.0], dtype=np.float32))
    with pytest.raises(ValueError, match=r"np\.all"):
        mnp.all(x, axis=0, out=mnp.zeros((3,), dtype="bool"))


@pytest.mark.parametrize("name", NAMES)
def test_zero_d(name):
    f = getattr(mnp, name)
    for v in (0.0, 2.5, np.nan):
        x = np.array(v)
        e = getattr(np, name)(x)
        assert bool(f(x).numpy()) == bool(e)
        assert bool(f(x, axis=0).numpy()) == bool(e)
        assert bool(f(x, axis=-1).numpy()) == bool(e)
        assert f(x, axis=(), keepdims=True).shape == ()
    with pytest.raises(AxisError):
        f(np.array(1.0), axis=(0,))


@pytest.mark.parametrize("name", NAMES)
def test_errors(name):
    f = getattr(mnp, name)
    x = np.ones((2, 3))
    for axis in [2, -3, (0, 2), [5]]:
        with pytest.raises(AxisError, match=rf"np\.{name}: axis -?\d is out of bounds"):
            f(x, axis=axis)
    with pytest.raises(ValueError, match=rf"np\.{name}: duplicate value in 'axis'; got \(1, -1\)"):
        f(x, axis=(1, -1))
    with pytest.raises(
        TypeError,
        match=rf"^np\.{name}: argument #1 'axis' expected None, an int or a sequence of ints, "
        "got float",
    ):
        f(x, axis=1.5)
    with pytest.raises(TypeError, match=rf"np\.{name}: unexpected keyword argument 'dtype'"):
        f(x, dtype="bool")
