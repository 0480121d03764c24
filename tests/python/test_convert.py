"""Python values crossing into C++ and back: every row of the conversion table through
testing.echo, the int64 limits, strings and bytes at the small-string boundary, nesting."""

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import pytest

import mxffi
import mxffi.testing as t

INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)


# ---------------------------------------------------------------------------------------------
# Scalars


@pytest.mark.parametrize(
    "value",
    [None, True, False, 0, 1, -1, INT64_MAX, INT64_MIN, 0.0, -0.5, 1.5e300, 5e-324],
    ids=repr,
)
def test_scalar_round_trip_keeps_value_and_type(value):
    out = t.echo(value)
    assert out == value
    assert type(out) is type(value)


@pytest.mark.parametrize("value", [True, False])
def test_bool_stays_bool(value):
    out = t.echo(value)
    assert type(out) is bool
    assert out is value


def test_bool_argument_reaches_cpp_as_bool():
    # sum3 adds 1 for a true flag: a bool must arrive as a bool, not be dropped or misread.
    assert t.sum3(1, 0.5, True) == 2.5
    assert t.sum3(1, 0.5, False) == 1.5


def test_negative_zero_keeps_its_sign():
    out = t.echo(-0.0)
    assert out == 0.0
    assert math.copysign(1.0, out) == -1.0


def test_nan_round_trips():
    out = t.echo(float("nan"))
    assert type(out) is float
    assert math.isnan(out)


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_infinities_round_trip(value):
    assert t.echo(value) == value
    assert t.add_float(value, 1.0) == value


def test_int_limits_are_accepted_by_a_typed_function():
    assert t.add(INT64_MAX - 1, 1) == INT64_MAX
    assert t.add(INT64_MIN + 1, -1) == INT64_MIN
    assert t.add(INT64_MAX, INT64_MIN) == -1


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: t.add(INT64_MAX + 1, 0), "testing.add: argument #0 'a'"),
        (lambda: t.add(0, INT64_MAX + 1), "testing.add: argument #1 'b'"),
        (lambda: t.add(INT64_MIN - 1, 0), "testing.add: argument #0 'a'"),
        (lambda: t.add(0, b=INT64_MIN - 1), "testing.add: argument #1 'b'"),
        (lambda: t.echo(1 << 64), "testing.echo: argument #0 'x'"),
        (lambda: t.echo(1 << 100), "testing.echo: argument #0 'x'"),
    ],
    ids=["a>max", "b>max", "a<min", "b<min(kw)", "echo-2**64", "echo-2**100"],
)
def test_int_one_past_int64_raises_overflow_naming_function_and_argument(call, needle):
    with pytest.raises(OverflowError) as info:
        call()
    message = str(info.value)
    assert message.startswith(needle), message
    assert "does not fit in int64" in message


def test_overflow_message_carries_the_value():
    with pytest.raises(OverflowError, match=str(INT64_MAX + 1)):
        t.add(INT64_MAX + 1)
    with pytest.raises(OverflowError, match=str(INT64_MIN - 1)):
        t.add(INT64_MIN - 1)


def test_overflow_inside_cpp_is_an_mxffi_overflow_error():
    with pytest.raises(OverflowError) as info:
        t.add(INT64_MAX, 1)
    assert isinstance(info.value, mxffi.MXFFIError)
    assert str(info.value) == f"testing.add: {INT64_MAX} + 1 overflows int64"


def test_int_subclass_is_passed_as_int():
    import enum

    class Color(enum.IntEnum):
        RED = 3

    assert t.add(Color.RED, 4) == 7
    out = t.echo(Color.RED)
    assert out == 3 and type(out) is int


def test_int_subclass_past_int64_raises_overflow():
    import enum

    class Big(enum.IntEnum):
        HUGE = 1 << 64

    with pytest.raises(
        OverflowError, match=r"testing.add: argument #1 'b' value 18446744073709551616"
    ):
        t.add(1, Big.HUGE)


