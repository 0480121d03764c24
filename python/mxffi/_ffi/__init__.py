"""The core of mxffi's Python side: objects, functions and conversions over the C ABI.

Two implementations of the same calls exist: the Cython core (the default, with a C vectorcall
slot) and a ctypes one, the reference the call-latency benchmark compares against.
``MXFFI_FFI=ctypes`` in the environment selects the ctypes one.
"""

import os

from . import libinfo

libinfo.check_gil_build()

backend = os.environ.get("MXFFI_FFI", "cython")
if backend == "cython":
    from . import core as _impl
elif backend == "ctypes":
    from . import ctypes_backend as _impl
else:
    raise ImportError(f"mxffi: MXFFI_FFI must be 'cython' or 'ctypes', got '{backend}'")

Object = _impl.Object
Function = _impl.Function
DataType = _impl.DataType
Device = _impl.Device
Shape = _impl.Shape
get_global_func = _impl.get_global_func
list_global_func_names = _impl.list_global_func_names
register_func = _impl.register_func
register_object = _impl.register_object
register_sparse_class = _impl.register_sparse_class
# c_api.h's MXFFIStorageType: the frozen values of an NDArray's storage type field.
STORAGE_DEFAULT = _impl.STORAGE_DEFAULT
STORAGE_ROW_SPARSE = _impl.STORAGE_ROW_SPARSE
STORAGE_CSR = _impl.STORAGE_CSR
STORAGE_COO = _impl.STORAGE_COO
