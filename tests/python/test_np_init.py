"""mxffi.np's creation and layout functions against numpy: empty, zeros, ones, full, *_like,
arange, array/asarray, copy, astype, reshape, transpose, and the ndarray methods around them."""

import re

import ml_dtypes
import numpy as np
import pytest
from conftest import DTYPES, np_dtype

import mxffi
import mxffi.np as mnp

SHAPES = [(), (0,), (0, 3), (1,), (3, 4), (2, 3, 4), (2, 1, 3, 1)]


def check(ours, expected):
    assert isinstance(ours, mxffi.NDArray)
    got = ours.asnumpy()
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_zeros_ones_full_match_numpy(shape, dtype):
    check(mnp.zeros(shape, dtype=dtype), np.zeros(shape, np_dtype(dtype)))
    check(mnp.ones(shape, dtype=dtype), np.ones(shape, np_dtype(dtype)))
    check(mnp.full(shape, 3, dtype=dtype), np.full(shape, 3, np_dtype(dtype)))
    e = mnp.empty(shape, dtype=dtype)
    assert e.shape == shape and str(e.dtype) == dtype


@pytest.mark.parametrize("shape", SHAPES)
def test_default_dtypes_are_numpys(shape):
    check(mnp.zeros(shape), np.zeros(shape))
    check(mnp.ones(shape), np.ones(shape))
    check(mnp.full(shape, 7), np.full(shape, 7))
    check(mnp.full(shape, 2.5), np.full(shape, 2.5))
    check(mnp.full(shape, True), np.full(shape, True))


def test_int_shape_and_aligned_data():
    a = mnp.zeros(5)
    assert a.shape == (5,)
    for shape in [(1,), (3,), (7, 5), (129,)]:
        assert mnp.empty(shape).asnumpy().ctypes.data % 64 == 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_like_functions(dtype):
    src = np.arange(6).reshape(2, 3).astype(np_dtype(dtype))
    for base in (mnp.array(src), src):  # an mxffi array and a numpy array
        check(mnp.zeros_like(base), np.zeros_like(src))
        check(mnp.ones_like(base), np.ones_like(src))
    check(mnp.zeros_like(mnp.array(src), dtype="float32"), np.zeros_like(src, dtype="float32"))


@pytest.mark.parametrize(
    "args",
    [(5,), (0,), (-3,), (2, 9), (2, 9, 3), (9, 2, -2), (0.0, 1.0, 0.25), (1, 2.5), (3, 3), (5, 0)],
)
def test_arange_matches_numpy(args):
    check(mnp.arange(*args), np.arange(*args))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float32", "float64", "float16"])
def test_arange_dtype(dtype):
    check(mnp.arange(0, 10, 2, dtype=dtype), np.arange(0, 10, 2, dtype=dtype))


@pytest.mark.parametrize(
    "obj",
    [
        [],
        [1, 2, 3],
        [1.5, 2, 3],
        [True, False],
        [True, 2],
        [[1, 2], [3, 4]],
        [[[1.0], [2.0]], [[3.0], [4.0]]],
        [[], []],
        5,
        2.5,
        True,
    ],
)
def test_array_from_python_values(obj):
    check(mnp.array(obj), np.array(obj))
    check(mnp.asarray(obj), np.asarray(obj))


@pytest.mark.parametrize("dtype", DTYPES)
def test_array_with_dtype(dtype):
    check(mnp.array([[0, 1], [2, 3]], dtype=dtype), np.array([[0, 1], [2, 3]], np_dtype(dtype)))


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != "bfloat16"])
def test_array_from_numpy_copies(dtype):
    src = np.arange(12).reshape(3, 4).astype(dtype)
    a = mnp.array(src)
    check(a, src)
    a.asnumpy()[...] = 0  # a copy: the source keeps its values
    assert src.reshape(-1)[-1] == np.array(11).astype(dtype)
    check(mnp.array(src.T), src.T)  # strided numpy input
    check(mnp.asarray(src, dtype="float32"), src.astype("float32"))


