"""np.concat / np.concatenate, np.stack and np.unstack against numpy 2: values, promoted dtypes,
shapes, negative axes, axis=None, 0-size and strided inputs, out= and dtype=, and errors."""

import inspect

import numpy as np
import pytest

import mxffi.np as mnp
from mxffi.error import AxisError

DTYPES = [
    "bool",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


def _np_of(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    v = rng.integers(-50, 50, size=shape)
    if dtype == "bool":
        return v > 0
    if dtype.startswith("uint"):
        v = np.abs(v)
    if dtype.startswith("complex"):
        return (v + 1j * (v - 3)).astype(dtype)
    return v.astype(dtype)


def _same(got, want):
    g = np.from_dlpack(got)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1, -2, None])
def test_concat_values_every_dtype(dtype, axis):
    a, b = _np_of(dtype, (2, 3), 1), _np_of(dtype, (2, 3), 2)
    if axis in (0, -2):
        b = _np_of(dtype, (4, 3), 2)
    elif axis in (1, -1):
        b = _np_of(dtype, (2, 5), 2)
    want = np.concat([a, b], axis=axis)
    _same(mnp.concat([mnp.asarray(a), mnp.asarray(b)], axis=axis), want)
    _same(mnp.concatenate((a, b), axis), want)


@pytest.mark.parametrize(
    "d1,d2",
    [
        ("int8", "uint8"),
        ("bool", "int32"),
        ("int32", "float32"),
        ("uint64", "int64"),
        ("float16", "int8"),
        ("uint16", "float16"),
        ("bool", "float64"),
        ("int64", "float32"),
    ],
)
def test_concat_promotes_as_result_type(d1, d2):
    a, b = _np_of(d1, (3, 2), 3), _np_of(d2, (1, 2), 4)
    want = np.concat([a, b])
    assert want.dtype == np.result_type(a, b)
    _same(mnp.concat([mnp.asarray(a), mnp.asarray(b)]), want)
    _same(mnp.concat([a, b, a], axis=None), np.concat([a, b, a], axis=None))


def test_concat_bfloat16():
    a = mnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3)).astype("bfloat16")
    b = mnp.asarray(np.ones((1, 3), np.float32)).astype("bfloat16")
    r = mnp.concat([a, b])
    assert str(r.dtype) == "bfloat16" and r.shape == (3, 3)
    np.testing.assert_array_equal(
        np.from_dlpack(r.astype("float32")),
        np.concat([np.arange(6.0).reshape(2, 3), np.ones((1, 3))]),
    )
    # bfloat16 with int8 promotes to bfloat16 (ml_dtypes), with float32 to float32.
    assert str(mnp.concat([a, mnp.asarray(np.ones((1, 3), np.int8))]).dtype) == "bfloat16"
    assert str(mnp.concat([a, mnp.asarray(np.ones((1, 3), np.float32))]).dtype) == "float32"


def test_concat_strided_and_zero_size_inputs():
    base = _np_of("float64", (4, 6), 5)
    m = mnp.asarray(base)
    parts = [m[:, ::2], m[::-1, 1:3], m[:, :0], m.T[:4, :0]]
    want = np.concat([base[:, ::2], base[::-1, 1:3], base[:, :0], base.T[:4, :0]], axis=1)
    _same(mnp.concat(parts, axis=1), want)
    _same(mnp.concat(parts, axis=None), np.concat([np.asarray(p) for p in parts], axis=None))
    z = np.zeros((0, 3), np.int16)
    _same(mnp.concat([z, z]), np.concat([z, z]))
    _same(mnp.concat([z, _np_of("int16", (2, 3))]), np.concat([z, _np_of("int16", (2, 3))]))
    # 0-d arrays flatten with axis=None.
    s = np.array(7, np.int32)
    _same(mnp.concat([s, s], axis=None), np.concat([s, s], axis=None))


def test_concat_one_array_and_higher_ndim():
    a = _np_of("int32", (2, 3, 4, 2), 7)
    _same(mnp.concat([a]), np.concat([a]))
    _same(mnp.concat([a, a, a], axis=2), np.concat([a, a, a], axis=2))
    _same(mnp.concat([a, a], axis=-3), np.concat([a, a], axis=-3))


