/*!
 * \file where_cuda.h
 * \brief The launcher of the CUDA kernel of np.where (where.cu), for host-compiled callers.
 */
#ifndef MXFFI_SRC_OP_WHERE_WHERE_CUDA_H_
#define MXFFI_SRC_OP_WHERE_WHERE_CUDA_H_

#include <mxffi/ndarray/dlpack_compat.h>

namespace mxffi {
namespace cuda {

/*!
 * \brief out (C-contiguous device array) = x where c is nonzero, else y, on stream; c (bool,
 *  one byte), x and y (out's dtype) are device arrays broadcast to out's shape, any strides.
 */
void Where(const DLTensor& c, const DLTensor& x, const DLTensor& y, const DLTensor& out,
           const char* fname, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_WHERE_WHERE_CUDA_H_
