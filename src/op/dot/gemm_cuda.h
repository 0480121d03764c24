/*!
 * \file gemm_cuda.h
 * \brief The GEMM kernels of the CUDA matrix products (gemm.cu): packing a strided operand into
 *  a contiguous matrix of another dtype, and a tiled shared-memory GEMM for every dtype (the
 *  integers and bool, which cuBLAS does not multiply with numpy's wraparound, and the floats
 *  where cuBLAS cannot be loaded). src/ndarray/cuda/blas.cc decides which runs.
 */
#ifndef MXFFI_SRC_OP_DOT_GEMM_CUDA_H_
#define MXFFI_SRC_OP_DOT_GEMM_CUDA_H_

#include <dlpack/dlpack.h>

#include <cstdint>

namespace mxffi {
namespace cuda {

/*! \brief Most axes of a packed operand, and most batch axes of a batched product. */
constexpr int kGemmMaxDims = 32;

/*!
 * \brief dst (C-contiguous over shape, dst_dtype) = src converted as numpy's astype does; src's
 *  element at index (i0, ..., i{ndim-1}) is at src + sum(i_d * strides[d]) elements.
 *  ValueError when more than kGemmMaxDims axes remain after merging.
 */
void PackStrided(const void* src, DLDataType src_dtype, int ndim, const int64_t* shape,
                 const int64_t* strides, void* dst, DLDataType dst_dtype, void* stream);

/*!
 * \brief The batch axes of a batched product: batch t (C order over shape) reads a at
 *  offset sum(i_d * a_stride[d]) elements and b likewise (stride 0 where one broadcasts).
 */
struct GemmBatch {
  int ndim = 0;
  int64_t shape[kGemmMaxDims];
  int64_t a_stride[kGemmMaxDims];
  int64_t b_stride[kGemmMaxDims];
};

/*!
 * \brief c[t] = a[t] @ b[t] for each of nbatch batches, in the tiled kernel. a[t] is M x K with
 *  element (i, k) at a + offset(t) + i * a_rs + k * a_cs (elements, any strides), b[t] K x N
 *  likewise; c is C-contiguous (nbatch, M, N). a, b and c all have dtype. Integers wrap as
 *  numpy's do, bool is the logical or of ands, float16/bfloat16 accumulate in float32.
 */
void TiledGemm(DLDataType dtype, int64_t M, int64_t N, int64_t K, const void* a, int64_t a_rs,
               int64_t a_cs, const void* b, int64_t b_rs, int64_t b_cs, const GemmBatch& batch,
               int64_t nbatch, void* c, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_DOT_GEMM_CUDA_H_
