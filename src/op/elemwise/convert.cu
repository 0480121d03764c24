/*!
 * \file convert.cu
 * \brief The converting copy (convert_cuda.h) behind the GEMM's operand packing, the sparse
 *  ops' conversions of stored values and their dtype-changing copies: a kernel per output dtype
 *  and conversion, reading its input through LoadAs (elemwise_kernels.cuh), so the pairs of
 *  dtypes cost no kernel each.
 */
#include "convert_cuda.h"
#include "elemwise_kernels.cuh"

namespace mxffi {
namespace cuda {
namespace {

template <typename To, bool kAstype>
__global__ void ConvertKernel(const void* src, int code, StridedIndex<1> idx, To* __restrict__ dst,
                              int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[1];
    InputOffsets(idx, i, off);
    dst[i] = LoadAs<To, kAstype>(src, off[0], code);
  }
}

}  // namespace

void ConvertElements(const void* src, DLDataType src_dtype, int ndim, const int64_t* shape,
                     const int64_t* strides, void* dst, DLDataType dst_dtype, bool astype,
                     const char* fname, void* stream) {
  MXFFI_CHECK(ndim <= kMaxDims, ValueError)
      << fname << ": at most " << kMaxDims << " axes, got " << ndim;
  StridedIndex<1> idx;
  idx.ndim = ndim;
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) {
    idx.shape[d] = shape[d];
    idx.stride[0][d] = strides[d];
    n *= shape[d];
  }
  if (n == 0) return;
  if (ndim == 0) {  // one element
    idx.ndim = 1;
    idx.shape[0] = 1;
    idx.stride[0][0] = 0;
  }
  const int code = op::DTypeRuleIndex(src_dtype);
  if (code < 0) op::ThrowUnsupportedDType(fname, src_dtype);
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(dst_dtype, fname, To, {
    if (astype) {
      ConvertKernel<To, true>
          <<<Blocks(n), kThreads, 0, s>>>(src, code, idx, static_cast<To*>(dst), n);
    } else {
      ConvertKernel<To, false>
          <<<Blocks(n), kThreads, 0, s>>>(src, code, idx, static_cast<To*>(dst), n);
    }
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace cuda
}  // namespace mxffi
