/*!
 * \file tri_cuda.h
 * \brief The launcher of the CUDA kernel of tril and triu (tri.cu), for host-compiled callers.
 */
#ifndef MXFFI_SRC_OP_TRI_TRI_CUDA_H_
#define MXFFI_SRC_OP_TRI_TRI_CUDA_H_

#include <mxffi/ndarray/dlpack_compat.h>

#include "tri_functors.h"

namespace mxffi {
namespace cuda {

/*!
 * \brief out (C-contiguous device array) = x (same shape and dtype, any strides) where mask keeps
 *  the element, else zero, on stream.
 */
void Tri(const DLTensor& x, const DLTensor& out, op::tri::TriMask mask, const char* fname,
         void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_TRI_TRI_CUDA_H_
