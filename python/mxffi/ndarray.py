"""mxffi.NDArray on the Python side: shape, dtype and device read from the frozen object layout,
and DLPack in both directions without a copy.

The array's DLTensor sits right after the object header (c_api.h, MXFFINDArrayObj), so its
fields are read from memory, with no call. DLPack capsules are made and consumed here; the
tensor inside is taken by, or made by, the registered globals ndarray.from_dlpack and
ndarray.to_dlpack.
"""

import ctypes
from ctypes import POINTER, Structure, c_int, c_int32, c_int64, c_uint8, c_uint16, c_uint64

from ._ffi import DataType, Device, Object, get_global_func, register_object
from ._ffi import _impl as _core  # the selected core, Cython or ctypes
from ._ffi.dtype import dtype_str
from ._ffi.error import export_refused

__all__ = ["NDArray", "empty", "from_dlpack"]

_empty = get_global_func("ndarray.empty")
_from_dlpack = get_global_func("ndarray.from_dlpack")
_to_dlpack = get_global_func("ndarray.to_dlpack")
_read_only = get_global_func("ndarray.read_only")


class _DLTensor(Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device_type", c_int),
        ("device_id", c_int32),
        ("ndim", c_int32),
        ("code", c_uint8),
        ("bits", c_uint8),
        ("lanes", c_uint16),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),
        ("byte_offset", c_uint64),
    ]


_HEADER_SIZE = 24  # sizeof(MXFFIObject), frozen in c_api.h
# The managed tensors' deleters: DLManagedTensor {dl_tensor, manager_ctx, deleter};
# DLManagedTensorVersioned {version, manager_ctx, deleter, flags, dl_tensor}.
_LEGACY_DELETER_OFFSET = ctypes.sizeof(_DLTensor) + 8
_VERSIONED_DELETER_OFFSET = 16
_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api_raw = ctypes.PyDLL(None)  # the same functions, taking PyObject* as a plain pointer
_api_raw.PyCapsule_IsValid.restype = c_int
_api_raw.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api_raw.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api_raw.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]


def _call_deleter(managed, offset):
    fn = ctypes.c_void_p.from_address(managed + offset).value
    if fn:
        _Deleter(fn)(managed)


@_CapsuleDestructor
def _capsule_destructor(capsule):
    # A capsule never consumed still owns its tensor; a consumer renames it "used_*".
    if _api_raw.PyCapsule_IsValid(capsule, b"dltensor"):
        _call_deleter(_api_raw.PyCapsule_GetPointer(capsule, b"dltensor"), _LEGACY_DELETER_OFFSET)
    elif _api_raw.PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        managed = _api_raw.PyCapsule_GetPointer(capsule, b"dltensor_versioned")
        _call_deleter(managed, _VERSIONED_DELETER_OFFSET)


_CAPSULE_DESTRUCTOR = ctypes.cast(_capsule_destructor, ctypes.c_void_p).value


