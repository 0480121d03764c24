# cython: language_level=3, embedsignature=True, binding=False
# cython: boundscheck=False, wraparound=False, cdivision=True
"""mxffi's Cython core: objects, functions and conversions over the C ABI (c_api.h).

Function calls go through the C vectorcall slot in fastcall.h; this module supplies its slow
paths and everything else.
"""

from mxffi._ffi.libinfo import check_gil_build

check_gil_build()

include "base.pxi"
include "object.pxi"
include "function.pxi"
include "convert.pxi"
include "dlpack.pxi"
include "ndarray.pxi"
include "ndarray_proto.pxi"
include "index.pxi"

import sys as _sys

from mxffi._ffi import dtype as _dtype
from mxffi._ffi.signature import bind_keywords as _bind_keywords
from mxffi._ffi.signature import lazy_signature as _lazy_signature
from mxffi._ffi.signature import parameter_kinds as _parameter_kinds
from mxffi._ffi.error import MXFFIError, make_error as _make_error, named_error as _named_error
from mxffi._ffi.error import export_refused as _export_refused, stash_py_error as _stash_py_error
from mxffi._ffi.error import lazy_bit_refused as _lazy_bit_refused
from mxffi._ffi.error import make_lazy_error as _make_lazy_error, with_callee as _with_callee
from mxffi._ffi.error import format_py_traceback as _format_py_traceback
from mxffi._ffi.error import emit_warning as _emit_warning
from mxffi._ffi.error import _PENDING as _PENDING_ERRORS, _TOKENS as _PENDING_TOKENS
from mxffi._ffi.error import _MARKER as _PENDING_MARKER, _BUILTIN_KINDS as _BUILTIN_ERROR_KINDS
from functools import partial as _partial
import builtins as _builtins

from mxffi._ffi.error import _MAX_PENDING as _MAX_PENDING_ERRORS
_BUILTIN_ERROR_CLASSES = {k: getattr(_builtins, k) for k in _BUILTIN_ERROR_KINDS}

try:
    from ctypes import c_void_p as _ctypes_void_p
except ImportError:  # pragma: no cover - ctypes is part of every CPython we support
    _ctypes_void_p = None


class Shape(tuple):
    """mxffi.Shape: a tuple of int64 dimensions, passed to C++ as a Shape object."""

    def __new__(cls, dims=()):
        return tuple.__new__(cls, _dtype.shape_dims(dims))

    def __repr__(self):
        return f"mxffi.Shape({tuple.__repr__(self)})"


_Shape = Shape

# Globals the conversions use; set by _init once libmxffi's own functions are registered.
_FUNCTION_INFO = None
_ARRAY = None
_MAP = None
_SHAPE = None
_GET_ATTR = None
_FIELD_NAMES = None
_MAP_GET = None
_ARRAY_GET = None
_ARRAY_SIZE = None
_ERROR_LAST_BACKTRACE = None
_ERROR_BACKTRACE = None


cdef MXFFIPyHooks _hooks


def _init():
    global _FUNCTION_INFO, _ARRAY, _MAP, _SHAPE, _GET_ATTR, _FIELD_NAMES
    global _MAP_GET, _ARRAY_GET, _ARRAY_SIZE, _PARSE_DTYPE
    global _ERROR_LAST_BACKTRACE, _ERROR_BACKTRACE, _set_foreign_handle
    cdef Function probe = Function.__new__(Function)
    cdef char* base = <char*><PyObject*>probe
    cdef DataType dtype_probe = DataType.__new__(DataType)
    _hooks.arg_slow = _hook_arg_slow
    _hooks.ret_slow = _hook_ret_slow
    _hooks.raise_error = _hook_raise
    _hooks.call_kw = _hook_call_kw
    _hooks.object_type = <PyTypeObject*>Object
    _hooks.handle_offset = <char*>&probe.chandle - base
    _hooks.flags_offset = <char*>&probe._flags - base
    MXFFIPySetHooks(&_hooks, <PyTypeObject*>Function, <char*>&probe._vectorcall - base)
    MXFFIPySetDataType(<PyTypeObject*>DataType,
                       <char*>&dtype_probe.cdtype - <char*><PyObject*>dtype_probe)
    MXFFIEnvSetCheckSignals(_check_signals)
    MXFFIEnvSetGILHooks(_release_gil, _restore_gil)
    MXFFIEnvSetWarnHook(_warn)
    _ARRAY = get_global_func("container.array")
    _MAP = get_global_func("container.map")
    _SHAPE = get_global_func("container.shape")
    _GET_ATTR = get_global_func("object.get_attr")
    _FIELD_NAMES = get_global_func("object.field_names")
    _MAP_GET = get_global_func("container.map_get_item")
    _ARRAY_GET = get_global_func("container.array_get_item")
    _ARRAY_SIZE = get_global_func("container.array_size")
    _FUNCTION_INFO = get_global_func("registry.function_info")
    _PARSE_DTYPE = get_global_func("ndarray.parse_dtype")
    _ERROR_BACKTRACE = get_global_func("error.backtrace")
    _ERROR_LAST_BACKTRACE = get_global_func("error.last_backtrace")
    MXFFIPyTakeReleased(NULL, 0)  # makes the queue's lock, before any error can be set
    if MXFFIFuncGetGlobal(b"error.set_foreign", &_set_foreign_handle) != 0:
        _raise_last_error(None)


def abi_version():
    """The C ABI version of the loaded libmxffi, as (major, minor, patch)."""
    cdef int32_t major = 0, minor = 0, patch = 0
    MXFFIGetVersion(&major, &minor, &patch)
    return (major, minor, patch)


_init()
_init_ndarray()

import atexit as _atexit

_atexit.register(_close_gil_gate)
