/*!
 * \file kernel_util.cuh
 * \brief What every CUDA kernel file shares: the grid-stride loop and launch sizes, and the
 *  strided index arithmetic of up to kMaxDims dimensions. nvcc only.
 *
 * The element types, their conversions and the dtype switches are the CPU kernels' own
 * (src/op/half.h, cast.h, type_switch.h), compiled for both devices.
 */
#ifndef MXFFI_SRC_NDARRAY_CUDA_KERNEL_UTIL_CUH_
#define MXFFI_SRC_NDARRAY_CUDA_KERNEL_UTIL_CUH_

#include <cuda_runtime.h>
#include <mxffi/error.h>
#include <mxffi/ndarray/dlpack_compat.h>

#include <algorithm>
#include <cstdint>

#include "cuda_common.h"

namespace mxffi {
namespace cuda {

/*! \brief The most dimensions an array has (op.h's kMaxNDim). */
constexpr int kMaxDims = 32;
/*! \brief Threads per block of the elementwise kernels. */
constexpr int kThreads = 256;

/*! \return the first element of t (data plus byte_offset) as T*. */
template <typename T>
inline T* DataPtr(const DLTensor& t) {
  return reinterpret_cast<T*>(static_cast<char*>(t.data) + t.byte_offset);
}

/*! \return the number of elements of t. */
inline int64_t NumElements(const DLTensor& t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

/*! \return the number of blocks of kThreads for n elements of a grid-stride loop. */
inline unsigned int Blocks(int64_t n, int threads = kThreads) {
  const int64_t want = (n + threads - 1) / threads;
  return static_cast<unsigned int>(std::max<int64_t>(1, std::min<int64_t>(want, 1 << 20)));
}

/*! \brief for (i = this thread's first index; i < n; i += the grid's thread count). */
#define MXFFI_CUDA_LOOP(i, n)                                                            \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

/*!
 * \brief The element offsets of N operands at a flat index of a C-ordered shape: operand k's
 *  element stride along dimension d is stride[k][d] (0 where it broadcasts). Passed to
 *  kernels by value.
 */
template <int N>
struct StridedIndex {
  int ndim = 0;
  int64_t shape[kMaxDims];
  int64_t stride[N][kMaxDims];

  /*! \brief The element offsets of flat index i into off[0..N). */
  __device__ __forceinline__ void Offsets(int64_t i, int64_t* off) const {
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t e = shape[d];
      const int64_t q = i / e, r = i - q * e;
#pragma unroll
      for (int k = 0; k < N; ++k) off[k] += r * stride[k][d];
      i = q;
    }
  }
};

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_NDARRAY_CUDA_KERNEL_UTIL_CUH_
