"""The "testing.*" functions from libmxffi_testing, which tests use to cross the boundary."""

from . import library as _library
from ._ffi import libinfo as _libinfo
from .registry import init_api as _init_api

_library.load(_libinfo.find_lib("mxffi_testing"))
_init_api("testing", __name__)
