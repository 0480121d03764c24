"""DataType and Device: the one dtype grammar (against numpy.dtype as the oracle, through both
mxffi.DataType(x) and dtype=x), equality and hashing, printing, and the value cell round trip.
The suite runs on both cores (scripts/test.sh runs it again with MXFFI_FFI=ctypes)."""

import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

import mxffi
import mxffi.np as mnp
import mxffi.testing as t

# The types mxffi has, by numpy's name for them.
SUPPORTED = {
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
}
COMPLEX = {"complex64", "complex128"}

# Spellings numpy reads (most of them as a type mxffi has), and spellings it reads as a type
# mxffi does not have or does not read at all; numpy.dtype(x) decides which each one is.
SPELLINGS = [
    # numpy's sized names
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    # numpy's other names
    "float",
    "int",
    "uint",
    "complex",
    "double",
    "single",
    "half",
    "intp",
    "uintp",
    "long",
    "ulong",
    "longlong",
    "ulonglong",
    "short",
    "ushort",
    "intc",
    "uintc",
    "byte",
    "ubyte",
    "bool_",
    "int_",
    "csingle",
    "cdouble",
    # character codes
    "?",
    "b",
    "B",
    "h",
    "H",
    "i",
    "I",
    "l",
    "L",
    "q",
    "Q",
    "p",
    "P",
    "e",
    "f",
    "d",
    "F",
    "D",
    "b1",
    "i1",
    "i2",
    "i4",
    "i8",
    "u1",
    "u2",
    "u4",
    "u8",
    "f2",
    "f4",
    "f8",
    "c8",
    "c16",
    # byte-order marks: native, not applicable, and big-endian (refused but for one byte)
    "<f4",
    "=f8",
    "|f4",
    "|b1",
    "<c8",
    "<i8",
    ">i1",
    ">?",
    ">f4",
    ">f8",
    ">c16",
    ">i8",
    # types mxffi has no arrays of
    "U",
    "U3",
    "<U3",
    "S3",
    "S",
    "O",
    "|O",
    "V8",
    "M8",
    "<M8[ns]",
    "m8",
    "g",
    "G",
    "longdouble",
    "float128",
    "complex256",
    "str",
    "object",
    # not data types at all
    "x",
    "",
    "Float32",
    "<float32",
    "float32 ",
    "f4x4",
    "float_",
    "i3",
    "float33",
]


def numpy_says(spelling):
    """The canonical name of what numpy reads spelling as, when mxffi has that type; else None
    (numpy refuses it, or reads a type mxffi has no arrays of: big-endian, str, long double...)."""
    try:
        d = np.dtype(spelling)
    except TypeError:
        return None
    return d.name if d.name in SUPPORTED and d.isnative else None


def test_the_table_is_wide():
    accepted = [s for s in SPELLINGS if numpy_says(s)]
    assert len(SPELLINGS) >= 40 and len(accepted) >= 40
    assert {">f4", "U", "O", "V8", "c8", "complex"} <= set(SPELLINGS)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_data_type_reads_each_spelling_as_numpy_does(spelling):
    want = numpy_says(spelling)
    if want is None:
        with pytest.raises(
            TypeError, match=rf"^mxffi\.DataType: data type '{re.escape(spelling)}'"
        ):
            mxffi.DataType(spelling)
        return
    d = mxffi.DataType(spelling)
    assert str(d) == want
    assert d == mxffi.DataType(want) and hash(d) == hash(want)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_dtype_argument_reads_each_spelling_as_numpy_does(spelling):
    want = numpy_says(spelling)
    if want is None:
        with pytest.raises(
            TypeError, match=rf"^np\.empty: argument #1 'dtype': data type '{re.escape(spelling)}'"
        ):
            mnp.empty(2, dtype=spelling)
        with pytest.raises(
            TypeError, match=rf"^np\.zeros: argument #1 'dtype': data type '{re.escape(spelling)}'"
        ):
            mnp.zeros(2, dtype=spelling)
        return
    out = mnp.empty(2, dtype=spelling)
    assert str(out.dtype) == want
    assert np.from_dlpack(out).dtype == np.dtype(spelling)
    if want in COMPLEX:
        return  # no op computes complex values yet: test_complex_ops_refuse_with_the_op_name
    out = mnp.zeros(2, dtype=spelling)
    assert str(out.dtype) == want
    host = np.asarray(out)
    assert host.dtype == np.dtype(spelling) and not host.any()


