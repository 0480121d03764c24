"""CUDA devices, streams, device memory, copies and DLPack exchange with PyTorch and CuPy.

The tests that need a GPU skip with the reason mxffi.cuda.unavailable_reason() gives (the
driver's message, or that the build has no CUDA); the rest check that a machine without one
answers every question without crashing, refuses CUDA work with that same reason, and that the
device-independent parts (to("cpu"), copyto between CPU arrays) work.
"""

import ctypes
import json
import re
import subprocess
import sys
import threading

import numpy as np
import pytest

import mxffi
from mxffi import cuda

needs_gpu = pytest.mark.skipif(
    not cuda.is_available(), reason=f"no CUDA device: {cuda.unavailable_reason()}"
)
needs_two_gpus = pytest.mark.skipif(
    cuda.device_count() < 2, reason=f"fewer than two CUDA devices ({cuda.device_count()})"
)
no_gpu = pytest.mark.skipif(cuda.is_available(), reason="a CUDA device is available")

DTYPES = [
    "bool",
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


def _random(shape, dtype, seed=0):
    """Random numpy values of an mxffi dtype name (bfloat16 through ml_dtypes)."""
    rng = np.random.default_rng(seed)
    if dtype == "bfloat16":
        ml_dtypes = pytest.importorskip("ml_dtypes")
        return np.asarray(rng.standard_normal(shape)).astype(ml_dtypes.bfloat16)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return np.asarray(rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True))
    return np.asarray(rng.standard_normal(shape)).astype(dtype)


def _data_ptr(a):
    return a.data_ptr()


def _torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    return torch


def _no_device(fn, *args, **kwargs):
    """fn(...) raises the RuntimeError naming the driver's reason; returns the message."""
    with pytest.raises(RuntimeError) as info:
        fn(*args, **kwargs)
    msg = str(info.value)
    assert "no CUDA device is available" in msg, msg
    assert cuda.unavailable_reason() in msg, msg
    return msg


# ---- discovery and the errors without a GPU ---------------------------------------------------


def test_discovery_answers_consistently():
    count = cuda.device_count()
    assert isinstance(count, int) and count >= 0
    assert cuda.is_available() == (count > 0)
    assert cuda.device_count() == count  # asked once, answered the same
    reason = cuda.unavailable_reason()
    assert (reason == "") == (count > 0)
    if not cuda.compiled():
        assert count == 0 and "built without CUDA" in reason


@no_gpu
def test_unavailable_reason_quotes_the_driver():
    reason = cuda.unavailable_reason()
    if cuda.compiled():
        assert reason.startswith("cudaGetDeviceCount: ")
    assert len(reason) > len("cudaGetDeviceCount: ")


@no_gpu
@pytest.mark.parametrize("device", ["cuda", "cuda:0", "cuda:1", mxffi.np.cuda(0)])
def test_asking_for_a_cuda_array_without_a_device_is_a_clear_error(device):
    msg = _no_device(mxffi.np.zeros, (3, 4), device=device)
    assert re.search(r"cuda:\d", msg)
    # The process goes on: CPU arrays and later CUDA requests behave the same.
    assert mxffi.np.zeros((2,)).shape == (2,)
    _no_device(mxffi.np.empty, (0,), device=device)


@no_gpu
def test_every_cuda_function_without_a_device_is_a_clear_error():
    assert "cuda.stream_create" in _no_device(cuda.Stream)
    _no_device(cuda.Stream, device="cuda:1")
    _no_device(cuda.ExternalStream, 0)
    assert "cuda.current_stream" in _no_device(cuda.current_stream)
    _no_device(cuda.current_stream, "cuda:0")
    _no_device(cuda.synchronize)
    _no_device(cuda.synchronize, 0)
    assert "cuda.memory_stats" in _no_device(cuda.memory_stats)
    _no_device(cuda.empty_cache)
    _no_device(cuda.empty_cache, 0)
    x = mxffi.np.array([1.0, 2.0])
    assert "ndarray.to" in _no_device(x.to, "cuda")
    _no_device(x.to, "cuda:0")
    _no_device(x.copyto, "cuda")
    assert "np.array" in _no_device(mxffi.np.array, [1, 2], device="cuda:0")
    _no_device(mxffi.np.asarray, np.arange(3), device="cuda")
    _no_device(mxffi.np.asarray, x, device="cuda")
    _no_device(mxffi.nd.sparse.csr_matrix, np.eye(3), device="cuda")
    _no_device(mxffi.nd.sparse.row_sparse_array, np.eye(3), device="cuda")
    _no_device(mxffi.nd.sparse.csr_matrix(np.eye(3)).to, "cuda")
    # A CUDA export of a CPU array cannot be made: BufferError, as the array API asks.
    with pytest.raises(BufferError, match=r"cannot export to device \(2, 0\).*no CUDA device"):
        x.__dlpack__(dl_device=(2, 0))
    # Still alive, and CPU work goes on.
    assert x.to("cpu").tolist() == [1.0, 2.0]


