"""mxffi.cuda: CUDA devices.

``is_available()`` and ``device_count()`` never raise: without a GPU, a driver, or CUDA support
in this build they answer False and 0, and ``unavailable_reason()`` says which (the driver's own
message). Asking for a CUDA device then, as ``mxffi.np.zeros((3, 4), device="cuda:0")``, raises
RuntimeError with the same reason.
"""

from ._ffi import get_global_func

__all__ = ["compiled", "device_count", "is_available", "unavailable_reason"]

_device_count = get_global_func("cuda.device_count")
_reason = get_global_func("cuda.unavailable_reason")
_compiled = get_global_func("cuda.compiled")


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
