"""Text forms of DLPack data types and devices, shared by the Cython and ctypes cores.

Data types have one grammar, in C++ (``DataTypeFromString``, reached through the global
``ndarray.parse_dtype``): numpy's names and character codes, byte-order marks, "bfloat16" and
DLPack's lane form ("float32x4"). Each core keeps a cache from what a user wrote to its DataType,
so a repeated spelling costs a dict lookup; this module says what text the grammar reads for a
value that is not a str (Python's bool/int/float/complex, numpy dtypes and scalar types) and
prints a data type's canonical name.

"float32" <-> (kDLFloat, 32, 1)      "int8x4" <-> (kDLInt, 8, 4)      "bool" <-> (6, 8, 1)
"cuda:1"  <-> (kDLCUDA, 1)
"""

import operator
import sys

__all__ = [
    "BUFFER_FORMATS",
    "DEVICE_TYPES",
    "check_fields",
    "device_name",
    "dtype_str",
    "dtype_text",
    "from_fields",
    "is_builtin_dtype",
    "is_numpy_dtype_like",
    "parse_device",
    "shape_dims",
]

_DTYPE_NAMES = {0: "int", 1: "uint", 2: "float", 3: "handle", 4: "bfloat", 5: "complex"}
_BOOL = 6
# Python's type objects that numpy reads as data types, checked by identity.
_BUILTIN_DTYPES = ((bool, "bool"), (int, "int"), (float, "float"), (complex, "complex"))
# The largest number of spellings a core's cache keeps; more (lane counts) are parsed each time.
CACHE_LIMIT = 4096

# Buffer-protocol (struct module) format characters as DLPack (code, bits), native byte order.
BUFFER_FORMATS = {
    "?": (_BOOL, 8),
    "b": (0, 8),
    "B": (1, 8),
    "h": (0, 16),
    "H": (1, 16),
    "i": (0, 32),
    "I": (1, 32),
    "l": (0, 64),
    "L": (1, 64),
    "q": (0, 64),
    "Q": (1, 64),
    "n": (0, 64),
    "N": (1, 64),
    "e": (2, 16),
    "f": (2, 32),
    "d": (2, 64),
    "Zf": (5, 64),
    "Zd": (5, 128),
}

DEVICE_TYPES = {
    "cpu": 1,
    "cuda": 2,
    "cuda_host": 3,
    "opencl": 4,
    "vulkan": 7,
    "metal": 8,
    "vpi": 9,
    "rocm": 10,
    "rocm_host": 11,
    "ext_dev": 12,
    "cuda_managed": 13,
    "oneapi": 14,
    "webgpu": 15,
    "hexagon": 16,
}
_DEVICE_NAMES = {v: k for k, v in DEVICE_TYPES.items()}


def dtype_str(code, bits, lanes):
    """The canonical name of (code, bits, lanes), as C++ DataTypeToString prints it."""
    if code == _BOOL and bits == 8:
        text = "bool"
    elif code in _DTYPE_NAMES:
        text = f"{_DTYPE_NAMES[code]}{bits}"
    else:
        text = f"code{code}_{bits}"
    return text if lanes == 1 else f"{text}x{lanes}"


def is_builtin_dtype(obj):
    """Whether obj is Python's bool, int, float or complex type object (numpy's dtype spellings
    for bool, int64, float64 and complex128)."""
    return obj is float or obj is int or obj is bool or obj is complex


