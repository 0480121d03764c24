"""mxffi.np's comparisons, floor_divide/remainder, bitwise, shift and logical functions, and
positive/invert/logical_not, against numpy 2 (with ml_dtypes for bfloat16).

numpy is the oracle for result dtypes, values (NaN positions and the signs of zeros included)
and exception classes, on every dtype and every pair of dtypes, with arrays and Python numbers
on either side. The one deliberate departure the elementwise family makes: bfloat16 with a
Python float stays bfloat16 (NEP 50); numpy with ml_dtypes computes in float32 there.
"""

import itertools

import ml_dtypes
import numpy as np
import pytest
from conftest import DTYPES, np_dtype, seed_of

import mxffi
import mxffi.np as mnp

FLOATS = {"float16", "bfloat16", "float32", "float64"}
COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]
DIVISION = ["floor_divide", "remainder"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]
SHIFT = ["left_shift", "right_shift"]
BINARY = COMPARE + LOGICAL + DIVISION + BITWISE + SHIFT
UNARY = ["positive", "invert", "logical_not"]
# numpy 2's other names for the same ufuncs (array-API names and np.mod).
ALIASES = {
    "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift",
    "bitwise_invert": "invert",
    "mod": "remainder",
}
SHAPES = [((), ()), ((0, 3), (0, 3)), ((5,), (5,)), ((3, 4), (3, 4)), ((2, 3, 4), (2, 3, 4))]
BROADCAST = [((3, 1), (1, 4)), ((4,), (3, 4)), ((2, 1, 3), (4, 1)), ((), (3, 4)), ((0, 3), (3,))]


def rand(rng, shape, dtype, name):
    """Values that exercise the op: small ranges (so that comparisons meet equal values and
    divisions meet zeros), the dtype's extremes, NaN and infinities for floats, shift counts
    that are negative or past the bit width."""
    dt = np_dtype(dtype)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in FLOATS:
        x = rng.integers(-6, 7, size=shape).astype(np.float64) * 0.75
        x = np.where(rng.random(shape) < 0.5, x, rng.standard_normal(shape) * 4)
        if x.size:
            x.flat[::7] = np.nan
            x.flat[3::11] = np.inf
            x.flat[5::13] = -np.inf
            x.flat[2::9] = 0.0
        return np.asarray(x.astype(dt))
    info = np.iinfo(dt)
    if name in SHIFT:
        lo = -3 if info.min < 0 else 0
        x = rng.integers(lo, info.bits + 3, size=shape, endpoint=True)
    else:
        x = rng.integers(-5, 6, size=shape) if info.min < 0 else rng.integers(0, 9, size=shape)
    x = x.astype(dt)
    if x.size > 4 and name not in SHIFT:
        x.flat[1::6] = info.min
        x.flat[4::6] = info.max
    # A 0-d array, never a numpy scalar: mxffi reads numpy scalars as Python numbers.
    return np.asarray(x)


def np_call(name, *args, **kwargs):
    with np.errstate(all="ignore"):
        return getattr(np, name)(*args, **kwargs)