def test_bfloat16_is_ml_dtypes_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    for spelling in ("bfloat16", ml_dtypes.bfloat16, np.dtype(ml_dtypes.bfloat16)):
        assert mxffi.DataType(spelling) == "bfloat16"
        assert str(mnp.zeros(2, dtype=spelling).dtype) == "bfloat16"
    assert np.asarray(mnp.ones(2, dtype=ml_dtypes.bfloat16)).dtype == ml_dtypes.bfloat16


# Objects that are data types without being strings; numpy.dtype(x) is the oracle again.
OBJECTS = [
    bool,
    int,
    float,
    complex,
    np.float32,
    np.float16,
    np.int8,
    np.uint64,
    np.bool_,
    np.intp,
    np.complex64,
    np.complex128,
    np.dtype("f4"),
    np.dtype("<i2"),
    np.dtype("c16"),
    np.dtype(">f4"),
    np.dtype(">i1"),
    np.dtype("U3"),
    np.dtype("O"),
    np.dtype([("a", "f4"), ("b", "i4")]),
    np.dtype("(2,)f4"),
    np.longdouble,
    np.clongdouble,
    np.datetime64,
    np.str_,
    np.object_,
    np.void,
]


@pytest.mark.parametrize("obj", OBJECTS, ids=repr)
def test_type_objects_and_numpy_dtypes_read_as_numpy_does(obj):
    want = numpy_says(obj)
    if want is None:
        with pytest.raises(TypeError, match=r"^mxffi\.DataType: data type '"):
            mxffi.DataType(obj)
        with pytest.raises(TypeError, match=r"^np\.empty: argument #1 'dtype': data type '"):
            mnp.empty(2, dtype=obj)
        return
    assert str(mxffi.DataType(obj)) == want
    assert str(mnp.empty(2, dtype=obj).dtype) == want
    assert np.from_dlpack(mnp.empty(2, dtype=obj)).dtype == np.dtype(obj)


def test_python_types_are_numpys_defaults():
    # The examples numpy users write; before, dtype=float reached C++ as a callable.
    assert mnp.zeros(2, dtype=float).dtype == "float64"
    assert mnp.zeros(2, dtype=int).dtype == "int64"
    assert mnp.zeros(2, dtype=bool).dtype == "bool"
    assert mnp.empty(2, dtype=complex).dtype == "complex128"
    assert mnp.arange(3, dtype=float).dtype == "float64"
    assert mnp.ones(3).astype(int).dtype == "int64"
    assert mnp.sum(mnp.ones(3, dtype="int8"), dtype=float).dtype == "float64"
    # Ops invoked by name read their dtype parameter by the same grammar.
    assert mxffi.ops.invoke("_zeros", shape=(2,), dtype=float).dtype == "float64"
    assert mxffi.ops.invoke("_zeros", shape=(2,), dtype=np.int16).dtype == "int16"
    assert mxffi.ops.invoke("_zeros", shape=(2,), dtype="c16").dtype == "complex128"


def test_datatype_and_its_spellings_all_mean_one_type():
    # The two grammars of before disagreed on each of these.
    assert mxffi.DataType("float") == mxffi.DataType("float64") == mnp.zeros(1, dtype="float").dtype
    assert mxffi.DataType("int") == mxffi.DataType("int64")
    assert mxffi.DataType("f4") == mxffi.DataType("float32")
    assert mxffi.DataType("complex") == mxffi.DataType("complex128")
    assert (mxffi.DataType("c8").code, mxffi.DataType("c8").bits) == (5, 64)


def test_data_type_refuses_non_data_types():
    for value, name in ((3, "int"), (1.5, "float"), ([1], "list"), (None, "NoneType")):
        with pytest.raises(
            TypeError, match=rf"^mxffi\.DataType: expected a data type .* got {name}$"
        ):
            mxffi.DataType(value)
    # Other classes are not data types (numpy reads str as a str dtype, which mxffi has not).
    with pytest.raises(TypeError, match=r"got the class str$"):
        mxffi.DataType(str)


