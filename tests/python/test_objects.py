"""mxffi objects on the Python side: identity, type keys, repr, attributes, what they refuse."""

import pickle

import pytest

import mxffi
import mxffi.testing as t


def test_type_key_and_index_of_returned_objects():
    m = t.make_containers()
    assert m.type_key == "mxffi.Map"
    assert m["array"].type_key == "mxffi.Array"
    assert m["adt"].type_key == "mxffi.ADT"
    assert t.add.type_key == "mxffi.Function"
    assert isinstance(m.type_index, int)
    assert m.type_index != m["array"].type_index


def test_registered_classes_wrap_their_type_keys():
    m = t.make_containers()
    assert type(m) is mxffi.Map
    assert type(m["array"]) is mxffi.Array
    assert type(m["adt"]) is mxffi.ADT
    assert mxffi.Array._type_key == "mxffi.Array"


def test_repr_of_array_map_adt_show_their_type_key():
    m = t.make_containers()
    assert repr(m["array"]) == "mxffi.Array([1, 'two', 3.0])"
    assert repr(m["adt"]) == "mxffi.ADT(tag=7, fields=[1, 'x'])"
    assert repr(m).startswith("mxffi.Map({'array': mxffi.Array([1, 'two', 3.0])")


def test_repr_of_an_unregistered_object_type_shows_its_type_key():
    err = t.make_error("ValueError", "returned")
    assert type(err) is mxffi.Object
    assert err.type_key == "mxffi.Error"
    assert repr(err).startswith("mxffi.Error")


def test_repr_of_library_object_shows_its_path():
    from mxffi._ffi import libinfo

    path = libinfo.find_lib("mxffi_testing")
    lib = mxffi.library.load(path)
    assert repr(lib).startswith(f"<mxffi.Library register_api {path}: ")
    assert lib.kind == "register_api" and "testing.add" in list(lib.names)
    assert "testing.add" in repr(lib)


def test_same_as_and_equality_follow_identity_of_the_cpp_object():
    a = t.echo([1, 2])
    b = t.echo(a)
    c = t.echo([1, 2])
    assert a.same_as(b) and b.same_as(a)
    assert not a.same_as(c)
    err = t.make_error("ValueError", "x")
    assert hash(err) == hash(t.echo(err))
    assert not a.same_as([1, 2])


def test_generic_objects_compare_by_identity():
    err = t.make_error("ValueError", "x")
    assert err == t.echo(err)
    assert err != t.make_error("ValueError", "x")
    assert err.same_as(t.echo(err))


def test_object_cannot_be_constructed_directly():
    with pytest.raises(TypeError) as info:
        mxffi.Object()
    assert str(info.value) == "Object objects are made by mxffi functions, not directly"


def test_object_cannot_be_pickled():
    with pytest.raises(TypeError) as info:
        pickle.dumps(t.echo([1]))
    assert str(info.value) == "cannot pickle mxffi.Array objects"


def test_value_types_pickle_round_trip():
    for value in (mxffi.DataType("int8x4"), mxffi.Device("cuda", 3)):
        assert pickle.loads(pickle.dumps(value)) == value


def test_missing_attribute_names_the_type_key():
    with pytest.raises(AttributeError) as info:
        t.echo([1]).no_such_field  # noqa: B018
    assert str(info.value) == "'Array' object (mxffi.Array) has no attribute 'no_such_field'"


def test_object_handle_is_nonzero_and_shared_by_same_objects():
    a = t.echo({"k": 1})
    assert a.handle != 0
    assert t.echo(a).handle == a.handle


def test_register_object_rejects_non_object_class():
    with pytest.raises(TypeError, match="is not a subclass of mxffi.Object"):
        mxffi.register_object("mxffi.Array")(int)


def test_register_object_unknown_type_key_raises():
    class Nothing(mxffi.Object):
        pass

    with pytest.raises(KeyError) as info:
        mxffi.register_object("no.SuchType")(Nothing)
    assert info.value.args == (
        "mxffi.register_object: MXFFITypeKey2Index: no type registered as 'no.SuchType'",
    )


def test_register_object_makes_returned_objects_instances_of_the_class():
    import mxffi.container as container

    class MyArray(container.Array):
        pass

    try:
        mxffi.register_object("mxffi.Array")(MyArray)
        out = t.echo([1, 2])
        assert type(out) is MyArray
        assert list(out) == [1, 2]
    finally:
        mxffi.register_object("mxffi.Array")(container.Array)
    assert type(t.echo([1])) is container.Array


def test_reflected_fields_read_as_attributes():
    p = t.make_point(1, 2.5, "origin")
    assert (p.x, p.y, p.label) == (1, 2.5, "origin")
    assert type(p.x) is int and type(p.y) is float
    assert p.type_key == "testing.Point"
    assert p._field_names() == ["x", "y", "label"]
    with pytest.raises(AttributeError, match="testing.Point.*'z'"):
        _ = p.z


def test_repr_shows_type_key_and_fields():
    assert repr(t.make_point(3, -4.0, "q")) == "testing.Point(x=3, y=-4.0, label='q')"
    err = t.make_error("KeyError", "no such key")
    assert repr(err) == "mxffi.Error(kind='KeyError', message='no such key')"
    assert (err.kind, err.message) == ("KeyError", "no such key")


def test_register_object_maps_a_type_key_to_a_python_class():
    @mxffi.register_object("testing.Point")
    class Point(mxffi.Object):
        def manhattan(self):
            return abs(self.x) + abs(self.y)

    p = t.make_point(3, -4.0)
    assert type(p) is Point
    assert p.manhattan() == 7.0
    back = t.echo(p)
    assert type(back) is Point and back.same_as(p)
    with pytest.raises(TypeError, match="not a subclass of mxffi.Object"):
        mxffi.register_object("testing.Point")(int)
    with pytest.raises(KeyError):
        mxffi.register_object("no.SuchType")(type("X", (mxffi.Object,), {}))


def test_a_storage_type_a_core_does_not_know_is_an_opaque_sparse_array(monkeypatch):
    """c_api.h's rule for a storage type added in a minor version (coo, 3, in 1.7): a reader
    that does not know the value wraps the array as an opaque sparse array. The ctypes core,
    made to know only 1.6's storage types, meets a real coo array."""
    from mxffi import _ffi

    impl = _ffi._impl
    assert _ffi.STORAGE_COO == 3
    if not hasattr(impl, "_KNOWN_SPARSE"):
        pytest.skip("the Cython core's storage types are compiled in (test_sparse.py: stype 7)")
    from mxffi._ffi.ctypes_ndarray import NDArray

    class Coo(NDArray):
        pass

    class Opaque(NDArray):
        pass

    monkeypatch.setattr(impl, "_SPARSE_CLASS", {})
    impl.register_sparse_class(impl.STORAGE_COO, Coo)
    impl.register_sparse_class(None, Opaque)
    zeros = mxffi.get_global_func("sparse._zeros")
    assert type(zeros("coo", (2, 3))) is Coo
    monkeypatch.setattr(impl, "_KNOWN_SPARSE", (impl.STORAGE_ROW_SPARSE, impl.STORAGE_CSR))
    assert type(zeros("coo", (2, 3))) is Opaque
    assert type(zeros("csr", (2, 3))) is NDArray  # known, no class registered for it
