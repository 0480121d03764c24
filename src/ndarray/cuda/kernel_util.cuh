/*!
 * \file kernel_util.cuh
 * \brief What every CUDA kernel file shares: the device element type of each dtype, numpy's
 *  conversions between them, the grid-stride loop and launch sizes, and the strided index
 *  arithmetic of up to kMaxNDim dimensions. nvcc only.
 *
 * float16 and bfloat16 are __half and __nv_bfloat16 on the device; like the CPU kernels
 * (src/op/dtype.h) they compute in float32 and round to nearest even on store, so one op gives
 * the CPU kernel's bits.
 */
#ifndef MXFFI_SRC_NDARRAY_CUDA_KERNEL_UTIL_CUH_
#define MXFFI_SRC_NDARRAY_CUDA_KERNEL_UTIL_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mxffi/error.h>
#include <mxffi/ndarray/dlpack_compat.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuda_common.h"

namespace mxffi {
namespace cuda {

/*! \brief The most dimensions an array has (op.h's kMaxNDim). */
constexpr int kMaxDims = 32;
/*! \brief Threads per block of the elementwise kernels. */
constexpr int kThreads = 256;

/*! \brief The type arithmetic on T is done in: float for the 16-bit floats, T otherwise. */
template <typename T>
struct Acc {
  using type = T;
};
template <>
struct Acc<__half> {
  using type = float;
};
template <>
struct Acc<__nv_bfloat16> {
  using type = float;
};
template <typename T>
using AccT = typename Acc<T>::type;

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

/*! \return v widened to its accumulation type (halves to float). */
template <typename T>
__host__ __device__ __forceinline__ AccT<T> ToAcc(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return v;
  }
}

/*! \return v (an accumulation-type value) stored as T, rounding to nearest even for halves. */
template <typename T, typename A>
__host__ __device__ __forceinline__ T FromAcc(A v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != A(0);
  } else {
    return static_cast<T>(v);
  }
}

/*! \brief One element converted as numpy's astype does (the CPU kernels' ConvertOne). */
template <typename To, typename From>
__host__ __device__ __forceinline__ To Convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else {
    return FromAcc<To>(ToAcc(v));
  }
}

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

/*! \brief Run f(I{}) with I the C type of an index dtype (int32 or int64); TypeError naming
 *  fname for any other. */
template <typename F>
void IndexSwitch(DLDataType t, const char* fname, F&& f) {
  if (t.code == kDLInt && t.lanes == 1 && t.bits == 32) {
    f(int32_t{});
  } else if (t.code == kDLInt && t.lanes == 1 && t.bits == 64) {
    f(int64_t{});
  } else {
    MXFFI_THROW(TypeError) << fname << ": index arrays must be int32 or int64, got dtype code "
                           << int(t.code) << " bits " << int(t.bits);
  }
}

}  // namespace cuda
}  // namespace mxffi

#define MXFFI_CUDA_TYPE_CASE_(Code, Bits, CType, DType, ...) \
  case ((Code) << 8 | (Bits)): {                             \
    using DType = CType;                                     \
    { __VA_ARGS__ }                                          \
  } break;

/*!
 * \brief Run the body with DType bound to the device type of dtype (every supported dtype:
 *  bool, int8..uint64, __half, __nv_bfloat16, float, double). TypeError naming fname for any
 *  other.
 */
#define MXFFI_CUDA_TYPE_SWITCH(dtype, fname, DType, ...)                                          \
  do {                                                                                            \
    const DLDataType mxffi_sw_t_ = (dtype);                                                       \
    switch (mxffi_sw_t_.lanes == 1 ? (mxffi_sw_t_.code << 8 | mxffi_sw_t_.bits) : -1) {           \
      MXFFI_CUDA_TYPE_CASE_(kDLBool, 8, bool, DType, __VA_ARGS__)                                 \
      MXFFI_CUDA_TYPE_CASE_(kDLInt, 8, int8_t, DType, __VA_ARGS__)                                \
      MXFFI_CUDA_TYPE_CASE_(kDLInt, 16, int16_t, DType, __VA_ARGS__)                              \
      MXFFI_CUDA_TYPE_CASE_(kDLInt, 32, int32_t, DType, __VA_ARGS__)                              \
      MXFFI_CUDA_TYPE_CASE_(kDLInt, 64, int64_t, DType, __VA_ARGS__)                              \
      MXFFI_CUDA_TYPE_CASE_(kDLUInt, 8, uint8_t, DType, __VA_ARGS__)                              \
      MXFFI_CUDA_TYPE_CASE_(kDLUInt, 16, uint16_t, DType, __VA_ARGS__)                            \
      MXFFI_CUDA_TYPE_CASE_(kDLUInt, 32, uint32_t, DType, __VA_ARGS__)                            \
      MXFFI_CUDA_TYPE_CASE_(kDLUInt, 64, uint64_t, DType, __VA_ARGS__)                            \
      MXFFI_CUDA_TYPE_CASE_(kDLFloat, 16, __half, DType, __VA_ARGS__)                             \
      MXFFI_CUDA_TYPE_CASE_(kDLBfloat, 16, __nv_bfloat16, DType, __VA_ARGS__)                     \
      MXFFI_CUDA_TYPE_CASE_(kDLFloat, 32, float, DType, __VA_ARGS__)                              \
      MXFFI_CUDA_TYPE_CASE_(kDLFloat, 64, double, DType, __VA_ARGS__)                             \
      default:                                                                                    \
        MXFFI_THROW(TypeError) << (fname) << ": unsupported dtype code " << int(mxffi_sw_t_.code) \
                               << " bits " << int(mxffi_sw_t_.bits) << " lanes "                  \
                               << mxffi_sw_t_.lanes;                                              \
    }                                                                                             \
  } while (0)

#endif  // MXFFI_SRC_NDARRAY_CUDA_KERNEL_UTIL_CUH_
