/*!
 * \file csr_select_cuda.h
 * \brief Launchers of the CUDA kernels of csr take, concat and where (csr_select.cu). Every
 *  launcher runs asynchronously on stream (a cudaStream_t) except those documented to return a
 *  value the host needs. Parts and dense arrays are C-contiguous device arrays.
 */
#ifndef MXFFI_SRC_OP_SPARSE_CSR_SELECT_CUDA_H_
#define MXFFI_SRC_OP_SPARSE_CSR_SELECT_CUDA_H_

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>

#include "csr_select.h"

namespace mxffi {
namespace cuda {

/*! \return the device scratch bytes of CsrTakeRows for k indices. */
size_t CsrTakeScratchBytes(int64_t k);

/*!
 * \brief rows[p] = TakeRow(idx[p], m, mode) and offsets (k + 1, int64) the exclusive sums of
 *  the chosen rows' lengths in indptr. Waits for stream.
 * \param nnz receives offsets[k], the result's number of stored values.
 * \return the first position p whose index picks no row, or -1.
 */
int64_t CsrTakeRows(const DLTensor& indptr, const int64_t* idx, int64_t k, int64_t m, int mode,
                    int64_t* rows, int64_t* offsets, void* scratch, int64_t* nnz, void* stream);

/*!
 * \brief The chosen rows' entries copied: out_indices and out_data from offsets[p], out_indptr
 *  (k + 1, the index dtype) = offsets.
 */
void CsrTakeGather(const DLTensor& data, const DLTensor& indices, const DLTensor& indptr,
                   const int64_t* rows, const int64_t* offsets, int64_t k, const DLTensor& out_data,
                   const DLTensor& out_indices, const DLTensor& out_indptr, void* stream);

/*! \brief out[r] = indptr[r + 1] + add for r in [0, rows), out an index array's element. */
void CsrShiftIndptr(const DLTensor& indptr, int64_t rows, int64_t add, void* out, void* stream);

/*!
 * \brief out[i, j] = x[i, j] where the csr condition stores a true value at (i, j) (bits tell
 *  true from false), out (rows, cols) already holding y; elements of item bytes.
 */
void CsrWhere(const DLTensor& cond_data, const DLTensor& cond_indices, const DLTensor& cond_indptr,
              int64_t rows, int64_t cols, op::CondBits bits, const void* x, void* out, int64_t item,
              void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_CSR_SELECT_CUDA_H_
