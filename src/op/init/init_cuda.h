/*!
 * \file init_cuda.h
 * \brief Launchers of the CUDA kernels that make arrays (init.cu): fill, arange and the strided
 *  copy. Plain functions of DLTensors and plain values, for host-compiled callers.
 */
#ifndef MXFFI_SRC_OP_INIT_INIT_CUDA_H_
#define MXFFI_SRC_OP_INIT_INIT_CUDA_H_

#include <mxffi/ndarray/dlpack_compat.h>

#include <cstdint>

namespace mxffi {
namespace cuda {

/*!
 * \brief Set every element of the C-contiguous device array out to the value whose bits (the
 *  element's size, already converted to out's dtype on the host) are in bits, on stream.
 */
void Fill(const DLTensor& out, uint64_t bits, const char* fname, void* stream);

/*!
 * \brief out[i] = start + i * step computed in float64 (multiply and add rounded separately),
 *  then converted to out's dtype as numpy's astype does, on stream.
 */
void Arange(const DLTensor& out, double start, double step, const char* fname, void* stream);

/*!
 * \brief Copy the device array src (any strides) into the C-contiguous device array dst of the
 *  same shape and dtype, on stream: one cudaMemcpyAsync when src is contiguous too.
 */
void CopyToContiguous(const DLTensor& src, const DLTensor& dst, const char* fname, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_INIT_INIT_CUDA_H_
