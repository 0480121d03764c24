"""np.where against numpy: the select op _npi_where (src/op/where) behind np.where(c, x1, x2),
and np.where(c) as np.nonzero(c).

Every dtype (complex included), broadcasting of each argument, 0-d and empty arrays, strided,
reversed and transposed inputs, Python numbers (NEP 50), conditions of every dtype (read as
c != 0, NaN true), inputs large enough to be split across the kernel threads, and the errors.
"""

import warnings

import ml_dtypes  # noqa: F401  (bfloat16 for np_dtype)
import numpy as np
import pytest
from conftest import DTYPES, np_dtype, run_python

import mxffi
import mxffi.np as mnp

ALL_DTYPES = DTYPES + ["complex64", "complex128"]


def rand(rng, shape, dtype):
    dt = np_dtype(dtype)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    if dtype in ("float16", "bfloat16", "float32", "float64"):
        return (rng.standard_normal(shape) * 4).astype(dt)
    lo = 0 if dtype.startswith("u") else -50
    return rng.integers(lo, 50, size=shape).astype(dt)


def same(got, want):
    """got (an mxffi array) equals numpy's want: dtype, shape and every element, bit for bit
    (NaN where NaN, -0.0 where -0.0)."""
    g = got.numpy()
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    assert g.tobytes() == want.tobytes(), (g, want)


def mx(v):
    return mnp.asarray(v) if isinstance(v, np.ndarray) else v


def check(c, a, b):
    """mnp.where on mxffi arrays and on the numpy arrays themselves (lent for the call)."""
    want = np.where(c, a, b)
    same(mnp.where(mx(c), mx(a), mx(b)), want)
    same(mnp.where(c, a, b), want)


# ---- values and dtypes -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_every_dtype(dtype):
    rng = np.random.default_rng(1)
    c = rng.random((5, 7)) < 0.5
    check(c, rand(rng, (5, 7), dtype), rand(rng, (5, 7), dtype))
    check(c, rand(rng, (5, 7), dtype), rand(rng, (7,), dtype))  # strided path, broadcast


@pytest.mark.parametrize("dtype", ["int8", "float16", "float64", "complex128"])
def test_special_values_move_as_bits(dtype):
    """where moves elements: NaN payloads, -0.0 and infinities come out unchanged."""
    dt = np_dtype(dtype)
    if dtype == "int8":
        a = np.array([-128, 127, 0, -1], dt)
    else:
        a = np.array([np.nan, -0.0, np.inf, -np.inf], dt)
        if dtype == "complex128":
            a.imag = [-0.0, np.nan, 1, -np.inf]
    b = a[::-1].copy()
    check(np.array([True, False, True, False]), a, b)


@pytest.mark.parametrize(
    "x_dtype, y_dtype",
    [
        ("uint8", "int16"),
        ("int8", "uint64"),
        ("int32", "float32"),
        ("float16", "float32"),
        ("bool", "int8"),
        ("float32", "complex64"),
        ("float64", "complex64"),
        ("bfloat16", "float32"),
    ],
)
def test_mixed_dtypes_promote(x_dtype, y_dtype):
    rng = np.random.default_rng(2)
    c = rng.random((4, 6)) < 0.5
    a, b = rand(rng, (4, 6), x_dtype), rand(rng, (6,), y_dtype)
    want = np.where(c, a, b)
    if "bfloat16" in (x_dtype, y_dtype):
        want = want.astype(np.result_type(a.dtype, b.dtype))
    same(mnp.where(mx(c), mx(a), mx(b)), want)


# ---- shapes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shapes",
    [
        ((3, 4), (3, 4), (3, 4)),
        ((3, 1), (3, 4), (3, 4)),  # condition broadcast
        ((3, 4), (4,), (3, 4)),  # x1 broadcast
        ((3, 4), (3, 4), (3, 1)),  # x2 broadcast
        ((2, 1, 4), (1, 3, 1), (3, 4)),  # all three
        ((), (2, 3), ()),
        ((5,), (), ()),
        ((1,), (1, 1, 1), (1,)),
        ((2, 3, 4, 5, 2), (3, 1, 5, 1), (1, 4, 1, 2)),
    ],
)
def test_broadcasting(shapes):
    rng = np.random.default_rng(3)
    cs, xs, ys = shapes
    check(rng.random(cs) < 0.5, rand(rng, xs, "float64"), rand(rng, ys, "int32"))


