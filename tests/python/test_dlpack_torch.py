"""PyTorch and mxffi.NDArray over DLPack: zero-copy both ways, through torch's C exchange API
(DLPack 1.3, ``torch.Tensor.__dlpack_c_exchange_api__``) and through capsules.

Sharing is proved on memory, not on shapes: every element's address as the NDArray's own
DLTensor gives it equals torch's, and a write on one side is read on the other. numpy both ways
is covered in test_dlpack.py.
"""

import ctypes
import gc
import itertools
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import mxffi  # noqa: E402
from mxffi import ndarray as nd  # noqa: E402
from mxffi.ndarray import empty, from_dlpack  # noqa: E402

_core = nd._core

# torch dtype -> (mxffi name, a value torch writes, a value mxffi writes)
DTYPES = {
    torch.bool: ("bool", True, False),
    torch.int8: ("int8", -7, 100),
    torch.uint8: ("uint8", 200, 3),
    torch.float16: ("float16", 1.5, -0.25),
    torch.bfloat16: ("bfloat16", -2.5, 96.0),
    torch.float32: ("float32", 3.25, -1e30),
    torch.float64: ("float64", -1e300, 0.1),
    torch.complex64: ("complex64", 1.5 - 2j, -0.25j),
    torch.complex128: ("complex128", -1e300 + 3j, 0.1 + 0.2j),
}

