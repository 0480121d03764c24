"""mxffi.NDArray of the ctypes core, the call-path reference: shape, dtype and device read from
the frozen object layout through ctypes, and DLPack export. The array type with numpy's semantics
(indexing, operators, methods) is the Cython core's; mxffi.np and mxffi.nd need that core.
"""

import ctypes
from ctypes import POINTER, Structure, c_int, c_int32, c_int64, c_uint8, c_uint16, c_uint64

from . import ctypes_backend as _core
from .ctypes_backend import Device, Object, get_global_func, register_object

__all__ = ["NDArray"]

_empty = get_global_func("ndarray.empty")
_to_device = get_global_func("ndarray.to_device")
_copyto = get_global_func("ndarray.copyto")
_current_stream = get_global_func("cuda.current_stream")
_stream_wait_stream = get_global_func("cuda.stream_wait_stream")
_record_stream = get_global_func("cuda.record_stream")
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
        return _core.dtype_from_fields(t.code, t.bits, t.lanes)

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
        """A DLPack capsule viewing this array (versioned when max_version >= (1, 0)).

        For a CUDA array, stream is the consumer's stream as the array API defines it: None or
        1 the legacy default stream, 2 the per-thread default stream, -1 no synchronisation,
        any other int a ``cudaStream_t``; 0 is refused. Unless it is -1, the consumer's stream
        waits (on the device) for the work queued so far on mxffi's current stream of the
        array's device, and the array's memory is not reused before the consumer's stream has
        done what it queued by the time the array is freed. dl_device other than the array's
        own (the CPU or a CUDA device) exports a copy there, unless copy is False; copy=True
        always exports a copy.
        """
        own = self.__dlpack_device__()
        src = self
        if dl_device is not None and tuple(dl_device) != own:
            target = tuple(dl_device)
            if copy is False:
                raise BufferError(
                    f"mxffi.NDArray.__dlpack__: cannot export to device {target} without a copy "
                    f"(copy=False); the array is on {own}"
                )
            if target[0] not in (1, 2):
                raise BufferError(
                    f"mxffi.NDArray.__dlpack__: cannot export to device {target}; the array is "
                    f"on {own}, and copies go to the CPU (1) and CUDA devices (2) only"
                )
            try:
                src = _to_device(self, Device(target[0], target[1]))
            except (RuntimeError, ValueError) as e:
                raise BufferError(
                    f"mxffi.NDArray.__dlpack__: cannot export to device {target}: {e}"
                ) from e
        elif copy:
            src = _to_device(self, self.device)
        dev_type, dev_id = src.__dlpack_device__()
        if stream is not None and (isinstance(stream, bool) or not isinstance(stream, int)):
            raise TypeError(
                f"mxffi.NDArray.__dlpack__: stream must be an int or None, got "
                f"{type(stream).__name__}"
            )
        if dev_type == 2:
            if stream == 0:
                raise ValueError(
                    "mxffi.NDArray.__dlpack__: stream 0 is ambiguous for CUDA and not allowed; "
                    "use 1 for the legacy default stream or 2 for the per-thread one"
                )
            if stream is not None and stream < -1:
                # Not a cudaStream_t: the driver would dereference it as one.
                raise ValueError(
                    f"mxffi.NDArray.__dlpack__: stream must be None, -1, 1, 2 or a cudaStream_t, "
                    f"got {stream}"
                )
            if stream != -1:
                # None and 1 name the legacy default stream, which handle 0 is in mxffi.
                consumer = 0 if stream in (None, 1) else stream
                producer = int(_current_stream(dev_id))
                if consumer != producer:
                    _stream_wait_stream(dev_id, consumer, producer)
                    _record_stream(src, consumer)
        elif stream is not None and stream != -1:
            raise ValueError(f"mxffi.NDArray.__dlpack__: stream must be None for CPU, got {stream}")
        if src._tensor().lanes != 1:
            # numpy and PyTorch refuse such a tensor after taking the capsule, and numpy then
            # frees it with its error still pending; refusing here keeps that from happening.
            raise BufferError(
                f"mxffi.NDArray.__dlpack__: dtype {self.dtype} has {self._tensor().lanes} lanes; "
                "DLPack consumers take single-lane data types only"
            )
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        managed = _to_dlpack(src, versioned).value
        name = b"dltensor_versioned" if versioned else b"dltensor"
        return _api.PyCapsule_New(managed, name, _CAPSULE_DESTRUCTOR)

    def to(self, device):
        """A copy of this array on device ("cpu", "cuda", "cuda:1", a Device): always a new,
        C-contiguous array (sparse arrays: each part copied), between the CPU and CUDA devices
        in any direction. A copy to the CPU has finished when this returns; one to a CUDA
        device is queued on that device's current stream."""
        return _to_device(self, device if isinstance(device, Device) else Device(device))

    def copyto(self, other):
        """Copy into other: an NDArray of the same shape and dtype on any device (its elements
        are overwritten; returns it), or a device (the same as ``to``). Between storage types
        (dense into csr, csr into row_sparse, ...) self is converted to other's first (MXNet's
        copyto); a sparse other keeps its storage type and index dtype."""
        if isinstance(other, NDArray):
            dst_stype = getattr(other, "stype", "default")
            if getattr(self, "stype", "default") != dst_stype or dst_stype != "default":
                from mxffi.nd.sparse import _copy_across

                return _copy_across(self, other)
            return _copyto(self, other)
        return self.to(other)

    def __repr__(self):
        return f"mxffi.NDArray(shape={self.shape}, dtype={self.dtype}, device={self.device})"

    def numpy(self):
        """A numpy array sharing this array's memory."""
        import numpy

        return numpy.from_dlpack(self)
