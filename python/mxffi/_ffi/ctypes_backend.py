"""The ctypes implementation of mxffi's core calls: the same C ABI, driven from pure Python.

It is the reference the call-latency benchmark compares the Cython core against, and a
fallback for debugging (``MXFFI_FFI=ctypes``). It converts the same types as the Cython core;
calls go through ctypes, which releases the GIL around every C call.
"""

import contextlib
import ctypes
import operator
import os
import sys
import threading
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    Union,
    byref,
    c_char,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_int64,
    c_size_t,
    c_uint8,
    c_uint16,
    c_uint32,
    c_uint64,
    c_void_p,
)

from . import dtype as _dtype
from . import libinfo
from .error import (
    MXFFIError,
    emit_warning,
    export_refused,
    lazy_bit_refused,
    make_error,
    named_error,
    stash_py_error,
)
from .signature import bind_keywords, lazy_signature, parameter_kinds

__all__ = [
    "DataType",
    "Device",
    "Function",
    "Object",
    "Shape",
    "dtype_from_fields",
    "get_global_func",
    "list_global_func_names",
    "register_func",
    "register_object",
    "register_sparse_class",
    "STORAGE_COO",
    "STORAGE_CSR",
    "STORAGE_DEFAULT",
    "STORAGE_ROW_SPARSE",
]

# Type codes, as c_api.h fixes them.
NONE, INT, BOOL, FLOAT, OPAQUE_PTR, DATA_TYPE, DEVICE, DLTENSOR_PTR = range(8)
RAW_STR, SMALL_STR, SMALL_BYTES, STR_VIEW, BYTES_VIEW = range(8, 13)
UINT64 = 14  # an int from 2**63 to 2**64 - 1, its bits in v_int64 (ABI 1.4)
OBJECT_BEGIN, STRING, BYTES, FUNCTION, SHAPE = 64, 65, 66, 68, 72
# Storage types, as c_api.h's MXFFIStorageType fixes them (kMXFFIStorageDefault, ...).
STORAGE_DEFAULT, STORAGE_ROW_SPARSE, STORAGE_CSR, STORAGE_COO = 0, 1, 2, 3
# The sparse storage types this version reads (C ABI 1.7); any other value is an opaque
# sparse array, as the C ABI's rule for values added in a later minor version says.
_KNOWN_SPARSE = (STORAGE_ROW_SPARSE, STORAGE_CSR, STORAGE_COO)


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLDevice(Structure):
    _fields_ = [("device_type", c_int), ("device_id", c_int32)]


class DLTensor(Structure):
    _fields_ = [
        ("data", c_void_p),
        ("device", DLDevice),
        ("ndim", c_int32),
        ("dtype", DLDataType),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),
        ("byte_offset", c_uint64),
    ]


class ByteArray(Structure):
    _fields_ = [("data", c_void_p), ("size", c_size_t)]


class _Value(Union):
    _fields_ = [
        ("v_int64", c_int64),
        ("v_float64", c_double),
        ("v_ptr", c_void_p),
        ("v_dtype", DLDataType),
        ("v_device", DLDevice),
        ("v_bytes", c_char * 8),
    ]


class Any(Structure):
    _anonymous_ = ("v",)
    _fields_ = [("type_index", c_int32), ("small_len", c_uint32), ("v", _Value)]


class _ObjectHeader(Structure):
    _fields_ = [("ref_counter", c_int64), ("type_index", c_int32), ("reserved", c_uint32)]


class _StringObj(Structure):
    _fields_ = [
        ("header", _ObjectHeader),
        ("deleter", c_void_p),
        ("data", c_void_p),
        ("size", c_int64),
    ]


# One array type per small argument count, made once (making one per call dominates a call).
_ARRAY_TYPES = [Any * max(n, 1) for n in range(8)]

SafeCall = CFUNCTYPE(c_int, c_void_p, POINTER(Any), c_int32, POINTER(Any))
Deleter = CFUNCTYPE(None, c_void_p)
CheckSignals = CFUNCTYPE(c_int)
WarnHook = CFUNCTYPE(c_int, c_char_p, c_char_p)

_lib = ctypes.CDLL(os.path.join(libinfo.lib_dir(), "libmxffi.so"), mode=ctypes.RTLD_GLOBAL)
_lib.MXFFIFuncCall.argtypes = [c_void_p, POINTER(Any), c_int32, POINTER(Any)]
_lib.MXFFIFuncGetGlobal.argtypes = [c_char_p, POINTER(c_void_p)]
_lib.MXFFIFuncSetGlobal.argtypes = [c_char_p, c_void_p, c_int]
_lib.MXFFIFuncListGlobalNames.argtypes = [POINTER(c_void_p)]
_lib.MXFFIFuncCreate.argtypes = [c_void_p, SafeCall, Deleter, POINTER(c_void_p)]
_lib.MXFFIObjectFree.argtypes = [c_void_p]
_lib.MXFFIObjectIncRef.argtypes = [c_void_p]
_lib.MXFFITypeKey2Index.argtypes = [c_char_p, POINTER(c_int32)]
_lib.MXFFITypeIndex2Key.argtypes = [c_int32, POINTER(c_char_p)]
_lib.MXFFIErrorGetLast.argtypes = [POINTER(c_char_p)] * 3
_lib.MXFFIErrorSet.argtypes = [c_char_p] * 3
_lib.MXFFIEnvSetCheckSignals.argtypes = [CheckSignals]
_lib.MXFFIEnvSetWarnHook.argtypes = [WarnHook]
_pyapi = ctypes.pythonapi
_pyapi.PyCapsule_GetPointer.restype = c_void_p
_pyapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, c_char_p]
_pyapi.PyCapsule_IsValid.restype = c_int
_pyapi.PyCapsule_IsValid.argtypes = [ctypes.py_object, c_char_p]


def _raise_last_error():
    kind, message, backtrace = c_char_p(), c_char_p(), c_char_p()
    _lib.MXFFIErrorGetLast(byref(kind), byref(message), byref(backtrace))
    dec = lambda p: (p.value or b"").decode("utf-8", "replace")  # noqa: E731
    raise make_error(dec(kind), dec(message), dec(backtrace))