def test_refused_spellings_are_not_cached_under_another_caller():
    bad = np.dtype("U3")
    for _ in range(2):
        with pytest.raises(TypeError, match=r"^np\.empty: argument #1 'dtype': data type '<U3'"):
            mnp.empty(2, dtype=bad)
        with pytest.raises(TypeError, match=r"^mxffi\.DataType: data type '<U3' is a numpy str"):
            mxffi.DataType(bad)


def test_lane_forms_read_where_numpy_has_no_reading():
    d = mxffi.DataType("float32x4")
    assert (d.code, d.bits, d.lanes, str(d)) == (2, 32, 4, "float32x4")
    assert mxffi.DataType("complex128x2").lanes == 2
    for bad in ("int8x0", "int8x65536"):
        with pytest.raises(TypeError, match="lane count out of range; expected 1 to 65535"):
            mxffi.DataType(bad)


def test_messages_say_why():
    with pytest.raises(TypeError, match=r"'>f4' has big-endian byte order; mxffi arrays hold"):
        mxffi.DataType(">f4")
    with pytest.raises(TypeError, match=r"'V8' is a numpy void .* its data types are bool, int8"):
        mxffi.DataType("V8")
    with pytest.raises(TypeError, match=r"'float33' not understood; expected a numpy type name"):
        mxffi.DataType("float33")


# ---------------------------------------------------------------------------------------------
# Equality and hashing.


def test_equal_values_hash_alike():
    f32 = mxffi.DataType("float32")
    assert f32 == "float32" and hash(f32) == hash("float32")
    assert f32 == mxffi.DataType("f4") and hash(f32) == hash(mxffi.DataType("f4"))
    assert {f32: 1}["float32"] == 1 and "float32" in {f32}
    assert {"float32": 1}[mxffi.DataType(np.float32)] == 1
    assert len({f32, mxffi.DataType("single"), mxffi.DataType(np.dtype("<f4")), "float32"}) == 1
    assert mxffi.DataType("int8x4") == "int8x4" and hash(mxffi.DataType("int8x4")) == hash("int8x4")


def test_different_types_are_unequal_whatever_the_spelling():
    f32 = mxffi.DataType("float32")
    for other in ("float64", "f8", "csr", "", np.float64, np.dtype("i4"), float, int, "U3"):
        assert not (f32 == other) and f32 != other
        assert not (other == f32) and other != f32
    assert f32 != 3 and f32 != None and f32 != [f32]  # noqa: E711
    assert mxffi.DataType("int8") != mxffi.DataType("int8x4")


def test_numpy_dtypes_and_scalar_types_compare_by_value():
    # numpy's own dtypes equal their names and hash apart from them; a DataType equals numpy's
    # spellings of its type the same way, so `a.dtype == np.float32` reads as it does in numpy.
    f32 = mxffi.DataType("float32")
    for other in (np.float32, np.dtype("float32"), np.dtype("<f4")):
        assert f32 == other and not (f32 != other)
        assert other == f32 and not (other != f32)
    for other in (np.float64, np.dtype("i4"), np.dtype("<f2"), np.int32):
        assert f32 != other and other != f32
    assert mnp.zeros(2, dtype="int8").dtype == np.int8
    assert mnp.zeros(2, dtype="int8").dtype == np.zeros(2, np.int8).dtype
    assert mnp.zeros((), dtype=mnp.bfloat16).dtype == "bfloat16"


def test_other_spellings_of_the_same_type_compare_equal_as_in_numpy():
    # As numpy's dtypes do; their hashes differ from the canonical name's (numpy's too), so a
    # dict keyed by DataType finds the canonical name only. A comparison never raises: generic
    # code (the array API suite, `x in list`) compares data types with anything.
    f32 = mxffi.DataType("float32")
    for other in ("f4", "single", "<f4", np.float32):
        assert f32 == other and not (f32 != other) and other == f32
        assert (np.dtype("float32") == other) is True  # numpy says the same
    assert mxffi.DataType("float64") == float and mxffi.DataType("int64") == int  # noqa: E721
    assert mxffi.DataType("bool") == bool and mxffi.DataType("int64") == "n"  # noqa: E721
    assert (f32 == "float64", f32 == "floaty", f32 == object()) == (False, False, False)
    assert f32 in ["f8", "f4"] and f32 not in [float, "int8"]
    assert f32 == mxffi.DataType(np.float32)


