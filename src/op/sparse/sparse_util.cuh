/*!
 * \file sparse_util.cuh
 * \brief What the sparse CUDA kernels share: the element-size dtype switch, the zero
 *  test on a value's bits (the CPU's, zero_bits.h), warp-per-item launch sizes, the int64 prefix
 * sum and reading one device count back to the host. nvcc only.
 */
#ifndef MXFFI_SRC_OP_SPARSE_SPARSE_UTIL_CUH_
#define MXFFI_SRC_OP_SPARSE_SPARSE_UTIL_CUH_

#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <type_traits>

#include "op/cuda_kernel.cuh"
#include "zero_bits.h"

namespace mxffi {
namespace cuda {

/*! \brief Every lane of a warp. */
constexpr unsigned kFullMask = 0xffffffffu;

using op::ZeroBits;

/*! \return the number of blocks of kThreads giving one warp to each of n items (grid-stride). */
inline unsigned int WarpBlocks(int64_t n) { return Blocks(n * 32); }

/*! \return the scratch bytes cub needs to scan n int64 values. */
inline size_t ScanTempBytes(int64_t n, const char* fname) {
  size_t bytes = 0;
  if (n > 0) {
    MXFFI_CUDA_CALL(
        fname, cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const int64_t*>(nullptr),
                                             static_cast<int64_t*>(nullptr), n));
  }
  return bytes;
}

/*! \brief out[0] = 0 and out[i + 1] = in[0] + ... + in[i] for i < n, on stream. */
inline void ExclusiveOffsets(const int64_t* in, int64_t* out, int64_t n, void* temp,
                             size_t temp_bytes, cudaStream_t stream, const char* fname) {
  MXFFI_CUDA_CALL(fname, cudaMemsetAsync(out, 0, sizeof(int64_t), stream));
  if (n == 0) return;
  MXFFI_CUDA_CALL(fname, cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out + 1, n, stream));
}

/*! \return *p (device memory), copied back on stream after waiting for it. */
inline int64_t ReadBack(const int64_t* p, cudaStream_t stream, const char* fname) {
  int64_t v = 0;
  MXFFI_CUDA_CALL(fname, cudaMemcpyAsync(&v, p, sizeof(v), cudaMemcpyDeviceToHost, stream));
  MXFFI_CUDA_CALL(fname, cudaStreamSynchronize(stream));
  return v;
}

/*! \return x rounded up to a multiple of 256 (the alignment of workspace parts). */
inline int64_t Align256(int64_t x) { return (x + 255) & ~int64_t{255}; }

}  // namespace cuda
}  // namespace mxffi

/*!
 * \brief Run the body with U bound to the unsigned integer as wide as one element of dtype:
 *  for kernels that move values without looking at them.
 */
#define MXFFI_CUDA_SIZE_SWITCH(dtype, fname, U, ...)              \
  do {                                                            \
    const DLDataType mxffi_sz_t_ = (dtype);                       \
    switch (mxffi_sz_t_.lanes == 1 ? mxffi_sz_t_.bits : 0) {      \
      case 8: {                                                   \
        using U = uint8_t;                                        \
        { __VA_ARGS__ }                                           \
      } break;                                                    \
      case 16: {                                                  \
        using U = uint16_t;                                       \
        { __VA_ARGS__ }                                           \
      } break;                                                    \
      case 32: {                                                  \
        using U = uint32_t;                                       \
        { __VA_ARGS__ }                                           \
      } break;                                                    \
      case 64: {                                                  \
        using U = unsigned long long;                             \
        { __VA_ARGS__ }                                           \
      } break;                                                    \
      default:                                                    \
        ::mxffi::op::ThrowUnsupportedDType((fname), mxffi_sz_t_); \
    }                                                             \
  } while (0)

#endif  // MXFFI_SRC_OP_SPARSE_SPARSE_UTIL_CUH_