def test_concatenate_out_and_dtype():
    a, b = _np_of("int32", (2, 2), 1), _np_of("int8", (1, 2), 2)
    out = mnp.zeros((3, 2), dtype="float64")
    r = mnp.concatenate([a, b], out=out)
    assert r is out or np.shares_memory(np.from_dlpack(r), np.from_dlpack(out))
    _same(out, np.concatenate([a, b]).astype("float64"))
    _same(mnp.concatenate([a, b], dtype="int16"), np.concatenate([a, b], dtype="int16"))
    _same(
        mnp.concatenate([a, b], axis=None, dtype="float32"),
        np.concatenate([a, b], None, dtype="float32"),
    )
    # out into a strided view
    big = mnp.zeros((3, 4), dtype="int32")
    mnp.concatenate([a, b], out=big[:, ::2])
    want = np.zeros((3, 4), np.int32)
    want[:, ::2] = np.concatenate([a, b])
    _same(big, want)


def test_concat_errors():
    a = np.ones((2, 3))
    with pytest.raises(ValueError, match=r"np\.concat: need at least one array to concatenate"):
        mnp.concat([])
    with pytest.raises(
        ValueError,
        match=r"np\.concat: all the input arrays must have same number of dimensions, but the "
        r"array at index 0 has 2 dimension\(s\) and the array at index 1 has 1 dimension\(s\)",
    ):
        mnp.concat([a, np.ones(3)])
    with pytest.raises(
        ValueError,
        match=r"along dimension 1, the array at index 0 has size 3 and the array at index 1 "
        r"has size 2",
    ):
        mnp.concat([a, np.ones((2, 2))])
    with pytest.raises(
        AxisError, match=r"np\.concat: axis 2 is out of bounds for array of dimension 2"
    ):
        mnp.concat([a, a], axis=2)
    with pytest.raises(AxisError, match=r"axis -3 is out of bounds"):
        mnp.concat([a, a], axis=-3)
    with pytest.raises(
        ValueError, match=r"np\.concat: zero-dimensional arrays cannot be concatenated"
    ):
        mnp.concat([mnp.asarray(1.0), mnp.asarray(2.0)])
    with pytest.raises(
        TypeError,
        match=r"np\.concatenate: Cannot cast array data from dtype\('float64'\) to "
        r"dtype\('int64'\) according to the rule 'same_kind'",
    ):
        mnp.concatenate([a, a], dtype="int64")
    with pytest.raises(
        TypeError, match=r"np\.concatenate: concatenate\(\) only takes `out` or `dtype`"
    ):
        mnp.concatenate([a], out=mnp.zeros((2, 3)), dtype="float64")
    with pytest.raises(
        ValueError, match=r"np\.concatenate: Output array is the wrong shape; got \(3, 3\)"
    ):
        mnp.concatenate([a], out=mnp.zeros((3, 3)))
    with pytest.raises(
        TypeError, match=r"np\.concatenate: Cannot cast array data from dtype\('float64'\)"
    ):
        mnp.concatenate([a], out=mnp.zeros((2, 3), dtype="int32"))
    with pytest.raises(TypeError, match=r"np\.concat: argument #0 'arrays'"):
        mnp.concat(a)
    with pytest.raises(TypeError):
        mnp.concat([a], 0)  # axis is keyword-only


def test_mixed_real_and_complex_promote_as_numpy():
    parts = [np.arange(2, dtype=np.int64), np.array([1 + 2j], np.complex64), np.ones(1, np.float32)]
    got = mnp.concat(parts)
    want = np.concatenate(parts)
    assert got.dtype == want.dtype  # complex128: int64 with complex64
    np.testing.assert_array_equal(got.numpy(), want)
    got = mnp.stack([np.ones(2, np.complex64), np.zeros(2, np.float16)])
    assert got.dtype == np.complex64
    np.testing.assert_array_equal(got.numpy(), np.stack([np.ones(2, np.complex64), np.zeros(2)]))


