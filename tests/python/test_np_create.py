"""np.empty_like, np.eye and np.linspace against numpy 2."""

import numpy as np
import pytest

import mxffi
import mxffi.np as mnp
import mxffi.ops
from mxffi.nd import sparse

LINSPACE = [(0, 1, 5), (0, 10, 5), (1, -1, 4), (0, 1, 1), (0, 1, 0), (2.5, 7, 6), (0, 0, 3)]
LINSPACE += [(-1e300, 1e300, 7), (1, 1 + 1e-15, 4), (0, 1, 50)]


@pytest.mark.parametrize("args", LINSPACE)
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_is_numpys(args, endpoint):
    got = mnp.linspace(*args, endpoint=endpoint)
    want = np.linspace(*args, endpoint=endpoint)
    assert str(got.dtype) == "float64" and got.shape == want.shape
    np.testing.assert_array_equal(got.asnumpy(), want)  # bit for bit


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "float32"])
def test_linspace_in_a_dtype_is_numpys(dtype):
    for args in [(0, 10, 5), (-10, 0, 5), (0, 255, 7), (3, 4, 9)]:
        if dtype == "uint8" and args[0] < 0:
            continue
        want = np.linspace(*args, dtype=dtype)
        np.testing.assert_array_equal(mnp.linspace(*args, dtype=dtype).asnumpy(), want)
    with pytest.raises(ValueError, match=r"^np\.linspace: num must be non-negative, got -1"):
        mnp.linspace(0, 1, -1)
    with pytest.raises(OverflowError, match=r"^np\.linspace: the value 300 does not fit in uint8"):
        mnp.linspace(0, 300, 2, dtype="uint8")


@pytest.mark.parametrize("n, m", [(3, None), (3, 4), (4, 2), (0, 3), (1, 1)])
@pytest.mark.parametrize(
    "k", [0, 1, -1, 3, -5, 2**62, -(2**62), 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 10**30]
)
def test_eye_is_numpys(n, m, k):
    # The extreme ks are past every side: zeros (-(2**63) negated overflows int64; numpy takes
    # ks past int64 too, any Python int).
    for dtype in ("float64", "int8", "bool", "float16", "complex64"):
        got = mnp.eye(n, m, k=k, dtype=dtype)
        want = np.eye(n, m, k=k, dtype=dtype)
        assert str(got.dtype) == dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.asnumpy(), want)
    assert str(mnp.eye(n, m, k=k).dtype) == "float64"
    with pytest.raises(ValueError, match=r"^np\.eye: n_rows must be non-negative, got -2"):
        mnp.eye(-2)


def test_empty_like_takes_shape_dtype_and_device():
    x = mnp.zeros((2, 3), dtype="int8")
    e = mnp.empty_like(x)
    assert (e.shape, str(e.dtype), e.device) == ((2, 3), "int8", mnp.cpu())
    assert str(mnp.empty_like(x, dtype="float32").dtype) == "float32"
    assert mnp.empty_like(np.ones((4, 1))).shape == (4, 1)  # a lent numpy array
    assert mnp.empty_like(mnp.zeros(())).shape == ()
    e[...] = 5
    assert not x.asnumpy().any()  # a new array


def test_full_like_is_numpys():
    for x in (np.zeros((2, 3), np.int8), np.ones(4), np.zeros((), np.float32)):
        for value in (7, True, 2.5):
            if x.dtype.kind == "i" and type(value) is float:
                continue
            want = np.full_like(x, value)
            got = mnp.full_like(mnp.asarray(x), value)
            assert str(got.dtype) == want.dtype.name and got.shape == want.shape
            np.testing.assert_array_equal(got.asnumpy(), want)
    x = mnp.zeros((2, 3), dtype="int8")
    assert str(mnp.full_like(x, 2.5, dtype="float32").dtype) == "float32"
    with pytest.raises(
        OverflowError,
        match=r"^np\.full_like: fill_value 300 is out of bounds for "
        "int8",
    ):
        mnp.full_like(x, 300)  # numpy 2 refuses it too
    with pytest.raises(OverflowError):
        np.full_like(np.zeros(2, np.int8), 300)


# ---------------------------------------------------------------------------------------------
# Arrays among the elements of a sequence: numpy's np.array([a, b]).


def _arrays_in_lists(m):
    f32 = m.asarray([1.0, 2.0], dtype="float32")
    i8 = m.asarray([1, 2], dtype="int8")
    return [
        [m.asarray(1.5), 2.0],  # a 0-d array and a number
        [[m.asarray(1)], [2]],
        [m.arange(3), m.arange(3)],  # stacking
        [f32, f32],  # the arrays' dtype
        [f32, [3.0, 4.0]],  # numbers next to arrays are float64, not weak
        [i8, [3, 4]],
        [m.asarray(True), False],
        [m.asarray([1 + 1j]), [2.0]],
        [m.zeros(0), m.zeros(0)],
        [m.asarray([1, 2], dtype="uint64"), [-1, 2]],  # uint64 with int64: float64
        [[m.arange(6).reshape(2, 3)[:, ::2]], [m.asarray([[7, 8], [9, 10]])]],  # strided
    ]