def test_float_subclass_is_passed_as_float():
    class Meters(float):
        pass

    out = t.echo(Meters(2.5))
    assert out == 2.5 and type(out) is float


def test_int_to_a_float_parameter_is_widened():
    assert t.add_float(1, 2) == 3.0
    assert type(t.add_float(1, 2)) is float


@pytest.mark.parametrize("bad", [1.5, "1", b"1", None, [1]], ids=repr)
def test_wrong_type_for_int_parameter_names_argument_and_types(bad):
    with pytest.raises(TypeError) as info:
        t.add(bad)
    message = str(info.value)
    assert message.startswith("testing.add: argument #0 'a' expected int, got "), message


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (np.int64(5), 5),
        (np.int32(-7), -7),
        (np.uint8(200), 200),
    ],
    ids=["int64", "int32", "uint8"],
)
def test_numpy_integer_scalars_pass_as_int(value, expected):
    # A numpy scalar is a number, not a 0-d tensor: it implements __index__.
    assert t.add(value, 0) == expected
    out = t.echo(value)
    assert out == expected and type(out) is int


def test_numpy_float_scalars_pass_as_float():
    assert t.add_float(np.float32(1.5), 1.0) == 2.5
    assert t.add_float(np.float64(1.5), 1.0) == 2.5
    out = t.echo(np.float16(0.5))
    assert out == 0.5 and type(out) is float


def test_numpy_bool_passes_as_bool():
    out = t.echo(np.bool_(True))
    assert out is True


@pytest.mark.parametrize("value", [object(), {1, 2}, range(3)], ids=["object", "set", "range"])
def test_unconvertible_value_names_function_argument_and_type(value):
    with pytest.raises(TypeError) as info:
        t.echo(value)
    tp = type(value)
    assert str(info.value) == (
        f"testing.echo: argument #0 'x' has type {tp.__module__}.{tp.__qualname__}, "
        "which mxffi cannot pass to C++"
    )


# ---------------------------------------------------------------------------------------------
# Strings and bytes (7 bytes fit in a small string, 8 do not)


STRINGS = {
    "empty": "",
    "len7": "abcdefg",
    "len8": "abcdefgh",
    "long": "x" * 1000,
    "non-ascii": "héllo, wörld € 😀",
    "non-ascii-7-bytes": "é" * 3 + "a",  # 7 UTF-8 bytes
    "non-ascii-8-bytes": "é" * 4,  # 8 UTF-8 bytes
    "embedded-nul": "a\0b",
    "nul-8": "\0" * 8,
}


@pytest.mark.parametrize("value", list(STRINGS.values()), ids=list(STRINGS))
def test_str_round_trip(value):
    out = t.echo(value)
    assert out == value
    assert type(out) is str


@pytest.mark.parametrize("value", list(STRINGS.values()), ids=list(STRINGS))
def test_str_reaches_cpp_as_utf8_with_its_length(value):
    assert t.str_len(value) == len(value.encode("utf-8"))


@pytest.mark.parametrize("value", list(STRINGS.values()), ids=list(STRINGS))
def test_text_results_of_typed_functions(value):
    # A typed std::string_view or std::string result: inline up to 7 bytes, in the buffer the
    # call lends up to 255 bytes (no String made), a String past that; the same text each way.
    assert t.echo_text(value) == value
    assert t.echo_text(s=value) == value  # the keyword path
    assert t.repeat_text(value, 3) == value * 3
    assert type(t.echo_text(value)) is str


