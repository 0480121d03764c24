/*!
 * \file sort_cuda.h
 * \brief Launchers of the CUDA kernels of the sort ops (sort.cu): plain functions of DLTensors,
 *  device pointers and plain values, for the host-compiled GPU registration (sort_gpu.cc).
 *  Every launch runs on stream.
 */
#ifndef MXFFI_SRC_OP_SORT_SORT_CUDA_H_
#define MXFFI_SRC_OP_SORT_SORT_CUDA_H_

#include <mxffi/ndarray/dlpack_compat.h>

#include <cstdint>

namespace mxffi {
namespace cuda {

/*!
 * \brief Sort the outer * inner lines of n elements (inner apart) of the C-contiguous x
 *  stably, NaNs last: out gets the sorted values, or with arg their int64 positions. scratch
 *  is device memory for 2 * outer * inner * n int64.
 */
void SortLines(const DLTensor& x, const DLTensor& out, int64_t* scratch, int64_t outer, int64_t n,
               int64_t inner, bool descending, bool arg, const char* fname, void* stream);

/*! \brief out (int64, v's shape) = each element of v's insertion point into the 1-d a. */
void SearchSorted(const DLTensor& a, const DLTensor& v, const DLTensor& out, bool right,
                  const char* fname, void* stream);

/*!
 * \brief *count (a device int64, set here) = the number of distinct values of the 1-d x read in
 *  perm's order, or -1 when perm holds a position outside x.
 */
void UniqueCount(const DLTensor& x, const int64_t* perm, int64_t* count, bool equal_nan,
                 const char* fname, void* stream);

/*!
 * \brief The unique pass over x in perm's order (a valid permutation whose group count is
 *  out[0]'s length): out[0] values, out[1] first positions, out[2] each element's group,
 *  out[3] group sizes.
 */
void Unique(const DLTensor& x, const int64_t* perm, const DLTensor* out, bool equal_nan,
            const char* fname, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SORT_SORT_CUDA_H_
