/*!
 * \file strided_copy.h
 * \brief The strided device copy behind NDArray::CopyFromTo on CUDA arrays.
 */
#ifndef MXFFI_SRC_NDARRAY_CUDA_STRIDED_COPY_H_
#define MXFFI_SRC_NDARRAY_CUDA_STRIDED_COPY_H_

#include <dlpack/dlpack.h>

namespace mxffi {
namespace cuda {

/*!
 * \brief Copy every element of src into dst on stream: same shape and dtype (checked by the
 *  caller), both on the same CUDA device, any element strides (NULL strides: C-contiguous).
 *  Elements move as whole words of their size (1, 2, 4, 8 or 16 bytes) where both sides are
 *  aligned for it, byte by byte otherwise. Throws RuntimeError naming fname if the launch fails.
 */
void LaunchStridedCopy(const DLTensor& src, const DLTensor& dst, void* stream, const char* fname);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_NDARRAY_CUDA_STRIDED_COPY_H_