def test_stream_arguments_are_checked_before_the_device():
    with pytest.raises(ValueError, match="mxffi.cuda.Stream: cpu:0 is not a CUDA device"):
        cuda.Stream(device="cpu")
    with pytest.raises(TypeError, match="mxffi.cuda.Stream: device must be"):
        cuda.Stream(device=1.5)
    with pytest.raises(TypeError, match="mxffi.cuda.ExternalStream: handle must be an int"):
        cuda.ExternalStream("0x10")
    with pytest.raises(ValueError, match="handle must be >= 0, got -3"):
        cuda.ExternalStream(-3)
    with pytest.raises(TypeError, match="mxffi.cuda.stream: expected a Stream, got int"):
        with cuda.stream(5):
            pass
    for fn in (cuda.memory_stats, cuda.current_stream, cuda.synchronize, cuda.empty_cache):
        with pytest.raises(ValueError, match="device index must be a non-negative int32, got -1"):
            fn(-1)
    with cuda.stream(None) as s:  # no stream: nothing changes
        assert s is None
    with pytest.raises(ValueError, match="cuda.record_stream: the array is not on a CUDA"):
        cuda.record_stream(mxffi.np.zeros((2,)), 0)


def test_other_device_types_are_refused():
    with pytest.raises(NotImplementedError, match="only the CPU .1. and CUDA .2. are"):
        mxffi.ndarray.empty((2,), device="rocm:0")
    with pytest.raises(NotImplementedError, match="ndarray.to: device type 10 is not supported"):
        mxffi.np.zeros((2,)).to("rocm:0")
    with pytest.raises(
        NotImplementedError, match="np.array: argument #3 'device': device type 10 is not supported"
    ):
        mxffi.np.array([1.0], device=mxffi.Device("rocm:0"))


def _claiming_device(a, device_type, device_id=0):
    """An mxffi array over numpy array a's host memory whose DLPack tensor claims another device
    (its device field rewritten before import): reaches device checks without that device. Only
    checks that refuse it before any kernel runs may be given one."""
    api = mxffi.ndarray._api  # ctypes.pythonapi, with the capsule functions' prototypes set
    capsule = a.__dlpack__()  # unversioned: the DLManagedTensor starts with its DLTensor
    managed = api.PyCapsule_GetPointer(capsule, b"dltensor")
    device = (ctypes.c_int32 * 2).from_address(managed + ctypes.sizeof(ctypes.c_void_p))
    device[0], device[1] = device_type, device_id
    arr = mxffi.get_global_func("ndarray.from_dlpack")(ctypes.c_void_p(managed), False)
    api.PyCapsule_SetName(capsule, b"used_dltensor")  # taken: the array runs the deleter
    return arr


def test_an_out_array_on_another_device_is_refused_before_any_kernel():
    # A CPU kernel writing into device memory segfaults; a GPU kernel writing into host memory
    # faults the CUDA context for good: out= must be on the inputs' device.
    x = mxffi.np.array(np.arange(6.0))
    out = _claiming_device(np.zeros(6), 2)
    assert out.device == mxffi.Device("cuda", 0)
    with pytest.raises(ValueError, match=r"output #0 is on device \(2, 0\) but the op runs on "):
        mxffi.np.add(x, x, out=out)
    with pytest.raises(ValueError, match=r"output #0 is on device \(2, 0\)"):
        mxffi.np.negative(x, out=out)
    with pytest.raises(ValueError, match=r"output #0 is on device \(2, 0\)"):
        mxffi.np.multiply(2.0, 3.0, out=out)