def test_signatures():
    assert str(inspect.signature(mnp.concat)).startswith(
        "(arrays: mxffi.container.Array, /, *, axis"
    )
    sig = inspect.signature(mnp.stack)
    assert list(sig.parameters)[:2] == ["arrays", "axis"]
    assert sig.parameters["axis"].kind is inspect.Parameter.KEYWORD_ONLY
    assert str(inspect.signature(mnp.unstack)).startswith(
        "(x: NDArrayLike, /, *, axis: int = 0) -> tuple["
    )
    assert list(inspect.signature(mnp.concatenate).parameters) == ["arrays", "axis", "out", "dtype"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_stack_values_every_dtype(dtype, axis):
    xs = [_np_of(dtype, (2, 3), s) for s in range(3)]
    _same(mnp.stack([mnp.asarray(x) for x in xs], axis=axis), np.stack(xs, axis=axis))


def test_stack_promotes_zero_size_0d_and_strided():
    a, b = _np_of("int8", (2, 3), 1), _np_of("uint8", (2, 3), 2)
    _same(mnp.stack([a, b]), np.stack([a, b]))
    _same(mnp.stack([a, b.astype("float32")], axis=-1), np.stack([a, b.astype("float32")], axis=-1))
    z = np.zeros((0, 2))
    _same(mnp.stack([z, z], axis=1), np.stack([z, z], axis=1))
    s = np.array(3, np.int64)
    _same(mnp.stack([s, s, s]), np.stack([s, s, s]))
    base = _np_of("float32", (4, 6))
    m = mnp.asarray(base)
    _same(
        mnp.stack([m[:, ::2], m[::-1, 1:4], m.T[:3, :4].T], axis=1),
        np.stack([base[:, ::2], base[::-1, 1:4], base.T[:3, :4].T], axis=1),
    )
    out = mnp.zeros((2, 2, 3), dtype="float64")
    mnp.stack([a, b], out=out)
    _same(out, np.stack([a, b]).astype("float64"))
    _same(mnp.stack([a, b], dtype="int32"), np.stack([a, b], dtype="int32"))


def test_stack_errors():
    with pytest.raises(ValueError, match=r"np\.stack: need at least one array to stack"):
        mnp.stack([])
    with pytest.raises(
        ValueError,
        match=r"np\.stack: all input arrays must have the same shape; arrays\[0\] has shape "
        r"\(2, 3\) and arrays\[1\] has shape \(1, 3\)",
    ):
        mnp.stack([np.ones((2, 3)), np.ones((1, 3))])
    with pytest.raises(
        AxisError, match=r"np\.stack: axis 3 is out of bounds for array of dimension 3"
    ):
        mnp.stack([np.ones((2, 3))], axis=3)
    with pytest.raises(AxisError, match=r"axis -4 is out of bounds"):
        mnp.stack([np.ones((2, 3))], axis=-4)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1, -3])
def test_unstack_views_every_dtype(dtype, axis):
    x = _np_of(dtype, (2, 3, 4), 9)
    m = mnp.asarray(x)
    parts = mnp.unstack(m, axis=axis)
    want = np.unstack(x, axis=axis) if hasattr(np, "unstack") else tuple(np.moveaxis(x, axis, 0))
    assert isinstance(parts, tuple) and len(parts) == len(want)
    for p, w in zip(parts, want, strict=True):
        _same(p, w)
        assert np.shares_memory(np.from_dlpack(p), np.from_dlpack(m))


def test_unstack_edges_and_errors():
    assert mnp.unstack(np.zeros((0, 3))) == ()
    parts = mnp.unstack(np.arange(3))
    assert [p.shape for p in parts] == [(), (), ()]
    assert [int(p) for p in parts] == [0, 1, 2]
    z = mnp.unstack(np.zeros((2, 0)), axis=0)
    assert [p.shape for p in z] == [(0,), (0,)]
    with pytest.raises(ValueError, match=r"np\.unstack: Input array must be at least 1-d"):
        mnp.unstack(mnp.asarray(1.0))
    with pytest.raises(
        AxisError, match=r"np\.unstack: axis 2 is out of bounds for array of dimension 2"
    ):
        mnp.unstack(np.ones((2, 2)), axis=2)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if not d.startswith("complex")] + ["bfloat16"])
