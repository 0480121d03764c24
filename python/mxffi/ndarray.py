"""mxffi.NDArray and the functions that make arrays from nothing or from DLPack producers.

The array type is the Cython core's (``mxffi._ffi.core.NDArray``: attributes read from the
frozen object layout in C, numpy's indexing, operators and methods). Under the ctypes core, the
call-path reference, it is a small ctypes class with the attributes and DLPack export only.
"""

import ctypes
import sys

from ._ffi import DataType, Device, backend, get_global_func
from ._ffi import _impl as _core  # the selected core, Cython or ctypes
from ._ffi.error import export_refused, lazy_bit_refused

__all__ = ["NDArray", "empty", "from_dlpack"]

if backend == "cython":
    NDArray = _core.NDArray
else:
    from ._ffi.ctypes_ndarray import NDArray

_empty = get_global_func("ndarray.empty")
_current_stream = get_global_func("cuda.current_stream")
_from_dlpack = get_global_func("ndarray.from_dlpack")

_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]


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


def _capsule(x, stream):
    """x.__dlpack__(...) asking for DLPack 1.x where the producer knows it."""
    kwargs = {} if stream is None else {"stream": stream}
    try:
        try:
            return x.__dlpack__(max_version=(1, 0), **kwargs)
        except TypeError:
            return x.__dlpack__(**kwargs)
    except BufferError as e:
        raise export_refused("mxffi.from_dlpack", x, e) from e


def from_dlpack(x, /, *, device=None, copy=None):
    """An NDArray of any DLPack producer's tensor (numpy, PyTorch, ...), as the array API has
    it: sharing the producer's memory where it can (copy=None, the default), always a copy
    (copy=True), or never one (copy=False: a ValueError where device asks for another device).
    device (a Device, a name such as "cuda:0", or None for the producer's) is where the result
    lives.
    """
    arr = _shared_from_dlpack(x)
    moves = device is not None and Device(device) != arr.device
    if moves:
        if copy is False:
            raise ValueError(
                f"mxffi.from_dlpack: the tensor is on {arr.device}, and copy=False forbids the "
                f"copy to {Device(device)}"
            )
        return arr.to(device)
    if copy:
        return arr.to(arr.device)
    return arr


def _shared_from_dlpack(x):
    """An NDArray sharing the memory of any DLPack producer (numpy, PyTorch, ...).

    Where the producer's type offers DLPack's C exchange API (``__dlpack_c_exchange_api__``,
    PyTorch does), a CPU tensor comes through its table with no capsule made; otherwise, and
    wherever that route declines, through a capsule from ``x.__dlpack__``. A CUDA tensor comes
    through ``x.__dlpack__(stream=...)`` naming mxffi's current stream of its device (1 for the
    legacy default stream), so the producer's queued work is ordered before mxffi's.
    """
    if isinstance(x, NDArray):
        return x
    tp = type(x)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor) and torch.Tensor.is_neg(x):
        # Both of torch's exports (__dlpack__ and its C table) carry such a tensor's memory
        # without the negation: refused by name instead of shared with the wrong sign.
        raise lazy_bit_refused("mxffi.from_dlpack", x, "negative", "resolve_neg")
    device = x.__dlpack_device__() if hasattr(tp, "__dlpack_device__") else None
    if device is not None and device[0] == 2:
        # A CUDA tensor: the producer orders its work before mxffi's current stream of the
        # device (1 names the legacy default stream, mxffi's handle 0).
        ours = int(_current_stream(device[1]))
        capsule = _capsule(x, ours if ours != 0 else 1)
    else:
        # torch.Tensor.__dlpack__ refuses, in Python, tensors that require grad or have the
        # conjugate bit set; its C table exports them without a word. Those take the capsule
        # route and get torch's own BufferError.
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
        capsule = _capsule(x, None)
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
