"""np.empty_like, np.eye and np.linspace against numpy 2."""

import numpy as np
import pytest

import mxffi
import mxffi.np as mnp

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
@pytest.mark.parametrize("k", [0, 1, -1, 3, -5])
def test_eye_is_numpys(n, m, k):
    for dtype in ("float64", "int8", "bool", "float16"):
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
