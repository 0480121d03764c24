"""mxffi.cuda: CUDA devices, streams and device memory.

``is_available()`` and ``device_count()`` never raise: without a GPU, a driver, or CUDA support
in this build they answer False and 0, and ``unavailable_reason()`` says which (the driver's own
message). Everything else here needs a device and raises RuntimeError "... no CUDA device is
available: <the driver's message>" without one, as ``mxffi.np.zeros((3, 4), device="cuda:0")``
does.

Streams cross into C++ as integers (the ``cudaStream_t`` value, as ``torch.cuda.Stream.cuda_stream``
and ``cupy.cuda.Stream.ptr`` give it); 0 is the legacy default stream. Each thread has its own
current stream per device; ops run on it and device memory is allocated for it. See
docs/cuda.md.
"""

import contextlib
import sys

from ._ffi import Device, get_global_func

__all__ = [
    "ExternalStream",
    "Stream",
    "compiled",
    "current_stream",
    "device_count",
    "empty_cache",
    "is_available",
    "library_unavailable_reason",
    "memory_stats",
    "record_stream",
    "stream",
    "synchronize",
    "unavailable_reason",
]

_device_count = get_global_func("cuda.device_count")
_reason = get_global_func("cuda.unavailable_reason")
_compiled = get_global_func("cuda.compiled")
_current_stream = get_global_func("cuda.current_stream")
_set_current_stream = get_global_func("cuda.set_current_stream")
_stream_create = get_global_func("cuda.stream_create")
_stream_destroy = get_global_func("cuda.stream_destroy")
_stream_synchronize = get_global_func("cuda.stream_synchronize")
_stream_wait_stream = get_global_func("cuda.stream_wait_stream")
_synchronize = get_global_func("cuda.synchronize")
_memory_stats = get_global_func("cuda.memory_stats")
_empty_cache = get_global_func("cuda.empty_cache")
_record_stream = get_global_func("cuda.record_stream")
_library_reason = get_global_func("cuda.library_unavailable_reason")
_library_calls_func = get_global_func("cuda._library_calls")


def compiled():
    """Whether this build of mxffi has CUDA support compiled in."""
    return bool(_compiled())


def device_count():
    """The number of CUDA devices; 0 when there is none, no driver, or no CUDA support."""
    return int(_device_count())


def is_available():
    """Whether at least one CUDA device can be used."""
    return device_count() > 0


def unavailable_reason():
    """Why no CUDA device can be used (the driver's message), or "" when one can."""
    return str(_reason())


def library_unavailable_reason(name):
    """Why the CUDA library name ("cublas", "cusolver" or "cufft"), which mxffi loads at run time
    (this call loads it), cannot be used: each file tried and the loader's message, or that this
    build has no CUDA; "" when it can. Without it, the functions that use it take their fallback
    (mxffi's own kernel, or the host)."""
    return str(_library_reason(name))


def _library_calls():
    """For tests: how many calls this process made to cuSOLVER's factorization routines
    ("cusolver", one per matrix) and cuFFT's transforms ("cufft"), as a dict of ints; a function
    that took the host path leaves them as they were."""
    return {str(k): int(v) for k, v in _library_calls_func().items()}


def _device_index(device, fname):
    """A CUDA device index from 0, "cuda", "cuda:1", Device("cuda", 1) or a torch.device."""
    if isinstance(device, bool):
        raise TypeError(f"{fname}: device must be an int, a str or a Device, got bool")
    if isinstance(device, int):
        return device
    if not isinstance(device, Device):
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(device, torch.device):
            device = f"{device.type}:{device.index or 0}"
        if not isinstance(device, str):
            raise TypeError(
                f"{fname}: device must be an int, a str or a Device, got {type(device).__name__}"
            )
        device = Device(device)
    if device.device_type != 2:
        raise ValueError(f"{fname}: {device} is not a CUDA device")
    return device.device_id


