"""The manipulation functions that are views (expand_dims, squeeze, permute_dims,
matrix_transpose, swapaxes, moveaxis, broadcast_to, flip) against numpy 2: values, dtypes,
shapes, strides, shared memory, and errors."""

import numpy as np
import pytest

import mxffi.np as mnp
from mxffi.error import AxisError
from mxffi.nd import sparse

DTYPES = [
    "bool",
    "int8",
    "uint16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


def _np_of(dtype, shape):
    n = int(np.prod(shape))
    if dtype == "bool":
        return (np.arange(n) % 3 == 0).reshape(shape)
    v = np.arange(n).reshape(shape)
    if dtype.startswith("complex"):
        return (v + 1j * (v + 1)).astype(dtype)
    return v.astype(dtype)


def _inputs(dtype, shape):
    """(mxffi array, its numpy twin sharing its strides): contiguous, and a strided view."""
    a = mnp.asarray(_np_of(dtype, shape))
    yield a, np.from_dlpack(a)
    if len(shape) >= 1 and shape[-1] > 1:
        big = mnp.asarray(_np_of(dtype, shape[:-1] + (2 * shape[-1],)))
        v = big[..., ::2]
        yield v, np.from_dlpack(v)


def _same(got, want, strides=True):
    g = np.from_dlpack(got)
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_array_equal(g, want)
    if strides and want.size > 0:
        assert g.strides == want.strides
    return g


def _is_view(got, x):
    if np.from_dlpack(x).size == 0 or np.from_dlpack(got).size == 0:
        return  # nothing to share
    assert np.shares_memory(np.from_dlpack(got), np.from_dlpack(x))


SHAPES = [(), (0,), (5,), (2, 3), (3, 1, 4), (2, 0, 3), (1, 2, 1, 3)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_expand_dims_is_numpys(dtype, shape):
    for x, xn in _inputs(dtype, shape):
        nd = xn.ndim + 1
        for axis in [0, -1, nd - 1, (0, -1), (0, 1)]:
            if isinstance(axis, tuple) and nd + 1 <= max(axis):
                continue
            got = mnp.expand_dims(x, axis=axis)
            _same(got, np.expand_dims(xn, axis))
            _is_view(got, x)
        _same(mnp.expand_dims(x), np.expand_dims(xn, 0))


def test_expand_dims_errors_are_numpys():
    x = mnp.zeros((2, 3))
    with pytest.raises(
        AxisError,
        match=r"^np\.expand_dims: axis 3 is out of bounds for array of "
        r"dimension 3",
    ):
        mnp.expand_dims(x, 3)
    with pytest.raises(np.exceptions.AxisError):
        mnp.expand_dims(x, -4)
    with pytest.raises(ValueError, match=r"^np\.expand_dims: repeated axis; got \(0, 0\)"):
        mnp.expand_dims(x, (0, 0))
    with pytest.raises(ValueError, match=r"^np\.expand_dims: repeated axis; got \(0, -4\)"):
        mnp.expand_dims(x, (0, -4))
    with pytest.raises(
        TypeError,
        match=r"^np\.expand_dims: axis must be an int or a tuple of "
        r"ints, got None",
    ):
        mnp.expand_dims(x, None)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_squeeze_is_numpys(dtype, shape):
    for x, xn in _inputs(dtype, shape):
        got = mnp.squeeze(x)
        _same(got, np.squeeze(xn))
        _is_view(got, x)
        ones = tuple(i for i, n in enumerate(xn.shape) if n == 1)
        for axis in [ones, ones[:1], tuple(i - xn.ndim for i in ones)]:
            if axis:
                _same(mnp.squeeze(x, axis=axis), np.squeeze(xn, axis))
                _same(mnp.squeeze(x, axis[0]), np.squeeze(xn, axis[0]))
        _same(x.squeeze(), np.squeeze(xn))


def test_squeeze_errors_are_numpys():
    x = mnp.zeros((3, 1))
    with pytest.raises(
        ValueError,
        match=r"^np\.squeeze: cannot select an axis to squeeze out "
        r"which has size not equal to one; axis 0 of shape \(3, 1\)",
    ):
        mnp.squeeze(x, 0)
    with pytest.raises(
        AxisError,
        match=r"^np\.squeeze: axis 2 is out of bounds for array of "
        r"dimension 2",
    ):
        mnp.squeeze(x, 2)
    with pytest.raises(ValueError, match=r"^np\.squeeze: repeated axis; got \(1, -1\)"):
        mnp.squeeze(x, (1, -1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 0, 3), (2, 3, 4)])
def test_permute_dims_and_transposes_are_numpys(dtype, shape):
    import itertools

    for x, xn in _inputs(dtype, shape):
        for axes in itertools.permutations(range(xn.ndim)):
            got = mnp.permute_dims(x, axes)
            _same(got, np.permute_dims(xn, axes))
            _same(got, np.transpose(xn, axes))
            _is_view(got, x)
            neg = tuple(a - xn.ndim for a in axes)
            _same(mnp.permute_dims(x, neg), np.transpose(xn, axes))
        if xn.ndim >= 2:
            got = mnp.matrix_transpose(x)
            _same(got, np.matrix_transpose(xn))
            _same(x.mT, np.matrix_transpose(xn))
            _is_view(got, x)
        for a1 in range(-xn.ndim, xn.ndim):
            for a2 in range(-xn.ndim, xn.ndim):
                got = mnp.swapaxes(x, a1, a2)
                _same(got, np.swapaxes(xn, a1, a2))
                _same(x.swapaxes(a1, a2), np.swapaxes(xn, a1, a2))
                _is_view(got, x)


def test_permute_dims_matrix_transpose_swapaxes_errors():
    x = mnp.zeros((2, 3, 4))
    with pytest.raises(
        ValueError,
        match=r"^np\.permute_dims: axes don't match array; got "
        r"\(0, 1\) for an array of 3 dimensions",
    ):
        mnp.permute_dims(x, (0, 1))
    with pytest.raises(
        ValueError,
        match=r"^np\.permute_dims: repeated axis in transpose; got "
        r"\(0, 1, -2\)",
    ):
        mnp.permute_dims(x, (0, 1, -2))
    with pytest.raises(AxisError, match=r"^np\.permute_dims: axis 3 is out of bounds"):
        mnp.permute_dims(x, (0, 1, 3))
    with pytest.raises(
        ValueError,
        match=r"^np\.matrix_transpose: input array must be at least "
        r"2-dimensional, but it is 1",
    ):
        mnp.matrix_transpose(mnp.zeros(3))
    with pytest.raises(
        AxisError,
        match=r"^np\.swapaxes: axis -4 is out of bounds for array of "
        r"dimension 3",
    ):
        mnp.swapaxes(x, 0, -4)


MOVES = [
    (0, -1),
    (-1, 0),
    (1, 1),
    ((0, 1), (1, 0)),
    ((0, 2), (-1, 0)),
    ((), ()),
    ((0, 1, 2), (2, 0, 1)),
    ([2], [0]),
]


@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "complex128"])
@pytest.mark.parametrize("move", MOVES)
def test_moveaxis_is_numpys(dtype, move):
    for shape in [(2, 3, 4), (2, 0, 4)]:
        for x, xn in _inputs(dtype, shape):
            got = mnp.moveaxis(x, *move)
            _same(got, np.moveaxis(xn, *move))
            _is_view(got, x)


