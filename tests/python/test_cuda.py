"""CUDA devices: discovery, and the errors a machine without a usable GPU gives.

The tests that need a GPU skip with the reason mxffi.cuda.unavailable_reason() gives (the
driver's message, or that the build has no CUDA); the rest check that such a machine answers
every question without crashing, and refuses CUDA arrays with that same reason.
"""

import re

import pytest

import mxffi
from mxffi import cuda

needs_gpu = pytest.mark.skipif(
    not cuda.is_available(), reason=f"no CUDA device: {cuda.unavailable_reason()}"
)
no_gpu = pytest.mark.skipif(cuda.is_available(), reason="a CUDA device is available")


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
    with pytest.raises(RuntimeError) as info:
        mxffi.np.zeros((3, 4), device=device)
    msg = str(info.value)
    assert "no CUDA device is available" in msg
    assert cuda.unavailable_reason() in msg
    assert re.search(r"cuda:\d", msg)
    # The process goes on: CPU arrays and later CUDA requests behave the same.
    assert mxffi.np.zeros((2,)).shape == (2,)
    with pytest.raises(RuntimeError, match="no CUDA device is available"):
        mxffi.np.empty((0,), device=device)


def test_other_device_types_are_refused():
    with pytest.raises(NotImplementedError, match="only the CPU .1. and CUDA .2. are"):
        mxffi.ndarray.empty((2,), device="rocm:0")


@needs_gpu
def test_a_cuda_array_has_its_device_and_shape():
    a = mxffi.np.empty((3, 4), dtype="float32", device="cuda:0")
    assert a.shape == (3, 4)
    assert str(a.device) == "cuda:0"


@needs_gpu
def test_a_device_that_does_not_exist_names_the_count():
    n = cuda.device_count()
    with pytest.raises(ValueError, match=f"cuda:{n} does not exist; {n} CUDA device"):
        mxffi.np.empty((2,), device=f"cuda:{n}")


@needs_gpu
def test_a_cuda_array_is_never_read_from_the_host():
    a = mxffi.np.empty((3,), dtype="float32", device="cuda:0")
    assert "cuda:0" in repr(a)
    with pytest.raises(TypeError, match="asnumpy: the array is on cuda:0"):
        a.asnumpy()
    with pytest.raises(mxffi.MXFFIError):  # no CUDA kernels yet: an error, not a crash
        mxffi.np.add(a, a)