_api = ctypes.PyDLL(None)
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class _DLTensor(ctypes.Structure):
    """DLPack's DLTensor, for building a producer's tensor by hand."""

    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device_type", ctypes.c_int),
        ("device_id", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("code", ctypes.c_uint8),
        ("bits", ctypes.c_uint8),
        ("lanes", ctypes.c_uint16),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _Managed(ctypes.Structure):
    """DLManagedTensorVersioned."""

    _fields_ = [
        ("major", ctypes.c_uint32),
        ("minor", ctypes.c_uint32),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", _DLTensor),
    ]


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def _mx_addr(a, idx):
    """The address of element idx, from the NDArray's first-element address and byte strides."""
    return a.data_ptr() + sum(i * s for i, s in zip(idx, a.strides, strict=True))


def _bytes_of(value, dtype):
    return torch.tensor([value], dtype=dtype).view(torch.uint8).numpy().tobytes()


def _indices(shape):
    return list(itertools.product(*(range(n) for n in shape)))


def _check_shared(a, t):
    """a and t view the same memory: same elements at the same addresses, writes seen both ways."""
    name, theirs, ours = DTYPES[t.dtype]
    assert a.shape == tuple(t.shape) and str(a.dtype) == name
    idx = _indices(tuple(t.shape))
    for i in idx:
        assert _mx_addr(a, i) == t[i].data_ptr(), i
    itemsize = t.element_size()
    for i in idx[:1] + idx[-1:]:
        t[i] = theirs  # torch writes, mxffi reads
        assert ctypes.string_at(_mx_addr(a, i), itemsize) == _bytes_of(theirs, t.dtype)
        ctypes.memmove(_mx_addr(a, i), _bytes_of(ours, t.dtype), itemsize)  # mxffi writes
        assert t[i].item() == torch.tensor(ours, dtype=t.dtype).item()


@pytest.fixture(params=["exchange", "capsule"])
def route(request, monkeypatch):
    """Pins the import route: the exchange one never calls __dlpack__; the capsule one must."""
    calls = []
    original = torch.Tensor.__dlpack__
    if request.param == "exchange":

        def refuse(self, *args, **kwargs):
            raise AssertionError("the exchange route called torch.Tensor.__dlpack__")

        monkeypatch.setattr(torch.Tensor, "__dlpack__", refuse)
    else:

        def spy(self, *args, **kwargs):
            calls.append(kwargs)
            return original(self, *args, **kwargs)

        monkeypatch.setattr(_core, "_from_dlpack_exchange", lambda x: None)
        monkeypatch.setattr(torch.Tensor, "__dlpack__", spy)
    yield request.param
    if request.param == "capsule":
        assert calls, "the capsule route did not call torch.Tensor.__dlpack__"


_VIEWS = {
    "contiguous": lambda b: b,
    "transposed": lambda b: b.t(),
    "sliced": lambda b: b[1:, ::2],  # storage offset and a stride of 2
    "row": lambda b: b[2],
    "permuted_3d": lambda b: b.reshape(2, 3, 4).permute(2, 0, 1),
    "expanded": lambda b: b[:1, :3].expand(5, 3),  # stride 0
    "0d": lambda b: b[1, 2],
    "zero_size": lambda b: b[:0],
    "zero_size_inner": lambda b: b[:, 6:],
}


@pytest.mark.parametrize("view", list(_VIEWS))
@pytest.mark.parametrize("dtype", list(DTYPES), ids=[DTYPES[d][0] for d in DTYPES])
def test_torch_to_mxffi_shares_memory(route, dtype, view):
    t = _VIEWS[view](torch.zeros(4, 6, dtype=dtype))
    a = from_dlpack(t)
    assert isinstance(a, mxffi.NDArray) and not a.read_only
    assert a.device == mxffi.Device("cpu", 0)
    _check_shared(a, t)
    if t.numel():
        back = torch.from_dlpack(a)  # and on to torch again: still the same memory
        assert back.data_ptr() == t.data_ptr() and back.stride() == t.stride()


@pytest.mark.parametrize("shape", [(2, 3), (7,), (), (0, 3), (3, 0, 2)])
@pytest.mark.parametrize("dtype", list(DTYPES), ids=[DTYPES[d][0] for d in DTYPES])
def test_mxffi_to_torch_shares_memory(dtype, shape):
    a = empty(shape, DTYPES[dtype][0])
    t = torch.from_dlpack(a)
    assert t.dtype == dtype and t.device.type == "cpu"
    if a.size:
        assert t.is_contiguous()
    _check_shared(a, t)


def test_mxffi_to_torch_honours_strides():
    x = np.arange(24.0).reshape(4, 6)[::2, 1::2]
    a = from_dlpack(x)
    t = torch.from_dlpack(a)
    assert t.stride() == (12, 2) and t.data_ptr() == x.ctypes.data
    np.testing.assert_array_equal(t.numpy(), x)
    t[1, 2] = -1.0
    assert x[1, 2] == -1.0


def test_byte_offset_is_honoured_into_mxffi_and_on_to_torch():
    buf = np.arange(10.0)
    shape = (ctypes.c_int64 * 1)(3)
    strides = (ctypes.c_int64 * 1)(2)
    m = _Managed(major=1, minor=0)
    m.dl_tensor.data = buf.ctypes.data
    m.dl_tensor.device_type, m.dl_tensor.device_id = 1, 0
    m.dl_tensor.ndim, m.dl_tensor.code, m.dl_tensor.bits, m.dl_tensor.lanes = 1, 2, 64, 1
    m.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    m.dl_tensor.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    m.dl_tensor.byte_offset = 16  # starts at buf[2]; deleter NULL: buf stays ours
    cap = _api.PyCapsule_New(ctypes.addressof(m), b"dltensor_versioned", None)

    class Producer:
        def __dlpack__(self, **kwargs):
            return cap

    a = from_dlpack(Producer())
    assert a.data_ptr() == buf.ctypes.data + 16 and _mx_addr(a, (1,)) == buf.ctypes.data + 4 * 8
    t = torch.from_dlpack(a)
    assert t.tolist() == [2.0, 4.0, 6.0] and t.stride() == (2,)
    t[2] = 60.0
    assert buf[6] == 60.0
    del t, a


def test_torch_offers_a_dlpack_1x_exchange_table():
    cap = type(torch.tensor([1])).__dlpack_c_exchange_api__
    assert '"dlpack_exchange_api"' in repr(cap)
    table = _api.PyCapsule_GetPointer(cap, b"dlpack_exchange_api")
    major, minor = (ctypes.c_uint32 * 2).from_address(table)
    assert (major, minor) >= (1, 3) and major == 1
    # managed_tensor_from_py_object_no_sync, the entry from_dlpack calls, sits at offset 24.
    assert ctypes.c_void_p.from_address(table + 24).value


def test_exchange_route_is_taken_without_calling_dlpack(monkeypatch):
    calls = []
    original = torch.Tensor.__dlpack__

    def spy(self, *args, **kwargs):
        calls.append(kwargs)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.Tensor, "__dlpack__", spy)
    t = torch.arange(5.0, dtype=torch.float64)
    direct = _core._from_dlpack_exchange(t)
    assert isinstance(direct, mxffi.NDArray) and _mx_addr(direct, (0,)) == t.data_ptr()
    assert _mx_addr(from_dlpack(t), (4,)) == t[4].data_ptr()
    assert calls == []
    from_dlpack(np.arange(3.0))  # a type without a table: capsule route, numpy's own
    assert _core._from_dlpack_exchange(np.arange(3.0)) is None