def test_asarray_returns_the_same_array_when_nothing_changes():
    a = mnp.arange(4)
    assert mnp.asarray(a).same_as(a) if hasattr(a, "same_as") else mnp.asarray(a).handle == a.handle
    b = mnp.array(a)
    assert b.handle != a.handle
    b.asnumpy()[0] = 9
    assert a.tolist()[0] == 0


@pytest.mark.parametrize("src_dtype", DTYPES)
@pytest.mark.parametrize("dst_dtype", DTYPES)
def test_astype_matches_numpy(src_dtype, dst_dtype):
    values = np.array([[0, 1, 2], [3, 100, 7]]).astype(np_dtype(src_dtype))
    a = mnp.array(values)
    check(a.astype(dst_dtype), values.astype(np_dtype(dst_dtype)))
    check(mnp.astype(a.T, dst_dtype), values.T.astype(np_dtype(dst_dtype)))


def test_astype_float_to_int_truncates_like_numpy():
    values = np.array([-2.7, -0.5, 0.5, 2.7, 126.9])
    for dtype in ["int8", "int32", "int64"]:
        check(mnp.array(values).astype(dtype), values.astype(dtype))
    check(mnp.array(abs(values)).astype("uint8"), abs(values).astype("uint8"))


@pytest.mark.parametrize(
    "shape,new",
    [
        ((12,), (3, 4)),
        ((3, 4), (-1,)),
        ((3, 4), (2, -1, 2)),
        ((0, 3), (3, 0)),
        ((), (1, 1)),
        ((1,), ()),
    ],
)
def test_reshape_is_a_view(shape, new):
    src = np.arange(int(np.prod(shape))).reshape(shape).astype("float32")
    a = mnp.array(src)
    r = mnp.reshape(a, new)
    check(r, src.reshape(new))
    if r.size:
        r.asnumpy().reshape(-1)[0] = 42  # shares memory with a
        assert a.asnumpy().reshape(-1)[0] == 42
    check(a.reshape(*new) if len(new) != 1 else a.reshape(new[0]), np.reshape(a.asnumpy(), new))


def test_reshape_of_a_transposed_array_copies():
    src = np.arange(6.0).reshape(2, 3)
    t = mnp.array(src).T
    check(t.reshape(6), src.T.reshape(6))


@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 3, 4), (0, 2, 1)])
def test_transpose_matches_numpy(shape):
    src = np.arange(int(np.prod(shape))).reshape(shape)
    a = mnp.array(src)
    check(mnp.transpose(a), src.T)
    check(a.T, src.T)
    if len(shape) == 3:
        check(mnp.transpose(a, (1, 0, 2)), np.transpose(src, (1, 0, 2)))
        check(mnp.transpose(a, (-1, 0, 1)), np.transpose(src, (-1, 0, 1)))
    if a.size:
        a.T.asnumpy()[(0,) * len(shape)] = 99  # a view
        assert a.asnumpy()[(0,) * len(shape)] == 99


def test_copy_is_contiguous_and_independent():
    src = np.arange(12.0).reshape(3, 4)
    a = mnp.array(src)
    c = mnp.copy(a.T)
    check(c, src.T)
    assert c.asnumpy().flags["C_CONTIGUOUS"]
    c.asnumpy()[0, 0] = -1
    assert a.asnumpy()[0, 0] == 0
    check(a.copy(), src)
    check(mnp.copy(src), src)  # a numpy argument


def test_methods_repr_tolist_item_len():
    src = np.arange(6.0).reshape(2, 3)
    a = mnp.array(src)
    assert repr(a) == repr(src)
    assert str(a) == str(src)
    assert a.tolist() == src.tolist()
    assert mnp.array(3.5).item() == 3.5
    assert mnp.array([7]).item() == 7
    assert len(a) == 2
    assert (a.shape, a.ndim, a.size, str(a.dtype)) == ((2, 3), 2, 6, "float64")
    assert np.asarray(a).base is not None  # a view, not a copy
    np.testing.assert_array_equal(np.asarray(a, dtype="int32"), src.astype("int32"))
    with pytest.raises(ValueError, match="size 1"):
        a.item()
    with pytest.raises(TypeError, match="unsized"):
        len(mnp.array(1.0))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(a)
    assert bool(mnp.array([1]))