def test_ops_on_arrays_of_other_device_types_are_refused():
    r = _claiming_device(np.ones(4), 10)
    out = _claiming_device(np.zeros(4), 10)
    with pytest.raises(NotImplementedError, match="device type 10 is not supported"):
        mxffi.np.add(r, r, out=out)


def test_negative_stream_handles_are_refused_before_reaching_the_driver():
    # A negative handle is no cudaStream_t; the driver would dereference it (record_stream's
    # only later, in the array's deleter).
    g = _claiming_device(np.zeros(2), 2)
    with pytest.raises(
        ValueError,
        match=r"cuda.record_stream: stream handle must be >= 0 \(a cudaStream_t\), got -5",
    ):
        cuda.record_stream(g, -5)
    with pytest.raises(
        ValueError, match=r"stream must be None, -1, 1, 2 or a cudaStream_t, got -2"
    ):
        g.__dlpack__(stream=-2)
    set_current = mxffi.get_global_func("cuda.set_current_stream")
    with pytest.raises(ValueError, match="cuda.set_current_stream: stream handle must be >= 0"):
        set_current(0, -1)
    wait = mxffi.get_global_func("cuda.stream_wait_stream")
    with pytest.raises(ValueError, match="cuda.stream_wait_stream: waitee handle must be >= 0"):
        wait(0, 0, -7)
    sync = mxffi.get_global_func("cuda.stream_synchronize")
    with pytest.raises(ValueError, match="cuda.stream_synchronize: stream handle must be >= 0"):
        sync(0, -3)


# ---- copies on the CPU (every machine) --------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_to_cpu_of_a_cpu_array_is_a_copy(dtype):
    a = _random((3, 5), dtype)
    x = mxffi.np.array(a)
    y = x.to("cpu")
    assert _data_ptr(y) != _data_ptr(x)
    assert str(y.dtype) == dtype and y.shape == (3, 5)
    np.testing.assert_array_equal(y.asnumpy(), a)
    z = x.to(mxffi.np.cpu())
    np.testing.assert_array_equal(z.asnumpy(), a)


def test_to_cpu_of_strided_and_empty_arrays():
    a = np.arange(60, dtype=np.float32).reshape(6, 10)
    x = mxffi.np.array(a).T  # a strided view
    y = x.to("cpu")
    np.testing.assert_array_equal(y.asnumpy(), a.T)
    assert y.asnumpy().flags.c_contiguous
    for shape in [(0,), (0, 3), (4, 0, 2)]:
        e = mxffi.np.zeros(shape).to("cpu")
        assert e.shape == shape


def test_copyto_between_cpu_arrays():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    src = mxffi.np.array(a)
    dst = mxffi.np.zeros((3, 4), dtype="int32")
    out = src.copyto(dst)
    assert _data_ptr(out) == _data_ptr(dst)
    np.testing.assert_array_equal(dst.asnumpy(), a)
    # Into a strided destination: the transposed view of a (4, 3) array.
    base = mxffi.np.zeros((4, 3), dtype="int32")
    src.copyto(base.T)
    np.testing.assert_array_equal(base.asnumpy(), a.T)
    np.testing.assert_array_equal(src.copyto("cpu").asnumpy(), a)
    with pytest.raises(ValueError, match=r"ndarray.copyto: shape mismatch, \(3, 4\) into \(4, 3\)"):
        src.copyto(mxffi.np.zeros((4, 3), dtype="int32"))
    with pytest.raises(TypeError, match="ndarray.copyto: dtype mismatch, int32 into float64"):
        src.copyto(mxffi.np.zeros((3, 4)))
    # across storage types the source is converted (MXNet's copyto): zeros into a csr array
    # leave it with nothing stored
    dst = mxffi.nd.sparse.csr_matrix(np.eye(3))
    assert mxffi.np.zeros((3, 3)).copyto(dst).same_as(dst)
    assert dst.stype == "csr" and dst.nnz == 0


