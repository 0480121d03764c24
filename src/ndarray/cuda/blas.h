/*!
 * \file blas.h
 * \brief cuBLAS for the matrix products on a CUDA device (src/op/dot/gemm_gpu.cc): loaded with
 *  dlopen the first time a float product runs on a GPU, never linked, and called through one
 *  function here.
 *
 * libmxffi.so has no dependency on libcublas, so `import mxffi` works on a machine without it
 * (and without any GPU), and such a machine still multiplies floats on its GPU, in mxffi's
 * tiled kernel. Built without CUDA, every function here reports that there is no cuBLAS.
 */
#ifndef MXFFI_SRC_NDARRAY_CUDA_BLAS_H_
#define MXFFI_SRC_NDARRAY_CUDA_BLAS_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>

namespace mxffi {
namespace cuda {

/*!
 * \return whether cuBLAS could be loaded (it is loaded on the first call); *why (when given)
 *  receives the reason when it could not: each library tried and dlopen's message.
 */
bool BlasAvailable(std::string* why = nullptr);

/*!
 * \return whether cuBLAS multiplies matrices of dtype: float16, bfloat16, float32, float64,
 *  complex64, complex128.
 */
bool BlasSupports(DLDataType dtype);

/*!
 * \brief One cuBLAS product, in cuBLAS's column-major terms: C = op(A) @ op(B), C m x n with
 *  leading dimension ldc, op(A) m x k (A transposed when trans_a), op(B) k x n, for count such
 *  products whose matrices lie stride_a, stride_b and stride_c elements apart (count 1:
 *  cublasGemmEx, else cublasGemmStridedBatchedEx). A, B and C have dtype (BlasSupports);
 *  float32 and float64 accumulate in their own precision with no TF32 or other reduced
 *  precision, float16 and bfloat16 in float32. Runs on the device current for the calling
 *  thread (device), in stream order on stream, with the calling thread's handle for it.
 * \throws RuntimeError naming fname when cuBLAS is missing or a call fails.
 */
void BlasGemm(DLDataType dtype, bool trans_a, bool trans_b, int m, int n, int k, const void* A,
              int lda, int64_t stride_a, const void* B, int ldb, int64_t stride_b, void* C, int ldc,
              int64_t stride_c, int count, DLDevice device, void* stream, const char* fname);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_NDARRAY_CUDA_BLAS_H_
