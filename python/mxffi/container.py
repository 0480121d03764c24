"""Containers returned from C++: Array (a Sequence), Map (a Mapping), ADT (a tagged tuple),
Shape (a tuple) and String (a str).

Python lists and tuples passed to a function become Arrays, dicts become Maps, and
mxffi.Shape becomes a Shape object; what comes back behaves like the Python type it mirrors.
"""

import operator
from collections.abc import Mapping, Sequence

from ._ffi import Object, Shape, get_global_func, register_object

__all__ = ["ADT", "Array", "Map", "Shape", "String"]

_array = get_global_func("container.array")
_array_size = get_global_func("container.array_size")
_array_get_item = get_global_func("container.array_get_item")
_map = get_global_func("container.map")
_map_size = get_global_func("container.map_size")
_map_get_item = get_global_func("container.map_get_item")
_map_contains = get_global_func("container.map_contains")
_map_items = get_global_func("container.map_items")
_adt = get_global_func("container.adt")
_adt_tag = get_global_func("container.adt_tag")
_adt_size = get_global_func("container.adt_size")
_adt_get_item = get_global_func("container.adt_get_item")


def _iterable(callee, what, value):
    """value as a tuple, or a TypeError naming callee when it is not iterable."""
    try:
        return tuple(value)
    except TypeError:
        raise TypeError(
            f"{callee}: {what} must be an iterable, got {type(value).__name__}"
        ) from None


class _SequenceMixin:
    """Sequence behaviour shared by Array and ADT, over _size/_get."""

    __slots__ = ()

    def __len__(self):
        return self._size(self)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._get(self, i) for i in range(*index.indices(len(self)))]
        n = len(self)
        try:
            i = operator.index(index)
        except TypeError:
            raise TypeError(
                f"{type(self).__name__} indices must be integers or slices, not "
                f"{type(index).__name__}"
            ) from None
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"{type(self).__name__} index {index} out of range for size {n}")
        return self._get(self, i)

    def __iter__(self):
        for i in range(len(self)):
            yield self._get(self, i)

    def __eq__(self, other):
        if isinstance(other, Object) and self.same_as(other):
            return True
        if isinstance(other, (Sequence, list, tuple)) and not isinstance(other, (str, bytes)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    # Equal by value like list and dict, so unhashable like them.
    __hash__ = None


@register_object("mxffi.Array")
class Array(_SequenceMixin, Object, Sequence):
    """An immutable sequence of values held by C++: mxffi.Array([1, "two", 3.0])."""

    _size = _array_size
    _get = _array_get_item

    def __new__(cls, items=()):
        return _array(*_iterable("mxffi.Array", "items", items))

    def __init__(self, items=()):
        pass  # built by __new__

    def __repr__(self):
        return f"mxffi.Array({list(self)!r})"


@register_object("mxffi.ADT")
class ADT(_SequenceMixin, Object, Sequence):
    """A tagged tuple (an algebraic data type value): mxffi.ADT(tag, [fields...])."""

    _size = _adt_size
    _get = _adt_get_item

    def __new__(cls, tag=0, fields=()):
        return _adt(tag, *_iterable("mxffi.ADT", "fields", fields))

    def __init__(self, tag=0, fields=()):
        pass  # built by __new__

    @property
    def tag(self):
        return _adt_tag(self)

    def __repr__(self):
        return f"mxffi.ADT(tag={self.tag}, fields={list(self)!r})"


@register_object("mxffi.Map")
class Map(Object, Mapping):
    """An immutable mapping held by C++, keeping insertion order: mxffi.Map({"a": 1})."""

    def __new__(cls, mapping=()):
        try:
            pairs = dict(mapping).items()
        except (TypeError, ValueError) as e:
            raise type(e)(
                f"mxffi.Map: expected a mapping or an iterable of (key, value) pairs, got "
                f"{type(mapping).__name__}: {e}"
            ) from None
        flat = []
        for k, v in pairs:
            flat.append(k)
            flat.append(v)
        return _map(*flat)

    def __init__(self, mapping=()):
        pass  # built by __new__

    def __len__(self):
        return _map_size(self)

    def __getitem__(self, key):
        if not _map_contains(self, key):
            raise KeyError(key)
        return _map_get_item(self, key)

    def __contains__(self, key):
        try:
            return bool(_map_contains(self, key))
        except TypeError:
            return False

    def __iter__(self):
        return iter(self.keys())

    def keys(self):
        return [k for k, _ in self.items()]

    def values(self):
        return [v for _, v in self.items()]

    def items(self):
        flat = _map_items(self)
        return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __eq__(self, other):
        if isinstance(other, Object) and self.same_as(other):
            return True
        if isinstance(other, Mapping):
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    # Equal by value like list and dict, so unhashable like them.
    __hash__ = None

    def __repr__(self):
        return f"mxffi.Map({dict(self.items())!r})"


class String(str):
    """A str that is passed to C++ as a String; C++ strings come back as plain str."""

    __slots__ = ()
