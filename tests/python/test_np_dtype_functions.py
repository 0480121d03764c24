"""The array API's data type functions and objects against numpy 2: result_type over every
dtype pair (Python numbers included), can_cast under every rule, isdtype, finfo, iinfo, the
constants and __array_namespace_info__()."""

import itertools
import math

import ml_dtypes
import numpy as np
import pytest

import mxffi
import mxffi.np as mnp

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
NAMES += ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
STANDARD = [n for n in NAMES if n not in ("float16", "bfloat16")]


def _np(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def _numpy_result(*args):
    try:
        return np.result_type(*args).name
    except TypeError:  # numpy's DTypePromotionError
        return None


@pytest.mark.parametrize("a", NAMES)
def test_result_type_of_every_pair_is_numpys(a):
    for b in NAMES:
        want = _numpy_result(_np(a), _np(b))
        if want is None:
            with pytest.raises(TypeError, match=rf"^np\.result_type: the dtypes {a} and {b} have"):
                mnp.result_type(a, b)
            continue
        assert str(mnp.result_type(mxffi.DataType(a), b)) == want, (a, b)
        arr = mnp.zeros(2, dtype=a)
        assert str(mnp.result_type(arr, mnp.zeros((), dtype=b))) == want, (a, b)


@pytest.mark.parametrize("a", NAMES)
def test_result_type_with_python_numbers_is_nep50(a):
    for scalars in ([True], [1], [1.0], [True, 1], [1, 2.0], [False, 0.5, 3], [1j], [2.0, 1j]):
        got = str(mnp.result_type(a, *scalars))
        if a == "bfloat16" and 1j in scalars:
            assert got == "complex64"  # the complex type holding bfloat16, as for float32
            continue
        if a == "bfloat16":
            # ml_dtypes makes numpy.result_type(bfloat16, 1.0) float64 (bfloat16 + 1.0 float32,
            # and (bfloat16, True, 1) no dtype at all); mxffi keeps NEP 50's rule for a
            # floating type, as its ops do: Python numbers take the array's type.
            assert got == "bfloat16"
            continue
        assert got == _numpy_result(_np(a), *scalars), (a, scalars)
    assert str(mnp.result_type(1, 2.0)) == "float64" and str(mnp.result_type(True)) == "bool"
    assert str(mnp.result_type(3)) == "int64"
    assert str(mnp.result_type(1j)) == "complex128" == np.result_type(1j).name
    assert str(mnp.result_type(1, 1j, 2.0)) == "complex128"
    assert str(mnp.result_type("int8", "int16", "uint16", 1.0)) == "float64"


def test_result_type_refuses_what_has_no_dtype():
    with pytest.raises(ValueError, match=r"^np\.result_type: at least one array or dtype"):
        mnp.result_type()
    with pytest.raises(TypeError, match=r"^np\.result_type: argument #1 expected an array, a "):
        mnp.result_type("int8", [1, 2])
    with pytest.raises(TypeError, match="data type 'floaty' not understood"):
        mnp.result_type("int8", "floaty")


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_can_cast_of_every_pair_is_numpys(casting):
    for a, b in itertools.product(NAMES, NAMES):
        want = bool(np.can_cast(_np(a), _np(b), casting))
        assert mnp.can_cast(a, b, casting) is want, (a, b, casting)
        assert mnp.can_cast(mnp.zeros(1, dtype=a), mxffi.DataType(b), casting=casting) is want
    assert mnp.can_cast("int8", "float32") is True  # "safe" is the default
    assert mnp.can_cast("float64", "float32") is False


def test_can_cast_refuses_numbers_and_bad_rules():
    msg = r"^np\.can_cast: argument #0 'from_' expected a data type or an array, got int"
    with pytest.raises(TypeError, match=msg):
        mnp.can_cast(1, "int8")
    with pytest.raises(ValueError, match=r"casting must be one of .*; got 'loose'"):
        mnp.can_cast("int8", "int16", "loose")
    with pytest.raises(TypeError, match=r"^np\.can_cast: argument #1 'to' expected a data type, "):
        mnp.can_cast("int8", None)


KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating"]
KINDS += ["complex floating", "numeric"]


@pytest.mark.parametrize("name", STANDARD)
def test_isdtype_is_numpys(name):
    d = mxffi.DataType(name)
    for kind in KINDS:
        assert mnp.isdtype(d, kind) is bool(np.isdtype(np.dtype(name), kind)), (name, kind)
    for k1, k2 in itertools.combinations(KINDS, 2):
        assert mnp.isdtype(d, (k1, k2)) is bool(np.isdtype(np.dtype(name), (k1, k2)))
    for other in STANDARD:
        assert mnp.isdtype(d, mxffi.DataType(other)) is (name == other)
    assert mnp.isdtype(mnp.bfloat16, "real floating") and mnp.isdtype(mnp.float16, "numeric")


def test_isdtype_refuses_what_is_not_a_kind():
    with pytest.raises(TypeError, match=r"^np\.isdtype: argument #0 'dtype' expected DataType, "):
        mnp.isdtype("float32", "numeric")
    with pytest.raises(ValueError, match=r"^np\.isdtype: kind 'floating' is not a known kind"):
        mnp.isdtype(mnp.float32, "floating")
    msg = r"^np\.isdtype: argument #1 'kind' expected a DataType, a kind name \(str\) or a "
    with pytest.raises(TypeError, match=msg):
        mnp.isdtype(mnp.float32, 3)


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64", "complex64"])
def test_finfo_is_numpys(name):
    want = ml_dtypes.finfo(ml_dtypes.bfloat16) if name == "bfloat16" else np.finfo(name)
    got = mnp.finfo(name)
    assert got.bits == want.bits and got.precision == want.precision
    for attr in ("eps", "max", "min", "smallest_normal", "resolution", "tiny"):
        assert getattr(got, attr) == float(getattr(want, attr)), attr
    assert got.dtype == want.dtype and type(got.dtype) is mxffi.DataType
    assert mnp.finfo(mnp.zeros(2, dtype=name)).eps == got.eps
    assert type(got.max) is float


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint64"])
def test_iinfo_is_numpys(name):
    want = np.iinfo(name)
    got = mnp.iinfo(mnp.zeros(1, dtype=name))
    assert (got.bits, got.min, got.max) == (want.bits, int(want.min), int(want.max))
    assert got.dtype == name


def test_finfo_and_iinfo_refuse_the_other_kind():
    with pytest.raises(ValueError, match=r"^np\.finfo: data type int32 is not inexact"):
        mnp.finfo("int32")
    with pytest.raises(ValueError, match=r"^np\.iinfo: invalid integer data type float32"):
        mnp.iinfo(mnp.float32)
    with pytest.raises(TypeError, match=r"^np\.finfo: mxffi\.DataType: data type 'floaty'"):
        mnp.finfo("floaty")


def test_constants_and_version():
    assert mnp.e == math.e and mnp.pi == math.pi and mnp.inf == math.inf
    assert math.isnan(mnp.nan) and mnp.newaxis is None
    assert mnp.__array_api_version__ == "2024.12"
    a = mnp.zeros((2, 3))
    assert a[:, mnp.newaxis].shape == (2, 1, 3)


def test_namespace_info():
    info = mnp.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] is True and caps["max dimensions"] == 32
    assert info.default_device() == mnp.cpu() and info.devices()[0] == mnp.cpu()
    assert info.default_dtypes() == {
        "real floating": mnp.float64,
        "complex floating": mnp.complex128,
        "integral": mnp.int64,
        "indexing": mnp.int64,
    }
    assert list(info.dtypes()) == STANDARD
    assert list(info.dtypes(kind="unsigned integer")) == ["uint8", "uint16", "uint32", "uint64"]
    both = info.dtypes(kind=("bool", "complex floating"))
    assert list(both) == ["bool", "complex64", "complex128"]
    assert all(type(v) is mxffi.DataType and str(v) == k for k, v in info.dtypes().items())
    with pytest.raises(ValueError, match="kind 'float' is not a known kind name"):
        info.dtypes(kind="float")
    with pytest.raises(TypeError, match="device must be a Device or None, got str"):
        info.dtypes(device="cpu")
