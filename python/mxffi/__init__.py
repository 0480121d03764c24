"""mxffi: a packed-function runtime bridging Python and C++ for dense and sparse arrays."""

from importlib.metadata import PackageNotFoundError as _NotFound
from importlib.metadata import version as _version

from . import cuda, library, ndarray, registry  # noqa: F401  (mxffi.cuda)
from ._ffi import (
    DataType,
    Device,
    Function,
    Object,
    get_global_func,
    list_global_func_names,
    register_func,
    register_object,
)
from ._ffi.error import MXFFIError
from ._ffi.libinfo import include_dir, lib_dir
from .container import ADT, Array, Map, Shape, String
from .ndarray import NDArray
from .registry import init_api as _init_api  # noqa: F401  (mxffi._init_api, for areas)

try:
    __version__ = _version("mxffi")
except _NotFound:  # pragma: no cover - running from a checkout that was never installed
    __version__ = "0.0.0+unknown"

# Last: mxffi.np reads function signatures, which needs the container classes registered above.
# The array layer (mxffi.np, mxffi.nd) needs the Cython core; the ctypes core is the reference
# of the call path only.
from . import ops  # noqa: E402
from ._ffi import backend as _backend  # noqa: E402

if _backend == "cython":
    from . import nd, np  # noqa: E402

__all__ = [
    "ADT",
    "Array",
    "DataType",
    "Device",
    "Function",
    "MXFFIError",
    "Map",
    "NDArray",
    "Object",
    "Shape",
    "String",
    "get_global_func",
    "include_dir",
    "lib_dir",
    "library",
    "ndarray",
    "nd",
    "np",
    "ops",
    "registry",
    "list_global_func_names",
    "register_func",
    "register_object",
]
