/*!
 * \file coo_cuda.h
 * \brief Launchers of the CUDA conversions between coo and csr behind the cast_storage op's GPU
 *  kernel (cast_storage_gpu.cc), which reaches every other storage type through csr.
 *
 * coo to csr: two stable radix sorts of the entries' positions (by column, then by row) give
 * the row-major order the CPU kernel's counting sort gives, repeated (row, col) pairs keeping
 * their stored order; a flag per entry marks the first of each pair, a prefix sum numbers the
 * distinct pairs, and one thread per distinct pair sums its run. The result is the CPU's, part
 * for part. Parts are 1-D contiguous device arrays; everything runs on stream except
 * COOCountDistinct, which copies the count back and waits for that stream only. At most
 * 2**31 - 1 entries (CUB's sorts count them as int).
 */
#ifndef MXFFI_SRC_OP_SPARSE_COO_CUDA_H_
#define MXFFI_SRC_OP_SPARSE_COO_CUDA_H_

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>

namespace mxffi {
namespace cuda {

/*! \return the bytes of device scratch COOCountDistinct and COOWriteCSR need for these sizes. */
size_t COOWorkspaceBytes(int64_t nnz, int64_t rows);

/*!
 * \brief Sort a coo matrix's entries row-major into the workspace and count the distinct
 *  (row, col) pairs, which it returns (copied back on stream).
 * \param row, col the ids (int32 or int64, one dtype), nnz long.
 * \param rows the number of rows.
 */
int64_t COOCountDistinct(const DLTensor& row, const DLTensor& col, int64_t rows, void* workspace,
                         void* stream);

/*!
 * \brief After COOCountDistinct on the same workspace: the csr parts, each distinct pair's
 *  values summed in stored order into out_data, its column into out_indices (the distinct
 *  count long) and the row starts into out_indptr (rows + 1, the index dtype of col).
 */
void COOWriteCSR(const DLTensor& data, const DLTensor& col, int64_t rows, const void* workspace,
                 const DLTensor& out_data, const DLTensor& out_indices, const DLTensor& out_indptr,
                 void* stream);

/*! \brief The row id of every stored value of a csr matrix (its indptr's dtype) into row_out. */
void CSRRowIds(const DLTensor& indptr, const DLTensor& row_out, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_COO_CUDA_H_