def test_moveaxis_errors_are_numpys():
    x = mnp.zeros((3, 4))
    with pytest.raises(
        ValueError,
        match=r"^np\.moveaxis: `source` and `destination` arguments "
        r"must have the same number of elements; got \(0, 1\) and \(0,\)",
    ):
        mnp.moveaxis(x, (0, 1), (0,))
    with pytest.raises(
        ValueError,
        match=r"^np\.moveaxis: repeated axis in `source` argument; "
        r"got \(0, -2\)",
    ):
        mnp.moveaxis(x, (0, -2), (0, 1))
    with pytest.raises(
        ValueError,
        match=r"^np\.moveaxis: repeated axis in `destination` "
        r"argument; got \(1, 1\)",
    ):
        mnp.moveaxis(x, (0, 1), (1, 1))
    with pytest.raises(
        AxisError,
        match=r"^np\.moveaxis: axis 2 is out of bounds for array of "
        r"dimension 2",
    ):
        mnp.moveaxis(x, 2, 0)


BROADCASTS = [
    ((), ()),
    ((), (3, 2)),
    ((3,), (2, 3)),
    ((1,), (4,)),
    ((2, 1), (2, 5)),
    ((1, 3), (0, 3)),
    ((2, 1, 3), (4, 2, 6, 3)),
    ((0,), (2, 0)),
    ((3,), (3,)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", BROADCASTS)
def test_broadcast_to_is_numpys(dtype, shapes):
    src, dst = shapes
    for x, xn in _inputs(dtype, src):
        got = mnp.broadcast_to(x, dst)
        want = np.broadcast_to(xn, dst)
        g = _same(got, want)
        assert got.read_only and not g.flags.writeable
        _is_view(got, x)
        assert not x.read_only  # the input stays writable
    x = mnp.asarray(np.arange(3.0))
    b = mnp.broadcast_to(x, (2, 3))
    x[0] = 7.0  # the view sees writes through its base
    np.testing.assert_array_equal(b.asnumpy(), [[7, 1, 2], [7, 1, 2]])
    with pytest.raises(ValueError):
        b[0, 0] = 1.0


def test_broadcast_to_errors():
    x = mnp.zeros((3, 2))
    with pytest.raises(
        ValueError,
        match=r"^np\.broadcast_to: cannot broadcast an array of shape "
        r"\(3, 2\) to the shape \(4, 2\) \(axis 0: 3 against 4\)",
    ):
        mnp.broadcast_to(x, (4, 2))
    with pytest.raises(
        ValueError,
        match=r"^np\.broadcast_to: cannot broadcast an array of shape "
        r"\(3, 2\) to the shape \(2,\), which has fewer dimensions",
    ):
        mnp.broadcast_to(x, (2,))
    with pytest.raises(ValueError, match=r"negative dimensions are not allowed"):
        mnp.broadcast_to(x, (-1, 3, 2))


FLIPS = [None, 0, -1, (0,), (0, -1), ()]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (3, 1, 4), (2, 0, 3)])
def test_flip_is_numpys(dtype, shape):
    for x, xn in _inputs(dtype, shape):
        for axis in FLIPS:
            if xn.ndim == 0 and axis not in (None, ()):
                continue
            if isinstance(axis, tuple) and len({a % xn.ndim for a in axis}) < len(axis):
                continue
            got = mnp.flip(x, axis=axis)
            want = np.flip(xn, axis=axis)
            _same(got, want)
            _is_view(got, x)
            # A flip of a flip is the input again, through two sets of negative strides.
            _same(mnp.flip(got, axis=axis), xn)
            # Ops read the negative strides: a copy is the flipped elements, contiguous.
            np.testing.assert_array_equal(mnp.copy(got).asnumpy(), want)