def _check(rc):
    if rc != 0:
        _raise_last_error()


# ---------------------------------------------------------------------------------------------
# Objects and values.

_CLASS_BY_INDEX = {}


class Object:
    """An mxffi object held through ctypes."""

    __slots__ = ("_handle", "__weakref__", "__dict__")

    def __init__(self, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} objects are made by mxffi functions, not directly")

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and _lib is not None:
            _lib.MXFFIObjectFree(handle)
            self._handle = None

    @property
    def handle(self):
        return self._handle or 0

    @property
    def type_index(self):
        return _ObjectHeader.from_address(self._handle).type_index

    @property
    def type_key(self):
        key = c_char_p()
        _check(_lib.MXFFITypeIndex2Key(self.type_index, byref(key)))
        return key.value.decode()

    def same_as(self, other):
        return isinstance(other, Object) and other._handle == self._handle

    def __eq__(self, other):
        return self.same_as(other)

    def __hash__(self):
        return hash(self._handle)

    def __getattr__(self, name):
        if name.startswith("_") or not getattr(self, "_handle", None):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        try:
            return _GLOBALS["object.get_attr"](self, name)
        except AttributeError:
            raise AttributeError(
                f"'{type(self).__name__}' object ({self.type_key}) has no attribute '{name}'"
            ) from None

    def _field_names(self):
        return _array_items(_GLOBALS["object.field_names"](self.type_index))

    def __reduce__(self):
        raise TypeError(f"cannot pickle {self.type_key} objects")

    def __repr__(self):
        names = _array_items(_GLOBALS["object.field_names"](self.type_index))
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
        return f"{self.type_key}({fields})"


def _wrap(handle, cls=None):
    """Wrap an owned object handle in its registered class."""
    if cls is None:
        index = _ObjectHeader.from_address(handle).type_index
        cls = Function if index == FUNCTION else _CLASS_BY_INDEX.get(index, Object)
        if index == _NDARRAY_INDEX:
            stype = c_int32.from_address(handle + _NDARRAY_STYPE_OFFSET).value
            if stype != STORAGE_DEFAULT:
                # A storage type this build does not know is an opaque sparse array (key None).
                known = stype in _KNOWN_SPARSE
                cls = _SPARSE_CLASS.get(stype if known else None, cls)
    obj = object.__new__(cls)
    obj._handle = handle
    if cls is Function:
        obj._name = None
        obj._info = None
    return obj


_NDARRAY_INDEX = 73  # kMXFFINDArray
# MXFFINDArrayObj: the 24-byte header, the 48-byte DLTensor, then the storage type.
_NDARRAY_STYPE_OFFSET = 24 + 48
_SPARSE_CLASS = {}


def register_sparse_class(stype, cls):
    """NDArray results stored as stype (STORAGE_ROW_SPARSE, STORAGE_CSR or STORAGE_COO) become
    instances of
    cls; stype None registers the class of arrays of a storage type this build does not know
    (opaque sparse arrays: never read as dense)."""
    if stype is not None and (isinstance(stype, bool) or stype not in _KNOWN_SPARSE):
        raise ValueError(
            f"register_sparse_class: stype must be STORAGE_ROW_SPARSE ({STORAGE_ROW_SPARSE}), "
            f"STORAGE_CSR ({STORAGE_CSR}), STORAGE_COO ({STORAGE_COO}) or None, got "
            f"{_dtype.safe_repr(stype)}"
        )
    from .ctypes_ndarray import NDArray  # imports this module: bound at call time

    # Instances are read as NDArrays (their handle's layout): only NDArray's subclasses are.
    if not (isinstance(cls, type) and issubclass(cls, NDArray)):
        raise TypeError(
            "register_sparse_class: cls must be a subclass of mxffi.NDArray, got "
            f"{_dtype.safe_repr(cls)}"
        )
    _SPARSE_CLASS[stype] = cls


def register_object(type_key=None):
    """Class decorator: objects of type_key returned from C++ become instances of the class."""

    def register(cls):
        key = type_key if isinstance(type_key, str) else getattr(cls, "_type_key", None)
        if key is None:
            raise TypeError(f"mxffi.register_object: no type key given for {cls.__name__}")
        if not (isinstance(cls, type) and issubclass(cls, Object)):
            raise TypeError(
                f"mxffi.register_object: {_dtype.safe_repr(cls)} is not a subclass of mxffi.Object"
            )
        index = c_int32()
        try:
            _check(_lib.MXFFITypeKey2Index(key.encode(), byref(index)))
        except MXFFIError as e:
            raise named_error(e, "mxffi.register_object") from None
        _CLASS_BY_INDEX[index.value] = cls
        cls._type_key = key
        cls._type_index = index.value
        return cls

    if isinstance(type_key, type):
        cls, type_key = type_key, None
        return register(cls)
    if type_key is not None and not isinstance(type_key, str):
        raise TypeError(
            f"mxffi.register_object: type_key must be a str, got {type(type_key).__name__}"
        )
    return register


# What a user wrote (a str, Python's float, numpy.float32, a numpy dtype) -> its DataType, so a
# repeated spelling costs one dict lookup; misses go to the C++ grammar (ndarray.parse_dtype).
# Only spellings that parse are kept.
_DTYPE_CACHE = {}


def _as_dtype(obj, caller):
    """obj as a DataType: a DataType as it is, anything else read by the one grammar, errors
    naming caller (a TypeError for a spelling that names no type mxffi has)."""
    if isinstance(obj, DataType):
        return obj
    try:
        hit = _DTYPE_CACHE.get(obj)
    except TypeError:  # unhashable: not a data type either; dtype_text says so
        hit = None
    if hit is not None:
        return hit
    text = str(obj) if isinstance(obj, str) else _dtype.dtype_text(obj, caller)
    parsed = _GLOBALS["ndarray.parse_dtype"](text, caller)
    if len(_DTYPE_CACHE) < _dtype.CACHE_LIMIT:
        _DTYPE_CACHE[obj] = parsed
    return parsed


