"""The argument kinds of mxffi's C++ functions, and the annotations their signatures show.

A typed C++ body names what each argument may be (``mxffi/api/arg_types.h``): a shape, a dtype,
a device, an array, a number. ``registry.function_info`` reports those names ("ShapeLike",
"Optional[ScalarLike]", "mxffi.NDArray") and :func:`annotation` turns each into what
``inspect.signature`` and ``help()`` show:

    >>> inspect.signature(mxffi.np.zeros)
    <Signature (shape: ShapeLike, dtype: DTypeLike = None, device: DeviceLike = None)
     -> mxffi.NDArray>

The annotations are real Python objects, not strings:

- C++ scalars and strings are Python's own types (``int64_t`` -> ``int``, ``double`` ->
  ``float``, ``std::string_view`` -> ``str``), containers and objects their mxffi classes
  (``mxffi.Array``, ``mxffi.NDArray``, ...), ``Optional<T>`` is ``T | None``, and a result
  that is one of several types (``Union[mxffi.NDArray, mxffi.ADT]``) is their union.
- An argument kind is an :class:`ArgKind` named as in C++, whose ``__value__`` is the
  ``typing`` union of what it accepts (as ``typing.TypeAliasType`` has it), and whose
  ``__doc__`` says what it checks. They are importable from here, so ``mxffi.typing.ShapeLike``
  is the kind a signature shows.
- A type name nothing here knows (a library's own kind) stays the string C++ gave.
"""

from collections.abc import Sequence
from typing import Any, Literal, Protocol, SupportsIndex

from ._ffi import DataType, Device, Function, Object
from .container import ADT, Array, Map, Shape
from .ndarray import NDArray

__all__ = [
    "ArgKind",
    "ArrayLike",
    "ArrayOrNumber",
    "ArrayOrScalar",
    "AxisLike",
    "DTypeLike",
    "DTypeKind",
    "DTypeOrArray",
    "DeviceLike",
    "IntTupleLike",
    "NDArrayLike",
    "ScalarLike",
    "ShapeLike",
    "StorageTypeLike",
    "SupportsBuffer",
    "SupportsDLPack",
    "TensordotAxes",
    "NormOrder",
    "WritableArray",
    "annotation",
]


class SupportsDLPack(Protocol):
    """An object that exports a tensor through DLPack (numpy, PyTorch, CuPy, JAX arrays)."""

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any: ...

    def __dlpack_device__(self) -> tuple[int, int]: ...


class SupportsBuffer(Protocol):
    """An object that exports its memory through the buffer protocol (PEP 688)."""

    def __buffer__(self, flags: int) -> memoryview: ...


class ArgKind:
    """An argument kind of mxffi's C++ functions, as a signature's annotation shows it.

    ``__name__`` is the C++ name (what ``repr`` and ``inspect.signature`` print), ``__value__``
    the ``typing`` union of the Python values it accepts, ``__doc__`` what it checks.
    """

    def __init__(self, name, value, doc):
        self.__name__ = name
        self.__qualname__ = name
        self.__value__ = value
        self.__doc__ = doc

    def __repr__(self):
        return self.__name__

    def __reduce__(self):
        return self.__name__


_INTS = SupportsIndex | Sequence[SupportsIndex] | Shape
_ARRAY = NDArray | SupportsDLPack | SupportsBuffer
_SCALAR = bool | int | float

IntTupleLike = ArgKind(
    "IntTupleLike", _INTS, "An int, a sequence of ints (bools count as ints) or a Shape."
)
ShapeLike = ArgKind(
    "ShapeLike",
    _INTS,
    "A shape: an int, a sequence of ints or a Shape, at most 32 extents, none negative "
    "(ValueError).",
)
AxisLike = ArgKind(
    "AxisLike",
    SupportsIndex | Sequence[SupportsIndex] | None,
    "None (every axis), an int, or a sequence of ints.",
)
DTypeLike = ArgKind(
    "DTypeLike",
    str | DataType | type | None,
    "None (the function's default), a DataType, or a name the C++ dtype parser reads "
    "('float32', 'f4', ...; TypeError for one it does not know). numpy dtypes and scalar types "
    "become DataType on the way in.",
)
DTypeOrArray = ArgKind(
    "DTypeOrArray",
    str | DataType | type | NDArray | SupportsDLPack | SupportsBuffer,
    "A data type (as DTypeLike, not None), or an array standing for its data type.",
)
DTypeKind = ArgKind(
    "DTypeKind",
    DataType | str | tuple[DataType | str, ...],
    "A DataType, a kind name ('bool', 'signed integer', 'unsigned integer', 'integral', "
    "'real floating', 'complex floating', 'numeric') or a tuple of them.",
)
DeviceLike = ArgKind(
    "DeviceLike",
    str | Device | tuple[int, int] | None,
    "None (the function's default), a Device, a name ('cpu', 'cpu:0', 'cuda', 'cuda:1') or a "
    "DLPack (device_type, device_id) pair; only the CPU and CUDA are supported "
    "(NotImplementedError for another device type).",
)
ScalarLike = ArgKind("ScalarLike", _SCALAR, "A Python number: bool, int or float.")
NDArrayLike = ArgKind(
    "NDArrayLike",
    _ARRAY,
    "An mxffi ndarray (any storage type), or an object that lends a tensor for the call: a "
    "numpy array, a DLPack producer, a buffer.",
)
ArrayOrScalar = ArgKind(
    "ArrayOrScalar", _ARRAY | _SCALAR, "An array (as NDArrayLike) or a Python number."
)
ArrayOrNumber = ArgKind(
    "ArrayOrNumber",
    _ARRAY | _SCALAR | complex,
    "An array (as NDArrayLike) or a Python number, complex included: an elementwise operand.",
)
ArrayLike = ArgKind(
    "ArrayLike",
    _ARRAY | _SCALAR | Sequence[Any],
    "What numpy's array() takes: an array, a Python number, or nested sequences of numbers "
    "of one rectangular shape.",
)
WritableArray = ArgKind(
    "WritableArray",
    NDArray,
    "An mxffi ndarray the function writes into: not a lent tensor (a numpy array is read "
    "through a borrowed view), not read-only.",
)
StorageTypeLike = ArgKind(
    "StorageTypeLike", Literal["default", "csr", "row_sparse"], "A storage type name."
)
TensordotAxes = ArgKind(
    "TensordotAxes",
    int | tuple[_INTS, _INTS],
    "N (the last N axes of a against the first N of b), or a pair (axes_a, axes_b).",
)