def test_sparse_to_cpu_and_copyto_copy_every_part():
    sp = pytest.importorskip("scipy.sparse")
    m = sp.random(7, 5, density=0.3, format="csr", random_state=1)
    x = mxffi.nd.sparse.csr_matrix(m)
    y = x.to("cpu")
    assert y.stype == "csr" and y.shape == (7, 5)
    assert _data_ptr(y.data) != _data_ptr(x.data)
    np.testing.assert_array_equal(y.asnumpy(), m.toarray())
    r = mxffi.nd.sparse.row_sparse_array(np.diag(np.arange(1.0, 5.0)))
    np.testing.assert_array_equal(r.to("cpu").asnumpy(), np.diag(np.arange(1.0, 5.0)))
    dst = mxffi.nd.sparse.zeros("csr", (7, 5))
    x.copyto(dst)
    np.testing.assert_array_equal(dst.asnumpy(), m.toarray())
    cpu = mxffi.nd.sparse.csr_matrix(m, device="cpu")
    np.testing.assert_array_equal(cpu.asnumpy(), m.toarray())


# ---- the caching allocator --------------------------------------------------------------------


@needs_gpu
def test_a_freed_block_is_reused_by_the_same_stream():
    cuda.synchronize()
    cuda.empty_cache()  # no other free block of this size to be handed out first
    a = mxffi.np.empty((1000,), dtype="float32", device="cuda:0")
    ptr = _data_ptr(a)
    before = cuda.memory_stats(0)
    assert before["allocated_bytes"] >= 4096  # 4000 bytes, rounded up to 512
    del a
    after_free = cuda.memory_stats(0)
    assert after_free["allocated_bytes"] == before["allocated_bytes"] - 4096
    assert after_free["cached_bytes"] >= 4096
    b = mxffi.np.empty((1000,), dtype="float32", device="cuda:0")
    assert _data_ptr(b) == ptr
    stats = cuda.memory_stats(0)
    assert stats["num_cache_hits"] == before["num_cache_hits"] + 1
    assert stats["num_device_mallocs"] == before["num_device_mallocs"]
    assert set(stats) >= {
        "allocated_bytes",
        "peak_allocated_bytes",
        "reserved_bytes",
        "cached_bytes",
        "pending_bytes",
        "num_blocks",
        "num_allocations",
        "num_device_frees",
        "num_oom_retries",
    }


@needs_gpu
def test_another_stream_does_not_reuse_a_block_at_once():
    s = cuda.Stream(0)
    a = mxffi.np.empty((1000,), dtype="float32", device="cuda:0")  # the default stream's
    ptr = _data_ptr(a)
    del a
    with cuda.stream(s):
        b = mxffi.np.empty((1000,), dtype="float32", device="cuda:0")
    assert _data_ptr(b) != ptr


@needs_gpu
def test_empty_cache_gives_free_blocks_back():
    a = mxffi.np.empty((3 << 20,), dtype="uint8", device="cuda:0")
    del a
    cached = cuda.memory_stats(0)
    assert cached["cached_bytes"] >= 4 << 20
    cuda.empty_cache()
    stats = cuda.memory_stats(0)
    assert stats["cached_bytes"] == 0
    assert stats["reserved_bytes"] <= cached["reserved_bytes"] - (4 << 20)
    assert stats["num_device_frees"] > cached["num_device_frees"]
    cuda.empty_cache(0)  # by index too


@needs_gpu
def test_an_allocation_too_big_for_the_device_is_a_memory_error():
    with pytest.raises(MemoryError, match=r"cannot allocate \d+ bytes .*on cuda:0"):
        mxffi.np.empty((1 << 50,), dtype="uint8", device="cuda:0")
    assert mxffi.np.zeros((4,), device="cuda:0").shape == (4,)


# ---- streams ----------------------------------------------------------------------------------


@needs_gpu
def test_stream_creation_and_the_current_stream_context():
    assert cuda.current_stream(0).handle == 0
    s = cuda.Stream(device=0)
    assert isinstance(s.handle, int) and s.handle != 0 and s.device == 0
    with cuda.stream(s) as inside:
        assert inside is s
        assert cuda.current_stream(0).handle == s.handle
        assert cuda.current_stream("cuda:0") == s
        t = cuda.Stream("cuda:0")
        with cuda.stream(t):
            assert cuda.current_stream().handle == t.handle
        assert cuda.current_stream().handle == s.handle
    assert cuda.current_stream(0).handle == 0
    s.synchronize()
    t.wait_stream(s)
    with pytest.raises(TypeError, match="expected a Stream"):
        t.wait_stream(0)
    cuda.synchronize()
    cuda.synchronize(0)
    assert "Stream handle=" in repr(s)