class DataType:
    """A data type: DataType("float32"), DataType("f4"), DataType(float), DataType(numpy.int8),
    DataType("int8x4") (DLPack lanes).

    Any spelling numpy reads as a type mxffi has is accepted, and so is "bfloat16"; a spelling
    that names no such type is a TypeError (numpy's class). A DataType equals another DataType
    of the same type and its canonical name (str(d), "float32"), and hashes as that name does.
    Like a numpy dtype, it also equals every other spelling of its type ("f4", float,
    numpy.float32, numpy.dtype("<f4")), whose hashes differ, as numpy's do from its names; and
    comparing it with anything else is False, never an error.
    """

    __slots__ = ("code", "bits", "lanes")

    def __init__(self, dtype):
        d = _as_dtype(dtype, "mxffi.DataType")
        self.code, self.bits, self.lanes = d.code, d.bits, d.lanes

    def __str__(self):
        return _dtype.dtype_str(self.code, self.bits, self.lanes)

    def __repr__(self):
        return f"mxffi.DataType('{self}')"

    def __eq__(self, other):
        if isinstance(other, DataType):
            return (self.code, self.bits, self.lanes) == (other.code, other.bits, other.lanes)
        if not (
            isinstance(other, str)
            or _dtype.is_builtin_dtype(other)
            or _dtype.is_numpy_dtype_like(other)
        ):
            return NotImplemented
        name = str(self)
        if isinstance(other, str) and other == name:
            return True
        try:
            o = _as_dtype(other, "mxffi.DataType.__eq__")
        except TypeError:
            return False  # names no type mxffi has ("csr", "U3"): not this one
        if (o.code, o.bits, o.lanes) != (self.code, self.bits, self.lanes):
            return False
        return True  # another spelling of this type ("f4", float, numpy.float32), as numpy

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(str(self))

    def __reduce__(self):
        return (_dtype.from_fields, (self.code, self.bits, self.lanes))


def dtype_from_fields(code, bits, lanes):
    """The DataType (code, bits, lanes), any DLPack data type (an imported tensor's included)."""
    _dtype.check_fields(code, bits, lanes)
    d = DataType.__new__(DataType)
    d.code, d.bits, d.lanes = code, bits, lanes
    return d


class Device:
    """A DLPack device: Device("cpu"), Device("cuda", 1), Device("cuda:1")."""

    __slots__ = ("device_type", "device_id")

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Device):
            device_type, device_id = device_type.device_type, device_type.device_id
        self.device_type, self.device_id = _dtype.parse_device(device_type, device_id)

    @property
    def type(self):
        return _dtype.device_name(self.device_type)

    def __str__(self):
        return f"{self.type}:{self.device_id}"

    def __repr__(self):
        return f"mxffi.Device('{self.type}', {self.device_id})"

    def __eq__(self, other):
        if not isinstance(other, Device):
            return NotImplemented
        return (self.device_type, self.device_id) == (other.device_type, other.device_id)

    def __hash__(self):
        return hash((self.device_type, self.device_id))


class Shape(tuple):
    """mxffi.Shape: a tuple of int64 dimensions, passed to C++ as a Shape object."""

    def __new__(cls, dims=()):
        return tuple.__new__(cls, _dtype.shape_dims(dims))

    def __repr__(self):
        return f"mxffi.Shape({tuple.__repr__(self)})"


class _PyBuffer(Structure):
    _fields_ = [
        ("buf", c_void_p),
        ("obj", c_void_p),
        ("len", ctypes.c_ssize_t),
        ("itemsize", ctypes.c_ssize_t),
        ("readonly", c_int),
        ("ndim", c_int),
        ("format", c_char_p),
        ("shape", POINTER(ctypes.c_ssize_t)),
        ("strides", POINTER(ctypes.c_ssize_t)),
        ("suboffsets", c_void_p),
        ("internal", c_void_p),
    ]


_pyapi.PyObject_GetBuffer.argtypes = [ctypes.py_object, POINTER(_PyBuffer), c_int]
_pyapi.PyBuffer_Release.argtypes = [POINTER(_PyBuffer)]


class _BufferView:
    """Holds a buffer (PyBUF_RECORDS_RO) for the length of a call."""

    def __init__(self, obj):
        self.view = _PyBuffer()
        _pyapi.PyObject_GetBuffer(obj, byref(self.view), 0x1C)

    def __del__(self):
        _pyapi.PyBuffer_Release(byref(self.view))


class _TorchStream:
    """A CUDA torch tensor argument: the call runs on torch's current stream of its device (as
    torch's own ops would), made mxffi's current stream until the call's owners are released.
    handle: the producer's stream handle when its DLPack table gave it, else torch's is asked."""

    _set = []  # cuda.set_current_stream, fetched on first use

    def __init__(self, device_id, handle=None):
        if handle is None:
            import torch

            handle = torch.cuda.current_stream(device_id).cuda_stream
        if not self._set:
            self._set.append(get_global_func("cuda.set_current_stream"))
        self.device_id = device_id
        self.previous = self._set[0](device_id, handle)

    def __del__(self):
        with contextlib.suppress(Exception):
            self._set[0](self.device_id, self.previous)


_STREAM_FUNCS = []  # cuda.current_stream and cuda.stream_wait_stream, fetched on first use


def _wait_for_legacy_stream(device_id):
    """A CUDA tensor of another producer (CuPy, ...), exported by __dlpack__() with no stream:
    the array API has the producer order its work before the legacy default stream then, so
    mxffi's current stream of the device, where the call runs, waits for that stream (on the
    device; nothing when it is the legacy default stream itself)."""
    if not _STREAM_FUNCS:
        _STREAM_FUNCS.extend(
            (get_global_func("cuda.current_stream"), get_global_func("cuda.stream_wait_stream"))
        )
    current = _STREAM_FUNCS[0](device_id)
    if current != 0:
        _STREAM_FUNCS[1](device_id, current, 0)


