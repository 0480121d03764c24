"""Complex numbers across the boundary (C ABI 1.3's kMXFFIComplexView and Complex objects):
complex arrays from Python numbers and sequences, complex values round trip through functions
and callbacks, and the functions that compute real numbers only refuse them."""

import numpy as np
import pytest

import mxffi.np as mnp
import mxffi.testing as t


@pytest.mark.parametrize(
    "obj",
    [0j, 1 + 2j, complex(float("inf"), -0.0), [1, 2.5, 3j], [[1j, 2], [True, -1.5j]], [2j]],
)
def test_asarray_of_complex_numbers_is_numpys(obj):
    want = np.asarray(obj)
    got = mnp.asarray(obj)
    assert str(got.dtype) == want.dtype.name == "complex128" and got.shape == want.shape
    np.testing.assert_array_equal(got.asnumpy(), want)
    low = mnp.array(obj, dtype="complex64")
    assert str(low.dtype) == "complex64"
    np.testing.assert_array_equal(low.asnumpy(), np.array(obj, dtype=np.complex64))


def test_complex_dtype_holds_real_numbers_and_numpy_complex_scalars():
    np.testing.assert_array_equal(
        mnp.asarray([1, 2.5, True], dtype="complex128").asnumpy(), np.array([1, 2.5, 1j * 0 + 1])
    )
    assert mnp.asarray(np.complex64(1 - 1j)).asnumpy() == np.complex128(1 - 1j)
    a = mnp.asarray(np.array([1 + 1j, 2j], dtype=np.complex64))  # through DLPack
    assert str(a.dtype) == "complex64" and a.tolist() == [1 + 1j, 2j]
    assert complex(mnp.asarray(3 - 4j)) == 3 - 4j and mnp.asarray(3 - 4j).item() == 3 - 4j


def test_a_complex_number_in_a_real_dtype_is_a_type_error():
    # bool takes one as numpy does (nonzero); a real or integer dtype refuses it.
    np.testing.assert_array_equal(
        mnp.array([0j, 2j, 1, -0.0j], dtype="bool").asnumpy(), np.array([0j, 2j, 1, -0.0j], bool)
    )
    for dtype in ("float64", "int32", "float16"):
        with pytest.raises(
            TypeError,
            match=rf"^np\.array: cannot store a complex number in an "
            rf"array of {dtype} \(numpy's TypeError\)",
        ):
            mnp.array([1, 2j], dtype=dtype)
        with pytest.raises(TypeError):
            np.array([1, 2j], dtype=dtype)  # numpy's class too


def test_functions_of_real_numbers_refuse_complex_operands():
    # A function of real numbers refuses a Python complex by name rather than lose its
    # imaginary part; the elementwise functions take it as a complex operand.
    x = mnp.zeros(2)
    assert mnp.add(x, 1j).tolist() == [1j, 1j]
    with pytest.raises(
        TypeError, match=r"^np\.arange: argument #0 'start' expected .*, got complex"
    ):
        mnp.arange(1j)
    with pytest.raises(TypeError, match=r"^np\.full: cannot store a complex number in an array of"):
        mnp.full(2, 1j, dtype="float64")
    assert mnp.full(2, 1j).tolist() == [1j, 1j]  # numpy's: a complex fill makes complex128
    with pytest.raises(TypeError, match=r"^testing\.add_float: argument #0 'a' expected float"):
        t.add_float(1j, 1.0)


def test_complex_values_round_trip_through_functions_and_callbacks():
    for v in (1 + 2j, -0.0j, complex(float("nan"), 1)):
        got = t.echo(v)
        assert type(got) is complex and (got == v or (got != got and v != v))
    assert t.echo([1j, 2]) == [1j, 2]  # owned inside an Array
    assert t.apply(lambda: 3j) == 3j  # a callback's result
    seen = []
    assert t.apply(lambda z: seen.append(z) or z * 2, 1 - 1j) == 2 - 2j  # a callback's argument
    assert seen == [1 - 1j] and type(seen[0]) is complex


def test_a_complex_subclass_is_read_from_its_storage():
    class Lying(complex):
        real = property(lambda self: 99.0)
        imag = property(lambda self: -99.0)

    a = mnp.asarray(Lying(1 + 2j))
    assert a.item() == 1 + 2j
    assert t.echo(Lying(1 + 2j)) == 1 + 2j
