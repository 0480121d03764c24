/*!
 * \file cufft.h
 * \brief cuFFT for np.fft on a CUDA device (src/op/fft/cufft_ops.cc): loaded with dlopen the
 *  first time a transform runs on a GPU, never linked, as blas.h does for cuBLAS. Plans are
 *  cached per device, stream, transform type, length and batch (at most kFftPlanCacheSize of
 *  them; the least recently used is destroyed past that). Built without CUDA, or where libcufft
 *  cannot be loaded, FftAvailable is false with the reason and FftExec throws RuntimeError.
 */
#ifndef MXFFI_SRC_NDARRAY_CUDA_CUFFT_H_
#define MXFFI_SRC_NDARRAY_CUDA_CUFFT_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>

namespace mxffi {
namespace cuda {

/*! \brief How many cuFFT plans are kept for reuse, over all devices and streams. */
constexpr int kFftPlanCacheSize = 32;

/*!
 * \return whether cuFFT could be loaded (it is loaded on the first call); *why (when given)
 *  receives the reason when it could not: each library tried and dlopen's message.
 */
bool FftAvailable(std::string* why = nullptr);

/*! \brief A transform's type: complex to complex, real to complex (forward), complex to real. */
enum class FftType { kC2C, kR2C, kC2R };

/*!
 * \return how many cuFFT transforms (cufftExec* calls) this process has made: tests tell with it
 *  that a transform ran on cuFFT, not on the host.
 */
int64_t FftExecCalls();

/*!
 * \brief Transform count contiguous lines of length n, unnormalized, in single precision
 *  (complex64 / float32) or double: kC2C reads n complex and writes n complex per line (in may
 *  be out), forward or inverse; kR2C reads n reals and writes n / 2 + 1 complex; kC2R reads
 *  n / 2 + 1 complex (and overwrites them, as cuFFT does) and writes n reals. Runs on the
 *  current device (the caller holds a DeviceGuard for device) in stream order on stream;
 *  n >= 1, count >= 0 and n * count <= INT_MAX (cuFFT's 32-bit plans).
 * \throws RuntimeError naming fname when cuFFT is missing or a call fails.
 */
void FftExec(FftType type, bool dbl, int64_t n, int64_t count, void* in, void* out, bool inverse,
             DLDevice device, void* stream, const char* fname);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_NDARRAY_CUDA_CUFFT_H_