def test_flip_errors_are_numpys():
    x = mnp.zeros((2, 2))
    with pytest.raises(
        AxisError,
        match=r"^np\.flip: axis 2 is out of bounds for array of "
        r"dimension 2",
    ):
        mnp.flip(x, axis=2)
    with pytest.raises(ValueError, match=r"^np\.flip: repeated axis; got \(0, 0\)"):
        mnp.flip(x, axis=(0, 0))


def test_views_refuse_sparse_arrays_by_name():
    s = sparse.csr_matrix(np.eye(2, 3))
    for f, args in [
        (mnp.flip, ()),
        (mnp.squeeze, ()),
        (mnp.expand_dims, (0,)),
        (mnp.broadcast_to, ((2, 3),)),
        (mnp.moveaxis, (0, 1)),
    ]:
        name = f.__name__
        with pytest.raises(
            TypeError,
            match=rf"^np\.{name}: takes a dense array; got storage "
            r"type csr",
        ):
            f(s, *args)


def test_views_of_numpy_inputs_copy_them():
    xn = np.arange(6).reshape(2, 3)
    got = mnp.flip(xn, axis=0)
    np.testing.assert_array_equal(got.asnumpy(), np.flip(xn, 0))
    xn[0, 0] = 100  # the result outlives the call, so it holds its own copy
    assert got.asnumpy()[1, 0] == 0
