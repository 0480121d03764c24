/*!
 * \file fft.h
 * \brief Discrete Fourier transforms on the host through KissFFT's C++ template (kissfft.hh,
 *  Debian's libkissfft-dev), in single precision for complex64 and double for complex128: the
 *  kernels behind np.fft. Every function takes and returns C-contiguous host arrays and works
 *  along one axis, every line of that axis transformed.
 */
#ifndef MXFFI_SRC_OP_FFT_FFT_H_
#define MXFFI_SRC_OP_FFT_FFT_H_

#include <mxffi/ndarray/ndarray.h>

namespace mxffi {
namespace op {
namespace fft {

/*!
 * \return a (float32, float64, complex64 or complex128) as a new complex array (complex64 for
 *  the 32-bit dtypes, else complex128) whose axis has length n: cropped, or zero-padded at the
 *  end, as numpy's n=.
 */
NDArray ToComplex(const NDArray& a, int axis, int64_t n);

/*! \brief Transform every line of c (complex64 or complex128) along axis in place, times scale. */
void Transform(const NDArray& c, int axis, bool inverse, double scale);

/*!
 * \return the transform along axis of a (as ToComplex takes it, its axis cropped or zero-padded
 *  to n) as a new array, times scale; a is left as it is.
 */
NDArray ComplexTransform(const NDArray& a, int axis, int64_t n, bool inverse, double scale);

/*!
 * \return the n // 2 + 1 non-negative frequency terms along axis of the transform of the real
 *  a (float32 or float64, its axis cropped or zero-padded to n), times scale.
 */
NDArray RealForward(const NDArray& a, int axis, int64_t n, double scale);

/*!
 * \return the real signal of length n along axis whose transform has the Hermitian-symmetric
 *  terms c (complex64 or complex128, or a real array taken as complex; its first n // 2 + 1
 *  along axis, zero-padded when fewer),
 *  times scale; the imaginary parts of the zero (and for even n the Nyquist) term are ignored.
 */
NDArray RealInverse(const NDArray& c, int axis, int64_t n, double scale);

}  // namespace fft
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_FFT_FFT_H_
