"""np.dot, np.matmul, np.tensordot and np.vecdot against numpy: values, result dtypes, 1-D
promotion, batch broadcasting, strided operands (OpenBLAS's transposed layouts and packed
copies), and numpy's errors.

Result dtype is numpy's result_type of the operands. For bfloat16 that is what numpy computes
with ml_dtypes arrays for dot and tensordot; numpy's matmul has no bfloat16 loop and returns
float32 there, where mxffi keeps the promoted dtype (bfloat16). Pairs without a common dtype
(bfloat16 with int16 and wider integers, or float16) are a TypeError, as numpy.result_type
has them (numpy's dot falls back to object arrays for some of them).
"""

import ml_dtypes
import numpy as np
import pytest
from conftest import DTYPES, np_dtype
from numpy.exceptions import AxisError

import mxffi.np as mnp

EPS = {"float16": 2.0**-10, "bfloat16": 2.0**-7, "float32": 2.0**-23, "float64": 2.0**-52}
MIXED = [
    ("int8", "float32"),
    ("uint64", "int64"),
    ("bool", "int8"),
    ("float16", "float32"),
    ("bfloat16", "float32"),
    ("bfloat16", "int8"),
    ("uint8", "float16"),
    ("int32", "float64"),
    ("uint16", "int16"),
]