@pytest.mark.parametrize("i", range(11))
def test_arrays_among_sequence_elements_read_as_numpy(i):
    got = mnp.asarray(_arrays_in_lists(mnp)[i])
    want = np.asarray(_arrays_in_lists(np)[i])
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


def test_arrays_among_sequence_elements_with_dtype_and_numpy_arrays():
    got = mnp.asarray([mnp.asarray([1.5, 2.5]), np.asarray([1, 2])], dtype="int32")
    np.testing.assert_array_equal(got.numpy(), [[1, 2], [1, 2]])
    assert got.dtype == "int32"
    n = np.arange(3.0)
    got = mnp.array([n, n * 2])  # numpy arrays in a list: copied when the list is converted
    n[0] = 9.0
    np.testing.assert_array_equal(got.numpy(), [[0.0, 1.0, 2.0], [0.0, 2.0, 4.0]])


def test_arrays_among_sequence_elements_bad_input():
    with pytest.raises(ValueError, match="inhomogeneous shape"):
        mnp.asarray([mnp.arange(3), mnp.arange(2)])
    with pytest.raises(ValueError, match="inhomogeneous shape"):
        mnp.asarray([mnp.arange(3), 1])
    with pytest.raises(TypeError, match=r"cannot store a complex number in an array of float64"):
        mnp.asarray([mnp.asarray([1j]), [2.0]], dtype="float64")
    csr = mxffi.nd.sparse.csr_matrix(np.eye(2))
    with pytest.raises(TypeError, match=r"cannot make array elements from a csr array"):
        mnp.asarray([csr])


@pytest.mark.parametrize(
    "value",
    [[2**63], [2**63, 1], [2**63, 1.0], [2**63, True], [2**64 - 1], 2**63, [[2**63], [1]]],
)
def test_ints_past_int64_make_uint64_as_numpy(value):
    got, want = mnp.asarray(value), np.asarray(value)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tolist() == want.tolist()


def test_ints_past_int64_into_dtypes():
    assert mnp.asarray([2**64 - 1, 3], dtype="uint64").tolist() == [2**64 - 1, 3]
    assert mnp.asarray(2**63, dtype="float32").tolist() == float(np.float32(2**63))
    with pytest.raises(OverflowError, match=r"^np\.asarray: Python integer 9223372036854775808 "):
        mnp.asarray([2**63], dtype="int64")
    with pytest.raises(OverflowError, match=r"value 18446744073709551616 does not fit in int64"):
        mnp.asarray([2**64])


TRI_DTYPES = ["bool", "int8", "uint16", "int32", "uint64", "float16", "bfloat16", "float32"]
TRI_DTYPES += ["float64", "complex64", "complex128"]


def _tri_input(dtype, shape):
    n = int(np.prod(shape))
    v = np.arange(1, n + 1).reshape(shape)
    if dtype == "bool":
        return v % 3 != 0
    if dtype == "bfloat16":
        return v.astype("float32")  # converted to bfloat16 in mxffi, compared as float32
    if dtype.startswith("complex"):
        return (v - 2.5j * v).astype(dtype)
    return v.astype(dtype)


@pytest.mark.parametrize("dtype", TRI_DTYPES)
@pytest.mark.parametrize(
    "shape", [(3, 4), (4, 3), (1, 1), (2, 3, 5), (2, 1, 3, 3), (0, 3), (2, 0, 4)]
)
def test_tril_triu_are_numpys(dtype, shape):
    xn = _tri_input(dtype, shape)
    x = mnp.asarray(xn, dtype=dtype)
    for k in [0, 1, -1, 2, -3, 10, -10]:
        for f in ("tril", "triu"):
            got = getattr(mnp, f)(x, k=k)
            want = getattr(np, f)(xn, k=k)
            assert str(got.dtype) == dtype and got.shape == want.shape
            g = got.asnumpy()
            np.testing.assert_array_equal(g.astype(want.dtype) if dtype == "bfloat16" else g, want)
    assert np.array_equal(mnp.tril(x).asnumpy(), mnp.tril(x, k=0).asnumpy())