def test_text_results_at_the_lent_buffer_size():
    for n in [7, 8, 9, 254, 255, 256, 257, 4096]:
        for unit in ["a", "é", "€", "😀", "\0"]:
            s = (unit * n)[: max(1, n // len(unit.encode("utf-8")))]
            assert t.echo_text(s) == s, (n, unit)
            assert t.repeat_text(s, 2) == s + s, (n, unit)
    with pytest.raises(ValueError, match="testing.repeat_text: n must be >= 0, got -1"):
        t.repeat_text("x" * 20, -1)


def test_a_callee_that_writes_no_result_returns_none():
    # A Python callback returning None (called with one argument and with four), and a typed
    # C++ function without a result. Text results (testing.echo_text above) take the slot that
    # lends a buffer, where a callee writing nothing leaves the loan: tests/cpp/test_function.cc.
    mxffi.register_func("testing_py.none_of", lambda *args: None, override=True)
    f = mxffi.get_global_func("testing_py.none_of")
    assert f("twelve bytes") is None
    assert f("twelve bytes", 1, 2.5, "x") is None
    assert t.nop() is None


def test_str_concat_in_cpp():
    assert t.concat("ab\0", "é" * 5) == "ab\0ééééé"
    assert t.concat("", "") == ""


@pytest.mark.parametrize("func", [t.echo, t.str_len], ids=["echo", "str_len"])
def test_lone_surrogate_raises_unicode_encode_error(func):
    with pytest.raises(UnicodeEncodeError) as info:
        func("ok\ud800")
    assert info.value.encoding == "utf-8"
    assert info.value.object[info.value.start] == "\ud800"
    assert "surrogates not allowed" in str(info.value)


BYTES = {
    "empty": b"",
    "len7": b"1234567",
    "len8": b"12345678",
    "long": bytes(range(256)) * 4,
    "nuls": b"\0\0a\0",
    "nul-8": b"\0" * 8,
}


@pytest.mark.parametrize("value", list(BYTES.values()), ids=list(BYTES))
def test_bytes_round_trip(value):
    out = t.echo(value)
    assert out == value
    assert type(out) is bytes


def test_bytearray_is_passed_as_bytes():
    out = t.echo(bytearray(b"a\0bcdefghij"))
    assert out == b"a\0bcdefghij"
    assert type(out) is bytes


def test_bytes_subclass_is_passed_as_bytes():
    class Blob(bytes):
        pass

    out = t.echo(Blob(b"\0blob\0\0\0\0"))
    assert out == b"\0blob\0\0\0\0" and type(out) is bytes


@pytest.mark.parametrize("value", ["", "short", "a longer mxffi.String", "é\0é"], ids=repr)
def test_mxffi_string_is_a_str_and_comes_back_as_str(value):
    s = mxffi.String(value)
    assert isinstance(s, str)
    assert t.str_len(s) == len(value.encode("utf-8"))
    out = t.echo(s)
    assert out == value
    assert type(out) is str


def test_str_subclass_with_lone_surrogate_raises_unicode_encode_error():
    with pytest.raises(UnicodeEncodeError):
        t.echo(mxffi.String("\ud800"))


# ---------------------------------------------------------------------------------------------
# Containers


@pytest.mark.parametrize(
    "value",
    [[], [1, "two", 3.0, None, True, b"b"], (), (1, "x"), ["a" * 20, b"b" * 20]],
    ids=["empty-list", "mixed-list", "empty-tuple", "tuple", "long-str-items"],
)
def test_list_and_tuple_come_back_as_array_equal_elementwise(value):
    out = t.echo(value)
    assert type(out) is mxffi.Array
    assert isinstance(out, Sequence)
    assert len(out) == len(value)
    assert list(out) == list(value)
    for got, want in zip(out, value, strict=True):
        assert type(got) is type(want)


def test_int_tuples_in_consecutive_calls_each_arrive_whole():
    # The Cython core reuses the Array a tuple of ints travelled in once nothing holds it: each
    # call must see its own items and length.
    size = mxffi.get_global_func("container.array_size")
    get = mxffi.get_global_func("container.array_get_item")
    for items in [(7, 8, 9), (4,), (), [1, 2, 3, 4, 5, 6, 7, 8], (-(2**63), 2**63 - 1)]:
        assert size(items) == len(items)
        for i, v in enumerate(items):
            assert get(items, i) == v
        if items:
            assert get(items, -1) == items[-1]


def test_int_tuple_kept_by_the_callee_is_not_overwritten_by_the_next_call():
    kept = t.echo((1, 2))
    kept_list = t.echo([3])
    both = mxffi.get_global_func("container.array")((4, 5), (6,))
    t.echo((9, 9, 9))
    mxffi.get_global_func("container.array_size")((10, 11, 12, 13))
    assert list(kept) == [1, 2]
    assert list(kept_list) == [3]
    assert [list(x) for x in both] == [[4, 5], [6]]


def test_int_tuple_after_a_failed_call_arrives_whole():
    get = mxffi.get_global_func("container.array_get_item")
    with pytest.raises(IndexError, match="index 5 out of range for size 2"):
        get((1, 2), 5)
    assert get((3, 4, 5), 2) == 5


def test_dict_comes_back_as_map_equal_as_a_mapping():
    value = {"a": 1, "b": "two", "c": 3.0, 4: None}
    out = t.echo(value)
    assert type(out) is mxffi.Map
    assert isinstance(out, Mapping)
    assert out == value
    assert dict(out.items()) == value
    assert out["a"] == 1 and out[4] is None


def test_empty_dict_comes_back_as_empty_map():
    out = t.echo({})
    assert type(out) is mxffi.Map
    assert len(out) == 0
    assert out == {}


def test_nested_containers_round_trip():
    value = {"xs": [1, [2, (3, 4)], {"y": [5.5, "z"]}], "t": ("a", ("b",)), "e": []}
    out = t.echo(value)
    assert type(out) is mxffi.Map
    assert type(out["xs"]) is mxffi.Array
    assert type(out["xs"][1][1]) is mxffi.Array
    assert type(out["xs"][2]) is mxffi.Map
    assert out["xs"][2]["y"][1] == "z"
    assert out["t"][1][0] == "b"
    assert out == {"xs": [1, [2, [3, 4]], {"y": [5.5, "z"]}], "t": ["a", ["b"]], "e": []}


def test_deeply_nested_list_round_trips():
    value = 0
    for _ in range(50):
        value = [value]
    out = t.echo(value)
    for _ in range(50):
        assert type(out) is mxffi.Array and len(out) == 1
        out = out[0]
    assert out == 0


def test_container_with_unconvertible_item_raises_type_error():
    with pytest.raises(TypeError, match="builtins.object, which mxffi cannot pass to C"):
        t.echo([1, object()])


def test_container_with_out_of_range_int_raises_overflow_error():
    with pytest.raises(OverflowError, match=str(1 << 64)):
        t.echo({"k": [1 << 64]})


@pytest.mark.parametrize("value", [INT64_MAX + 1, (1 << 64) - 1, 12345678901234567890])
def test_ints_past_int64_that_fit_uint64_travel_as_uint64(value):
    # 2**63 to 2**64 - 1 travel as kMXFFIUInt64: they come back whole, inside containers too,
    # and a function taking int64 refuses them by name
    assert t.echo(value) == value
    assert t.echo([value, 1]) == [value, 1] and t.echo({"k": value})["k"] == value
    with pytest.raises(OverflowError) as e:
        t.add(value, 1)
    assert str(e.value).splitlines()[0] == (
        f"testing.add: argument #0 'a' value {value} does not fit in int64"
    )


# ---------------------------------------------------------------------------------------------
# Shape, DataType, Device


@pytest.mark.parametrize("dims", [(), (0,), (2, 3), (1, 2, 3, 4, 5, 6, 7, 8), (INT64_MAX,)])
def test_shape_comes_back_as_shape_a_tuple_subclass(dims):
    out = t.echo(mxffi.Shape(dims))
    assert type(out) is mxffi.Shape
    assert isinstance(out, tuple)
    assert out == dims
    assert repr(out) == f"mxffi.Shape({dims!r})"


def test_shape_dimension_past_int64_names_the_function():
    with pytest.raises(OverflowError) as info:
        t.echo(mxffi.Shape([1 << 63]))
    assert str(info.value).startswith("testing.echo: argument #0 'x'"), str(info.value)


@pytest.mark.parametrize("text", ["float32", "float64", "int8", "uint16", "bool", "int8x4"])
def test_datatype_round_trips_equal(text):
    dtype = mxffi.DataType(text)
    out = t.echo(dtype)
    assert type(out) is mxffi.DataType
    assert out == dtype
    assert str(out) == text


def test_datatype_reaches_cpp_with_its_bits_and_lanes():
    assert t.dtype_bits(mxffi.DataType("float32")) == 32
    assert t.dtype_bits(mxffi.DataType("int8x4")) == 32
    assert t.dtype_bits(mxffi.DataType(np.float16)) == 16


def test_datatype_fields():
    dtype = mxffi.DataType("float32")
    assert (dtype.code, dtype.bits, dtype.lanes) == (2, 32, 1)
    assert dtype == "float32"
    assert dtype != "float64"
    assert repr(dtype) == "mxffi.DataType('float32')"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("floaty", "data type 'floaty' not understood; expected a numpy type name"),
        ("float32x0", "data type 'float32x0' has a lane count out of range; expected 1 to 65535"),
        ("int300", "data type 'int300' not understood"),
    ],
)
def test_datatype_bad_text_raises_type_error(text, needle):
    # numpy's class for a spelling it cannot read (test_dtype.py has the whole grammar).
    with pytest.raises(TypeError, match=re.escape("mxffi.DataType: " + needle)):
        mxffi.DataType(text)


