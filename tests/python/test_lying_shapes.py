"""Shapes that lie or overflow: DLPack tensors whose ndim, shape, strides or byte offset cannot
describe memory (imported with from_dlpack and borrowed as arguments), shapes whose element
count overflows int64 in every constructor and op (numpy's rule: the product of the nonzero
extents, times the item size, must fit), and pickled bytes that lie about dtype, shape or size.

Each DLPack case runs in a child interpreter: a tensor read as it claims would crash it."""

import pickle
import textwrap

import numpy as np
import pytest
from conftest import run_python

import mxffi.np as mx
from mxffi.nd import sparse as sp

B = 2**62

# ---------------------------------------------------------------------------------------------
# DLPack tensors that cannot describe memory

DLPACK_PRELUDE = """
import ctypes
import numpy as np
import mxffi.np as mx
import mxffi.testing as t
from mxffi.ndarray import from_dlpack

api = ctypes.PyDLL(None)
api.PyCapsule_New.restype = ctypes.py_object
api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]

class Managed(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

buf = np.arange(16.0)
keep = []

def producer(shape, strides=None, byte_offset=0, ndim=None, data=None):
    shp = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    m = Managed(major=1, minor=0)
    t_ = m.dl_tensor
    t_.data = buf.ctypes.data if data is None else data
    t_.device_type, t_.device_id = 1, 0
    t_.ndim = len(shape) if ndim is None else ndim
    t_.code, t_.bits, t_.lanes = 2, 64, 1
    t_.shape = ctypes.cast(shp, ctypes.POINTER(ctypes.c_int64))
    if strides is not None:
        st = (ctypes.c_int64 * max(len(strides), 1))(*strides)
        t_.strides = ctypes.cast(st, ctypes.POINTER(ctypes.c_int64))
        keep.append(st)
    t_.byte_offset = byte_offset
    keep.extend((shp, m))
    cap = api.PyCapsule_New(ctypes.addressof(m), b"dltensor_versioned", None)

    class Producer:
        def __dlpack__(self, **kwargs):
            return cap

        def __dlpack_device__(self):
            return (1, 0)

    return Producer()

def show(f):
    try:
        r = f()
    except BaseException as e:
        print("RAISED", type(e).__name__, str(e).splitlines()[0])
    else:
        print("RETURNED", getattr(r, "shape", r))
"""

LYING_TENSORS = {
    "ndim-negative": ("producer((4,), ndim=-1)", "ValueError", "ndim must be >= 0, got -1"),
    "ndim-huge": (
        "producer((4,), ndim=1 << 30)",
        "ValueError",
        "1073741824 dimensions; at most 64",
    ),
    "extent-negative": ("producer((-4,))", "ValueError", "shape[0]=-4 is negative"),
    "elements-overflow": (
        "producer((1 << 40, 1 << 40))",
        "ValueError",
        "describes more bytes than int64 holds",
    ),
    "zero-extent-overflow": (
        "producer((0, 1 << 62, 1 << 62))",
        "ValueError",
        "describes more bytes than int64 holds",
    ),
    "stride-overflow": (
        "producer((4,), strides=(1 << 62,))",
        "ValueError",
        "strides (4611686018427387904,) reach more bytes than int64 holds",
    ),
    "stride-negative-overflow": (
        "producer((3,), strides=(-(1 << 62),))",
        "ValueError",
        "reach more bytes than int64 holds",
    ),
    "offset-past-int64": (
        "producer((4,), byte_offset=1 << 63)",
        "ValueError",
        "byte_offset 9223372036854775808 is past int64",
    ),
    "offset-and-reach-past-int64": (
        "producer((4,), byte_offset=(1 << 63) - 8)",
        "ValueError",
        "put the last byte past int64",
    ),
    "data-near-the-top-wraps": (
        "producer((4,), data=(1 << 64) - 16)",
        "ValueError",
        "wraps around the address space",
    ),
    "negative-stride-before-address-0": (
        "producer((4,), strides=(-1,), data=8)",
        "ValueError",
        "wraps around the address space",
    ),
}


