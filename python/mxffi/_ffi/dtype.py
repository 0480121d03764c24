"""Text forms of DLPack data types and devices, shared by the Cython and ctypes cores.

"float32" <-> (kDLFloat, 32, 1)      "int8x4" <-> (kDLInt, 8, 4)      "bool" <-> (6, 8, 1)
"cuda:1"  <-> (kDLCUDA, 1)
"""

import operator
import re

__all__ = [
    "BUFFER_FORMATS",
    "DEVICE_TYPES",
    "device_name",
    "dtype_str",
    "parse_device",
    "parse_dtype",
    "shape_dims",
]

_DTYPE_CODES = {"int": 0, "uint": 1, "float": 2, "handle": 3, "bfloat": 4, "complex": 5}
_DTYPE_NAMES = {v: k for k, v in _DTYPE_CODES.items()}
_BOOL = 6
_DTYPE_RE = re.compile(r"^([a-z]+)(\d*)(?:x(\d+))?$")

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


def parse_dtype(text):
    """(code, bits, lanes) for a data type name such as "float32", "uint8x4" or "bool"."""
    m = _DTYPE_RE.match(text.strip())
    if m is None or (m.group(1) not in _DTYPE_CODES and m.group(1) != "bool"):
        raise ValueError(
            f"mxffi.DataType: cannot parse '{text}'; expected int, uint, float, bfloat, "
            "complex or bool followed by a bit width and an optional lane count, e.g. 'float32' "
            "or 'int8x4'"
        )
    name, digits, lane_text = m.groups()
    lanes = int(lane_text) if lane_text else 1
    if not 0 < lanes < 65536:
        raise ValueError(f"mxffi.DataType: cannot parse '{text}'; lane count {lanes} out of range")
    if name == "bool":
        if digits and digits != "8":
            raise ValueError(f"mxffi.DataType: cannot parse '{text}'; bool is 8 bits")
        return _BOOL, 8, lanes
    bits = int(digits) if digits else (64 if name == "handle" else 32)
    if not 0 < bits < 256:
        raise ValueError(f"mxffi.DataType: cannot parse '{text}'; bit width {bits} out of range")
    return _DTYPE_CODES[name], bits, lanes


def dtype_str(code, bits, lanes):
    """The name of (code, bits, lanes), the inverse of parse_dtype."""
    if code == _BOOL and bits == 8:
        text = "bool"
    else:
        text = f"{_DTYPE_NAMES.get(code, f'code{code}_')}{bits}"
    return text if lanes == 1 else f"{text}x{lanes}"


def is_numpy_dtype_like(arg):
    """Whether arg is a numpy dtype, or a numpy (or ml_dtypes) scalar type like numpy.float32."""
    if any(b.__name__ == "dtype" and b.__module__ == "numpy" for b in type(arg).__mro__):
        return True
    if isinstance(arg, type) and getattr(arg, "__module__", "") in ("numpy", "ml_dtypes"):
        return any(b.__name__ == "generic" and b.__module__ == "numpy" for b in arg.__mro__)
    return False


def numpy_dtype_name(dtype):
    """The name of a numpy dtype-like (numpy.float32, "f4", numpy.dtype("int8"))."""
    try:
        import numpy
    except ImportError:
        raise TypeError(
            f"mxffi.DataType: expected a str or numpy dtype, got {type(dtype).__name__}"
        ) from None
    try:
        return str(numpy.dtype(dtype))
    except TypeError as e:
        raise TypeError(f"mxffi.DataType: cannot interpret {dtype!r} as a data type: {e}") from None


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
                f"{type(device_type).__name__} {device_type!r}"
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
            f"mxffi.Device: device_id must be an int, got {type(device_id).__name__} {device_id!r}"
        ) from None
    if device_id < 0:
        raise ValueError(f"mxffi.Device: device_id must be >= 0, got {device_id}")
    if device_id >= 2**31:
        raise ValueError(f"mxffi.Device: device_id {device_id} does not fit in int32")
    return code, device_id


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
            raise TypeError(
                f"mxffi.Shape: dimension {i} must be an int, got {type(d).__name__} {d!r}"
            ) from None
        out.append(v)
    return out


def device_name(device_type):
    """The name of a DLPack device code ("cpu", "cuda", ...), or the code as text."""
    return _DEVICE_NAMES.get(device_type, str(device_type))