def _refuse_torch_neg(obj, label):
    """torch's __dlpack__ exports a tensor with its lazy negation bit set (torch's conj().imag)
    as its memory, without the negation: refused by name instead of taken with the wrong sign."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor) and torch.Tensor.is_neg(obj):
        raise lazy_bit_refused(label, obj, "negative", "resolve_neg")


def _tensor_from_exchange(obj, label, keep):
    """obj's tensor through its type's DLPack exchange table, borrowed for the call: the
    DLTensor's address, or None for the capsule route (no usable table, or the table refuses
    the tensor). The Cython core's _tensor_from_exchange, whose docstring says what is taken
    and refused."""
    entry = _arg_exchange(type(obj))
    if entry is None:
        return None
    to_dltensor, current_stream, is_neg, is_conj = entry
    t = DLTensor()
    try:
        rc = to_dltensor(obj, ctypes.addressof(t))
    except Exception:
        return None
    if rc != 0:
        return None
    if is_neg is not None and is_neg(obj) is True:
        raise lazy_bit_refused(label, obj, "negative", "resolve_neg")
    if t.dtype.code == 5 and is_conj is not None and is_conj(obj) is True:  # kDLComplex
        raise lazy_bit_refused(label, obj, "conjugate", "resolve_conj")
    keep.append(t)
    if t.device.device_type == 2 and current_stream is not None:
        stream = c_void_p()
        if current_stream(2, t.device.device_id, byref(stream)) != 0:
            raise RuntimeError(
                f"{label}: {type(obj).__name__}'s DLPack table gave no current stream"
            )
        keep.append(_TorchStream(t.device.device_id, stream.value or 0))
    elif t.device.device_type == 2:
        _wait_for_legacy_stream(t.device.device_id)
    return ctypes.addressof(t)


def _tensor_arg(obj, label, keep):
    """A borrowed DLTensor for an object with __dlpack__ or the buffer protocol."""
    if hasattr(type(obj), "__dlpack_c_exchange_api__"):
        addr = _tensor_from_exchange(obj, label, keep)
        if addr is not None:
            return addr
    if hasattr(type(obj), "__dlpack__"):
        _refuse_torch_neg(obj, label)
        try:
            try:
                capsule = obj.__dlpack__(max_version=(1, 0))
            except TypeError:
                capsule = obj.__dlpack__()
        except BufferError as e:
            raise export_refused(label, obj, e) from e
        keep.append(capsule)  # not consumed: the producer's capsule destructor frees it
        if _pyapi.PyCapsule_IsValid(capsule, b"dltensor_versioned"):
            # DLManagedTensorVersioned: version (8 bytes), manager_ctx, deleter, flags, then the
            # DLTensor.
            addr = _pyapi.PyCapsule_GetPointer(capsule, b"dltensor_versioned") + 32
        elif _pyapi.PyCapsule_IsValid(capsule, b"dltensor"):
            # A DLManagedTensor starts with its DLTensor.
            addr = _pyapi.PyCapsule_GetPointer(capsule, b"dltensor")
        else:
            raise TypeError(
                f"{label}: __dlpack__() of {type(obj).__name__} returned "
                f"{_dtype.safe_repr(capsule)}, "
                "not a DLPack capsule"
            )
        device = DLTensor.from_address(addr).device
        if device.device_type == 2:
            # Looked at only now, from the tensor itself: CPU tensors pay nothing for it.
            torch = sys.modules.get("torch")
            if torch is not None and isinstance(obj, torch.Tensor):
                keep.append(_TorchStream(device.device_id))
            else:
                _wait_for_legacy_stream(device.device_id)
        return addr
    holder = _BufferView(obj)
    keep.append(holder)
    v = holder.view
    fmt = (v.format or b"B").decode().lstrip("@=<")
    if fmt not in _dtype.BUFFER_FORMATS:
        raise TypeError(f"{label}: buffer format '{fmt}' has no DLPack data type")
    code, bits = _dtype.BUFFER_FORMATS[fmt]
    shape = (c_int64 * max(v.ndim, 1))(*(v.shape[i] for i in range(v.ndim)))
    strides = (c_int64 * max(v.ndim, 1))(*(v.strides[i] // v.itemsize for i in range(v.ndim)))
    t = DLTensor(v.buf, DLDevice(1, 0), v.ndim, DLDataType(code, bits, 1), shape, strides, 0)
    keep.extend((shape, strides, t))
    return ctypes.addressof(t)


def _to_cell(func, index, arg, cell, keep):
    """Fill cell from a Python value; owners of what the cell points into go to keep."""
    tp = type(arg)
    if arg is None:
        cell.type_index = NONE
    elif tp is bool:
        cell.type_index, cell.v_int64 = BOOL, arg
    elif isinstance(arg, int):
        arg = int.__index__(arg)  # the int's own value: a subclass's __int__ is not asked
        if (1 << 63) <= arg < (1 << 64):
            cell.type_index, cell.v_int64 = UINT64, arg - (1 << 64)  # the same 64 bits
        elif not -(1 << 63) <= arg < (1 << 63):
            raise OverflowError(f"{_label(func, index)} value {arg} does not fit in int64")
        else:
            cell.type_index, cell.v_int64 = INT, arg
    elif isinstance(arg, float):
        cell.type_index, cell.v_float64 = FLOAT, arg
    elif isinstance(arg, str):
        data = arg.encode("utf-8")
        view = ByteArray(ctypes.cast(c_char_p(data), c_void_p), len(data))
        keep.extend((data, view))
        cell.type_index, cell.v_ptr = STR_VIEW, ctypes.addressof(view)
    elif isinstance(arg, (bytes, bytearray)):
        # A copy of the object's own storage: a subclass's __len__ or __bytes__ is not asked.
        arg = (
            bytes(bytes.__getitem__(arg, slice(None)))
            if isinstance(arg, bytes)
            else bytes(bytearray.__getitem__(arg, slice(None)))
        )
        view = ByteArray(ctypes.cast(c_char_p(arg), c_void_p), len(arg))
        keep.extend((arg, view))
        cell.type_index, cell.v_ptr = BYTES_VIEW, ctypes.addressof(view)
    elif isinstance(arg, Object):
        cell.type_index, cell.v_ptr = arg.type_index, arg._handle
    elif isinstance(arg, DataType):
        cell.type_index = DATA_TYPE
        cell.v_dtype = DLDataType(arg.code, arg.bits, arg.lanes)
    elif isinstance(arg, Device):
        cell.type_index = DEVICE
        cell.v_device = DLDevice(arg.device_type, arg.device_id)
    elif (tp is type and _dtype.is_builtin_dtype(arg)) or _dtype.is_numpy_dtype_like(arg):
        # float, numpy.float32, numpy.dtype("int8"), ml_dtypes.bfloat16: a DataType wherever it
        # is passed, as dtype= wants (a callable parameter then refuses it; wrap the type in a
        # lambda to pass it as a callable).
        dt = _DTYPE_CACHE.get(arg) or _as_dtype(arg, _label(func, index))
        cell.type_index = DATA_TYPE
        cell.v_dtype = DLDataType(dt.code, dt.bits, dt.lanes)
    elif _is_numpy(arg, "ndarray") and arg.dtype.name == "bfloat16":
        # ml_dtypes' bfloat16, which numpy's DLPack export refuses: its bits as uint16, then
        # the DLPack bfloat16 code (4).
        bits = arg.view("uint16")
        keep.append(bits)
        addr = _tensor_arg(bits, _label(func, index), keep)
        DLTensor.from_address(addr).dtype.code = 4
        cell.type_index, cell.v_ptr = DLTENSOR_PTR, addr
    elif _is_numpy(arg, "generic"):
        _to_cell(func, index, _numpy_scalar_value(func, index, arg), cell, keep)
    elif isinstance(arg, (list, tuple, dict)):
        if isinstance(arg, Shape):
            # The tuple's own items and each int's own value: a subclass's dunders are not asked.
            arg = [int.__index__(d) for d in tuple.__getitem__(arg, slice(None))]
            if not all(-(1 << 63) <= d < (1 << 63) for d in arg):
                raise OverflowError(
                    f"{_label(func, index)}: a Shape dimension does not fit in "
                    f"int64; got {tuple(arg)}"
                )
            obj = _call_object("container.shape", list(arg))
        elif isinstance(arg, dict):
            # The dict's, list's or tuple's own items: a subclass's dunders are not asked.
            with _Nesting(func, index):
                obj = _call_object("container.map", [x for kv in dict.items(arg) for x in kv])
        else:
            base = list if isinstance(arg, list) else tuple
            items = base.__getitem__(arg, slice(None))
            with _Nesting(func, index):
                obj = _call_object("container.array", list(items))
        keep.append(obj)
        cell.type_index, cell.v_ptr = obj.type_index, obj._handle
    elif isinstance(arg, c_void_p):
        cell.type_index, cell.v_ptr = OPAQUE_PTR, arg.value
    elif hasattr(tp, "__dlpack__") or _has_buffer(arg):
        cell.type_index, cell.v_ptr = DLTENSOR_PTR, _tensor_arg(arg, _label(func, index), keep)
    elif hasattr(tp, "__index__"):
        try:
            as_int = operator.index(arg)  # an int, or TypeError: the recursion ends there
        except TypeError as e:
            raise TypeError(f"{_label(func, index)}: {e}") from None
        _to_cell(func, index, as_int, cell, keep)
    elif hasattr(tp, "__float__"):
        cell.type_index, cell.v_float64 = FLOAT, float(arg)
    elif callable(arg):
        f = _as_function(arg)
        keep.append(f)
        cell.type_index, cell.v_ptr = FUNCTION, f._handle
    else:
        raise TypeError(
            f"{_label(func, index)} has type {tp.__module__}.{tp.__qualname__}, which mxffi "
            "cannot pass to C++"
        )


def _is_numpy(obj, name):
    """Whether obj is an instance of numpy's own type `name` (by identity: any class can call
    itself numpy.ndarray); False while numpy is not imported."""
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(obj, getattr(numpy, name))


def _numpy_scalar_value(func, index, arg):
    """The Python number a numpy scalar holds (its .item()). A long double's .item() is the
    long double itself: float() of it; a complex long double, like a complex, is refused."""
    value = arg.item()
    if _is_numpy(value, "generic"):
        if _is_numpy(arg, "floating"):
            return float(arg)
        tp = type(arg)
        raise TypeError(
            f"{_label(func, index)} has type {tp.__module__}.{tp.__qualname__}, which mxffi "
            "cannot pass to C++"
        )
    return value


# How deep containers may nest in one argument (the Cython core's MXFFI_PY_MAX_NESTING): each
# level converts its items through C frames (a ctypes call), so the bound is fixed, not the
# recursion limit, which a program may raise past what the C stack holds.
MAX_NESTING = 1000
_NESTING = threading.local()


class _Nesting:
    """One level of container nesting; RecursionError naming the outermost function past
    MAX_NESTING levels."""

    def __init__(self, func, index):
        self.func, self.index = func, index

    def __enter__(self):
        depth = getattr(_NESTING, "depth", 0)
        if depth == 0:
            _NESTING.outer = (self.func, self.index)
        if depth >= MAX_NESTING:
            raise RecursionError(
                f"{_plain_label(*_NESTING.outer)} is nested more than {MAX_NESTING} levels deep; "
                f"mxffi converts containers nested at most {MAX_NESTING} levels"
            )
        _NESTING.depth = depth + 1

    def __exit__(self, *exc):
        _NESTING.depth -= 1


def _has_buffer(obj):
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def _label(func, index):
    depth = getattr(_NESTING, "depth", 0)
    if depth > 0 and func is not None and func._name in ("container.array", "container.map"):
        # An item of a list, tuple or dict argument: named by the argument the user passed.
        levels = f"{depth} level{'s' if depth > 1 else ''}"
        return f"{_plain_label(*_NESTING.outer)} (an item {levels} down)"
    return _plain_label(func, index)


def _plain_label(func, index):
    if func is None:
        return "mxffi: the value a Python callback returned"
    name = func._name if func is not None and func._name else "mxffi.Function"
    names = func._signature()[0] if func is not None else None
    if names and index < len(names):
        return f"{name}: argument #{index} '{names[index]}'"
    return f"{name}: argument #{index}"


def _from_cell(cell, owned=True, func=None):
    """A Python value from a cell; owned cells hand their object reference to the result."""
    t = cell.type_index
    if t == DLTENSOR_PTR:
        if not owned:
            raise TypeError("mxffi: a DLTensor* argument cannot be passed to a Python callback")
        name = func._name if func is not None and func._name else "mxffi"
        raise TypeError(f"{name}: returned a borrowed DLTensor*, which cannot outlive the call")
    if t == NONE:
        return None
    if t == INT:
        return cell.v_int64
    if t == UINT64:
        return cell.v_int64 + (1 << 64)
    if t == BOOL:
        return bool(cell.v_int64)
    if t == FLOAT:
        return cell.v_float64
    if t in (SMALL_STR, SMALL_BYTES):
        raw = ctypes.string_at(ctypes.addressof(cell) + Any.v.offset, cell.small_len)
        return raw.decode("utf-8") if t == SMALL_STR else raw
    if t in (STR_VIEW, BYTES_VIEW):
        view = ByteArray.from_address(cell.v_ptr)
        raw = ctypes.string_at(view.data, view.size)
        return raw.decode("utf-8") if t == STR_VIEW else raw
    if t == DATA_TYPE:
        d = DataType.__new__(DataType)
        d.code, d.bits, d.lanes = cell.v_dtype.code, cell.v_dtype.bits, cell.v_dtype.lanes
        return d
    if t == DEVICE:
        d = Device.__new__(Device)
        d.device_type, d.device_id = cell.v_device.device_type, cell.v_device.device_id
        return d
    if t == OPAQUE_PTR:
        return c_void_p(cell.v_ptr) if cell.v_ptr else None
    if t >= OBJECT_BEGIN:
        if not owned:
            _lib.MXFFIObjectIncRef(cell.v_ptr)
        if t in (STRING, BYTES):
            s = _StringObj.from_address(cell.v_ptr)
            raw = ctypes.string_at(s.data, s.size)
            _lib.MXFFIObjectFree(cell.v_ptr)
            return raw.decode("utf-8") if t == STRING else raw
        if t == SHAPE:
            s = _StringObj.from_address(cell.v_ptr)  # same layout: header, data, size
            dims = Shape((c_int64 * s.size).from_address(s.data)) if s.size else Shape()
            _lib.MXFFIObjectFree(cell.v_ptr)
            return dims
        return _wrap(cell.v_ptr)
    raise TypeError(f"mxffi: cannot convert a value of type code {t} to Python")


# ---------------------------------------------------------------------------------------------
# Functions.

_INFO_CACHE = {}


class Function(Object):
    """A packed function called through ctypes."""

    __slots__ = ("_name", "_info", "_kinds")

    def __call__(self, *args, **kwargs):
        if not getattr(self, "_handle", None):
            raise TypeError(
                "mxffi.Function: the function handle is NULL (a Function made without one); "
                "functions come from get_global_func, register_func or a call"
            )
        if kwargs or getattr(self, "_kinds", None) is not None:
            # keyword-only or variadic arguments bind by the signature (get_global_func)
            args = self._bind_keywords(args, kwargs)
        n = len(args)
        cells = _ARRAY_TYPES[n]() if n < 8 else (Any * n)()
        keep = []
        try:
            for i, arg in enumerate(args):
                _to_cell(self, i, arg, cells[i], keep)
            result = Any()
            _check(_lib.MXFFIFuncCall(self._handle, cells, n, byref(result)))
        finally:
            # Released now, last first, even when an error's traceback keeps this frame alive:
            # a torch stream made current for the call (_TorchStream) must not outlive it.
            keep.clear()
        out = _from_cell(result, True, self)
        kinds = getattr(self, "_kinds", None)
        return list(out) if kinds is not None and kinds[3] else out

    def __get__(self, obj, objtype=None):
        return self

    @property
    def name(self):
        return self._name

    def __getattr__(self, name):
        # A global's signature and name, read from the registry when first asked for
        # (signature.lazy_signature).
        if (
            name in ("__signature__", "__name__", "__qualname__")
            and getattr(self, "_name", None) is not None
        ):
            attrs = lazy_signature(self, self._name)
            if attrs is not None:
                return attrs[name]
        return Object.__getattr__(self, name)

    @property
    def long_running(self):
        return bool(self._signature()[2])

    def _signature(self):
        info = self._info
        if info is None:
            # Set self._info only once the answer is whole: _query_info calls through ctypes,
            # which releases the GIL, so another thread may read self._info meanwhile.
            info = _INFO_CACHE.get(self._name)
            if info is None:
                info = (None, (), False, None) if self._name is None else _query_info(self._name)
                if self._name is not None:
                    _INFO_CACHE[self._name] = info
            self._info = info
        return info

    def _bind_keywords(self, args, kwargs):
        vector = list(args) + list(kwargs.values())
        slots = bind_keywords(
            self._name or "mxffi.Function", self._signature(), len(args), tuple(kwargs)
        )
        return [
            slot[0]
            if isinstance(slot, tuple)
            else [vector[i] for i in slot]
            if isinstance(slot, range)
            else vector[slot]
            for slot in slots
        ]

    def __repr__(self):
        if self._name:
            return f"<mxffi.Function {self._name}>"
        return f"<mxffi.Function at 0x{self._handle:x}>"


_MISSING = object()


def _query_info(name):
    try:
        m = _GLOBALS["registry.function_info"](name)
    except KeyError:
        return (None, (), False, None)
    get = _GLOBALS["container.map_get_item"]
    names = tuple(_array_items(get(m, "arg_names")))
    if not names and get(m, "num_args") < 0:
        names = None
    kinds = parameter_kinds(names or (), lambda key: get(m, key))
    return (
        names,
        tuple(_array_items(get(m, "defaults"))),
        bool(get(m, "long_running")),
        kinds,
    )


def _array_items(arr):
    return [
        _GLOBALS["container.array_get_item"](arr, i)
        for i in range(_GLOBALS["container.array_size"](arr))
    ]


def _call_object(name, args):
    """Call a global and return its result as a wrapped Object, unconverted."""
    f = _GLOBALS[name]
    cells = (Any * max(len(args), 1))()  # container building: not a hot path
    keep = []
    for i, arg in enumerate(args):
        _to_cell(f, i, arg, cells[i], keep)
    result = Any()
    _check(_lib.MXFFIFuncCall(f._handle, cells, len(args), byref(result)))
    return _wrap(result.v_ptr, Object)


def get_global_func(name, allow_missing=False):
    """The global function registered under name (ValueError if none, unless allow_missing)."""
    if not isinstance(name, str):
        raise TypeError(f"mxffi.get_global_func: name must be a str, got {type(name).__name__}")
    handle = c_void_p()
    _check(_lib.MXFFIFuncGetGlobal(name.encode("utf-8"), byref(handle)))
    if not handle.value:
        if allow_missing:
            return None
        raise ValueError(f"mxffi.get_global_func: no global function named '{name}'")
    f = _wrap(handle.value, Function)
    f._name = name
    if _GLOBALS_READY:  # the functions reading signatures are looked up first, without one
        f._kinds = f._signature()[3]
    return f


def list_global_func_names():
    handle = c_void_p()
    _check(_lib.MXFFIFuncListGlobalNames(byref(handle)))
    return sorted(_array_items(_wrap(handle.value, Object)))


# Python callables given to C++ stay alive here until C++ drops the Function.
_CALLABLES = {}
_CALLABLES_LOCK = threading.Lock()


_libc = ctypes.CDLL(None)
_libc.malloc.restype = c_void_p
_libc.malloc.argtypes = [c_size_t]
_FREE = ctypes.cast(_libc.free, c_void_p).value


def _new_string_object(data, type_index):
    """An owned String/Bytes object in the frozen layout; its deleter is libc's free."""
    p = _libc.malloc(ctypes.sizeof(_StringObj) + len(data) + 1)
    if not p:
        raise MemoryError()
    body = p + ctypes.sizeof(_StringObj)
    ctypes.memmove(body, data + b"\0", len(data) + 1)
    s = _StringObj.from_address(p)
    s.header.ref_counter, s.header.type_index, s.header.reserved = 1, type_index, 0
    s.deleter, s.data, s.size = _FREE, body, len(data)
    return p


