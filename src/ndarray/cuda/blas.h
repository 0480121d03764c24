/*!
 * \file blas.h
 * \brief Matrix products on a CUDA device: cuBLAS for float16, bfloat16, float32 and float64,
 *  mxffi's tiled kernel (src/op/dot/gemm.cu) for integers and bool and wherever cuBLAS cannot be
 *  loaded.
 *
 * cuBLAS is loaded with dlopen the first time a float product runs on a GPU, never linked:
 * libmxffi.so has no dependency on libcublas, so `import mxffi` works on a machine without it
 * (and without any GPU), and such a machine still multiplies floats on its GPU, in the tiled
 * kernel. Built without CUDA, every function here reports that there is no cuBLAS.
 */
#ifndef MXFFI_SRC_NDARRAY_CUDA_BLAS_H_
#define MXFFI_SRC_NDARRAY_CUDA_BLAS_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>

namespace mxffi {
namespace cuda {

/*! \brief Most axes of a device GEMM operand's rows, columns or batch. */
constexpr int kBlasMaxDims = 32;

/*! \brief One axis of a device GEMM operand: extent and stride in elements. */
struct GemmAxis {
  int64_t size;
  int64_t stride;
};

/*!
 * \brief A GEMM operand on the device, batched: in batch t (C order over the product's batch
 *  shape) it is the matrix whose row index runs over the axes row[0..nrow) and whose column
 *  index runs over col[0..ncol), each in C order, starting at data + sum(t_d * batch_stride[d])
 *  elements. Any strides; batch_stride[d] is 0 where the operand broadcasts.
 */
struct DeviceGemmOperand {
  const void* data = nullptr;
  DLDataType dtype{kDLFloat, 32, 1};
  int nrow = 0, ncol = 0;
  GemmAxis row[kBlasMaxDims];
  GemmAxis col[kBlasMaxDims];
  int64_t batch_stride[kBlasMaxDims] = {};

  int64_t rows() const;
  int64_t cols() const;
};

/*!
 * \brief c[t] = a[t] @ b[t] for every t over batch_shape, on the device current for the
 *  calling thread, in stream order on stream. c is C-contiguous (batch..., rows(a), cols(b)) of
 *  out_dtype; a and b are converted to out_dtype first (as numpy converts matmul's operands to
 *  their common type) when they have another dtype.
 *
 *  float32 and float64 accumulate in their own precision with no TF32 or other reduced
 *  precision; float16 and bfloat16 accumulate in float32 and are rounded once (the CPU GEMM's
 *  results, up to the order of the sums). Integers wrap as numpy's do; bool is the logical or of
 *  ands.
 * \param fname named in errors.
 */
void DeviceGemm(const DeviceGemmOperand& a, const DeviceGemmOperand& b, int nbatch_dims,
                const int64_t* batch_shape, DLDataType out_dtype, void* c, DLDevice device,
                void* stream, const char* fname);

/*!
 * \return whether cuBLAS could be loaded (it is loaded on the first call); *why (when given)
 *  receives the reason when it could not: each library tried and dlopen's message.
 */
bool BlasAvailable(std::string* why = nullptr);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_NDARRAY_CUDA_BLAS_H_
