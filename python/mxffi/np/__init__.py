"""mxffi.np: numpy-style array functions, each a registered C++ function ("np.<name>").

The functions are the registered globals themselves: a call goes straight from the vectorcall
slot to C++, keyword arguments included, with no Python wrapper in between.
"""

from .._ffi import DataType, Device, backend

if backend != "cython":
    raise ImportError(
        "mxffi.np needs the Cython core; MXFFI_FFI=ctypes selects the ctypes core, the reference "
        "of the call path only"
    )

from ..ndarray import NDArray, from_dlpack  # noqa: E402
from ..registry import init_api as _init_api  # noqa: E402
from ..typing import AxisLike as _AxisLike  # noqa: E402
from ..typing import NDArrayLike as _NDArrayLike  # noqa: E402

ndarray = NDArray

# numpy's scalar type names, as DataTypes: mnp.zeros(3, dtype=mnp.float32), x.dtype == mnp.int8.
bool = bool_ = DataType("bool")  # numpy 2 has both names
int8, int16, int32, int64 = (DataType(f"int{b}") for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (DataType(f"uint{b}") for b in (8, 16, 32, 64))
float16, bfloat16 = DataType("float16"), DataType("bfloat16")
float32, float64 = DataType("float32"), DataType("float64")
complex64, complex128 = DataType("complex64"), DataType("complex128")


# The array API standard this namespace implements, its constants and its objects.
__array_api_version__ = "2024.12"
e = 2.718281828459045
pi = 3.141592653589793
inf = float("inf")
nan = float("nan")
newaxis = None

from ._info import finfo, iinfo  # noqa: E402
from ._info import namespace_info as __array_namespace_info__  # noqa: E402


def cpu(device_id=0):
    """The CPU device (DLPack device type 1)."""
    return Device("cpu", device_id)


def cuda(device_id=0):
    """A CUDA device (DLPack device type 2)."""
    return Device("cuda", device_id)


_api_names = _init_api("np", __name__)

# The array API's unique_* results: named tuples, built once here around the tuple each
# registered function of the same name returns (which keeps naming itself in its errors).
import builtins as _builtins  # noqa: E402 (bool is the DataType here)
from collections import namedtuple as _namedtuple  # noqa: E402

UniqueAllResult = _namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = _namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = _namedtuple("UniqueInverseResult", ["values", "inverse_indices"])
_unique_all, _unique_counts, _unique_inverse = unique_all, unique_counts, unique_inverse  # noqa: F821
_unique = unique  # noqa: F821


def unique(
    ar: _NDArrayLike,
    return_index: _builtins.bool = False,
    return_inverse: _builtins.bool = False,
    return_counts: _builtins.bool = False,
    axis: _AxisLike = None,
    *,
    equal_nan: _builtins.bool = True,
    sorted: _builtins.bool = True,  # noqa: A002 (numpy's name)
) -> NDArray | tuple[NDArray, ...]:
    """numpy's unique for axis=None: the sorted distinct values of ar, or with a return_* flag a
    tuple of them and, as asked, the flat index of each one's first occurrence, each element's
    index into them (ar's shape) and their counts. equal_nan=True makes all NaNs one value."""
    r = _unique(
        ar, return_index, return_inverse, return_counts, axis, equal_nan=equal_nan, sorted=sorted
    )
    return r[0] if len(r) == 1 else tuple(r)


def unique_all(x: _NDArrayLike, /) -> UniqueAllResult:
    """The distinct values of x sorted (each NaN distinct), the flat index of each one's first
    occurrence, each element's index into the values (x's shape) and each value's count, as
    UniqueAllResult(values, indices, inverse_indices, counts)."""
    return UniqueAllResult(*_unique_all(x))


def unique_counts(x: _NDArrayLike, /) -> UniqueCountsResult:
    """The distinct values of x sorted (each NaN distinct) and how often each occurs, as
    UniqueCountsResult(values, counts)."""
    return UniqueCountsResult(*_unique_counts(x))


def unique_inverse(x: _NDArrayLike, /) -> UniqueInverseResult:
    """The distinct values of x sorted (each NaN distinct) and each element's index into them
    (x's shape), as UniqueInverseResult(values, inverse_indices)."""
    return UniqueInverseResult(*_unique_inverse(x))


__all__ = _api_names + [
    "DataType",
    "__array_api_version__",
    "__array_namespace_info__",
    "e",
    "pi",
    "inf",
    "nan",
    "newaxis",
    "finfo",
    "iinfo",
    "cpu",
    "cuda",
    "from_dlpack",
    "ndarray",
    "bool",
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
    "complex64",
    "complex128",
]


_unstack_fields = unstack  # noqa: F821 (the registered np.unstack, which returns an ADT)


def unstack(x, /, *, axis=0):
    """x split along axis into a tuple of x.shape[axis] views of x, each without that axis (the
    array API's unstack; x at least 1-d). The registered np.unstack makes the views in C++ and
    returns them as an ADT; the standard asks for a tuple."""
    return tuple(_unstack_fields(x, axis=axis))


_divmod_fields = divmod  # noqa: F821 (the registered np.divmod, which returns an ADT)


def divmod(x1, x2, /):  # noqa: A001 (numpy's name)
    """(x1 // x2, x1 % x2), elementwise: numpy's divmod, a tuple of two arrays (np.floor_divide
    and np.remainder of the same operands, with their dtypes and errors)."""
    return tuple(_divmod_fields(x1, x2))


_eye_registered = eye  # noqa: F821 (the registered np.eye, whose k is an int64)
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def eye(n_rows, n_cols=None, k=0, dtype=None, device=None):
    """An n_rows x n_cols array (n_cols None: square) with ones on the k-th diagonal (0 the main
    one, positive above it, negative below) and zeros elsewhere. k may be any int, as numpy's:
    one past int64 is past every diagonal, and the array is all zeros."""
    if type(k) is int and not _INT64_MIN <= k <= _INT64_MAX:
        k = _INT64_MIN if k < 0 else _INT64_MAX
    return _eye_registered(n_rows, n_cols, k, dtype, device)


def _tuple_signature(registered, result):
    import inspect

    sig = inspect.signature(registered)
    return sig.replace(return_annotation=result)


unstack.__signature__ = _tuple_signature(_unstack_fields, tuple[NDArray, ...])
divmod.__signature__ = _tuple_signature(_divmod_fields, tuple[NDArray, NDArray])
eye.__signature__ = _tuple_signature(_eye_registered, NDArray)

from . import fft, linalg  # noqa: E402  (linalg re-exports functions defined above)

__all__ += ["fft", "linalg"]
