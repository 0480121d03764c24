/*!
 * \file scan_cuda.h
 * \brief The launcher of the CUDA kernel of the cumulative ops (scan.cu), for host-compiled
 *  callers (scan_gpu.cc).
 */
#ifndef MXFFI_SRC_OP_SCAN_SCAN_CUDA_H_
#define MXFFI_SRC_OP_SCAN_SCAN_CUDA_H_

#include <mxffi/ndarray/dlpack_compat.h>

#include <cstdint>

namespace mxffi {
namespace cuda {

/*!
 * \brief out (C-contiguous device array, the result dtype) = the running sum (kind 0) or
 *  product (kind 1) of x (C-contiguous, a dtype scan::ScanPairSupported pairs with out's) along
 *  lines of len elements, inner apart, in outer blocks; on stream. One thread per line.
 */
void Scan(int kind, const DLTensor& x, const DLTensor& out, int64_t outer, int64_t len,
          int64_t inner, bool include_initial, const char* fname, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SCAN_SCAN_CUDA_H_