@needs_gpu
def test_the_current_stream_is_per_thread():
    s = cuda.Stream(0)
    seen = {}

    def other():
        seen["handle"] = cuda.current_stream(0).handle
        u = cuda.Stream(0)
        with cuda.stream(u):
            seen["inside"] = cuda.current_stream(0).handle == u.handle

    with cuda.stream(s):
        th = threading.Thread(target=other)
        th.start()
        th.join()
        assert cuda.current_stream(0).handle == s.handle
    assert seen == {"handle": 0, "inside": True}


@needs_gpu
def test_a_dropped_stream_is_destroyed_and_its_memory_kept():
    for _ in range(50):
        s = cuda.Stream(0)
        with cuda.stream(s):
            a = mxffi.np.array(np.arange(1000.0), device="cuda:0")
        del s  # destroyed after its work; a's block goes to the default stream
        np.testing.assert_array_equal(a.asnumpy(), np.arange(1000.0))


# ---- copies ------------------------------------------------------------------------------------


@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (2, 3, 4), (0,), (4, 0, 3), (1031,)])
def test_to_round_trips_every_dtype(dtype, shape):
    a = _random(shape, dtype, seed=len(shape))
    x = mxffi.np.array(a)
    g = x.to("cuda:0")
    assert str(g.device) == "cuda:0" and g.shape == shape and str(g.dtype) == dtype
    back = g.to("cpu")
    assert str(back.device) == "cpu:0"
    np.testing.assert_array_equal(back.asnumpy(), a)
    np.testing.assert_array_equal(g.asnumpy(), a)
    np.testing.assert_array_equal(np.asarray(g), a)
    np.testing.assert_array_equal(g.to("cuda").asnumpy(), a)  # device to device
    dst = mxffi.np.empty(shape, dtype=dtype, device="cuda:0")
    x.copyto(dst)
    np.testing.assert_array_equal(dst.asnumpy(), a)
    host = mxffi.np.empty(shape, dtype=dtype)
    dst.copyto(host)
    np.testing.assert_array_equal(host.asnumpy(), a)
    np.testing.assert_array_equal(mxffi.np.array(a, device="cuda:0").asnumpy(), a)
    np.testing.assert_array_equal(mxffi.np.asarray(x, device="cuda").asnumpy(), a)


@needs_gpu
def test_scalars_lists_and_repr_of_cuda_arrays():
    g = mxffi.np.array([[1.5, 2.0], [3.0, 4.0]], device="cuda:0")
    assert g.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert mxffi.np.array([7], dtype="int32", device="cuda").item() == 7
    assert repr(g).startswith("array([[1.5, 2. ],") and repr(g).endswith("device=cuda:0)")
    assert "1.5" in str(g)
    assert mxffi.np.array(3.0, device="cuda").item() == 3.0


@needs_gpu
@pytest.mark.parametrize("dtype", ["int8", "float16", "float32", "float64", "uint64"])
def test_strided_copies_in_every_direction(dtype):
    a = _random((6, 10), dtype, seed=3)
    host_t = mxffi.np.array(a).T  # strided on the host
    g = host_t.to("cuda:0")  # strided host source
    np.testing.assert_array_equal(g.asnumpy(), a.T)
    gd = mxffi.np.array(a, device="cuda:0")
    np.testing.assert_array_equal(gd.T.to("cpu").asnumpy(), a.T)  # strided device source
    np.testing.assert_array_equal(gd.T.to("cuda:0").asnumpy(), a.T)  # strided D2D (kernel)
    np.testing.assert_array_equal(gd.T.asnumpy(), a.T)
    # Strided destinations: a transposed view of a device array, and of a host array.
    dst = mxffi.np.zeros((10, 6), dtype=dtype, device="cuda:0")
    mxffi.np.array(a).copyto(dst.T)  # H2D into a strided destination
    np.testing.assert_array_equal(dst.asnumpy(), a.T)
    dst2 = mxffi.np.zeros((10, 6), dtype=dtype, device="cuda:0")
    gd.copyto(dst2.T)  # D2D into a strided destination
    np.testing.assert_array_equal(dst2.asnumpy(), a.T)
    host = mxffi.np.zeros((10, 6), dtype=dtype)
    gd.copyto(host.T)  # D2H into a strided destination
    np.testing.assert_array_equal(host.asnumpy(), a.T)


