"""Containers returned from C++: Array as a Sequence, Map as a Mapping, ADT, Shape, String."""

from collections.abc import Mapping, Sequence

import pytest

import mxffi
import mxffi.testing as t


@pytest.fixture
def containers():
    return t.make_containers()


# ---------------------------------------------------------------------------------------------
# make_containers


def test_make_containers_returns_the_documented_map(containers):
    assert type(containers) is mxffi.Map
    assert list(containers.keys()) == ["array", "shape", "adt"]
    assert containers["array"] == [1, "two", 3.0]
    assert containers["shape"] == (2, 3)
    adt = containers["adt"]
    assert type(adt) is mxffi.ADT
    assert adt.tag == 7
    assert list(adt) == [1, "x"]


# ---------------------------------------------------------------------------------------------
# Array


def test_array_is_a_sequence(containers):
    arr = containers["array"]
    assert isinstance(arr, Sequence)
    assert len(arr) == 3
    assert arr[0] == 1 and type(arr[0]) is int
    assert arr[1] == "two" and type(arr[1]) is str
    assert arr[2] == 3.0 and type(arr[2]) is float


def test_array_negative_index(containers):
    arr = containers["array"]
    assert arr[-1] == 3.0
    assert arr[-3] == 1


@pytest.mark.parametrize("index", [3, -4, 100])
def test_array_index_out_of_range_raises_index_error(containers, index):
    with pytest.raises(IndexError) as info:
        containers["array"][index]
    assert str(info.value) == f"Array index {index} out of range for size 3"


def test_array_index_of_wrong_type_raises_type_error(containers):
    with pytest.raises(TypeError):
        containers["array"][1.0]
    with pytest.raises(TypeError):
        containers["array"]["1"]


def test_array_index_accepts_index_types(containers):
    import numpy as np

    assert containers["array"][np.int64(1)] == "two"


def test_array_slices(containers):
    arr = t.echo([0, 1, 2, 3, 4])
    assert arr[1:3] == [1, 2]
    assert arr[::-2] == [4, 2, 0]
    assert arr[10:] == []


def test_array_iteration_and_sequence_mixins(containers):
    arr = containers["array"]
    assert list(arr) == [1, "two", 3.0]
    assert list(reversed(arr)) == [3.0, "two", 1]
    assert "two" in arr and "three" not in arr
    assert arr.index("two") == 1
    assert arr.count(1) == 1


def test_array_equality_with_lists_and_tuples():
    arr = t.echo([1, "x", [2]])
    assert arr == [1, "x", [2]]
    assert arr == (1, "x", (2,))
    assert arr != [1, "x", [3]]
    assert arr != [1, "x"]
    assert arr != "1x"


def test_not_equal_is_the_negation_of_equal_for_containers():
    # != must agree with == where == compares by value, not fall back to identity.
    arr, m, adt = t.echo([1, "x"]), t.echo({"k": 1}), mxffi.ADT(3, [1, "y"])
    assert not (arr != [1, "x"]) and not (arr != (1, "x"))
    assert not (arr != t.echo([1, "x"]))
    assert not (m != {"k": 1}) and not (m != t.echo({"k": 1}))
    assert not (adt != [1, "y"])
    assert arr != [1, "y"] and m != {"k": 2} and adt != [1]
    point = t.make_point(1, 2.0)
    assert not (point != point) and point != t.make_point(1, 2.0)


def test_containers_compare_by_value_so_are_unhashable():
    # a == b must imply hash(a) == hash(b); like list and dict, value-equal containers opt out.
    a, b = t.echo([1, "x"]), t.echo([1, "x"])
    assert a == b and not a.same_as(b)
    m1, m2 = t.echo({"k": 1}), t.echo({"k": 1})
    assert m1 == m2
    for c in (a, m1):
        with pytest.raises(TypeError, match="unhashable"):
            hash(c)


def test_empty_array():
    arr = t.echo([])
    assert len(arr) == 0
    assert list(arr) == []
    with pytest.raises(IndexError):
        arr[0]


def test_array_constructor_builds_an_array():
    arr = mxffi.Array([1, "two", 3.0])
    assert type(arr) is mxffi.Array
    assert list(arr) == [1, "two", 3.0]


# ---------------------------------------------------------------------------------------------
# Map