@register_object("mxffi.NDArray")
class NDArray(Object):
    """An n-dimensional array owned by mxffi (or borrowed, zero-copy, from a DLPack producer)."""

    # No instance __dict__: an array is then not tracked by the garbage collector, which makes
    # creating and freeing one cheaper. Weak references still work (the ctypes core's Object
    # already has the slot).
    __slots__ = () if hasattr(Object, "__weakref__") else ("__weakref__",)

    def _tensor(self):
        return _DLTensor.from_address(self.handle + _HEADER_SIZE)

    @property
    def shape(self):
        t = self._tensor()
        return tuple(t.shape[i] for i in range(t.ndim))

    @property
    def ndim(self):
        return self._tensor().ndim

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def dtype(self):
        t = self._tensor()
        return DataType(dtype_str(t.code, t.bits, t.lanes))

    @property
    def device(self):
        t = self._tensor()
        return Device(t.device_type, t.device_id)

    @property
    def read_only(self):
        """Whether the producer of the memory marked it read-only (DLPack 1.x)."""
        return _read_only(self)

    def __dlpack_device__(self):
        t = self._tensor()
        return (t.device_type, t.device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule viewing this array (versioned when max_version >= (1, 0))."""
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(
                f"mxffi.NDArray.__dlpack__: cannot export to device {tuple(dl_device)}; the "
                f"array is on {self.__dlpack_device__()} and copies across devices are not "
                "supported"
            )
        if copy:
            raise BufferError("mxffi.NDArray.__dlpack__: copy=True is not supported yet")
        if stream is not None and stream != -1 and self.__dlpack_device__()[0] == 1:
            raise ValueError(f"mxffi.NDArray.__dlpack__: stream must be None for CPU, got {stream}")
        if self._tensor().lanes != 1:
            # numpy and PyTorch refuse such a tensor after taking the capsule, and numpy then
            # frees it with its error still pending; refusing here keeps that from happening.
            raise BufferError(
                f"mxffi.NDArray.__dlpack__: dtype {self.dtype} has {self._tensor().lanes} lanes; "
                "DLPack consumers take single-lane data types only"
            )
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        managed = _to_dlpack(self, versioned).value
        name = b"dltensor_versioned" if versioned else b"dltensor"
        return _api.PyCapsule_New(managed, name, _CAPSULE_DESTRUCTOR)

    def __repr__(self):
        return f"mxffi.NDArray(shape={self.shape}, dtype={self.dtype}, device={self.device})"

    def numpy(self):
        """A numpy array sharing this array's memory."""
        import numpy

        return numpy.from_dlpack(self)


def empty(shape, dtype="float64", device="cpu"):
    """An uninitialised C-contiguous array (64-byte aligned on the CPU)."""
    if not isinstance(dtype, DataType):
        dtype = DataType(dtype)
    if not isinstance(device, Device):
        device = Device(device)
    return _empty(shape, dtype, device)


# The capsule keeps a pointer to its name, not a copy: these bytes live as long as the module.
_CAPSULE_NAMES = (
    (b"dltensor_versioned", b"used_dltensor_versioned", True),
    (b"dltensor", b"used_dltensor", False),
)


def from_dlpack(x):
    """An NDArray sharing the memory of any DLPack producer (numpy, PyTorch, ...).

    Where the producer's type offers DLPack's C exchange API (``__dlpack_c_exchange_api__``,
    PyTorch does), the tensor comes through its table with no capsule made; otherwise, and
    wherever that route declines, through a capsule from ``x.__dlpack__``.
    """
    if isinstance(x, NDArray):
        return x
    tp = type(x)
    # torch.Tensor.__dlpack__ refuses, in Python, tensors that require grad or have the
    # conjugate bit set; its C table exports them without a word. Those take the capsule route
    # and get torch's own BufferError.
    if (
        hasattr(tp, "__dlpack_c_exchange_api__")
        and not getattr(x, "requires_grad", False)
        and not (hasattr(tp, "is_conj") and x.is_conj())
    ):
        arr = _core._from_dlpack_exchange(x)
        if arr is not None:
            return arr
    if not hasattr(tp, "__dlpack__"):
        raise TypeError(f"mxffi.from_dlpack: {type(x).__name__} has no __dlpack__ method")
    try:
        try:
            capsule = x.__dlpack__(max_version=(1, 0))
        except TypeError:
            capsule = x.__dlpack__()
    except BufferError as e:
        raise export_refused("mxffi.from_dlpack", x, e) from e
    for name, used, versioned in _CAPSULE_NAMES:
        if _api.PyCapsule_IsValid(capsule, name):
            managed = _api.PyCapsule_GetPointer(capsule, name)
            arr = _from_dlpack(ctypes.c_void_p(managed), versioned)
            # Taken: the array runs the deleter now, so the capsule must not.
            _api.PyCapsule_SetName(capsule, used)
            return arr
    raise TypeError(
        f"mxffi.from_dlpack: {type(x).__name__}.__dlpack__() returned {capsule!r}, which is not "
        "an unconsumed DLPack capsule"
    )