@needs_gpu
@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
def test_sparse_to_round_trips(stype):
    sp = pytest.importorskip("scipy.sparse")
    for density in (0.0, 0.01, 0.5, 1.0):
        m = sp.random(13, 9, density=density, format="csr", random_state=7, dtype=np.float32)
        dense = m.toarray()
        if stype == "csr":
            x = mxffi.nd.sparse.csr_matrix(m)
            g = mxffi.nd.sparse.csr_matrix(m, device="cuda:0")
        else:
            x = mxffi.nd.sparse.row_sparse_array(dense)
            g = mxffi.nd.sparse.row_sparse_array(dense, device="cuda:0")
        assert g.stype == stype and str(g.device) == "cuda:0" and g.shape == (13, 9)
        np.testing.assert_array_equal(g.asnumpy(), dense)
        np.testing.assert_array_equal(x.to("cuda:0").to("cpu").asnumpy(), dense)
        assert str(g.data.device) == "cuda:0"
        back = g.to("cpu")
        assert back.stype == stype
        np.testing.assert_array_equal(back.asnumpy(), dense)
        np.testing.assert_array_equal(back.data.asnumpy(), x.data.asnumpy())
        np.testing.assert_array_equal(back.indices.asnumpy(), x.indices.asnumpy())
        dst = mxffi.nd.sparse.zeros(stype, (13, 9), dtype="float32", device="cuda:0")
        x.copyto(dst)
        np.testing.assert_array_equal(dst.asnumpy(), dense)


@needs_gpu
def test_device_to_device_copies_between_streams():
    a = np.random.default_rng(5).standard_normal((512, 1024)).astype(np.float32)
    s1, s2 = cuda.Stream(0), cuda.Stream(0)
    with cuda.stream(s1):
        g = mxffi.np.array(a, device="cuda:0")
    s2.wait_stream(s1)
    with cuda.stream(s2):
        h = g.to("cuda:0")
        k = mxffi.np.empty((1024, 512), dtype="float32", device="cuda:0")
        g.copyto(k.T)
    with cuda.stream(s2):
        np.testing.assert_array_equal(h.asnumpy(), a)  # read on s2, after its copies
        np.testing.assert_array_equal(k.asnumpy(), a.T)


@needs_gpu
@needs_two_gpus
def test_copies_between_two_devices():
    a = np.random.default_rng(6).standard_normal((33, 17))
    g0 = mxffi.np.array(a, device="cuda:0")
    g1 = g0.to("cuda:1")
    assert str(g1.device) == "cuda:1"
    np.testing.assert_array_equal(g1.asnumpy(), a)
    np.testing.assert_array_equal(g1.T.to("cuda:0").asnumpy(), a.T)
    dst = mxffi.np.zeros((17, 33), device="cuda:1")
    g0.copyto(dst.T)
    np.testing.assert_array_equal(dst.asnumpy(), a.T)


# ---- DLPack -------------------------------------------------------------------------------------


@needs_gpu
def test_dlpack_device_of_a_cuda_array():
    g = mxffi.np.zeros((2, 3), device="cuda:0")
    assert g.__dlpack_device__() == (2, 0)
    with pytest.raises(ValueError, match="stream 0 is ambiguous"):
        g.__dlpack__(stream=0)
    with pytest.raises(TypeError, match="stream must be an int or None"):
        g.__dlpack__(stream="1")
    consumer = cuda.Stream(0)  # alive while its handle is used
    for stream in (None, -1, 1, 2, consumer.handle):
        cap = g.__dlpack__(stream=stream)
        assert type(cap).__name__ == "PyCapsule"
    host = g.__dlpack__(dl_device=(1, 0))  # a copy on the host
    assert type(host).__name__ == "PyCapsule"
    with pytest.raises(BufferError, match="without a copy"):
        g.__dlpack__(dl_device=(1, 0), copy=False)


