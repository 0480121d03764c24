"""mxffi.np: numpy-style array functions, each a registered C++ function ("np.<name>").

The functions are the registered globals themselves: a call goes straight from the vectorcall
slot to C++, keyword arguments included, with no Python wrapper in between.
"""

from .._ffi import DataType, Device
from ..ndarray import NDArray, from_dlpack
from ..registry import init_api as _init_api
from . import _methods

ndarray = NDArray

bool_ = "bool"
int8, int16, int32, int64 = "int8", "int16", "int32", "int64"
uint8, uint16, uint32, uint64 = "uint8", "uint16", "uint32", "uint64"
float16, bfloat16, float32, float64 = "float16", "bfloat16", "float32", "float64"


def cpu(device_id=0):
    """The CPU device (DLPack device type 1)."""
    return Device("cpu", device_id)


def cuda(device_id=0):
    """A CUDA device (DLPack device type 2)."""
    return Device("cuda", device_id)


_methods.attach()

__all__ = _init_api("np", __name__) + [
    "DataType",
    "cpu",
    "cuda",
    "from_dlpack",
    "ndarray",
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]