@pytest.mark.parametrize(
    ("device", "expected"),
    [(mxffi.Device("cpu", 0), ("cpu", 0)), (mxffi.Device("cuda:1"), ("cuda", 1))],
    ids=["cpu0", "cuda1"],
)
def test_device_round_trips_equal(device, expected):
    out = t.echo(device)
    assert type(out) is mxffi.Device
    assert out == device
    assert (out.type, out.device_id) == expected


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("foo",), "mxffi.Device: unknown device type 'foo'"),
        (("cpu", -1), "mxffi.Device: device_id must be >= 0, got -1"),
        (("cuda:x",), "mxffi.Device: cannot parse 'cuda:x'"),
        # Digits other than ASCII ones pass str.isdigit() but name no device id.
        (("cpu:\u0663",), "mxffi.Device: cannot parse 'cpu:\u0663'"),
        (("cuda:\u00b2",), "mxffi.Device: cannot parse 'cuda:\u00b2'"),
    ],
)
def test_device_bad_arguments_raise_value_error(args, needle):
    with pytest.raises(ValueError, match=re.escape(needle)):
        mxffi.Device(*args)


# ---------------------------------------------------------------------------------------------
# Functions and objects


def test_mxffi_function_comes_back_as_a_callable_function():
    out = t.echo(t.add)
    assert isinstance(out, mxffi.Function)
    assert out.same_as(t.add)
    assert out(3, 4) == 7


def test_python_callable_comes_back_as_a_callable_function():
    out = t.echo(lambda x, y: f"{x}-{y}")
    assert isinstance(out, mxffi.Function)
    assert out("a", 2) == "a-2"


def test_cpp_closure_is_a_callable_function():
    adder = t.make_adder(5)
    assert isinstance(adder, mxffi.Function)
    assert adder(37) == 42
    assert t.echo(adder)(1) == 6


@pytest.mark.parametrize(
    "make",
    [lambda: t.echo([1, 2]), lambda: t.echo({"a": 1}), lambda: t.make_containers()["adt"]],
    ids=["Array", "Map", "ADT"],
)
def test_mxffi_object_comes_back_as_the_same_object(make):
    obj = make()
    out = t.echo(obj)
    assert type(out) is type(obj)
    assert out.same_as(obj)
    assert out.handle == obj.handle