@needs_gpu
def test_dlpack_with_torch_cuda_tensors_shares_memory_both_ways():
    torch = _torch_cuda()
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    g = mxffi.np.array(a, device="cuda:0")
    t = torch.from_dlpack(g)
    assert t.device.type == "cuda" and t.data_ptr() == _data_ptr(g)
    t.mul_(2)  # written by torch, read by mxffi
    torch.cuda.synchronize()
    np.testing.assert_array_equal(g.asnumpy(), a * 2)
    u = torch.arange(10, dtype=torch.float64, device="cuda:0")
    m = mxffi.np.from_dlpack(u)
    assert str(m.device) == "cuda:0" and _data_ptr(m) == u.data_ptr()
    np.testing.assert_array_equal(m.asnumpy(), np.arange(10.0))
    mxffi.np.array([5.0] * 10, device="cuda:0").copyto(m)  # written by mxffi, read by torch
    cuda.synchronize()
    assert u.cpu().tolist() == [5.0] * 10
    # Every dtype torch shares with mxffi.
    for dtype in (
        torch.int8,
        torch.int32,
        torch.int64,
        torch.uint8,
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.float64,
        torch.bool,
    ):
        v = (torch.arange(6, device="cuda:0") % 3).to(dtype)
        w = mxffi.np.from_dlpack(v)
        assert torch.equal(torch.from_dlpack(w).cpu(), v.cpu())


@needs_gpu
def test_dlpack_stream_integers_order_the_consumer_after_mxffi():
    torch = _torch_cuda()
    a = np.random.default_rng(2).standard_normal((1024, 1024)).astype(np.float32)
    s = cuda.Stream(0)
    ts = torch.cuda.Stream()
    # torch reads on the stream it named (the legacy default stream for None and 1).
    for stream in (None, 1, ts.cuda_stream, -1):
        with cuda.stream(s):
            g = mxffi.np.array(a, device="cuda:0")  # queued on s
            cap = g.__dlpack__(stream=stream)
        if stream == -1:
            s.synchronize()  # the consumer synchronises itself
        t = torch.from_dlpack(cap)
        consumer = ts if stream == ts.cuda_stream else torch.cuda.default_stream()
        with torch.cuda.stream(consumer):
            got = t.cpu()
        np.testing.assert_array_equal(got.numpy(), a)
    # 2, the per-thread default stream: the capsule is made, and the data is there once the
    # device is idle.
    with cuda.stream(s):
        g = mxffi.np.array(a, device="cuda:0")
        t = torch.from_dlpack(g.__dlpack__(stream=2))
    cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), a)


@needs_gpu
def test_from_dlpack_orders_torch_work_before_mxffi():
    torch = _torch_cuda()
    ts = torch.cuda.Stream()
    with torch.cuda.stream(ts):
        u = torch.ones(1 << 22, device="cuda:0")
        for _ in range(20):
            u.mul_(1.5)
    s = cuda.Stream(0)
    with cuda.stream(s), torch.cuda.stream(ts):
        m = mxffi.np.from_dlpack(u)  # u.__dlpack__(stream=s.handle): s waits for ts
        out = m.to("cpu")  # on s
    # Twenty float32 roundings away from 1.5**20: compare within float32's precision.
    np.testing.assert_allclose(out.asnumpy()[:5], np.full(5, 1.5**20), rtol=1e-5)


@needs_gpu
def test_torch_cuda_tensors_as_direct_arguments_run_on_torchs_stream():
    torch = _torch_cuda()
    ts = torch.cuda.Stream()
    before = cuda.current_stream(0).handle
    with torch.cuda.stream(ts):
        t = torch.arange(1 << 20, dtype=torch.float32, device="cuda:0")
        for _ in range(10):
            t.add_(1)
        r = mxffi.np.array(t)  # a copy made on ts, after torch's work there
        e = mxffi.np.add(t, t)
        ts.synchronize()
    assert cuda.current_stream(0).handle == before  # restored after each call
    expected = np.arange(1 << 20, dtype=np.float32) + 10
    np.testing.assert_array_equal(r.asnumpy(), expected)
    np.testing.assert_array_equal(e.asnumpy(), expected * 2)