class Stream:
    """A CUDA stream of a device, made by mxffi; destroyed (after its work) when dropped.

    ``Stream(device=0)`` creates a non-blocking stream (it does not wait for the legacy default
    stream). ``handle`` is its ``cudaStream_t`` as an int, to hand to PyTorch
    (``torch.cuda.ExternalStream(s.handle)``) or CuPy; ``with mxffi.cuda.stream(s):`` makes it
    the current stream.
    """

    _owned = True

    def __init__(self, device=0):
        self.device = _device_index(device, "mxffi.cuda.Stream")
        self.handle = int(_stream_create(self.device))

    def synchronize(self):
        """Block until the work queued on this stream has completed."""
        _stream_synchronize(self.device, self.handle)

    def wait_stream(self, other):
        """Make this stream wait (on the device, not the host) for the work queued on other."""
        if not isinstance(other, Stream):
            raise TypeError(
                f"mxffi.cuda.Stream.wait_stream: expected a Stream, got {type(other).__name__}"
            )
        if other.device != self.device:
            raise ValueError(
                f"mxffi.cuda.Stream.wait_stream: the streams are on cuda:{self.device} and "
                f"cuda:{other.device}; both must be on one device"
            )
        _stream_wait_stream(self.device, self.handle, other.handle)

    def __eq__(self, other):
        return (
            isinstance(other, Stream)
            and self.handle == other.handle
            and self.device == other.device
        )

    def __hash__(self):
        return hash((self.handle, self.device))

    def __repr__(self):
        return (
            f"<mxffi.cuda.{type(self).__name__} handle={self.handle:#x} device=cuda:{self.device}>"
        )

    def __del__(self):
        handle = getattr(self, "handle", 0)
        if self._owned and handle:
            self.handle = 0
            with contextlib.suppress(Exception):
                _stream_destroy(self.device, handle)


class ExternalStream(Stream):
    """A stream made elsewhere (``torch.cuda.Stream.cuda_stream``, ``cupy.cuda.Stream.ptr``),
    wrapped by its integer handle; mxffi never destroys it, so its owner must keep it alive
    while mxffi uses it. 0 is the legacy default stream."""

    _owned = False

    def __init__(self, handle, device=0):
        self.device = _device_index(device, "mxffi.cuda.ExternalStream")
        if isinstance(handle, bool) or not isinstance(handle, int):
            raise TypeError(
                "mxffi.cuda.ExternalStream: handle must be an int (a cudaStream_t), got "
                f"{type(handle).__name__}"
            )
        if handle < 0:
            raise ValueError(f"mxffi.cuda.ExternalStream: handle must be >= 0, got {handle}")
        _current_stream(self.device)  # "no CUDA device is available" without one
        self.handle = handle


def current_stream(device=0):
    """The calling thread's current stream of a device (the legacy default stream, handle 0,
    unless ``stream()`` set another)."""
    index = _device_index(device, "mxffi.cuda.current_stream")
    return ExternalStream(int(_current_stream(index)), index)


@contextlib.contextmanager
def stream(s):
    """Make s the calling thread's current stream of its device inside the block; the stream
    before is current again after it. Other threads keep their own. ``stream(None)`` is a
    no-op."""
    if s is None:
        yield s
        return
    if not isinstance(s, Stream):
        raise TypeError(f"mxffi.cuda.stream: expected a Stream, got {type(s).__name__}")
    previous = _set_current_stream(s.device, s.handle)
    try:
        yield s
    finally:
        _set_current_stream(s.device, previous)


def synchronize(device=None):
    """Block until every queued kernel and copy on a device (every device when None) is done."""
    _synchronize(None if device is None else _device_index(device, "mxffi.cuda.synchronize"))


def memory_stats(device=0):
    """The caching allocator's figures for a device, as a dict of ints: allocated_bytes (held
    by arrays), peak_allocated_bytes, reserved_bytes (obtained with cudaMalloc and not given
    back), cached_bytes (free, reusable), pending_bytes (freed, waiting for other streams),
    num_blocks, num_allocations, num_cache_hits, num_device_mallocs, num_device_frees,
    num_oom_retries."""
    stats = _memory_stats(_device_index(device, "mxffi.cuda.memory_stats"))
    return {str(k): int(v) for k, v in stats.items()}


def empty_cache(device=None):
    """Give the cached free device memory back to the driver (every device when None)."""
    _empty_cache(None if device is None else _device_index(device, "mxffi.cuda.empty_cache"))


def record_stream(array, s):
    """Note that a dense CUDA array's memory is used on stream s (a Stream, or an int handle)
    as well as the stream it was allocated for: when the array is freed, its memory is reused
    only after the work queued on s by then (PyTorch's Tensor.record_stream)."""
    handle = s.handle if isinstance(s, Stream) else s
    _record_stream(array, handle)