def test_zero_d():
    out = mnp.where(mnp.asarray(np.array(True)), mnp.asarray(np.array(2.5)), 1.0)
    same(out, np.where(np.array(True), np.array(2.5), 1.0))
    same(mnp.where(np.array(0), np.array(1, "int8"), np.array(2, "int8")), np.array(2, "int8"))
    same(mnp.where(False, 1, 2), np.where(False, 1, 2))


@pytest.mark.parametrize(
    "shapes", [((0, 3), (0, 3), (0, 3)), ((0, 3), (1, 3), ()), ((4, 0), (4, 1), (1,))]
)
def test_empty(shapes):
    rng = np.random.default_rng(4)
    cs, xs, ys = shapes
    check(rng.random(cs) < 0.5, rand(rng, xs, "int64"), rand(rng, ys, "int64"))


def test_strided_reversed_transposed():
    rng = np.random.default_rng(5)
    c = rng.random((6, 8)) < 0.5
    a = rand(rng, (6, 8), "float64")
    b = rand(rng, (8, 6), "complex64")
    check(c[::2, ::2], a[::2, ::-2], b.T[::2, 1::2])
    check(c.T, a.T, b)  # transposed condition and x1
    check(c[::-1, ::-1], a[::-1], b.T[::-1])
    big = rand(rng, (4, 6, 5), "int16")
    check(c[:5, :6][None], big.transpose(0, 2, 1), 7)
    # a strided non-bool condition goes through the converting loop
    ci = rng.integers(0, 3, (6, 8)).astype("int32")
    check(ci[::-1, ::3], a[:, ::3], b.T[:, ::3])
    # mxffi views (not numpy's) of the same layouts
    ma = mnp.asarray(a)
    same(mnp.where(mnp.asarray(c).T, ma.T, -1.0), np.where(c.T, a.T, -1.0))


# ---- Python numbers and sequences (NEP 50) -----------------------------------------------


@pytest.mark.parametrize(
    "x1, x2",
    [
        (1, 2.5),  # two numbers: their default dtypes promoted
        (True, False),
        (1, True),
        (1j, 2),
        (2.0, 1j),
        (np.arange(4, dtype="int8"), 100),  # a weak int keeps int8
        (np.arange(4, dtype="float32"), 2.0),  # a weak float keeps float32
        (np.arange(4, dtype="float16"), 1j),  # a weak complex keeps float16's precision
        (np.arange(4, dtype="float32"), 1j),
        (np.arange(4, dtype="float64"), 1j),
        (np.arange(4, dtype="int8"), 1j),
        (np.arange(4, dtype="complex64"), 1.5),
        (np.nan, np.arange(4)),
        (True, np.zeros(4, bool)),
        (np.arange(4, dtype="uint8"), -1.5),
        ([1, 2, 3, 4], 0.5),  # a sequence is strong: int64
        ([1.5, 2, 3, 4], np.arange(4, dtype="float32")),
    ],
)
def test_python_numbers(x1, x2):
    c = np.array([True, False, False, True])
    want = np.where(c, x1, x2)
    same(mnp.where(mx(c), mx(x1), mx(x2)), want)


def test_sequence_condition():
    same(mnp.where([[1, 0], [0, 3]], 1.5, -1), np.where([[1, 0], [0, 3]], 1.5, -1))
    same(mnp.where([True, False], [1, 2], [3, 4]), np.array([1, 4]))


# ---- conditions of other dtypes ------------------------------------------------------------


@pytest.mark.parametrize(
    "cond",
    [
        np.array([0, 1, -3, 0, 127], "int8"),
        np.array([0, 2**40, 0, -1, 5], "int64"),
        np.array([0, 2, 255, 0, 1], "uint8"),
        np.array([0.0, np.nan, -0.0, 2.0, np.inf], "float32"),  # NaN is true, -0.0 false
        np.array([0.0, np.nan, -0.0, 1e-300, -np.inf], "float64"),
        np.array([0.0, np.nan, -0.0, 0.5, 0.0], "float16"),
        np.array([0, 1j, -0.0, np.nan, 1 + 0j], "complex64"),
        np.array([0, 1j, -0.0j, np.nan, 0.0], "complex128"),
    ],
)
def test_non_bool_condition(cond):
    a = np.arange(5.0)
    check(cond, a, -a)
    check(cond[::-1], a, 7)  # strided
    check(cond[:, None], a, np.arange(5))  # broadcast against x1's row


def test_bool_bytes_other_than_one_are_true():
    c = np.array([0, 2, 255, 1], np.uint8).view(bool)
    same(mnp.where(c, 1, 2), np.array([2, 1, 1, 1]))