def _owned_result(value, out):
    keep = []
    cell = Any()
    _to_cell(None, 0, value, cell, keep)
    if cell.type_index in (STR_VIEW, BYTES_VIEW):
        text = ctypes.string_at(
            ByteArray.from_address(cell.v_ptr).data, ByteArray.from_address(cell.v_ptr).size
        )
        is_str = cell.type_index == STR_VIEW
        if len(text) <= 7:
            cell.type_index = SMALL_STR if is_str else SMALL_BYTES
            cell.small_len = len(text)
            ctypes.memmove(ctypes.addressof(cell) + Any.v.offset, text, len(text))
        else:
            cell.type_index = STRING if is_str else BYTES
            cell.v_ptr = _new_string_object(text, cell.type_index)
    elif cell.type_index == DLTENSOR_PTR:
        raise TypeError(
            f"mxffi: a callback cannot return an array ({type(value).__name__}) "
            "as a borrowed tensor"
        )
    elif cell.type_index >= OBJECT_BEGIN:
        _lib.MXFFIObjectIncRef(cell.v_ptr)
    ctypes.memmove(out, ctypes.addressof(cell), ctypes.sizeof(Any))


@SafeCall
def _callback(resource, args, num_args, result):
    try:
        f = _CALLABLES[resource]
        ret = f(*[_from_cell(args[i], owned=False) for i in range(num_args)])
        _owned_result(ret, result)
        return 0
    except BaseException as exc:
        kind, message, backtrace = stash_py_error(exc)
        _lib.MXFFIErrorSet(
            kind.encode(), message.encode("utf-8", "replace"), backtrace.encode("utf-8", "replace")
        )
        return -1