@pytest.mark.parametrize("case", list(LYING_TENSORS), ids=list(LYING_TENSORS))
def test_lying_dlpack_tensor_is_refused_on_import_and_as_an_argument(case):
    make, exc, fragment = LYING_TENSORS[case]
    code = DLPACK_PRELUDE + textwrap.dedent(
        f"""
        show(lambda: from_dlpack({make}))
        show(lambda: mx.sum({make}))
        """
    )
    proc = run_python(code, timeout=120)
    assert proc.returncode == 0, f"child exited with {proc.returncode}:\n{proc.stderr[-3000:]}"
    out = proc.stdout.strip().splitlines()
    assert out[0].startswith(f"RAISED {exc} ndarray.from_dlpack: "), out[0]
    assert fragment in out[0], out[0]
    assert out[1].startswith(f"RAISED {exc} "), out[1]
    assert fragment in out[1], out[1]


def test_honest_dlpack_tensors_with_strides_and_offsets_still_import():
    code = DLPACK_PRELUDE + textwrap.dedent(
        """
        show(lambda: from_dlpack(producer((4,), strides=(2,), byte_offset=16)).tolist())
        show(lambda: from_dlpack(producer((4,), strides=(-2,), byte_offset=120)).tolist())
        show(lambda: from_dlpack(producer((0, 5))).shape)
        show(lambda: from_dlpack(producer((2, 2), strides=(0, 1))).tolist())
        """
    )
    proc = run_python(code, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines() == [
        "RETURNED [2.0, 4.0, 6.0, 8.0]",
        "RETURNED [15.0, 13.0, 11.0, 9.0]",
        "RETURNED (0, 5)",
        "RETURNED [[0.0, 1.0], [0.0, 1.0]]",
    ]


# ---------------------------------------------------------------------------------------------
# Element counts past int64, in every constructor and op


OVERFLOWING = {
    "zeros": lambda: mx.zeros((0, B, B)),
    "ones": lambda: mx.ones((0, B, 4)),
    "empty": lambda: mx.empty((B, 0, 4)),
    "full": lambda: mx.full((0, B, B), 1.0),
    "reshape": lambda: mx.reshape(mx.zeros(0), (B, B, 0)),
    "method-reshape": lambda: mx.zeros(0).reshape((0, B, B)),
    "reshape-zero-first": lambda: mx.arange(0).reshape((0, 4, B)),
    "take": lambda: mx.take(mx.zeros((0, B)), mx.zeros((B, 0), dtype="int64"), axis=0),
    "newaxis-view": lambda: mx.zeros((0, B))[None].reshape(B, 0, B),
    "row_sparse-zeros": lambda: sp.zeros("row_sparse", (B, B)),
    "row_sparse-3d": lambda: sp.zeros("row_sparse", (B, 4, 4)),
    "row_sparse_array": lambda: sp.row_sparse_array((B, B)),
    "csr-zeros": lambda: sp.zeros("csr", (B, B)),
}


@pytest.mark.parametrize("case", list(OVERFLOWING), ids=list(OVERFLOWING))
def test_shape_whose_element_count_overflows_int64_is_refused(case):
    with pytest.raises(ValueError, match="array is too big|more than int64 holds"):
        OVERFLOWING[case]()


def test_numpy_refuses_the_same_shapes():
    with pytest.raises(ValueError, match="array is too big"):
        np.empty((0, B, B))
    with pytest.raises(ValueError, match="array is too big"):
        np.zeros(0).reshape((0, B, B))


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda: mx.zeros((0, 1 << 40, 1 << 19)), (0, 1 << 40, 1 << 19)),
        (lambda: mx.zeros(0).reshape((B // 8, 0)), (B // 8, 0)),
        (lambda: sp.zeros("row_sparse", (1 << 40, 1 << 19)), (1 << 40, 1 << 19)),
        (lambda: mx.ones((0, 1 << 59)).T, (1 << 59, 0)),
    ],
)
def test_shapes_whose_element_count_fits_are_accepted(make, shape):
    assert make().shape == shape


def test_ops_whose_result_count_overflows_raise_value_error():
    for f in (
        lambda: mx.matmul(mx.zeros((B, 0)), mx.zeros((0, B))),
        lambda: mx.add(mx.zeros((B, 1, 0)), mx.zeros((1, B, 1))),
        lambda: mx.tensordot(mx.zeros((B, 0)), mx.zeros((0, B)), axes=1),
    ):
        with pytest.raises(ValueError, match="array is too big"):
            f()


# ---------------------------------------------------------------------------------------------
# Unpickling bytes that lie


def _rebuild():
    from mxffi._ffi.core import _rebuild_ndarray

    return _rebuild_ndarray


def test_unpickling_refuses_bool_bytes_other_than_0_and_1_and_hidden_overflow():
    with pytest.raises(
        ValueError,
        match=r"mxffi\.NDArray unpickling: bool element 1 holds "
        r"byte 2; a bool is 0 or 1",
    ):
        _rebuild()("bool", (2,), (1, 0), b"\x00\x02")
    with pytest.raises(ValueError, match=r"mxffi\.NDArray unpickling: shape .* is too large"):
        _rebuild()("float64", (0, B, B), (1, 0), b"")


@pytest.mark.parametrize(
    "dtype, shape, device, data, exc, fragment",
    [
        ("float64", (3,), (1, 0), b"\0" * 16, ValueError, "16 bytes of data for shape (3,)"),
        ("float64", (2,), (1, 0), b"\0" * 24, ValueError, "24 bytes of data"),
        ("int32", (B, 4), (1, 0), b"", ValueError, "is too large"),
        ("float64", (True,), (1, 0), b"\0" * 8, ValueError, "non-negative ints"),
        ("float64", (1.0,), (1, 0), b"\0" * 8, ValueError, "non-negative ints"),
        ("float64", tuple([1] * 65), (1, 0), b"\0" * 8, TypeError, "at most 64 ints"),
        (b"float64", (1,), (1, 0), b"\0" * 8, TypeError, "dtype must be a str"),
        ("float33", (1,), (1, 0), b"\0" * 8, TypeError, "not understood"),
        ("float64", (1,), (1 << 40, 0), b"\0" * 8, ValueError, "unknown DLPack device code"),
        ("float64", (1,), (1, 0), 12345, TypeError, "a bytes-like object is required"),
    ],
)
def test_unpickling_refuses_lies_about_dtype_shape_device_or_size(
    dtype, shape, device, data, exc, fragment
):
    with pytest.raises(exc) as info:
        _rebuild()(dtype, shape, device, data)
    assert fragment in str(info.value)


class _Forged:
    """Pickles as an mxffi array whose fields are given, true or not."""

    def __init__(self, *fields):
        self.fields = fields

    def __reduce__(self):
        return (_rebuild(), self.fields)


@pytest.mark.parametrize(
    "fields, exc, fragment",
    [
        (("float64", (4,), (1, 0), np.arange(3.0).tobytes()), ValueError, "24 bytes of data"),
        (("int64", (4,), (1, 0), np.arange(4.0).tobytes() * 2), ValueError, "64 bytes of data"),
        (("float64", (-4,), (1, 0), b""), ValueError, "non-negative"),
        (("complex128", (1 << 40, 1 << 40), (1, 0), b""), ValueError, "is too large"),
    ],
)
def test_pickle_streams_lying_about_size_dtype_or_shape_are_refused(fields, exc, fragment):
    blob = pickle.dumps(_Forged(*fields), protocol=5)
    with pytest.raises(exc) as info:
        pickle.loads(blob)
    assert fragment in str(info.value)
