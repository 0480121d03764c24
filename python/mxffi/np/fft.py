"""mxffi.np.fft: numpy's and the array API's discrete Fourier transforms.

The functions are registered C++ functions ("np.fft.<name>") on KissFFT: complex64 results for
float16, bfloat16, float32 and complex64 inputs, complex128 for the others, as numpy 2.
"""

from ..registry import init_api as _init_api

__all__ = _init_api("np.fft", __name__)