@Deleter
def _release(resource):
    with _CALLABLES_LOCK:
        _CALLABLES.pop(resource, None)


_next_resource = iter(range(1, 1 << 62))


def _as_function(f):
    if isinstance(f, Function):
        return f
    if not callable(f):
        raise TypeError(f"mxffi: expected a callable, got {type(f).__name__}")
    with _CALLABLES_LOCK:
        key = next(_next_resource)
        _CALLABLES[key] = f
    handle = c_void_p()
    _check(_lib.MXFFIFuncCreate(key, _callback, _release, byref(handle)))
    return _wrap(handle.value, Function)


def register_func(name=None, f=None, *, override=False):
    """Register a Python callable as a global function (decorator or direct call)."""
    if callable(name) and f is None:
        return register_func(name.__name__, name, override=override)
    if not isinstance(name, str):
        raise TypeError(f"mxffi.register_func: name must be a str, got {type(name).__name__}")
    if not name:
        raise ValueError("mxffi.register_func: name is empty")

    def register(func):
        if not callable(func):
            raise TypeError(
                f"mxffi.register_func: '{name}' expected a callable, got {type(func).__name__}"
            )
        fn = _as_function(func)
        try:
            _check(_lib.MXFFIFuncSetGlobal(name.encode("utf-8"), fn._handle, 1 if override else 0))
        except MXFFIError as e:
            raise named_error(e, "mxffi.register_func") from None
        _INFO_CACHE.pop(name, None)
        return func

    return register(f) if f is not None else register