def test_np_scalar_type_names_are_data_types():
    names = ["bool", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"]
    names += ["uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
    for name in names:
        d = getattr(mnp, name)
        assert type(d) is mxffi.DataType, name
        assert str(d) == name.rstrip("_") and hash(d) == hash(str(d))
        assert name in mnp.__all__
    assert mnp.zeros(2, dtype=mnp.int16).dtype == mnp.int16
    assert mnp.empty(2, dtype=mnp.complex64).dtype == mnp.complex64
    assert mnp.ones(2, dtype=mnp.float32).astype(mnp.float64, copy=False).dtype == mnp.float64


# ---------------------------------------------------------------------------------------------
# Builtin type objects passed where a callable is taken.


def test_builtin_numeric_types_are_data_types_wherever_passed():
    # bool, int, float and complex convert to DataType at every argument, as numpy reads them;
    # a parameter that takes a callable then refuses them by name. Other classes stay callables.
    assert t.echo(float) == mxffi.DataType("float64")
    assert type(t.echo(int)) is mxffi.DataType
    with pytest.raises(
        TypeError, match=r"^testing\.apply: argument #0 'f' expected Function, got DataType"
    ):
        t.apply(float, "2.5")
    assert t.apply(lambda x: float(x), "2.5") == 2.5
    assert t.apply(str, 5) == "5"
    assert t.apply(lambda: float) == mxffi.DataType("float64")  # a callback's result too


# ---------------------------------------------------------------------------------------------
# Complex arrays: held, filled, converted; the ops without complex kernels refuse them.


@pytest.mark.parametrize("dtype", ["complex64", "c16", complex, np.complex64])
def test_complex_arrays_are_held_and_ops_that_compute_refuse_naming_op_and_type(dtype):
    name = str(mxffi.DataType(dtype))
    want = np.dtype(name)
    # What only allocates, zero-fills or copies bytes is right already.
    for made in (mnp.zeros(2, dtype=dtype), mnp.zeros_like(mnp.empty(2, dtype=dtype))):
        assert made.dtype == name
        host = np.from_dlpack(made)
        assert host.dtype == want and host.tolist() == [0j, 0j]
    src = np.array([1 + 2j, -3j], dtype=want)
    for made in (mnp.asarray(src), mnp.array(src), mnp.copy(mnp.asarray(src))):
        assert made.dtype == name and np.asarray(made).tolist() == src.tolist()
    assert mnp.asarray(src).tolist() == [1 + 2j, -3j]
    # Fills are written on the host: ones, full and eye make complex arrays.
    assert mnp.ones(2, dtype=dtype).tolist() == [1 + 0j, 1 + 0j]
    assert mnp.full(2, 1.5, dtype=dtype).tolist() == [1.5 + 0j, 1.5 + 0j]
    assert mnp.eye(2, dtype=dtype).tolist() == [[1 + 0j, 0j], [0j, 1 + 0j]]
    # astype, the elementwise arithmetic (test_np_complex.py), the reductions and the products
    # (test_np_complex_reduce.py) compute complex values; ops without complex kernels refuse
    # with numpy's TypeError, op and type named.
    x = mnp.asarray(src)
    assert mnp.ones(2).astype(dtype).tolist() == [1 + 0j, 1 + 0j]
    assert (x + x).tolist() == (src + src).tolist()
    assert mnp.dot(x, x).tolist() == np.dot(src, src) == -12 + 4j  # exact: small integers
    refusals = [
        ("arange", lambda: mnp.arange(3, dtype=dtype)),
        ("np.maximum", lambda: mnp.maximum(x, x)),
    ]
    for op, call in refusals:
        with pytest.raises(TypeError, match=rf"^{re.escape(op)}: unsupported dtype {name}(\n|$)"):
            call()


# ---------------------------------------------------------------------------------------------
# Printing, the value cell, pickling, devices.

CASES = [
    ("float32", (2, 32, 1)),
    ("float16", (2, 16, 1)),
    ("bfloat16", (4, 16, 1)),
    ("int8x4", (0, 8, 4)),
    ("uint64", (1, 64, 1)),
    ("complex64", (5, 64, 1)),
    ("complex128x2", (5, 128, 2)),
    ("bool", (6, 8, 1)),
]


@pytest.mark.parametrize("text,fields", CASES)
def test_dtype_parses_prints_and_round_trips(text, fields):
    d = mxffi.DataType(text)
    assert (d.code, d.bits, d.lanes) == fields
    assert str(d) == text
    back = t.echo(d)
    assert back == d and str(back) == text
    assert t.dtype_bits(d) == fields[1] * fields[2]  # bits times lanes, read in C++
    assert pickle.loads(pickle.dumps(d)) == d


def test_any_dlpack_type_prints_and_pickles():
    # A DLPack producer may hand over types the grammar does not read (float8, handles).
    f8 = mxffi._ffi._impl.dtype_from_fields(2, 8, 1)
    assert str(f8) == "float8" and hash(f8) == hash("float8")
    assert pickle.loads(pickle.dumps(f8)) == f8
    assert t.echo(f8) == f8
    with pytest.raises(TypeError, match="data type 'float8' not understood"):
        mxffi.DataType("float8")
    with pytest.raises(ValueError, match=r"lanes must be an int in \[0, 65536\), got 70000"):
        mxffi._ffi._impl.dtype_from_fields(2, 32, 70000)


def test_dtype_from_numpy_dtypes():
    assert mxffi.DataType(np.float64) == "float64"
    assert mxffi.DataType(np.dtype("int16")) == mxffi.DataType("int16")
    assert mxffi.DataType(np.bool_) == "bool"


def test_device_forms():
    assert mxffi.Device("cuda:1") == mxffi.Device("cuda", 1) == mxffi.Device(2, 1)
    d = t.echo(mxffi.Device("cpu"))
    assert (d.device_type, d.device_id, str(d)) == (1, 0, "cpu:0")
    with pytest.raises(ValueError, match="unknown device type 'tpu'"):
        mxffi.Device("tpu")
    with pytest.raises(ValueError, match="device_id must be >= 0, got -1"):
        mxffi.Device("cuda", -1)


def test_ctypes_core_reads_the_table_the_same_way():
    """The other core, in a child interpreter, gives every spelling the same reading."""
    script = (
        "import mxffi, mxffi.testing as t\n"
        "zeros = mxffi.get_global_func('np.zeros')\n"
        "assert mxffi._ffi.backend == 'ctypes'\n"
        "def read(s):\n"
        "    try:\n"
        "        return str(t.echo(mxffi.DataType(s)))\n"
        "    except TypeError as e:\n"
        "        return 'TypeError: ' + str(e)\n"
        f"print(repr([read(s) for s in {SPELLINGS!r}]))\n"
        "print(zeros(2, dtype=float).dtype, zeros(2, dtype=int).dtype)\n"
        "print(str(t.echo(mxffi.Device('cuda:1'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "MXFFI_FFI": "ctypes"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr

    def read(s):
        try:
            return str(t.echo(mxffi.DataType(s)))
        except TypeError as e:
            return "TypeError: " + str(e)

    lines = out.stdout.splitlines()
    assert lines[0] == repr([read(s) for s in SPELLINGS])
    assert lines[1:] == ["float64 int64", "cuda:1"]


def test_device_refuses_unknown_codes_and_truncation():
    with pytest.raises(ValueError, match=r"unknown DLPack device code 99"):
        mxffi.Device(99)
    with pytest.raises(TypeError, match=r"device_type must be a str or a DLPack device code"):
        mxffi.Device(1.5)
    with pytest.raises(TypeError, match=r"got NoneType None"):
        mxffi.Device(None)
    with pytest.raises(TypeError, match=r"device_id must be an int, got float 1\.5"):
        mxffi.Device("cpu", 1.5)
    with pytest.raises(ValueError, match=r"device_id 1099511627776 does not fit in int32"):
        mxffi.Device("cpu", 2**40)
    assert mxffi.Device(2, 1) == mxffi.Device("cuda:1")
