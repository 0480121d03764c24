"""The core of mxffi's Python side: objects, functions and conversions over the C ABI.

Two implementations of the same calls exist: the Cython core (the default, with a C vectorcall
slot) and a ctypes one, the reference the call-latency benchmark compares against.
``MXFFI_FFI=ctypes`` in the environment selects the ctypes one.
"""

import os

from . import libinfo

libinfo.check_gil_build()

backend = os.environ.get("MXFFI_FFI", "cython")


class _SourceFile:
    """A loader whose only source is one file: how linecache is told where a file named by a
    path that is not one from the current folder lies."""

    def __init__(self, path):
        self._path = path

    def get_source(self, name):
        with open(self._path, encoding="utf-8") as f:
            return f.read()


def _seed_cython_sources():
    """A wheel's Cython frames name their files by their paths inside the package
    ("mxffi/_ffi/cython/function.pxi"; a build from the sources names them by absolute path).
    Python's traceback looks such a name up through the extension module's loader, which has no
    source, and so would show no line: linecache is told where each file is, to be read when a
    traceback first shows one of its lines."""
    import linecache

    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cython")
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name.endswith((".pyx", ".pxi")):
            loader = _SourceFile(os.path.join(folder, name))
            linecache.lazycache(
                f"mxffi/_ffi/cython/{name}", {"__name__": name, "__loader__": loader}
            )


if backend not in ("cython", "ctypes"):
    raise ImportError(f"mxffi: MXFFI_FFI must be 'cython' or 'ctypes', got '{backend}'")
# Either backend loads libmxffi, and with it OpenBLAS, which picks its kernels then.
with libinfo.openblas_core_type_set():
    if backend == "cython":
        from . import core as _impl

        _seed_cython_sources()
    else:
        from . import ctypes_backend as _impl

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