def test_map_is_a_mapping(containers):
    assert isinstance(containers, Mapping)
    assert len(containers) == 3
    assert set(containers) == {"array", "shape", "adt"}
    assert "array" in containers and "nope" not in containers


def test_map_keys_values_items_keep_insertion_order():
    m = t.echo({"z": 1, "a": 2, "m": 3})
    assert list(m.keys()) == ["z", "a", "m"]
    assert list(m.values()) == [1, 2, 3]
    assert list(m.items()) == [("z", 1), ("a", 2), ("m", 3)]
    assert list(m) == ["z", "a", "m"]


def test_map_missing_key_raises_key_error(containers):
    with pytest.raises(KeyError) as info:
        containers["nope"]
    assert info.value.args == ("nope",)


def test_map_key_of_other_type_is_missing():
    m = t.echo({"a": 1, 2: "b"})
    assert m[2] == "b"
    with pytest.raises(KeyError):
        m[3]
    with pytest.raises(KeyError):
        m["2"]
    assert 2.5 not in m
    assert [] not in m


def test_map_get_with_default():
    m = t.echo({"a": None})
    assert m.get("a", 5) is None
    assert m.get("b", 5) == 5
    assert m.get("b") is None


def test_map_equality_with_dicts():
    m = t.echo({"a": 1, "b": [1, 2]})
    assert m == {"a": 1, "b": [1, 2]}
    assert m == {"b": [1, 2], "a": 1}
    assert m != {"a": 1}
    assert m != {"a": 1, "b": [1, 3]}


def test_map_constructor_builds_a_map():
    m = mxffi.Map({"a": 1, "b": "two"})
    assert type(m) is mxffi.Map
    assert dict(m.items()) == {"a": 1, "b": "two"}


# ---------------------------------------------------------------------------------------------
# ADT, Shape, String


def test_adt_is_a_sequence_with_a_tag(containers):
    adt = containers["adt"]
    assert isinstance(adt, Sequence)
    assert len(adt) == 2
    assert adt[-1] == "x"
    with pytest.raises(IndexError, match="ADT index 2 out of range for size 2"):
        adt[2]


def test_adt_constructor_builds_an_adt():
    adt = mxffi.ADT(3, [1, "y"])
    assert type(adt) is mxffi.ADT
    assert adt.tag == 3
    assert list(adt) == [1, "y"]


def test_shape_is_a_tuple(containers):
    shape = containers["shape"]
    assert type(shape) is mxffi.Shape
    assert isinstance(shape, tuple)
    assert shape == (2, 3)
    assert shape[-1] == 3
    assert len(shape) == 2
    a, b = shape
    assert (a, b) == (2, 3)


def test_shape_converts_dims_to_int():
    shape = mxffi.Shape([2.0, 3])
    assert shape == (2, 3)
    assert all(type(d) is int for d in shape)
    with pytest.raises(TypeError):
        mxffi.Shape(["x"])


def test_string_is_a_str():
    s = mxffi.String("abc")
    assert isinstance(s, str)
    assert s == "abc"
    assert s.upper() == "ABC"


def test_constructors_name_themselves_for_what_is_not_iterable():
    with pytest.raises(TypeError, match=r"^mxffi\.Array: items must be an iterable, got int$"):
        mxffi.Array(3)
    with pytest.raises(TypeError, match=r"^mxffi\.ADT: fields must be an iterable, got int$"):
        mxffi.ADT(0, 3)
    with pytest.raises(TypeError, match=r"^mxffi\.Map: expected a mapping .* got int"):
        mxffi.Map(3)


def test_adt_tag_errors_name_container_adt_and_the_tag():
    with pytest.raises(TypeError, match=r"^container\.adt: the tag expected an int, got str"):
        mxffi.ADT("x", [1])
    with pytest.raises(OverflowError, match=r"the tag 1099511627776 does not fit in int32"):
        mxffi.ADT(2**40, [1])


def test_shape_refuses_what_it_would_truncate():
    # int() used to turn 1.5 into 1 and "2" into 2 without a word.
    with pytest.raises(TypeError, match=r"dimension 1 must be an int, got float 1\.5"):
        mxffi.Shape((2, 1.5))
    with pytest.raises(TypeError, match=r"dimension 0 must be an int, got str '2'"):
        mxffi.Shape(("2",))
    assert mxffi.Shape((2, -1)) == (2, -1)  # -1 is reshape's unknown dimension