@pytest.mark.parametrize("device", ["cpu", "cpu:0", (1, 0), mxffi.Device("cpu", 0), None])
def test_devices_accepted(device):
    a = mnp.zeros((2,), device=device)
    assert a.__dlpack_device__() == (1, 0)
    assert mnp.cpu(0).device_type == 1 if hasattr(mnp.cpu(0), "device_type") else True


def test_numpy_dtype_objects_are_accepted():
    for dt in ["float32", np.float32, np.dtype("int8"), "f4", "i8", "<f8", "double", np.uint16]:
        expected = np.zeros(2, dt)
        check(mnp.zeros(2, dtype=dt), expected)
    bf16 = ml_dtypes.bfloat16
    check(mnp.ones(2, dtype=bf16), np.ones(2, bf16))
    check(mnp.ones(2, dtype=np.dtype(bf16)), np.ones(2, bf16))


# ---- bad input: numpy's exception classes, messages naming the function and the values ----


def test_negative_dimension():
    with pytest.raises(
        ValueError,
        match=r"^np\.zeros: argument #0 'shape': negative dimensions are not allowed; "
        r"got \(2, -1\)",
    ):
        mnp.zeros((2, -1))
    with pytest.raises(ValueError):
        np.zeros((2, -1))
    with pytest.raises(ValueError, match=r"np\.full"):
        mnp.full((-3,), 1.0)


def test_bad_shape_values():
    with pytest.raises(
        TypeError, match=r"^np\.zeros: argument #0 'shape' element 1 expected an int, got str"
    ):
        mnp.zeros((2, "a"))
    with pytest.raises(
        TypeError,
        match=r"^np\.ones: argument #0 'shape' expected a shape \(an int or a sequence of ints\), "
        "got str",
    ):
        mnp.ones("abc")
    with pytest.raises(ValueError, match="maximum supported dimension"):
        mnp.zeros((1,) * 33)


def test_unknown_dtype_string():
    with pytest.raises(
        TypeError, match=r"^np\.zeros: argument #1 'dtype': data type 'float33' not understood"
    ):
        mnp.zeros((2,), dtype="float33")
    with pytest.raises(TypeError):
        np.zeros((2,), dtype="float33")
    with pytest.raises(TypeError, match=r"^np\.astype: argument #1 'dtype': data type 'nope'"):
        mnp.arange(3).astype("nope")


def test_unknown_device():
    with pytest.raises(ValueError, match=r"^np\.zeros: argument #2 'device': unknown device 'tpu'"):
        mnp.zeros((2,), device="tpu")


@pytest.mark.parametrize("device", ["cpu: 1", "cpu:+1", "cpu:-0", "cuda:1 ", "cpu:", "cpu:0x1"])
def test_device_id_is_decimal_digits_only(device):
    # The C++ device reader once took whatever strtoll takes: "cpu: 1" and "cpu:+1" were cpu:1.
    with pytest.raises(
        ValueError, match=re.escape(f"np.zeros: argument #2 'device': unknown device '{device}'")
    ):
        mnp.zeros((2,), device=device)


def test_reshape_errors():
    a = mnp.arange(12)
    with pytest.raises(
        ValueError, match=r"np\.reshape: cannot reshape array of size 12 into shape \(5,\)"
    ):
        mnp.reshape(a, (5,))
    with pytest.raises(ValueError, match="only specify one unknown"):
        mnp.reshape(a, (-1, -1))
    with pytest.raises(ValueError):
        np.reshape(np.arange(12), (5,))
    # Extents whose product passes int64: refused as numpy does, never wrapped into a product
    # that matches the size (2**62 * 2**62 wraps to 0, the size of an empty array).
    for shape in [(2**62, 2**62), (2**62, 2**62, 0), (2**32, 2**32, -1), (3, 2**63 - 1)]:
        with pytest.raises(ValueError, match=r"^np\.reshape: array is too big; shape"):
            mnp.reshape(a, shape)
    with pytest.raises(ValueError, match=r"more elements than int64 holds"):
        mnp.reshape(mnp.zeros((0,)), (2**62, 2**62))