@CheckSignals
def _check_signals():
    try:
        # Running any Python code here lets pending signal handlers run.
        _pyapi.PyErr_CheckSignals()
        return 0
    except BaseException as exc:
        kind, message, backtrace = stash_py_error(exc)
        _lib.MXFFIErrorSet(
            kind.encode(), message.encode("utf-8", "replace"), backtrace.encode("utf-8", "replace")
        )
        return -1


@WarnHook
def _warn(category, message):
    # C++ warnings (mxffi::Warn) as Python's; a filter that makes one an error hands it back.
    try:
        emit_warning(category.decode("utf-8", "replace"), message.decode("utf-8", "replace"))
        return 0
    except BaseException as exc:
        kind, text, backtrace = stash_py_error(exc)
        _lib.MXFFIErrorSet(
            kind.encode(), text.encode("utf-8", "replace"), backtrace.encode("utf-8", "replace")
        )
        return -1


# ---------------------------------------------------------------------------------------------
# DLPack's C exchange API: the same route as the Cython core's dlpack.pxi, through ctypes. The
# producer's function is called as a PYFUNCTYPE, holding the GIL as the DLPack text requires.
# Implemented here rather than left to the capsule route so the two cores behave alike; through
# ctypes it is still faster than the capsule route (about 5 us against 8 us for a torch tensor).

