"""Every operator of mxffi.NDArray against numpy's for every pair of dtypes: forward, reflected
(with a Python number on the left) and in-place forms, values, result dtypes and, where numpy
raises, the exception class."""

import operator

import numpy as np
import pytest
from conftest import DTYPES

import mxffi.np as mnp

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

# bfloat16 has no numpy ufunc loops of its own to compare against; test_np_* cover it.
NUMERIC = [d for d in DTYPES if d != "bfloat16"]

BINARY = {
    "+": (operator.add, operator.iadd),
    "-": (operator.sub, operator.isub),
    "*": (operator.mul, operator.imul),
    "/": (operator.truediv, operator.itruediv),
    "//": (operator.floordiv, operator.ifloordiv),
    "%": (operator.mod, operator.imod),
    "**": (operator.pow, operator.ipow),
    "&": (operator.and_, operator.iand),
    "|": (operator.or_, operator.ior),
    "^": (operator.xor, operator.ixor),
    "<<": (operator.lshift, operator.ilshift),
    ">>": (operator.rshift, operator.irshift),
    "==": (operator.eq, None),
    "!=": (operator.ne, None),
    "<": (operator.lt, None),
    "<=": (operator.le, None),
    ">": (operator.gt, None),
    ">=": (operator.ge, None),
}
UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "abs": abs}


def _values(dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, (2, 3)).astype(bool)
    if dtype.startswith(("int", "uint")):
        return rng.integers(1, 6, (2, 3)).astype(dtype)  # small and positive: no overflow
    return (rng.integers(1, 12, (2, 3)) / 4).astype(dtype)


def _outcome(fn, *args):
    """(result, None) or (None, exception class)."""
    try:
        with np.errstate(all="ignore"):
            return fn(*args), None
    except (TypeError, ValueError, OverflowError, ZeroDivisionError) as e:
        return None, type(e)


def _check(got, want, where):
    got = np.asarray(got)
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, numpy {want.dtype}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(
            got,
            want,
            rtol=2e-3 if want.dtype == np.float16 else 1e-6,
            equal_nan=True,
            err_msg=where,
        )
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


def _numpy_error_class(cls):
    # numpy's casting errors (_UFuncOutputCastingError, UFuncTypeError) are TypeErrors.
    return TypeError if issubclass(cls, TypeError) else cls


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("left", NUMERIC)
def test_binary_operator_every_dtype_pair(op, left):
    fn, ifn = BINARY[op]
    for right in NUMERIC:
        x, y = _values(left, 1), _values(right, 2)
        a, b = mnp.array(x), mnp.array(y)
        where = f"{left} {op} {right}"
        want, err = _outcome(fn, x, y)
        if err is not None:
            with pytest.raises(_numpy_error_class(err)):
                fn(a, b)
        else:
            _check(fn(a, b), want, where)
        if ifn is None:
            continue
        c = a.copy()
        ident = id(c)
        want, err = _outcome(ifn, x.copy(), y)
        if err is not None:
            with pytest.raises(_numpy_error_class(err)):
                ifn(c, b)
        else:
            c = ifn(c, b)
            assert id(c) == ident, f"{where}=: not in place"
            _check(c, want, where + "=")


@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("scalar", [3, 2.5, True])
def test_binary_operator_with_python_numbers_both_sides(op, dtype, scalar):
    fn = BINARY[op][0]
    x = _values(dtype, 3)
    a = mnp.array(x)
    for args, margs, side in (
        ((x, scalar), (a, scalar), "right"),
        ((scalar, x), (scalar, a), "left"),
    ):
        want, err = _outcome(fn, *args)
        where = f"{dtype} {op} {scalar!r} ({side})"
        if err is not None:
            with pytest.raises(_numpy_error_class(err)):
                fn(*margs)
        else:
            _check(fn(*margs), np.asarray(want), where)


@pytest.mark.parametrize("op", list(UNARY))
@pytest.mark.parametrize("dtype", NUMERIC)
def test_unary_operators(op, dtype):
    fn = UNARY[op]
    x = _values(dtype, 4)
    want, err = _outcome(fn, x)
    if err is not None:
        with pytest.raises(_numpy_error_class(err)):
            fn(mnp.array(x))
    else:
        _check(fn(mnp.array(x)), want, f"{op}{dtype}")


def test_divmod_and_matmul_operators():
    x = np.arange(1, 7).reshape(2, 3)
    a = mnp.array(x)
    q, r = divmod(a, 4)
    _check(q, x // 4, "divmod q")
    _check(r, x % 4, "divmod r")
    q, r = divmod(17, a)
    _check(q, 17 // x, "rdivmod q")
    _check(r, 17 % x, "rdivmod r")
    m = mnp.array(x.astype(float))
    _check(m @ m.T, x.astype(float) @ x.T.astype(float), "@")
    c = mnp.array(np.eye(3))
    d = c
    c @= mnp.array(np.full((3, 3), 2.0))
    assert c is d
    _check(c, np.full((3, 3), 2.0), "@=")


def test_comparisons_are_elementwise_and_not_identity():
    a = mnp.array(np.array([1.0, np.nan, 3.0]))
    _check(a == a, np.array([True, False, True]), "==")
    _check(a != a, np.array([False, True, False]), "!=")
    assert (a == None) is False and (a != "x") is True  # noqa: E711  (no operand: identity)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(a == a)
    assert a.same_as(a)