def test_tril_triu_read_strided_inputs_and_write_positive_zeros():
    base = mnp.asarray(np.arange(60.0).reshape(3, 4, 5) - 30)
    for view in (base[:, ::2, 1:], base.mT, base[::-1, :, ::-2], mnp.flip(base, axis=1)):
        vn = view.asnumpy()
        np.testing.assert_array_equal(mnp.tril(view, k=-1).asnumpy(), np.tril(vn, -1))
        np.testing.assert_array_equal(mnp.triu(view, k=1).asnumpy(), np.triu(vn, 1))
    # numpy's zeros are +0.0, whatever the element was
    z = mnp.tril(mnp.asarray(-np.ones((2, 2))))
    assert np.signbit(z.asnumpy()[0, 1]) == np.False_
    # a broadcast (zero-stride) input
    b = mnp.broadcast_to(mnp.arange(4.0), (3, 4))
    np.testing.assert_array_equal(
        mnp.triu(b).asnumpy(), np.triu(np.broadcast_to(np.arange(4.0), (3, 4)))
    )
    # numpy inputs are read where they are
    np.testing.assert_array_equal(
        mnp.tril(np.ones((3, 3), "int16")).asnumpy(), np.tril(np.ones((3, 3), "int16"))
    )


def test_tril_triu_errors():
    with pytest.raises(
        ValueError,
        match=r"^np\.tril: input array must be at least 2-dimensional, "
        r"but it is 1",
    ):
        mnp.tril(mnp.zeros(3))
    with pytest.raises(
        ValueError,
        match=r"^np\.triu: input array must be at least 2-dimensional, "
        r"but it is 0",
    ):
        mnp.triu(mnp.zeros(()))
    with pytest.raises(TypeError, match=r"^np\.tril: argument #1 'k' expected"):
        mnp.tril(mnp.zeros((2, 2)), k=1.5)
    with pytest.raises(TypeError, match=r"^np\.triu: takes a dense array; got storage type csr"):
        mnp.triu(sparse.csr_matrix(np.eye(3)))
    # the op itself checks its input, for ops.invoke
    with pytest.raises(ValueError, match=r"^_npi_tril: input array must be at least 2-dimensional"):
        mxffi.ops.invoke("_npi_tril", mnp.zeros(3), k=0)


# ---------------------------------------------------------------------------------------------
# Complex creation and np.full's array fill values


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.full((2, 2), 1 + 2j),
        lambda m: m.full((2, 2), 1.5j, dtype=m.complex64),
        lambda m: m.full_like(m.zeros((2, 2), dtype=m.complex64), 1 - 1j),
        lambda m: m.ones((2, 3), dtype=m.complex128),
        lambda m: m.zeros((2,), dtype=m.complex64),
        lambda m: m.ones_like(m.zeros(2, dtype=m.complex64)),
        lambda m: m.zeros_like(m.zeros((0, 2), dtype=m.complex128)),
        lambda m: m.eye(3, 4, k=1, dtype=m.complex64),
        lambda m: m.eye(4, k=-2, dtype=m.complex128),
        lambda m: m.full((2, 3), [1, 2, 3]),
        lambda m: m.full((2, 3), m.asarray([[1.5], [2.5]], dtype=m.float32)),
        lambda m: m.full((2, 3), [1, 2, 3], dtype=m.int8),
        lambda m: m.full_like(m.zeros((2, 3)), [7, 8, 9]),
    ],
)
def test_complex_and_array_fills_as_numpy(make):
    got, want = make(mnp), make(np)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


def test_fill_errors():
    with pytest.raises(ValueError, match=r"^np\.full: could not broadcast fill_value from shape"):
        mnp.full((2, 3), [1, 2])
    with pytest.raises(TypeError, match=r"^np\.full: cannot store a complex number in an array"):
        mnp.full((2,), 1j, dtype="float64")
    with pytest.raises(TypeError, match=r"^np\.full_like: cannot store a complex number"):
        mnp.full_like(mnp.zeros(2), 1j)


# ---------------------------------------------------------------------------------------------
# np.broadcast_arrays (variadic, a list of read-only views)


@pytest.mark.parametrize(
    "shapes", [(), ((3,),), ((3,), (2, 1), ()), ((0, 1), (1, 4)), ((2, 1, 3), (5, 1), (1,))]
)
def test_broadcast_arrays_matches_numpy(shapes):
    xs = [np.arange(int(np.prod(s)), dtype=np.float32).reshape(s) for s in shapes]
    got = mnp.broadcast_arrays(*[mnp.asarray(x) for x in xs])
    want = np.broadcast_arrays(*xs)
    assert type(got) is list and len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype and g.read_only
        np.testing.assert_array_equal(g.numpy(), w)


def test_broadcast_arrays_shares_memory_and_names_the_mismatch():
    a = mnp.arange(3)
    b, c = mnp.broadcast_arrays(a, mnp.ones((2, 1)))
    assert mnp.shares_memory(a, b) and b.shape == (2, 3)
    with pytest.raises(ValueError) as e:
        mnp.broadcast_arrays(mnp.arange(3), mnp.ones((2, 1)), mnp.ones((2, 2)))
    assert str(e.value).splitlines()[0] == (
        "np.broadcast_arrays: shape mismatch: objects cannot be broadcast to a single shape. "
        "Mismatch is between arg 1 with shape (2, 1) and arg 2 with shape (2, 2)."
    )