def is_numpy_dtype_like(arg):
    """Whether arg is a numpy dtype, or a numpy (or ml_dtypes) scalar type like numpy.float32.

    By identity with the imported numpy's own types, never by a class's name (any class can
    call itself numpy.dtype); without numpy imported, nothing is numpy's."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return False
    if isinstance(arg, numpy.dtype):
        return True
    return isinstance(arg, type) and issubclass(arg, numpy.generic)


def dtype_text(obj, caller):
    """The text the C++ grammar reads for a data type given as something other than a str: a
    builtin type object ("float" for float), a numpy dtype or scalar type (numpy's own spelling
    with its byte order, "<f4", ">f8", "|V8", so the grammar refuses what it cannot hold; the
    name for ml_dtypes' types, "bfloat16"). TypeError naming caller for anything else."""
    for t, name in _BUILTIN_DTYPES:
        if obj is t:
            return name
    if is_numpy_dtype_like(obj):
        import numpy

        d = numpy.dtype(obj)
        return d.name if d.type.__module__.startswith("ml_dtypes") else d.str
    got = f"the class {obj.__qualname__}" if isinstance(obj, type) else type(obj).__name__
    raise TypeError(
        f"{caller}: expected a data type (a name such as 'float32' or 'f4', a numpy dtype or "
        f"scalar type, bool, int, float, complex or a DataType), got {got}"
    )


def check_fields(code, bits, lanes):
    """ValueError unless (code, bits, lanes) fit DLDataType's uint8, uint8 and uint16 fields."""
    for name, value, limit in (("code", code, 256), ("bits", bits, 256), ("lanes", lanes, 65536)):
        if type(value) is not int or not 0 <= value < limit:
            raise ValueError(
                f"mxffi.DataType: {name} must be an int in [0, {limit}), got {safe_repr(value)}"
            )


def from_fields(code, bits, lanes):
    """The DataType (code, bits, lanes) of the selected core; pickled DataTypes load through it,
    whichever core made them."""
    from . import _impl

    return _impl.dtype_from_fields(code, bits, lanes)


def parse_device(device_type, device_id=0):
    """(device_type, device_id) from "cpu", "cuda:1", ("cuda", 1) or a DLPack device code."""
    if isinstance(device_type, str):
        name, sep, id_text = device_type.partition(":")
        if sep:
            # ASCII digits only: str.isdigit() is also true of "٣" and "²".
            if not (id_text.isascii() and id_text.isdigit()):
                raise ValueError(f"mxffi.Device: cannot parse '{device_type}'")
            device_id = int(id_text)
        if name not in DEVICE_TYPES:
            raise ValueError(
                f"mxffi.Device: unknown device type '{name}'; expected one of "
                f"{sorted(DEVICE_TYPES)}"
            )
        code = DEVICE_TYPES[name]
    else:
        try:
            code = operator.index(device_type)
        except TypeError:
            raise TypeError(
                "mxffi.Device: device_type must be a str or a DLPack device code (int), got "
                f"{_shown(device_type)}"
            ) from None
        if code not in _DEVICE_NAMES:
            raise ValueError(
                f"mxffi.Device: unknown DLPack device code {code}; expected one of "
                f"{sorted(_DEVICE_NAMES)}"
            )
    try:
        device_id = operator.index(device_id)
    except TypeError:
        raise TypeError(
            f"mxffi.Device: device_id must be an int, got {_shown(device_id)}"
        ) from None
    if device_id < 0:
        raise ValueError(f"mxffi.Device: device_id must be >= 0, got {device_id}")
    if device_id >= 2**31:
        raise ValueError(f"mxffi.Device: device_id {device_id} does not fit in int32")
    return code, device_id


def safe_repr(value, limit=80):
    """A value's repr for an error message: cut at limit characters, or what it raised (an
    object's __repr__ is its own code and may fail; the error it is shown in must still be the
    one raised)."""
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - any failure of a foreign __repr__
        return f"<{type(value).__name__} object whose repr raised {type(exc).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _shown(value):
    """A value's type name and safe_repr, for `got <this>`."""
    return f"{type(value).__name__} {safe_repr(value)}"


def shape_dims(dims):
    """The dimensions of mxffi.Shape(dims) as a sequence of ints: each an int (or has __index__) or
    a float with an integral value; anything else is refused rather than truncated or parsed.
    An int beyond int64 is refused when the Shape is passed, naming the function called."""
    try:
        items = tuple(dims)
    except TypeError:
        raise TypeError(
            f"mxffi.Shape: expected an iterable of ints, got {type(dims).__name__}"
        ) from None
    for d in items:
        if type(d) is not int:
            break
    else:
        return items  # the common case: plain ints, nothing to convert
    out = []
    for i, d in enumerate(items):
        try:
            v = int(d) if isinstance(d, float) and d.is_integer() else operator.index(d)
        except TypeError:
            raise TypeError(f"mxffi.Shape: dimension {i} must be an int, got {_shown(d)}") from None
        out.append(v)
    return out


def device_name(device_type):
    """The name of a DLPack device code ("cpu", "cuda", ...), or the code as text."""
    return _DEVICE_NAMES.get(device_type, str(device_type))