def test_transpose_errors():
    a = mnp.zeros((2, 3))
    with pytest.raises(np.exceptions.AxisError, match=r"np\.transpose: axis 2 is out of bounds"):
        mnp.transpose(a, (0, 2))
    with pytest.raises(ValueError, match="axes don't match array"):
        mnp.transpose(a, (0,))
    with pytest.raises(ValueError, match="repeated axis"):
        mnp.transpose(a, (1, 1))


def test_array_errors():
    with pytest.raises(
        ValueError,
        match=r"^np\.array: argument #0 'object': setting an array element with a sequence",
    ):
        mnp.array([[1, 2], [3]])
    with pytest.raises(ValueError):
        np.array([[1, 2], [3]])
    with pytest.raises(
        TypeError, match=r"^np\.array: argument #0 'object': cannot make an array element from str"
    ):
        mnp.array([1, "a"])
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        mnp.array([1, 300], dtype="uint8")
    with pytest.raises(OverflowError):
        np.array([1, 300], dtype="uint8")


def test_arange_errors():
    with pytest.raises(ValueError, match=r"np\.arange: step must not be zero"):
        mnp.arange(0, 5, 0)
    with pytest.raises(
        TypeError, match=r"^np\.arange: argument #0 'start' expected a number, got str"
    ):
        mnp.arange("a")


def test_ndarray_operators_match_numpy():
    x = np.arange(1.0, 7.0).reshape(2, 3)
    y = np.full((2, 3), 2.0)
    a, b = mnp.array(x), mnp.array(y)
    check(a + b, x + y)
    check(a - b, x - y)
    check(a * b, x * y)
    check(a / b, x / y)
    check(a**b, x**y)
    check(-a, -x)
    check(abs(-a), abs(-x))
    check(a + 1, x + 1)
    check(1 - a, 1 - x)
    check(2 * a, 2 * x)
    check(3 / a, 3 / x)
    check(2**a, 2**x)
    check(a + y, x + y)  # a numpy operand on the right
    if hasattr(mnp, "matmul"):
        check(a @ b.T, x @ y.T)
        check(x @ b.T, x @ y.T)  # reflected matmul from numpy's side
    f32 = mnp.zeros((2,), dtype="float32")
    check(f32 + 1.5, np.zeros((2,), "float32") + 1.5)  # NEP 50: the Python float is weak
    with pytest.raises(TypeError):
        a + "x"


def test_bfloat16_numpy_view_shares_memory():
    b = mnp.astype(mnp.arange(4), "bfloat16")
    view = b.numpy()
    assert view.dtype == np.dtype(ml_dtypes.bfloat16)
    view[0] = 5
    assert b.tolist()[0] == 5


def test_arrays_take_weak_references():
    import weakref

    a = mnp.zeros((2,))
    r = weakref.ref(a)
    assert r() is a
    del a
    assert r() is None


@pytest.mark.parametrize(
    ("value", "dtype"), [(300, "int8"), (-1, "uint8"), (2**40, "int32"), (70000, "uint16")]
)
def test_full_refuses_an_int_the_dtype_cannot_hold(value, dtype):
    # It used to wrap (300 -> 44 in int8) where numpy 2 raises.
    with pytest.raises(OverflowError, match=rf"np\.full: fill_value {value} is out of bounds for "):
        mnp.full((2,), value, dtype=dtype)
    with pytest.raises(OverflowError):
        np.full((2,), value, dtype=dtype)


def test_full_refuses_an_int64_fill_float64_cannot_carry():
    with pytest.raises(ValueError, match=r"fill_value 9007199254740993 cannot be filled exactly"):
        mnp.full((2,), 2**53 + 1)
    assert mnp.full((2,), 2**53).tolist() == [2**53, 2**53]
    assert mnp.full((2,), 255, dtype="uint8").tolist() == [255, 255]
    assert mnp.full((2,), -128, dtype="int8").tolist() == [-128, -128]