def test_a_subclass_uses_the_table_unless_it_overrides_dlpack():
    class Plain(torch.Tensor):
        pass

    class Custom(torch.Tensor):
        calls = 0

        def __dlpack__(self, *args, **kwargs):
            Custom.calls += 1
            return torch.Tensor.__dlpack__(self.as_subclass(torch.Tensor), *args, **kwargs)

    base = torch.arange(4.0, dtype=torch.float64)
    plain = _core._from_dlpack_exchange(base.as_subclass(Plain))
    assert plain is not None and _mx_addr(plain, (3,)) == base[3].data_ptr()
    custom = base.as_subclass(Custom)
    assert _core._from_dlpack_exchange(custom) is None
    a = from_dlpack(custom)
    assert Custom.calls == 1 and _mx_addr(a, (0,)) == base.data_ptr()


def _torch_error(t):
    with pytest.raises(BufferError) as info:
        t.__dlpack__(max_version=(1, 0))
    return str(info.value)


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.ones(3, requires_grad=True),
        lambda: torch.ones(3, requires_grad=True) * 2,  # not a leaf
        lambda: torch.nn.Parameter(torch.ones(2, 2)),
        lambda: torch.tensor([1 + 2j, 3 - 1j]).conj(),
        lambda: torch.ones(2, 2).to_sparse(),
    ],
    ids=["requires_grad", "non_leaf", "parameter", "conj_bit", "sparse"],
)
def test_what_torch_dlpack_refuses_is_refused_with_its_error(make):
    t = make()
    message = _torch_error(t)
    with pytest.raises(BufferError, match=re.escape(message)):
        from_dlpack(t)


def test_requires_grad_detached_imports_and_shares_memory(route):
    t = torch.zeros(3, dtype=torch.float32, requires_grad=True)
    a = from_dlpack(t.detach())
    _check_shared(a, t.detach())
    assert _mx_addr(a, (0,)) == t.data_ptr()


def test_the_table_itself_exports_requires_grad_tensors():
    # Why from_dlpack checks requires_grad itself: torch makes that check in Python only, in
    # Tensor.__dlpack__, and its C table exports such a tensor without a word.
    t = torch.ones(3, requires_grad=True)
    a = _core._from_dlpack_exchange(t)
    assert a is not None and _mx_addr(a, (0,)) == t.data_ptr()


def test_a_failed_table_export_falls_back_and_leaves_no_error_set():
    t = torch.ones(2, 2).to_sparse()
    assert _core._from_dlpack_exchange(t) is None  # torch's RuntimeError dropped
    assert from_dlpack(torch.ones(2)).shape == (2,)  # no stale exception surfaces


def test_a_consumed_capsule_cannot_be_consumed_twice():
    t = torch.arange(3.0)
    cap = t.__dlpack__(max_version=(1, 0))

    class Producer:
        def __dlpack__(self, **kwargs):
            return cap

    a = from_dlpack(Producer())
    assert _mx_addr(a, (2,)) == t[2].data_ptr()
    assert "used_dltensor_versioned" in repr(cap)
    with pytest.raises(TypeError, match="not an unconsumed DLPack capsule"):
        from_dlpack(Producer())
    with pytest.raises(RuntimeError, match="consumed only once"):
        torch.from_dlpack(cap)

    ours = empty((2,)).__dlpack__(max_version=(1, 0))  # and torch consuming ours first
    torch.from_dlpack(ours)
    assert "used_dltensor_versioned" in repr(ours)

    class Ours:
        def __dlpack__(self, **kwargs):
            return ours

    with pytest.raises(TypeError, match="not an unconsumed DLPack capsule"):
        from_dlpack(Ours())


def test_read_only_capsule_is_respected_and_torch_drops_the_flag():
    x = np.arange(4.0)
    x.flags.writeable = False
    a = from_dlpack(x)
    assert a.read_only
    cap = a.__dlpack__(max_version=(1, 0))
    flags = _Managed.from_address(_api.PyCapsule_GetPointer(cap, b"dltensor_versioned")).flags
    assert flags & 1  # DLPACK_FLAG_BITMASK_READ_ONLY travels on to any consumer
    # torch 2.13 has no read-only tensors: it takes the versioned capsule, ignores the flag and
    # hands back a writable tensor over the same memory (writes land in the read-only array).
    t = torch.from_dlpack(a)
    assert t.data_ptr() == x.ctypes.data
    t[0] = 5.0
    assert x[0] == 5.0
    # torch's own tensors are never read-only, on either route.
    assert not from_dlpack(torch.ones(2)).read_only


def test_exchange_route_frees_what_it_imports():
    gc.collect()
    before = _rss_mb()
    for _ in range(20):
        t = torch.ones(8, 2**20, dtype=torch.float64)  # 64 MB each, pages touched
        a = _core._from_dlpack_exchange(t)
        assert a is not None
        del t, a
    gc.collect()
    assert _rss_mb() - before < 200