def outcome(fn, *args, **kwargs):
    """(result, None) or (None, the builtin exception class raised: numpy's UFuncTypeError
    family counts as the TypeError it derives from)."""
    try:
        return fn(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001 (the class is what the test compares)
        return None, next(c for c in type(e).__mro__ if c.__module__ == "builtins")


def check(ours, want):
    """ours (an mxffi array) equals want (numpy): dtype, shape, values exactly, NaN where NaN,
    and the sign of every zero."""
    assert isinstance(ours, mxffi.NDArray), type(ours)
    want = np.asarray(want)
    assert str(ours.dtype) == str(want.dtype), (str(ours.dtype), str(want.dtype))
    got = ours.asnumpy()
    assert got.shape == want.shape, (got.shape, want.shape)
    if str(want.dtype) not in FLOATS:
        np.testing.assert_array_equal(got, want)
        return
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan = np.isnan(w)
    assert np.array_equal(np.isnan(g), nan), (got, want)
    assert np.array_equal(g[~nan], w[~nan]), (got, want)
    assert np.array_equal(np.signbit(g[~nan]), np.signbit(w[~nan])), (got, want)


def run_both(name, *args, bf16_float_scalar=False):
    """Call np.<name> and mnp.<name>; check the result or that both raise the same class."""
    want, err = outcome(np_call, name, *args)
    fn = getattr(mnp, name)
    if err is not None:
        with pytest.raises(err):
            fn(*args)
        return err
    if bf16_float_scalar and str(want.dtype) == "float32":
        # NEP 50 keeps bfloat16 (the departure above); the numbers used are exact in bfloat16,
        # so numpy's float32 result rounds to ours.
        want = want.astype(ml_dtypes.bfloat16)
    check(fn(*args), want)
    return None


# ---- arrays ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_binary_same_dtype_matches_numpy(name, dtype):
    rng = np.random.default_rng(seed_of(name, dtype))
    for i, (sa, sb) in enumerate(SHAPES + BROADCAST):
        a, b = rand(rng, sa, dtype, name), rand(rng, sb, dtype, name)
        # numpy and mxffi arrays both go in, on alternating sides.
        x1, x2 = (a, mnp.array(b)) if i % 2 else (mnp.array(a), b)
        want, err = outcome(np_call, name, a, b)
        if err is not None:
            with pytest.raises(err):
                getattr(mnp, name)(x1, x2)
            continue
        check(getattr(mnp, name)(x1, x2), want)


@pytest.mark.parametrize("name", BINARY)
def test_binary_every_dtype_pair_matches_numpy(name):
    """Result dtype, values or the exception class, for all 169 dtype pairs: int64 against
    uint64 compares exactly, bfloat16 with int16..uint64 or float16 computes in float32 or
    float64 as numpy's ufuncs do, the bitwise ops and shifts refuse pairs promoting to a
    float."""
    rng = np.random.default_rng(17)
    for da, db in itertools.product(DTYPES, DTYPES):
        a, b = rand(rng, (3, 4), da, name), rand(rng, (4,), db, name)
        run_both(name, a, b)


@pytest.mark.parametrize("alias,name", sorted(ALIASES.items()))
def test_array_api_names_are_the_same_functions(alias, name):
    rng = np.random.default_rng(3)
    a = rand(rng, (4, 5), "int16", name)
    b = rand(rng, (5,), "int16", name)
    args = (a,) if name == "invert" else (a, b)
    check(getattr(mnp, alias)(*args), np_call(name, *args))
    assert getattr(np, alias) is getattr(np, name)  # numpy 2: one ufunc, two names


# ---- Python numbers --------------------------------------------------------------------------

SCALARS = [True, False, 0, 1, 2, -3, 7, 2.5, -0.5, 0.0, float("nan"), float("inf")]
BIG_INTS = [127, 128, 255, 256, -129, 1000, -1000, 2**31, -(2**40), 2**63 - 1, -(2**63)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_python_numbers_on_either_side_are_weak(name, dtype):
    rng = np.random.default_rng(5)
    a = rand(rng, (3, 4), dtype, name)
    for s, left in itertools.product(SCALARS + BIG_INTS, (False, True)):
        args = (s, a) if left else (a, s)
        run_both(name, *args, bf16_float_scalar=dtype == "bfloat16" and isinstance(s, float))


def test_out_of_range_python_ints_compare_exactly_as_numpy_2():
    i8 = np.array([-128, -1, 0, 127], np.int8)
    u8 = np.array([0, 1, 255], np.uint8)
    u64 = np.array([0, 1, 2**63, 2**64 - 1], np.uint64)
    for name in COMPARE:
        for a, s in [(i8, 1000), (i8, -1000), (u8, -1), (u8, 256), (u64, -1), (u64, -(2**63))]:
            for args in ((a, s), (s, a)):
                got = getattr(mnp, name)(*args)
                check(got, np_call(name, *args))
                assert len(set(got.asnumpy().tolist())) == 1  # all one value: out of range
    check(mnp.less(i8, 1000), np.ones(4, bool))
    check(mnp.equal(u8, -1), np.zeros(3, bool))
    # numpy 2 raises for the arithmetic and bitwise ops, and so does mxffi
    for name in DIVISION + BITWISE + SHIFT:
        with pytest.raises(OverflowError, match=rf"np\.{name}: Python integer 1000 out of bounds "):
            getattr(mnp, name)(i8, 1000)
        with pytest.raises(OverflowError):
            np_call(name, i8, 1000)
    # the logical ops read the number as a bool: no range check, as numpy
    check(mnp.logical_and(u8, -1), np_call("logical_and", u8, -1))


@pytest.mark.parametrize("name", BINARY)
def test_two_python_numbers_give_numpys_0d_result(name):
    for x1, x2 in [(7, -2), (-7, 2), (2, 3.5), (True, False), (True, 2), (2.5, True), (5, 0)]:
        want, err = outcome(np_call, name, x1, x2)
        if err is not None:
            with pytest.raises(err):
                getattr(mnp, name)(x1, x2)
            continue
        got = getattr(mnp, name)(x1, x2)
        assert got.shape == ()
        check(got, np.asarray(want))


# ---- semantics, case by case ------------------------------------------------------------------


def test_signed_and_uint64_compare_exactly():
    s = np.array([-1, 0, 1, 2**53 + 1, 2**63 - 1, -(2**63)], np.int64)
    u = np.array([2**64 - 1, 0, 1, 2**53, 2**63 - 1, 2**63], np.uint64)
    for name in COMPARE:
        for x1, x2 in [(s, u), (u, s), (s.astype(np.int8), u), (u, s.astype(np.int32))]:
            check(getattr(mnp, name)(x1, x2), np_call(name, x1, x2))
        # through broadcasting and strides as well
        check(getattr(mnp, name)(s[::-1, None], u), np_call(name, s[::-1, None], u))
    # float64 would call 2**53 + 1 and 2**53 equal
    assert mnp.equal(s, u).asnumpy()[3] == np.False_
    assert str(mnp.add(s, u).dtype) == "float64"  # arithmetic still promotes as numpy


def test_nan_compares_false_except_not_equal():
    for dt in ("float16", "bfloat16", "float32", "float64"):
        a = np.array([np.nan, np.nan, 1.0, -0.0], np_dtype(dt))
        b = np.array([np.nan, 1.0, np.nan, 0.0], np_dtype(dt))
        for name in COMPARE:
            check(getattr(mnp, name)(a, b), np_call(name, a, b))
            check(getattr(mnp, name)(a, float("nan")), np_call(name, a.astype(np.float32), np.nan))
        assert mnp.not_equal(a, b).asnumpy().tolist() == [True, True, True, False]
        assert mnp.equal(a, b).asnumpy().tolist() == [False, False, False, True]  # -0.0 == 0.0


def test_integer_division_semantics_match_numpy():
    for dt in ("int8", "int16", "int32", "int64"):
        info = np.iinfo(dt)
        a = np.array([7, -7, 7, -7, 0, 5, info.min, info.min, info.max, info.min], dt)
        b = np.array([2, 2, -2, -2, 3, 0, -1, 1, -1, 0], dt)
        for name in DIVISION + ["mod"]:
            check(getattr(mnp, name)(a, b), np_call(name, a, b))
    for dt in ("uint8", "uint16", "uint32", "uint64"):
        a = np.array([7, 0, 5, np.iinfo(dt).max], dt)
        b = np.array([2, 3, 0, 7], dt)
        for name in DIVISION:
            check(getattr(mnp, name)(a, b), np_call(name, a, b))
    # int min // -1 wraps to int min, x // 0 and x % 0 are 0: numpy warns, neither raises
    assert mnp.floor_divide(np.int64([-(2**63)]), -1).tolist() == [-(2**63)]
    assert mnp.floor_divide(np.int32([5, -5]), 0).tolist() == [0, 0]
    assert mnp.remainder(np.int64([-(2**63), 5]), np.int64([-1, 0])).tolist() == [0, 0]
    t = np.array([True, False, True])
    check(mnp.floor_divide(t, t), np_call("floor_divide", t, t))  # bools compute in int8
    assert str(mnp.remainder(t, t).dtype) == "int8"


def test_float_division_semantics_match_numpy():
    inf, nan = np.inf, np.nan
    a = [inf, -inf, nan, 5.0, -5.0, 0.0, -0.0, 5.0, -5.0, 1e308, 7.5, -7.5, 0.0, 5.0, 1.0, -1.0]
    b = [2.0, 2.0, 2.0, inf, inf, 3.0, 3.0, -inf, -inf, 1e-308, -2.0, 2.0, -3.0, 0.0, -0.0, 0.0]
    for dt in ("float16", "bfloat16", "float32", "float64"):
        with np.errstate(over="ignore"):  # 1e308 is inf in the 16-bit floats
            x, y = np.array(a).astype(np_dtype(dt)), np.array(b).astype(np_dtype(dt))
        for name in DIVISION:
            check(getattr(mnp, name)(x, y), np_call(name, x, y))
    # Python's rules: the quotient floors, the remainder takes the divisor's sign
    assert mnp.floor_divide(-7.5, 2).tolist() == -4.0
    assert mnp.remainder(-7.5, 2).tolist() == 0.5
    assert mnp.remainder(7.5, -2).tolist() == -0.5
    assert np.signbit(mnp.remainder(np.array([6.0]), -3.0).asnumpy()[0])  # -0.0


def test_float_division_of_far_apart_magnitudes_is_exact_as_numpys():
    # The remainder is exact whatever the exponents (the reduction repeats until complete):
    # huge by tiny, tiny by huge, subnormals, and random pairs spread over 60 decades.
    special = [0.0, -0.0, 5e-324, -1e-310, 1e-300, 0.1, 1.0, -3.0, 7.0, np.pi, 123456789.123,
               1e300, -1e308, 1.7976931348623157e308, np.inf, -np.inf, np.nan]  # fmt: skip
    a, b = (v.ravel() for v in np.meshgrid(special, special))
    rng = np.random.default_rng(7)
    ra = rng.standard_normal(20000) * 10.0 ** rng.integers(-30, 30, 20000)
    rb = rng.standard_normal(20000) * 10.0 ** rng.integers(-30, 30, 20000)
    for dt in ("float32", "float64"):
        with np.errstate(over="ignore", under="ignore"):
            x = np.concatenate([a, ra]).astype(dt)
            y = np.concatenate([b, rb]).astype(dt)
        for name in DIVISION:
            check(getattr(mnp, name)(x, y), np_call(name, x, y))


def test_shift_counts_past_the_width_and_negative_as_numpy():
    for dt in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        bits = np.iinfo(dt).bits
        signed = np.iinfo(dt).min < 0
        counts = [0, 1, bits - 1, bits, bits + 1, 2 * bits, np.iinfo(dt).max] + (
            [-1, -bits, np.iinfo(dt).min] if signed else []
        )
        values = [1, 3, np.iinfo(dt).max] + ([-1, -5, np.iinfo(dt).min] if signed else [])
        x = np.array(values, dt)[:, None]
        c = np.array(counts, dt)
        for name in SHIFT:
            check(getattr(mnp, name)(x, c), np_call(name, x, c))
    assert mnp.left_shift(np.int8([1, 1, -1]), np.int8([7, 8, 1])).tolist() == [-128, 0, -2]
    assert mnp.right_shift(np.int8([-128, -1, 64]), np.int8([7, 100, -1])).tolist() == [-1, -1, 0]
    t = np.array([True, False])
    check(mnp.left_shift(t, t), np_call("left_shift", t, t))  # int8
    check(mnp.left_shift(t, 1), np_call("left_shift", t, 1))  # int64: a Python int with bools


def test_bitwise_and_logical_ops_of_bools_and_any_dtype():
    t = np.array([True, True, False, False])
    f = np.array([True, False, True, False])
    for name in BITWISE + LOGICAL:
        check(getattr(mnp, name)(t, f), np_call(name, t, f))
    x = np.array([0.0, -0.0, np.nan, 2.5, -np.inf], np.float32)
    y = np.array([0, 1, 0, 3, 0], np.uint64)
    for name in LOGICAL:
        check(getattr(mnp, name)(x, y), np_call(name, x, y))  # NaN is true, -0.0 false
    check(mnp.logical_not(x), np_call("logical_not", x))
    check(mnp.invert(t), np_call("invert", t))  # bools: logical not
    check(mnp.bitwise_xor(np.int8([-1, 5]), True), np_call("bitwise_xor", np.int8([-1, 5]), True))


def test_divmod_is_floor_divide_and_remainder_as_numpys():
    rng = np.random.default_rng(31)
    for da, db in itertools.product(DTYPES, DTYPES):
        a, b = rand(rng, (3, 4), da, "divmod"), rand(rng, (4,), db, "divmod")
        want, err = outcome(np_call, "divmod", a, b)
        if err is not None:
            with pytest.raises(err):
                mnp.divmod(a, b)
            continue
        got = mnp.divmod(a, b)
        assert type(got) is tuple and len(got) == 2  # numpy's: a tuple
        check(got[0], want[0])
        check(got[1], want[1])
    for args in [(7, -2), (-7.5, 2), (np.int8([-128, 5]), -1), (3, np.uint8([0, 2]))]:
        q, r = mnp.divmod(*args)
        wq, wr = np_call("divmod", *args)
        check(q, wq)
        check(r, wr)


# ---- unary -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY + ["bitwise_invert"])
def test_unary_matches_numpy(name, dtype):
    rng = np.random.default_rng(seed_of(name, dtype))
    for i, shape in enumerate([(), (0,), (7,), (3, 4), (2, 3, 4)]):
        x = rand(rng, shape, dtype, name)
        arg = mnp.array(x) if i % 2 else x
        want, err = outcome(np_call, name, x)
        if err is not None:
            with pytest.raises(err):
                getattr(mnp, name)(arg)
            continue
        check(getattr(mnp, name)(arg), want)
    for s in (True, 0, -3, 2.5, 0.0, float("nan")):
        run_both(name, s)


# ---- views, out=, dtype= -----------------------------------------------------------------------


@pytest.mark.parametrize("name", BINARY + UNARY)
def test_strided_reversed_and_broadcast_views(name):
    rng = np.random.default_rng(11)
    dtype = "float64" if name in COMPARE + LOGICAL + DIVISION + ["logical_not"] else "int32"
    m = rand(rng, (6, 8), dtype, name)
    row = rand(rng, (8,), dtype, name)
    pairs = [
        (m[:, ::2], m[1, ::2]),
        (m.T, m[:, 0]),
        (m[::-1], m[0, ::-1]),
        (m[::2, ::-3], m[::-2, 2:5]),
        (np.broadcast_to(row, (5, 8)), m[:5, ::-1]),
        (np.broadcast_to(m[:1, ::-2], (4, 4)), m[2:6, 1::2].T),
    ]
    mx = mnp.array(m)
    for a, b in pairs:
        args = (a,) if name in UNARY else (a, b)
        check(getattr(mnp, name)(*args), np_call(name, *args))
    # mxffi views: a transpose and a reversed slice made by mxffi itself
    t = mnp.transpose(mx)
    args = (t,) if name in UNARY else (t, m.T[::-1, ::-1].copy())
    want = np_call(name, *[np.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x) for x in args])
    check(getattr(mnp, name)(*args), want)


def test_large_inputs_run_parallel_and_match():
    rng = np.random.default_rng(23)
    a = rng.integers(-1000, 1000, (700, 300)).astype(np.int32)
    b = rng.integers(-20, 20, 300).astype(np.int16)
    for name in ("less", "floor_divide", "remainder", "bitwise_xor", "logical_and"):
        check(getattr(mnp, name)(a, b), np_call(name, a, b))
    u = rng.integers(0, 2**64, 300_001, dtype=np.uint64)
    s = rng.integers(-(2**63), 2**63, 300_001, dtype=np.int64)
    check(mnp.greater_equal(s, u), np_call("greater_equal", s, u))
    check(mnp.less(u[::-1], -5), np_call("less", u[::-1], -5))


def test_out_casts_as_numpy_and_refuses_same_kind_violations():
    a, b = np.arange(6.0).reshape(2, 3), np.array([2.0, 3.0, 4.0])
    for out_dtype in ("bool", "int8", "float16", "float64"):
        out = mnp.zeros((2, 3), dtype=out_dtype)
        r = mnp.less(a, b, out=out)
        assert r.same_as(out)
        want = np.zeros((2, 3), out_dtype)
        np.less(a, b, out=want)
        check(out, want)
    out = mnp.zeros((2, 3), dtype="int16")
    mnp.floor_divide(np.int8([[7], [-7]]), np.int8([2, -2, 3]), out=out)
    check(out, np.floor_divide(np.int8([[7], [-7]]), np.int8([2, -2, 3])).astype(np.int16))
    with pytest.raises(
        TypeError, match=r"^np\.floor_divide: cannot cast the result from float64 to out's int8 "
    ):
        mnp.floor_divide(a, b, out=mnp.zeros((2, 3), dtype="int8"))
    with pytest.raises(TypeError, match=r"^np\.left_shift: cannot cast the result from int64 to "):
        mnp.left_shift(np.int64([1]), 2, out=mnp.zeros(1, dtype="uint8"))
    with pytest.raises(TypeError):
        np.left_shift(np.int64([1]), 2, out=np.zeros(1, np.uint8))
    # in place: x &= 6
    x = mnp.array(np.arange(8, dtype=np.int32))
    mnp.bitwise_and(x, 6, out=x)
    check(x, np.arange(8, dtype=np.int32) & 6)


def test_dtype_argument():
    i8 = np.array([127, -128, 5], np.int8)
    check(mnp.less(i8, 3, dtype="bool"), np.less(i8, 3, dtype=bool))
    check(mnp.logical_not(i8, dtype="bool"), np.logical_not(i8, dtype=bool))
    check(mnp.floor_divide(i8, np.int8(2), dtype="int16"), np.floor_divide(i8, 2, dtype=np.int16))
    with pytest.raises(TypeError, match=r"^np\.less: no loop computes a float32 result"):
        mnp.less(i8, 3, dtype="float32")
    with pytest.raises(TypeError):
        np.less(i8, 3, dtype=np.float32)
    with pytest.raises(TypeError, match=r"^np\.logical_not: no loop computes a int8 result"):
        mnp.logical_not(i8, dtype="int8")


# ---- errors --------------------------------------------------------------------------------


def test_errors_name_the_function_and_the_types():
    f = np.ones(3)
    for name in BITWISE:
        with pytest.raises(
            TypeError,
            match=rf"^np\.{name}: not supported for the input types float64 and float64, which "
            r"promote to float64; expected integers or bools",
        ):
            getattr(mnp, name)(f, f)
    with pytest.raises(
        TypeError, match=r"^np\.left_shift: not supported for the input types int64 and uint64"
    ):
        mnp.left_shift(np.int64([1]), np.uint64([1]))
    with pytest.raises(
        TypeError,
        match=r"^np\.right_shift: not supported for the input types int8 and a Python float",
    ):
        mnp.right_shift(np.int8([1]), 1.5)
    with pytest.raises(TypeError, match=r"^np\.invert: not supported for the input type float16"):
        mnp.invert(np.ones(2, np.float16))
    # the array-API name is numpy's invert ufunc, and its errors say so (numpy: 'invert')
    with pytest.raises(TypeError, match=r"^np\.invert: not supported for the input type float32"):
        mnp.bitwise_invert(np.ones(2, np.float32))
    with pytest.raises(TypeError, match=r"^np\.positive: no loop for a bool input"):
        mnp.positive(np.array([True]))
    with pytest.raises(OverflowError, match=r"^np\.bitwise_and: Python integer 256 out of bounds"):
        mnp.bitwise_and(np.uint8([1]), 256)
    with pytest.raises(
        ValueError,
        match=r"^np\.less: operands could not be broadcast together with shapes \(2,3\) \(4,\)",
    ):
        mnp.less(np.ones((2, 3)), np.ones(4))
    with pytest.raises(TypeError, match=r"^np\.equal: argument #1 'x2' expected an ndarray or a"):
        mnp.equal(f, "x")


def test_complex_inputs_are_type_errors_as_numpys_for_division_and_bitwise():
    # mxffi holds complex arrays but computes on none; numpy has no loop for these either
    z = np.array([1 + 2j, 3 - 1j], np.complex64)
    for name in DIVISION + BITWISE + SHIFT + ["divmod"]:
        with pytest.raises(TypeError, match=r"unsupported dtype complex64"):
            getattr(mnp, name)(z, z)
        with pytest.raises(TypeError):
            np_call(name, z, z)
    with pytest.raises(TypeError, match=r"^np\.invert: unsupported dtype complex64"):
        mnp.invert(z)


def test_ops_are_registered_with_cpu_kernels():
    for name in BINARY:
        info = mxffi.ops.info(f"_npi_{name}")
        assert "FCompute<cpu>" in info["kernels"], name
        assert "FCompute<cpu>" in mxffi.ops.info(f"_npi_{name}_scalar")["kernels"], name
    for name in ("less", "less_equal", "greater", "greater_equal") + tuple(DIVISION + SHIFT):
        assert "FCompute<cpu>" in mxffi.ops.info(f"_npi_r{name}_scalar")["kernels"], name
    for name in UNARY:
        assert "FCompute<cpu>" in mxffi.ops.info(f"_npi_{name}")["kernels"], name
