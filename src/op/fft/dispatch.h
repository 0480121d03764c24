/*!
 * \file dispatch.h
 * \brief np.fft's transforms on the device of their input: the functions of fft.h, with the same
 *  arguments and results, that run cuFFT (cufft_ops.cc) for an array on a CUDA device where the
 *  library loads, and KissFFT on the host otherwise (a CUDA input is then copied to the host and
 *  its result stays there; Transform writes back into its CUDA array). Inputs are C-contiguous.
 */
#ifndef MXFFI_SRC_OP_FFT_DISPATCH_H_
#define MXFFI_SRC_OP_FFT_DISPATCH_H_

#include <mxffi/ndarray/ndarray.h>

namespace mxffi {
namespace op {
namespace fft {
namespace dispatch {

/*!
 * \return where the transforms of an array on device run: device itself when it is a CUDA
 *  device and cuFFT could be loaded, else the host.
 */
DLDevice ComputeDevice(DLDevice device);

NDArray ToComplex(const NDArray& a, int axis, int64_t n);
void Transform(const NDArray& c, int axis, bool inverse, double scale);
NDArray ComplexTransform(const NDArray& a, int axis, int64_t n, bool inverse, double scale);
NDArray RealForward(const NDArray& a, int axis, int64_t n, double scale);
NDArray RealInverse(const NDArray& c, int axis, int64_t n, double scale);

/*! \return the complex conjugate of the complex array c, on c's device (a new array). */
NDArray Conj(const NDArray& c);

}  // namespace dispatch
}  // namespace fft
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_FFT_DISPATCH_H_