@pytest.mark.parametrize("axis,n", [(-1, 1), (0, 1), (1, 2), (-2, 3), (1, 0), (0, 7)])
def test_diff_every_dtype(dtype, axis, n):
    if dtype == "bfloat16":
        x = np.arange(12, dtype=np.float32).reshape(3, 4) ** 2 / 4
        got = mnp.diff(mnp.asarray(x).astype("bfloat16"), axis=axis, n=n)
        assert str(got.dtype) == "bfloat16"
        np.testing.assert_array_equal(
            np.from_dlpack(got.astype("float32")), np.diff(x, axis=axis, n=n)
        )
        return
    x = _np_of(dtype, (3, 4), 11)
    _same(mnp.diff(mnp.asarray(x), axis=axis, n=n), np.diff(x, axis=axis, n=n))


def test_diff_unsigned_wraps_and_bool_not_equal():
    u = np.array([3, 1, 2, 200], np.uint8)
    _same(mnp.diff(u), np.diff(u))
    _same(mnp.diff(u, n=2), np.diff(u, n=2))
    b = np.array([True, False, False, True, True])
    _same(mnp.diff(b), np.diff(b))
    _same(mnp.diff(b, n=3), np.diff(b, n=3))


def test_diff_prepend_append():
    x = _np_of("int16", (2, 4), 12)
    for kw in [
        {"prepend": 0},
        {"append": 2.5},
        {"prepend": np.array(7, np.int8), "append": np.array(1, np.int8)},
        {"append": [[1], [2]]},
        {"prepend": np.zeros((2, 2), np.int8), "n": 3},
        {"axis": 0, "prepend": np.zeros((1, 4), np.float32)},
        {"axis": 0, "append": True},
    ]:
        _same(mnp.diff(x, **kw), np.diff(x, **kw))
    m = mnp.asarray(x)
    _same(
        mnp.diff(m, prepend=mnp.asarray(np.ones((2, 1), np.int16))),
        np.diff(x, prepend=np.ones((2, 1), np.int16)),
    )


def test_diff_strided_zero_size_and_n0():
    base = _np_of("float64", (5, 6), 13)
    m = mnp.asarray(base)
    _same(mnp.diff(m[::-2, ::3], axis=0), np.diff(base[::-2, ::3], axis=0))
    _same(mnp.diff(m.T, n=2), np.diff(base.T, n=2))
    z = np.zeros((0, 3))
    _same(mnp.diff(z, axis=0), np.diff(z, axis=0))
    _same(mnp.diff(z, axis=1), np.diff(z, axis=1))
    _same(mnp.diff(np.ones(1)), np.diff(np.ones(1)))
    _same(mnp.diff(np.ones(3), n=10), np.diff(np.ones(3), n=10))
    r = mnp.diff(m, n=0)
    assert np.shares_memory(np.from_dlpack(r), np.from_dlpack(m))  # numpy returns x itself
    _same(mnp.diff(base, n=0), base)


def test_diff_errors():
    with pytest.raises(
        ValueError, match=r"np\.diff: diff requires input that is at least one dimensional"
    ):
        mnp.diff(mnp.asarray(1.0))
    with pytest.raises(ValueError, match=r"np\.diff: order must be non-negative but got -1"):
        mnp.diff(np.ones(3), n=-1)
    with pytest.raises(
        AxisError, match=r"np\.diff: axis 2 is out of bounds for array of dimension 2"
    ):
        mnp.diff(np.ones((2, 3)), axis=2)
    with pytest.raises(
        ValueError,
        match=r"np\.diff: all the input array dimensions except for the concatenation axis must "
        r"match exactly, but along dimension 0, the array at index 0 has size 3 and the array "
        r"at index 1 has size 2",
    ):
        mnp.diff(np.ones((2, 3)), prepend=np.zeros((3, 1)))
    with pytest.raises(TypeError):
        mnp.diff(np.ones(3), 1)  # n and axis are keyword-only (the array API's signature)
    assert list(inspect.signature(mnp.diff).parameters) == ["x", "axis", "n", "prepend", "append"]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_diff_of_complex_as_numpys(dtype):
    x = (np.arange(12).reshape(3, 4) * (1 - 2j)).astype(dtype)
    x[1, 2] = complex(np.inf, np.nan)
    for n, axis in ((1, -1), (2, 0), (1, 0)):
        got = mnp.diff(x, n=n, axis=axis).asnumpy()
        want = np.diff(x, n=n, axis=axis)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
