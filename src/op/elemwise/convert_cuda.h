/*!
 * \file convert_cuda.h
 * \brief The converting copy of the CUDA kernels (convert.cu): a strided device array into a
 *  C-contiguous one of another dtype, one kernel per output dtype (the input's is a switch in
 *  the kernel, uniform across the grid). Host code calls it with plain pointers and extents.
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_CONVERT_CUDA_H_
#define MXFFI_SRC_OP_ELEMWISE_CONVERT_CUDA_H_

#include <dlpack/dlpack.h>

#include <cstdint>

namespace mxffi {
namespace cuda {

/*!
 * \brief dst[i] = element i of src converted to dst_dtype, for the n = prod(shape) elements
 *  in C order: src's element (i0, ..., i{ndim-1}) is at src + sum(i_d * strides[d]) elements,
 *  dst is C-contiguous. astype: as numpy's astype converts (CastOne), else as a ufunc's loop
 *  reads an input of another dtype (ConvertOne). In stream order on stream.
 * \throws ValueError naming fname for more than kMaxDims axes, TypeError for an unsupported
 *  dtype, RuntimeError when the launch fails.
 */
void ConvertElements(const void* src, DLDataType src_dtype, int ndim, const int64_t* shape,
                     const int64_t* strides, void* dst, DLDataType dst_dtype, bool astype,
                     const char* fname, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_ELEMWISE_CONVERT_CUDA_H_