def make(shape, dtype, rng):
    """Random values; integers over their whole range so products wrap around as numpy's do."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    dt = np.dtype(dtype) if dtype != "bfloat16" else None
    if dt is not None and dt.kind in "iu":
        info = np.iinfo(dt)
        return np.asarray(rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True))
    return np.asarray(rng.standard_normal(shape).astype(np_dtype(dtype)))


def assert_product(got, a, b, np_func, k):
    """got equals numpy's product exactly for integers and bool; within the rounding bound
    eps * (k + 4) * (|a| . |b|) for floats."""
    res = np.result_type(a, b)
    expected = np.asarray(np_func(a, b))
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert got.dtype == res, (got.dtype, res)
    if res.kind in "biu":
        np.testing.assert_array_equal(got, expected.astype(res))
        return
    bound = np.asarray(np_func(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64))))
    tol = EPS[str(res)] * (k + 4) * bound + 1e-30
    diff = np.abs(got.astype(np.float64) - expected.astype(np.float64))
    assert (diff <= tol).all(), (diff.max(), tol.min() if tol.size else tol)


DOT_SHAPES = [
    ((), ()),
    ((), (3,)),
    ((2, 3), ()),
    ((4,), (4,)),
    ((0,), (0,)),
    ((3, 4), (4,)),
    ((4,), (4, 3)),
    ((3, 4), (4, 5)),
    ((2, 3, 4), (4,)),
    ((2, 3, 4), (5, 4, 2)),
    ((0, 4), (4, 3)),
    ((3, 0), (0, 5)),
    ((3, 4), (4, 0)),
    ((2, 1, 3, 4), (4, 6)),
    ((20, 30), (30, 40)),  # above the small-product threshold: OpenBLAS for floats
]


@pytest.mark.parametrize("dtype", DTYPES)
def test_dot_matches_numpy(dtype):
    rng = np.random.default_rng(DTYPES.index(dtype))
    for sa, sb in DOT_SHAPES:
        a, b = make(sa, dtype, rng), make(sb, dtype, rng)
        got = mnp.dot(a, b).numpy()
        k = sa[-1] if sa and sb else 1
        assert_product(got, a, b, np.dot, k)


@pytest.mark.parametrize("da, db", MIXED)
def test_mixed_dtypes(da, db):
    rng = np.random.default_rng(1)
    for sa, sb in [((3, 4), (4, 5)), ((24, 40), (40, 16)), ((5,), (5,))]:
        a, b = make(sa, da, rng), make(sb, db, rng)
        if np.result_type(a, b).kind in "iu":
            a, b = a % 50, b % 50  # keep a mixed integer product exact in numpy too
        assert_product(mnp.dot(a, b).numpy(), a, b, np.dot, sa[-1])
        assert_product(
            mnp.tensordot(a, b, axes=1).numpy(),
            a,
            b,
            lambda x, y: np.tensordot(x, y, 1),
            sa[-1],
        )


MATMUL_SHAPES = [
    ((3,), (3,)),
    ((3,), (3, 4)),
    ((3, 4), (4,)),
    ((3,), (2, 3, 4)),
    ((2, 3, 4), (4,)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((1, 3, 4), (2, 4, 5)),
    ((0, 3, 4), (4, 5)),
    ((2, 3, 0), (0, 5)),
    ((2, 0, 4), (4, 5)),
    ((500, 8, 8), (8, 8)),  # many small products: parallel over the batch
    ((2, 90, 70), (70, 80)),  # a few large ones: each parallel over rows
]


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_matches_numpy(dtype):
    rng = np.random.default_rng(100 + DTYPES.index(dtype))
    for sa, sb in MATMUL_SHAPES:
        a, b = make(sa, dtype, rng), make(sb, dtype, rng)
        got = mnp.matmul(a, b).numpy()
        if dtype == "bfloat16":
            # numpy's matmul computes bfloat16 in float32 and returns float32 (see above).
            ref = lambda x, y: np.matmul(x, y).astype(ml_dtypes.bfloat16)  # noqa: E731
        else:
            ref = np.matmul
        assert_product(got, a, b, ref, sa[-1])


TENSORDOT_CASES = [
    ((3, 4), (4, 5), 1),
    ((3, 4), (3, 4), 2),
    ((3, 4), (5, 6), 0),
    ((2, 3, 4), (3, 4, 5), 2),
    ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])),
    ((2, 3, 4), (4, 2, 5), ([2, 0], [0, 1])),  # a's summed axes not adjacent: packed
    ((3, 4), (4, 3), (1, 0)),
    ((3, 4), (4, 3), ([-1], [-2])),
    ((3, 4), (4, 3), ([1, 0], [0, 1])),
    ((2, 3, 4, 5), (5, 4, 3), ([3, 2, 1], [0, 1, 2])),
    ((2, 3, 4, 5), (3, 5, 6), ([1, 3], [0, 1])),
    ((0, 4), (4, 3), 1),
    ((4, 0), (0, 3), 1),
    ((), (), 0),
    ((), (3,), 0),
    ((40, 50), (50, 60), 1),
]


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensordot_matches_numpy(dtype):
    rng = np.random.default_rng(200 + DTYPES.index(dtype))
    for sa, sb, axes in TENSORDOT_CASES:
        a, b = make(sa, dtype, rng), make(sb, dtype, rng)
        got = mnp.tensordot(a, b, axes=axes).numpy()
        np_axes = axes if isinstance(axes, int) else tuple(axes)
        k = int(np.prod([1] + [x for i, x in enumerate(sa) if i in _summed(len(sa), axes)]))
        assert_product(got, a, b, lambda x, y, ax=np_axes: np.tensordot(x, y, ax), k)


def _summed(ndim, axes):
    if isinstance(axes, int):
        return list(range(ndim - axes, ndim))
    first = axes[0] if isinstance(axes[0], list) else [axes[0]]
    return [a % ndim for a in first]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "bfloat16"])
def test_strided_operands(dtype):
    """Transposed views go to OpenBLAS as CblasTrans; stepped ones are packed. All as numpy."""
    rng = np.random.default_rng(9)
    a = make((70, 90), dtype, rng)
    b = make((90, 60), dtype, rng)
    bt = np.ascontiguousarray(b.T)
    at = np.ascontiguousarray(a.T)
    pairs = [
        (a, b),
        (at.T, b),  # a transposed view
        (a, bt.T),  # b transposed view
        (at.T, bt.T),
        (a[:, ::2], b[::2]),  # stepped columns / rows: packed
        (make((70, 180), dtype, rng)[:, 1::2], b),
        (a[::-1], b),  # negative strides
    ]
    for x, y in pairs:
        assert_product(mnp.dot(x, y).numpy(), x, y, np.dot, x.shape[-1])
        assert_product(mnp.matmul(x, y).numpy(), x, y, np.matmul, x.shape[-1])


def test_large_parallel_gemm():
    rng = np.random.default_rng(4)
    for m, k, n in [(300, 200, 250), (3, 500, 400), (257, 300, 1)]:
        a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
        assert_product(mnp.tensordot(a, b, axes=1).numpy(), a, b, np.dot, k)
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        assert_product(mnp.dot(a32.T.copy().T, b32).numpy(), a32, b32, np.dot, k)


def test_mxffi_array_operands():
    a = np.arange(12.0).reshape(3, 4)
    b = np.arange(20.0).reshape(4, 5)
    got = mnp.dot(mnp.array(a), mnp.transpose(mnp.array(b.T.copy()))).numpy()
    np.testing.assert_array_equal(got, a @ b)


def test_bool_dot_is_or_of_ands():
    a = np.array([[True, False], [False, False]])
    b = np.array([[False, True], [True, True]])
    got = mnp.dot(a, b).numpy()
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, np.dot(a, b))
    assert bool(mnp.dot(np.array([True, True]), np.array([True, True])).numpy()) is True


def test_integer_wraparound():
    a = np.array([127, 1], dtype=np.int8)
    assert int(mnp.dot(a, np.array([1, 1], dtype=np.int8)).numpy()) == -128
    u = np.array([2**63, 2**63], dtype=np.uint64)
    assert int(mnp.dot(u, np.array([1, 1], dtype=np.uint64)).numpy()) == 0


def test_dot_with_python_scalars():
    """np.dot converts a scalar as np.asarray does: int64, float64, bool."""
    a = np.arange(3, dtype=np.int8)
    for s in [2, 2.5, True]:
        got = mnp.dot(a, s).numpy()
        expected = np.dot(a, s)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_dot_shape_mismatch():
    with pytest.raises(ValueError) as e:
        mnp.dot(np.ones((3, 4)), np.ones((5, 3)))
    assert str(e.value).startswith(
        "np.dot: shapes (3,4) and (5,3) not aligned: 4 (dim 1) != 5 (dim 0)"
    )
    with pytest.raises(ValueError, match=r"np\.dot: shapes \(3,\) and \(4,\) not aligned"):
        mnp.dot(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match=r"shapes \(2,3,4\) and \(5,3\) not aligned: 4 \(dim 2"):
        mnp.dot(np.ones((2, 3, 4)), np.ones((5, 3)))


def test_matmul_errors():
    with pytest.raises(ValueError) as e:
        mnp.matmul(np.ones((3, 4)), np.ones((5, 3)))
    msg = str(e.value)
    assert msg.startswith("np.matmul: Input operand 1 has a mismatch in its core dimension 0")
    assert "(size 5 is different from 4)" in msg and "(3,4)" in msg and "(5,3)" in msg
    with pytest.raises(ValueError, match="Input operand 1 does not have enough dimensions"):
        mnp.matmul(np.ones(3), 2.0)
    with pytest.raises(ValueError, match="Input operand 0 does not have enough dimensions"):
        mnp.matmul(np.array(2.0), np.ones(3))
    with pytest.raises(ValueError, match="size 4 is different from 3"):
        mnp.matmul(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match=r"np\.matmul: operands could not be broadcast"):
        mnp.matmul(np.ones((2, 3, 4)), np.ones((3, 4, 5)))


def test_tensordot_errors():
    a, b = np.ones((3, 4)), np.ones((5, 3))
    with pytest.raises(ValueError, match=r"np\.tensordot: shape-mismatch for sum"):
        mnp.tensordot(a, b, axes=([0, 1], [0]))
    with pytest.raises(ValueError) as e:
        mnp.tensordot(a, b, axes=1)
    assert "shape-mismatch for sum" in str(e.value)
    assert "(3,4)" in str(e.value) and "(5,3)" in str(e.value)
    with pytest.raises(AxisError, match="axis 5 is out of bounds"):
        mnp.tensordot(a, b, axes=([5], [0]))
    with pytest.raises(IndexError):
        mnp.tensordot(a, b, axes=3)  # numpy: IndexError
    with pytest.raises(ValueError, match="duplicate axes are not allowed in tensordot"):
        mnp.tensordot(np.ones((2, 2)), np.ones((2, 2)), axes=([1, 1], [0, 0]))
    with pytest.raises(
        ValueError,
        match=r"^np\.tensordot: argument #2 'axes': axes must be a non-negative int or a pair of "
        r"sequences; got -1",
    ):
        mnp.tensordot(a, b, axes=-1)
    with pytest.raises(
        ValueError,
        match=r"^np\.tensordot: argument #2 'axes': axes must be an int or a pair \(axes_a, "
        r"axes_b\); got a sequence of 3",
    ):
        mnp.tensordot(a, b, axes=([0], [1], [0]))
    with pytest.raises(
        TypeError,
        match=r"^np\.tensordot: argument #2 'axes' expected an int or a pair of int sequences, "
        "got str",
    ):
        mnp.tensordot(a, b, axes="x")
    with pytest.raises(
        TypeError,
        match=r"^np\.tensordot: argument #2 'axes': axes_b expected an int or a sequence of ints, "
        "got str",
    ):
        mnp.tensordot(a, b, axes=([0], "x"))


VECDOT_CASES = [
    ((4,), (4,), -1),
    ((0,), (0,), -1),
    ((3, 4), (4,), -1),
    ((4,), (2, 3, 4), -1),
    ((2, 1, 4), (3, 4), -1),
    ((5, 3, 1), (3, 6), -2),
    ((3, 5), (3, 5), 0),
    ((2, 3, 4), (2, 3, 4), 1),
    ((0, 4), (4,), -1),
    ((6, 70), (6, 70), -1),
]


@pytest.mark.parametrize("dtype", DTYPES)
def test_vecdot_matches_numpy(dtype):
    rng = np.random.default_rng(300 + DTYPES.index(dtype))
    for sa, sb, axis in VECDOT_CASES:
        a, b = make(sa, dtype, rng), make(sb, dtype, rng)
        got = mnp.vecdot(a, b, axis=axis).numpy()
        if dtype == "bfloat16":
            # numpy has no bfloat16 loop for vecdot: compute in float32, as for matmul above.
            def ref(x, y, axis=axis):
                return np.vecdot(x.astype(np.float32), y.astype(np.float32), axis=axis).astype(
                    ml_dtypes.bfloat16
                )
        else:

            def ref(x, y, axis=axis):
                return np.vecdot(x, y, axis=axis)

        assert_product(got, a, b, ref, sa[axis])


def test_vecdot_strided_and_views():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((6, 8))
    b = rng.standard_normal((8, 6))
    got = mnp.vecdot(mnp.asarray(a)[::2, ::-1], mnp.asarray(b).T[::2, ::-1])
    np.testing.assert_allclose(got.numpy(), np.vecdot(a[::2, ::-1], b.T[::2, ::-1]))
    assert mnp.vecdot(mnp.asarray(a), mnp.asarray(a)).shape == (6,)


def test_vecdot_errors():
    with pytest.raises(TypeError, match="positional"):
        mnp.vecdot(x1=np.ones(3), x2=np.ones(3))
    with pytest.raises(TypeError):
        mnp.vecdot(np.ones(3), np.ones(3), -1)  # axis is keyword-only
    with pytest.raises(
        ValueError,
        match=r"^np\.vecdot: x1 and x2 must have the same length along axis -1, got 3 "
        r"\(shape \(3,\)\) and 4 \(shape \(2,4\)\)",
    ):
        mnp.vecdot(np.ones(3), np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"^np\.vecdot: operands could not be broadcast"):
        mnp.vecdot(np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(AxisError, match=r"^np\.vecdot: axis 1 is out of bounds"):
        mnp.vecdot(np.ones(3), np.ones(3), axis=1)
    with pytest.raises(ValueError, match=r"^np\.vecdot: x1 and x2 must have at least one dim"):
        mnp.vecdot(np.array(2.0), np.ones(3))
    with pytest.raises(TypeError, match=r"^np\.vecdot: argument #0 'x1' expected an ndarray"):
        mnp.vecdot(2.0, np.ones(3))
    with pytest.raises(TypeError, match=r"^np\.vecdot: the dtypes bfloat16 and int16"):
        mnp.vecdot(np.ones(3, dtype=ml_dtypes.bfloat16), np.ones(3, dtype=np.int16))


def test_no_common_dtype():
    x = np.ones(3, dtype=ml_dtypes.bfloat16)
    for f, name in [(mnp.dot, "dot"), (mnp.matmul, "matmul")]:
        with pytest.raises(TypeError, match=rf"np\.{name}: the dtypes bfloat16 and int16"):
            f(x, np.ones(3, dtype=np.int16))
    with pytest.raises(TypeError, match=r"np\.tensordot: the dtypes"):
        mnp.tensordot(x, np.ones(3, dtype=np.float16), axes=1)


def test_bad_operands():
    with pytest.raises(
        TypeError, match=r"^np\.dot: argument #0 'a' expected an ndarray or a number, got str"
    ):
        mnp.dot("x", np.ones(3))


def test_bfloat16_made_in_mxffi():
    """bfloat16 operands made by mxffi give what ml_dtypes arrays from numpy give."""
    rng = np.random.default_rng(8)
    a, b = make((20, 30), "bfloat16", rng), make((30, 10), "bfloat16", rng)
    ma = mnp.astype(a.astype(np.float32), "bfloat16")
    mb = mnp.astype(b.astype(np.float32), "bfloat16")
    for f in (mnp.dot, mnp.matmul):
        got = f(ma, mb).numpy()
        assert got.dtype == np_dtype("bfloat16")
        np.testing.assert_array_equal(got, f(a, b).numpy())