# ---- large inputs (split across the kernel threads) --------------------------------------


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64", "complex128"])
def test_large_matches_numpy(dtype):
    rng = np.random.default_rng(6)
    n = 300_001
    c = rng.random(n) < 0.5
    a, b = rand(rng, n, dtype), rand(rng, n, dtype)
    check(c, a, b)  # contiguous
    check(c[::-1], a, b[0])  # reversed condition, x2 broadcast
    m = rng.random((701, 501)) < 0.3
    check(m.T, rand(rng, (501, 1), dtype), rand(rng, (501, 701), dtype))
    check(m.astype("float32"), rand(rng, (701, 501), dtype), rand(rng, 501, dtype))


def test_large_with_several_threads():
    """The same check in a process with a pool of 3 threads (the pool size is read once)."""
    code = """
        import numpy as np, mxffi.np as mnp
        rng = np.random.default_rng(7)
        c = rng.random((1001, 1003)) < 0.5
        a = rng.standard_normal((1001, 1003))
        b = rng.standard_normal(1003)
        for args in [(c, a, b), (c.T, a.T, 0.5), (c.astype("int16")[::2], a[::2], b)]:
            want = np.where(*args)
            got = mnp.where(*args).numpy()
            assert got.tobytes() == want.tobytes()
        print("ok")
    """
    proc = run_python(code, env={"MXFFI_NUM_THREADS": "3"}, timeout=60)
    assert proc.returncode == 0 and "ok" in proc.stdout, (proc.stdout, proc.stderr)


# ---- np.where(condition): np.nonzero ----------------------------------------------------


@pytest.mark.parametrize(
    "cond",
    [
        np.array([0, 3, 0, -1]),
        np.array([[True, False], [True, True]]),
        np.array([[0.0, np.nan], [-0.0, 2.0]]),
        np.zeros((2, 0, 3), bool),
    ],
)
def test_condition_alone_is_nonzero(cond):
    got = mnp.where(cond)
    want = np.where(cond)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        same(g, w)
    got = mnp.where(cond.tolist())  # numpy reads (2, 0, 3)'s list as shape (2, 0)
    for g, w in zip(got, np.where(cond.tolist()), strict=True):
        same(g, w)


# ---- the op itself, and errors -----------------------------------------------------------


def test_op_through_invoke():
    c = np.array([1, 0, 2], "int8")
    out = mxffi.ops.invoke("_npi_where", c, np.arange(3.0), np.zeros(3))
    same(out, np.array([0.0, 0.0, 2.0]))
    assert mxffi.ops.info("_npi_where")["arguments"] == ["condition", "x", "y"]
    with pytest.raises(TypeError) as e:
        mxffi.ops.invoke("_npi_where", c, np.arange(3.0), np.zeros(3, "float32"))
    assert str(e.value).splitlines()[0] == (
        "np.where: x1 and x2 must have one dtype (promoted by the caller); got float64 and float32"
    )


def test_errors():
    with pytest.raises(ValueError) as e:
        mnp.where(mnp.ones(3), mnp.ones(2), 1)
    assert str(e.value).splitlines()[0] == (
        "np.where: operands could not be broadcast together with shapes (3,) (2,) ()"
    )
    with pytest.raises(ValueError) as e:
        mnp.where(np.ones((2, 3), bool), np.ones(3), np.ones((3, 1)))
    assert str(e.value).splitlines()[0] == (
        "np.where: operands could not be broadcast together with shapes (2,3) (3,) (3,1)"
    )
    with pytest.raises(OverflowError, match=r"^np\.where: Python integer 300 out of bounds"):
        mnp.where(mnp.ones(3, dtype="int8"), 300, mnp.ones(3, dtype="int8"))
    with pytest.raises(ValueError) as e:
        mnp.where(np.ones(3, bool), 1)
    assert str(e.value) == "np.where: either both or neither of x1 and x2 should be given"
    with pytest.raises(ValueError, match=r"^np\.where: Calling nonzero on 0d arrays"):
        mnp.where(np.array(True))
    csr = mnp.asarray(np.eye(3)).tostype("csr")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numbers broadcast: the fallback, a dense result
        assert mnp.where(csr, 1, 2).tolist() == np.where(np.eye(3), 1, 2).tolist()
    with pytest.raises(TypeError) as e:
        mnp.where(True, 1, csr)
    assert str(e.value) == "np.where: x2 must be dense, got storage type csr"
    with pytest.raises(TypeError, match=r"^np\.where: argument #1 'x1' expected"):
        mnp.where(True, "a", 1)