NormOrder = ArgKind(
    "NormOrder",
    Literal["fro", "nuc"] | float,
    "A matrix norm's order: 'fro', 'nuc', or a number (1, -1, 2, -2, inf, -inf).",
)

_KINDS = {
    k.__name__: k
    for k in (
        IntTupleLike,
        ShapeLike,
        AxisLike,
        DTypeLike,
        DTypeOrArray,
        DTypeKind,
        DeviceLike,
        ScalarLike,
        NDArrayLike,
        ArrayOrScalar,
        ArrayOrNumber,
        ArrayLike,
        WritableArray,
        StorageTypeLike,
        TensordotAxes,
        NormOrder,
    )
}

# C++ type names (TypeTraits<T>::TypeStr) that are Python types.
_BUILTINS = {
    "int": int,
    "bool": bool,
    "float": float,
    "float32": float,
    "str": str,
    "bytes": bytes,
    "None": None,
    "Any": Any,
    "DataType": DataType,
    "Device": Device,
    "Shape": Shape,
    "Function": Function,
}
for _bits in (8, 16, 32, 64):
    _BUILTINS[f"int{_bits}"] = int
    _BUILTINS[f"uint{_bits}"] = int


def _class_of_type_key(key):
    """The Python class registered for an object type key ("mxffi.NDArray"), or None."""
    known = {"mxffi.Array": Array, "mxffi.Map": Map, "mxffi.ADT": ADT, "mxffi.NDArray": NDArray}
    if key in known:
        return known[key]
    todo = [Object]
    while todo:
        cls = todo.pop()
        if cls.__dict__.get("_type_key") == key:
            return cls
        todo.extend(cls.__subclasses__())
    return None


def _split_args(text):
    """ "A, Map[B, C]" -> ["A", "Map[B, C]"] (commas at bracket depth 0)."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def annotation(type_name):
    """The annotation for a C++ type name as ``registry.function_info`` reports it.

    Returns a Python type, a ``typing`` construct, an :class:`ArgKind`, or (for a name nothing
    here knows) the name itself.
    """
    name = str(type_name).strip()
    if name in _BUILTINS:
        return _BUILTINS[name]
    if name in _KINDS:
        return _KINDS[name]
    if name == "Tensor" or (name.startswith("Tensor[") and name.endswith("]")):
        # A TensorView parameter (mxffi/tensor_view.h): the declared constraints in its name.
        return ArgKind(
            name,
            _ARRAY,
            "A tensor (an mxffi array or any DLPack producer's, borrowed for the call) keeping "
            "the declared element type, number of dimensions, device and layout.",
        )
    if name.endswith("]") and "[" in name:
        head, _, inner = name[:-1].partition("[")
        args = [annotation(a) for a in _split_args(inner)]
        if head == "Optional" and len(args) == 1:
            (arg,) = args
            if isinstance(arg, ArgKind):
                return ArgKind(f"Optional[{arg.__name__}]", arg.__value__ | None, arg.__doc__)
            if isinstance(arg, str):
                return name
            return arg | None
        if head in ("Array", "Map"):
            return Array if head == "Array" else Map
        if head == "Union" and args and not any(isinstance(a, str) for a in args):
            union = args[0]
            for a in args[1:]:
                union = union | a
            return union
    if name.startswith("mxffi."):
        cls = _class_of_type_key(name)
        if cls is not None:
            return cls
    return name