_EXCHANGE_CAPSULE_NAME = b"dlpack_exchange_api"
_ManagedFromPyObject = ctypes.PYFUNCTYPE(c_int, ctypes.py_object, POINTER(c_void_p))
_ManagedDeleter = CFUNCTYPE(None, c_void_p)
_DLTensorFromPyObject = ctypes.PYFUNCTYPE(c_int, ctypes.py_object, c_void_p)
_CurrentWorkStream = ctypes.PYFUNCTYPE(c_int, c_int, c_int32, POINTER(c_void_p))
_EXCHANGE_APIS = {}  # type -> (its __dlpack_c_exchange_api__ object, callable or None)
_ARG_EXCHANGE = {}  # type -> (its __dlpack_c_exchange_api__ object, _resolve_arg_exchange's)
_FROM_DLPACK = []  # ndarray.from_dlpack, fetched on first use


def _mro_lookup(tp, name):
    for cls in tp.__mro__:
        if name in cls.__dict__:
            return cls
    return None


def _exchange_table(tp, cap):
    """The address of the 1.x table to use for tp's tensors, or None (capsule route)."""
    if not _pyapi.PyCapsule_IsValid(cap, _EXCHANGE_CAPSULE_NAME):
        return None  # DLPack 1.2's bare int, or not a table at all
    header = _pyapi.PyCapsule_GetPointer(cap, _EXCHANGE_CAPSULE_NAME)
    # DLPackExchangeAPI: {version {u32 major, u32 minor}, prev_api} then five function pointers.
    while header and c_uint32.from_address(header).value != 1:
        header = c_void_p.from_address(header + 8).value
    # The table exports what the class that set it exports; a subclass overriding __dlpack__
    # changes that, so its tensors go through its own __dlpack__.
    owner = _mro_lookup(tp, "__dlpack_c_exchange_api__")
    dlpack_owner = _mro_lookup(tp, "__dlpack__")
    if not header or owner is None or dlpack_owner is None or not issubclass(owner, dlpack_owner):
        return None
    return header


def _resolve_exchange_api(tp, cap):
    header = _exchange_table(tp, cap)
    fn = c_void_p.from_address(header + 24).value if header else None
    return _ManagedFromPyObject(fn) if fn else None


def _lazy_bit_method(owner, name):
    method = getattr(owner, name, None)
    return method if callable(method) else None


def _resolve_arg_exchange(tp, cap):
    header = _exchange_table(tp, cap)
    fn = c_void_p.from_address(header + 40).value if header else None
    if not fn:
        return None
    stream = c_void_p.from_address(header + 48).value
    owner = _mro_lookup(tp, "__dlpack_c_exchange_api__")
    return (
        _DLTensorFromPyObject(fn),
        _CurrentWorkStream(stream) if stream else None,
        _lazy_bit_method(owner, "is_neg"),
        _lazy_bit_method(owner, "is_conj"),
    )


def _arg_exchange(tp):
    """(dltensor_from_py_object_no_sync, current_work_stream or None, is_neg, is_conj) of tp's
    table, or None where its tensors take the capsule route."""
    cap = getattr(tp, "__dlpack_c_exchange_api__", None)
    if cap is None:
        return None
    entry = _ARG_EXCHANGE.get(tp)
    if entry is None or entry[0] is not cap:
        entry = _ARG_EXCHANGE[tp] = (cap, _resolve_arg_exchange(tp, cap))
    return entry[1]


def _from_dlpack_exchange(obj):
    """An NDArray taking obj's tensor through its type's DLPack C exchange API, or None.

    Same contract as the Cython core's: None sends the caller down the capsule route.
    """
    tp = type(obj)
    cap = getattr(tp, "__dlpack_c_exchange_api__", None)
    if cap is None:
        return None
    entry = _EXCHANGE_APIS.get(tp)
    if entry is None or entry[0] is not cap:
        entry = _EXCHANGE_APIS[tp] = (cap, _resolve_exchange_api(tp, cap))
    if entry[1] is None:
        return None
    managed = c_void_p()
    try:
        rc = entry[1](obj, byref(managed))
    except Exception:
        return None
    if rc != 0 or not managed.value:
        return None
    if not _FROM_DLPACK:
        _FROM_DLPACK.append(get_global_func("ndarray.from_dlpack"))
    try:
        return _FROM_DLPACK[0](managed, True)
    except BaseException:
        # ndarray.from_dlpack takes nothing when it raises: the tensor is still ours to free.
        deleter = c_void_p.from_address(managed.value + 16).value
        if deleter:
            _ManagedDeleter(deleter)(managed.value)
        raise


_GLOBALS = {}
_GLOBALS_READY = False
for _name in (
    "registry.function_info",
    "container.map_get_item",
    "container.array_get_item",
    "container.array_size",
    "container.array",
    "container.map",
    "container.shape",
    "object.get_attr",
    "object.field_names",
    "ndarray.parse_dtype",
):
    _GLOBALS[_name] = get_global_func(_name)
_GLOBALS_READY = True
_lib.MXFFIEnvSetCheckSignals(_check_signals)
_lib.MXFFIEnvSetWarnHook(_warn)
