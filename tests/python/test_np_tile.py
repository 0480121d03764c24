"""np.roll, np.tile and np.repeat against numpy 2: values, dtypes, shapes, strided inputs,
new arrays (never views), and errors."""

import numpy as np
import pytest

import mxffi.np as mnp
from mxffi.error import AxisError
from mxffi.nd import sparse

DTYPES = ["bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64"]
DTYPES += ["complex64", "complex128"]


def _np_of(dtype, shape):
    v = np.arange(1, int(np.prod(shape)) + 1).reshape(shape)
    if dtype == "bool":
        return v % 3 == 0
    if dtype.startswith("complex"):
        return (v - 1j * v).astype(dtype)
    return v.astype(dtype)


def _inputs(dtype, shape):
    """(mxffi array, numpy twin): contiguous, strided, and reversed (negative strides)."""
    a = mnp.asarray(_np_of(dtype, shape))
    yield a, a.asnumpy()
    if len(shape) >= 1:
        big = mnp.asarray(_np_of(dtype, shape[:-1] + (2 * shape[-1],)))
        v = big[..., ::2]
        yield v, v.asnumpy()
        f = mnp.flip(a)
        yield f, f.asnumpy()


def _same(got, want, x=None):
    g = got.asnumpy()
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_array_equal(g, want)
    if x is not None and g.size:
        assert not np.shares_memory(np.from_dlpack(got), np.from_dlpack(x))  # a new array


SHAPES = [(), (0,), (5,), (2, 3), (3, 1, 4), (2, 0, 3)]
ROLLS = [(1, None), (-7, None), ((1, 2), None), (1, 0), (-1, -1), (13, 1), ((1, 2), (0, -1))]
ROLLS += [(1, (0, 1, 2)), ((1, -1), 1), ((2,), (0,)), (0, 0), ((), ())]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_roll_is_numpys(dtype, shape):
    for x, xn in _inputs(dtype, shape):
        for shift, axis in ROLLS:
            axes = axis if isinstance(axis, tuple) else (axis,)
            if axis is not None and any(a is not None and a >= xn.ndim for a in axes):
                continue
            if xn.ndim == 0 and axes != ():
                continue
            if xn.ndim == 0 and shift == ():
                continue  # numpy's roll fails unpacking no pairs
            _same(mnp.roll(x, shift, axis=axis), np.roll(xn, shift, axis=axis), x)


def test_roll_errors():
    x = mnp.zeros((2, 3))
    with pytest.raises(
        ValueError,
        match=r"^np\.roll: shift and axis must be of one length, or one of them a single "
        r"value; got \(1, 2\) and \(0, 1, 1\)",
    ):
        mnp.roll(x, (1, 2), axis=(0, 1, 1))
    with pytest.raises(AxisError, match=r"^np\.roll: axis 2 is out of bounds for array of dim"):
        mnp.roll(x, 1, axis=2)
    with pytest.raises(TypeError, match=r"^np\.roll: argument #1 'shift' expected an int"):
        mnp.roll(x, 1.5)


TILES = [2, (2,), (1, 3), (2, 1, 2), (0,), (2, 0), (), (1, 1, 1, 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_tile_is_numpys(dtype, shape):
    for x, xn in _inputs(dtype, shape):
        for reps in TILES:
            _same(mnp.tile(x, reps), np.tile(xn, reps), x)
    with pytest.raises(ValueError, match=r"^np\.tile: argument #1 'repetitions': negative"):
        mnp.tile(mnp.zeros(2), (-1,))


REPEATS = [(2, None), (0, None), (3, 0), (2, -1), ([1, 0, 2], 1), ([2], 0)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (3, 3, 2), (2, 0, 3)])
def test_repeat_is_numpys(dtype, shape):
    for x, xn in _inputs(dtype, shape):
        for reps, axis in REPEATS:
            if axis is not None and (xn.ndim == 0 or axis >= xn.ndim):
                continue
            if isinstance(reps, list) and len(reps) > 1 and xn.shape[axis] != len(reps):
                continue
            _same(mnp.repeat(x, reps, axis=axis), np.repeat(xn, reps, axis=axis), x)
        # a count per element, as a list and as an mxffi array of another integer dtype
        counts = np.arange(xn.size) % 3
        want = np.repeat(xn, counts)
        _same(mnp.repeat(x, counts.tolist()), want, x)
        _same(mnp.repeat(x, mnp.asarray(counts.astype("uint8"))), want, x)
        if xn.ndim:
            c = [1, 2] * xn.shape[0]
            c = c[: xn.shape[0]]
            _same(mnp.repeat(x, c, axis=0), np.repeat(xn, c, axis=0), x)


def test_repeat_errors():
    x = mnp.zeros((2, 3))
    cases = [
        (ValueError, r"^np\.repeat: repeats may not contain negative values; got -1", (-1,)),
        (ValueError, r"^np\.repeat: repeats has 2 values but the axis has extent 3", ([1, 2], 1)),
        (TypeError, r"^np\.repeat: repeats must be integers; got the float 1\.5", (1.5,)),
        (
            TypeError,
            r"^np\.repeat: repeats must be integers; got an array of dtype float64",
            (np.array([1.0, 2.0]), 0),
        ),
        (
            ValueError,
            r"^np\.repeat: repeats must be an int or a 1-d array; got 2 dimensions",
            ([[1]],),
        ),
        (AxisError, r"^np\.repeat: axis 2 is out of bounds for array of dimension 2", (2, 2)),
    ]
    for kind, msg, args in cases:
        with pytest.raises(kind, match=msg):
            mnp.repeat(x, *args)


def test_sparse_inputs_are_refused_by_name():
    s = sparse.csr_matrix(np.eye(3))
    for f, args in [(mnp.roll, (1,)), (mnp.tile, (2,)), (mnp.repeat, (2,))]:
        with pytest.raises(
            TypeError, match=rf"^np\.{f.__name__}: takes a dense array; got storage type csr"
        ):
            f(s, *args)


def test_repeat_method_is_np_repeat():
    xn = np.arange(6).reshape(2, 3)
    x = mnp.asarray(xn)
    np.testing.assert_array_equal(x.repeat(2).asnumpy(), xn.repeat(2))
    np.testing.assert_array_equal(x.repeat([1, 0, 2], axis=1).asnumpy(), xn.repeat([1, 0, 2], 1))
    np.testing.assert_array_equal(x.repeat(3, axis=-2).asnumpy(), xn.repeat(3, axis=-2))
