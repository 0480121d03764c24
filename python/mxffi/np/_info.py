"""The array API's objects that describe data types and the namespace: finfo, iinfo and
__array_namespace_info__(). Their values are computed from each type's IEEE parameters or bit
width, so numpy is not needed to read them."""

from .._ffi import DataType, Device

# (significand bits after the point, largest exponent, smallest normal exponent, decimal digits)
_FLOAT_PARAMS = {
    "float16": (10, 15, -14, 3),
    "bfloat16": (7, 127, -126, 2),
    "float32": (23, 127, -126, 6),
    "float64": (52, 1023, -1022, 15),
}
_COMPLEX_PARTS = {"complex64": "float32", "complex128": "float64"}


def _rounded(name, x):
    """x rounded to the nearest value of the floating type name (numpy keeps finfo's decimal
    resolution in the type itself)."""
    import struct

    if name == "float64":
        return x
    if name in ("float16", "float32"):
        fmt = "<e" if name == "float16" else "<f"
        return struct.unpack(fmt, struct.pack(fmt, x))[0]
    bits = struct.unpack("<I", struct.pack("<f", x))[0]  # bfloat16: float32's upper half, even
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _dtype_of(obj, fname):
    """The DataType obj stands for: an array's, or anything DataType() reads."""
    from ..ndarray import NDArray

    if isinstance(obj, NDArray):
        return obj.dtype
    if isinstance(obj, DataType):
        return obj
    try:
        return DataType(obj)
    except TypeError as e:
        raise TypeError(f"{fname}: {e}") from None


class finfo:  # noqa: N801 (numpy's and the standard's name)
    """Machine limits of a floating-point data type (of a complex type: of its parts), as
    numpy.finfo: bits, eps, max, min, smallest_normal (also tiny), resolution, precision and
    dtype (a DataType; float32 for complex64)."""

    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "precision", "resolution")
    __slots__ += ("dtype",)

    def __init__(self, type):  # noqa: A002 (the standard's parameter name)
        d = _dtype_of(type, "np.finfo")
        name = _COMPLEX_PARTS.get(str(d), str(d))
        if name not in _FLOAT_PARAMS:
            raise ValueError(f"np.finfo: data type {d} is not inexact (not a floating-point type)")
        mant, emax, emin, digits = _FLOAT_PARAMS[name]
        self.dtype = DataType(name)
        self.bits = DataType(name).bits
        self.eps = 2.0**-mant
        self.max = (2.0 - 2.0**-mant) * 2.0**emax
        self.min = -self.max
        self.smallest_normal = 2.0**emin
        self.precision = digits
        self.resolution = _rounded(name, 10.0**-digits)

    @property
    def tiny(self):
        """numpy's name for smallest_normal."""
        return self.smallest_normal

    def __repr__(self):
        return (
            f"finfo(resolution={self.resolution}, min={self.min:.6e}, max={self.max:.6e}, "
            f"dtype={self.dtype})"
        )


class iinfo:  # noqa: N801 (numpy's and the standard's name)
    """Machine limits of an integer data type, as numpy.iinfo: bits, min, max and dtype."""

    __slots__ = ("bits", "min", "max", "dtype")

    def __init__(self, type):  # noqa: A002 (the standard's parameter name)
        d = _dtype_of(type, "np.iinfo")
        if d.lanes != 1 or d.code not in (0, 1):  # kDLInt, kDLUInt
            raise ValueError(f"np.iinfo: invalid integer data type {d}")
        self.dtype = d
        self.bits = d.bits
        if d.code == 0:
            self.min, self.max = -(1 << (d.bits - 1)), (1 << (d.bits - 1)) - 1
        else:
            self.min, self.max = 0, (1 << d.bits) - 1

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


def _devices():
    from .._ffi import get_global_func

    count = get_global_func("cuda.device_count", allow_missing=True)
    n = count() if count is not None else 0
    return [Device("cpu", 0)] + [Device("cuda", i) for i in range(n)]


class _NamespaceInfo:
    """What mxffi.np.__array_namespace_info__() returns: the array API's inspection object."""

    __slots__ = ()

    def capabilities(self):
        """The optional features mxffi.np has: boolean indexing, data-dependent output shapes
        (a[mask], nonzero) and up to 32 dimensions (the ops' limit)."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 32}

    def default_device(self):
        return Device("cpu", 0)

    def default_dtypes(self, *, device=None):
        self._check_device(device)
        return {
            "real floating": DataType("float64"),
            "complex floating": DataType("complex128"),
            "integral": DataType("int64"),
            "indexing": DataType("int64"),
        }

    def dtypes(self, *, device=None, kind=None):
        """The standard's data types by name, all of them or those of kind (a kind name or a
        tuple of kind names, as isdtype takes)."""
        self._check_device(device)
        if kind is None:
            names = _KINDS["bool"] + _KINDS["numeric"]
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            names = []
            for k in kinds:
                if k not in _KINDS:
                    raise ValueError(
                        f"np.__array_namespace_info__().dtypes: kind {k!r} is not a known kind "
                        f"name; expected one of {', '.join(map(repr, _KINDS))}"
                    )
                names += [n for n in _KINDS[k] if n not in names]
        return {n: DataType(n) for n in names}

    def devices(self):
        return _devices()

    @staticmethod
    def _check_device(device):
        if device is not None and not isinstance(device, Device):
            raise TypeError(
                "np.__array_namespace_info__(): device must be a Device or None, got "
                f"{type(device).__name__}"
            )


def namespace_info():
    """The array API's inspection namespace of mxffi.np."""
    return _NamespaceInfo()
