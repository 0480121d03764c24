"""ndarray's operators and numpy-style methods, attached to mxffi.NDArray by mxffi.np.

Each operator is a one-line method calling the registered np function (a Function on a class
does not bind, like a staticmethod), so ``a + b`` is one call into C++; reflected operators
swap the operands.
"""

import ctypes

from .._ffi import DataType, get_global_func
from ..ndarray import NDArray


def _bfloat16_dtype():
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError(
            "mxffi.NDArray: converting a bfloat16 array to numpy needs ml_dtypes "
            "(pip install ml_dtypes)"
        ) from None
    return ml_dtypes.bfloat16


def asnumpy(self):
    """A numpy array: sharing this array's memory on the CPU; a copy of a CUDA array (made
    after the work queued on the device's current stream, and complete when this returns)."""
    import numpy

    host = self if self.device.device_type == 1 else self.to("cpu")

    if str(host.dtype) != "bfloat16":
        return numpy.from_dlpack(host)
    # numpy has no bfloat16 DLPack code: view the bits as uint16, then as ml_dtypes' bfloat16.
    bf16 = _bfloat16_dtype()
    src = host if _np_is_contiguous(host) else _np.copy(host)
    t = src._tensor()
    n = src.size
    buf = (ctypes.c_uint16 * max(n, 1)).from_address(t.data + t.byte_offset)
    buf._mxffi_owner = src  # the memory lives as long as the numpy view
    flat = numpy.frombuffer(buf, dtype=numpy.uint16, count=n)
    return flat.view(bf16).reshape(src.shape)


def _np_is_contiguous(self):
    t = self._tensor()
    if not t.strides:
        return True
    expected = 1
    for i in range(t.ndim - 1, -1, -1):
        if t.shape[i] != 1 and t.strides[i] != expected:
            return False
        expected *= t.shape[i]
    return True


def __array__(self, dtype=None, copy=None):  # noqa: N807 (numpy's protocol name)
    out = asnumpy(self)
    if dtype is not None and out.dtype != dtype:
        return out.astype(dtype)
    if copy:
        return out.copy()
    return out


def tolist(self):
    """The elements as nested Python lists of Python scalars (numpy's tolist)."""
    return asnumpy(self).tolist()


def item(self):
    """The only element as a Python scalar; ValueError unless size is 1 (numpy's item)."""
    if self.size != 1:
        raise ValueError(
            "mxffi.NDArray.item: can only convert an array of size 1 to a Python scalar; got "
            f"shape {self.shape} (size {self.size})"
        )
    return asnumpy(self).item()


def __repr__(self):  # noqa: N807
    if self.device.device_type == 1:
        return repr(asnumpy(self))
    if self.device.device_type != 2:
        return f"mxffi.NDArray(shape={self.shape}, dtype={self.dtype}, device={self.device})"
    # numpy's repr of a host copy, naming the device: array([1., 2.], device=cuda:0)
    return f"{repr(asnumpy(self))[:-1]}, device={self.device})"


def __str__(self):  # noqa: N807
    if self.device.device_type not in (1, 2):
        return repr(self)
    return str(asnumpy(self))


def astype(self, dtype, copy=True):
    """A copy converted to dtype; self when copy is False and nothing needs converting."""
    if not copy and self.dtype == DataType(dtype):
        return self
    return _np.astype(self, dtype)


def reshape(self, *shape):
    """reshape((3, 4)) or reshape(3, 4): a view when the array is contiguous."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = shape[0]
    return _np.reshape(self, shape)


def copy(self):
    """A C-contiguous copy."""
    return _np.copy(self)


def __len__(self):  # noqa: N807
    if self.ndim == 0:
        raise TypeError("mxffi.NDArray: len() of unsized object (a 0-d array)")
    return self.shape[0]


def __bool__(self):  # noqa: N807
    if self.size != 1:
        raise ValueError(
            f"mxffi.NDArray: the truth value of an array of shape {self.shape} (size {self.size}) "
            "is ambiguous. Use a.any() or a.all()"
        )
    return bool(item(self))


def _method(fn, name):
    def method(self, other):
        return fn(self, other)

    method.__name__ = method.__qualname__ = name
    return method


def _swap(fn, name):
    def reflected(self, other):
        return fn(other, self)

    reflected.__name__ = reflected.__qualname__ = name
    return reflected


def _unary(fn, name):
    def method(self):
        return fn(self)

    method.__name__ = method.__qualname__ = name
    return method


class _Lazy:
    """mxffi.np, imported on first use (this module loads while mxffi.np is being built)."""

    def __getattr__(self, name):
        from .. import np

        return getattr(np, name)


_np = _Lazy()

_BINARY = {
    "add": ("__add__", "__radd__"),
    "subtract": ("__sub__", "__rsub__"),
    "multiply": ("__mul__", "__rmul__"),
    "divide": ("__truediv__", "__rtruediv__"),
    "power": ("__pow__", "__rpow__"),
    "matmul": ("__matmul__", "__rmatmul__"),
}
_UNARY = {"negative": "__neg__", "abs": "__abs__"}


def tostype(self, stype, idx_dtype=None):
    """This array stored as stype ("default", "csr" or "row_sparse"); always a new array.
    idx_dtype (int32 or int64, default int64) is the index dtype of a sparse result."""
    return get_global_func("sparse._cast_storage")(self, stype, idx_dtype)


def attach():
    """Give NDArray its operators and methods; operators whose np function is missing are
    left out (a build without that op family)."""
    for name, (op, rop) in _BINARY.items():
        try:
            fn = get_global_func(f"np.{name}")
        except ValueError:
            continue
        setattr(NDArray, op, _method(fn, op))
        setattr(NDArray, rop, _swap(fn, rop))
    for name, op in _UNARY.items():
        try:
            setattr(NDArray, op, _unary(get_global_func(f"np.{name}"), op))
        except ValueError:
            continue
    NDArray.T = property(lambda self: _np.transpose(self), doc="The transposed array (a view).")
    for fn in (asnumpy, __array__, tolist, item, __repr__, __str__, astype, reshape, copy, tostype):
        setattr(NDArray, fn.__name__, fn)
    NDArray.stype = property(lambda self: "default", doc="The storage type of a dense array.")
    NDArray.numpy = asnumpy  # numpy.from_dlpack has no bfloat16: asnumpy views its bits
    NDArray.__len__ = __len__
    NDArray.__bool__ = __bool__
    NDArray.__array_priority__ = 100  # numpy defers a + b to us when b is an mxffi array