@needs_gpu
def test_a_failed_call_with_a_torch_argument_restores_the_current_stream():
    torch = _torch_cuda()
    ts = torch.cuda.Stream()
    t = torch.ones(4, device="cuda:0")
    with torch.cuda.stream(ts):
        with pytest.raises((TypeError, ValueError)) as info:
            mxffi.np.add(t, "not a number")
    # Restored at once, though the error's traceback (info) still holds the call's frame.
    assert info.value is not None
    assert cuda.current_stream(0).handle == 0


@needs_gpu
def test_cupy_arrays_as_direct_arguments_are_ordered_before_mxffis_stream():
    # CuPy exports with stream=None as the legacy default stream: it orders its work before
    # that stream, and mxffi's current (non-blocking) stream must wait for that one in turn.
    cupy = pytest.importorskip("cupy")
    spin_fill = cupy.RawKernel(
        r"""
        extern "C" __global__ void spin_fill(double* x, long long n, long long cycles) {
          const long long start = clock64();
          while (clock64() - start < cycles) {
          }
          for (long long i = threadIdx.x; i < n; i += blockDim.x) x[i] = 1.0;
        }""",
        "spin_fill",
    )
    n = 1 << 16
    cs = cupy.cuda.Stream(non_blocking=True)
    s = cuda.Stream(0)
    with cs:
        c = cupy.zeros(n, dtype=cupy.float64)
        cs.synchronize()
        # About a tenth of a second of spinning before c holds ones.
        spin_fill((1,), (256,), (c, cupy.int64(n), cupy.int64(200_000_000)))
        with cuda.stream(s):
            got = mxffi.np.add(c, c).asnumpy()  # the add and the copy run on s
    np.testing.assert_array_equal(got, np.full(n, 2.0))


@needs_gpu
def test_dlpack_with_cupy_arrays_shares_memory_both_ways():
    cupy = pytest.importorskip("cupy")
    a = np.arange(20, dtype=np.int32)
    g = mxffi.np.array(a, device="cuda:0")
    c = cupy.from_dlpack(g)
    assert c.data.ptr == _data_ptr(g)
    c *= 3
    cupy.cuda.runtime.deviceSynchronize()
    np.testing.assert_array_equal(g.asnumpy(), a * 3)
    d = cupy.arange(8, dtype=cupy.float64)
    m = mxffi.np.from_dlpack(d)
    assert _data_ptr(m) == d.data.ptr
    np.testing.assert_array_equal(m.asnumpy(), np.arange(8.0))
    mxffi.np.array(np.full(8, 2.0), device="cuda:0").copyto(m)
    cuda.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(d), np.full(8, 2.0))
    # CuPy's own stream, named to mxffi as an ExternalStream.
    cs = cupy.cuda.Stream(non_blocking=True)
    with cs:
        e = cupy.ones(1 << 20, dtype=cupy.float32) * 7
    with cuda.stream(cuda.ExternalStream(cs.ptr, 0)):
        m2 = mxffi.np.from_dlpack(e)
        np.testing.assert_array_equal(m2.asnumpy()[:3], [7.0, 7.0, 7.0])


@pytest.mark.skipif(not cuda.compiled(), reason="this build of mxffi has no CUDA support")
def test_every_built_in_op_has_a_cuda_kernel():
    # A fresh process: ops that other tests load from libraries are not built in.
    script = (
        "import json, mxffi\n"
        "print(json.dumps({n: mxffi.ops.info(n)['kernels'] for n in mxffi.ops.list_ops()}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    kernels = json.loads(proc.stdout)
    # add_n is one op of any number of inputs (not add_n_1 ... add_n_16)
    assert len(kernels) > 40 and "add_n" in kernels and "add_n_2" not in kernels
    missing = sorted(
        name
        for name, ks in kernels.items()
        if "FCompute<gpu>" not in ks and "FComputeEx<gpu>" not in ks
    )
    assert missing == []
    # Every op with a CPU kernel of a kind has the GPU kernel of that kind too.
    for name, ks in kernels.items():
        for kind in ("FCompute", "FComputeEx"):
            if f"{kind}<cpu>" in ks:
                assert f"{kind}<gpu>" in ks, (name, ks)
