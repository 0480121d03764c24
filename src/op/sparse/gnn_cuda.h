/*!
 * \file gnn_cuda.h
 * \brief Launchers of the CUDA kernels of spmm, sddmm and edge_softmax (gnn.cu), each giving the
 *  CPU kernel's result (gnn_op.h). Parts and dense arrays are C-contiguous device arrays;
 *  values float32 or float64, indices int32 or int64. Every launcher runs asynchronously on
 *  stream (a cudaStream_t) except GnnFirstBadRow, which reads its answer back.
 */
#ifndef MXFFI_SRC_OP_SPARSE_GNN_CUDA_H_
#define MXFFI_SRC_OP_SPARSE_GNN_CUDA_H_

#include <dlpack/dlpack.h>

#include <cstdint>

namespace mxffi {
namespace cuda {

/*! \brief The parts of a csr adjacency matrix on the device. */
struct GnnCsr {
  int64_t rows = 0, cols = 0, nnz = 0;
  const void* data = nullptr;     // nnz values of dtype
  const void* indices = nullptr;  // nnz column ids of itype
  const void* indptr = nullptr;   // rows + 1 row starts of itype
  DLDataType dtype{kDLFloat, 32, 1};
  DLDataType itype{kDLInt, 64, 1};
};

/*!
 * \return -1 when a's parts are canonical (indptr from 0 to nnz, non-decreasing; each row's
 *  columns strictly increasing in [0, cols)), else the first row breaking that, or rows when
 *  only indptr[0] or indptr[rows] is wrong. Waits for stream.
 * \param scratch 8 bytes of device memory.
 */
int64_t GnnFirstBadRow(const GnnCsr& a, void* scratch, void* stream);

/*!
 * \brief out (rows, n) = the reduction (0 sum, 1 mean, 2 max, 3 min) over each row's stored
 *  entries p of data[p] * x[indices[p], :]; arg (rows, n, int64) for max and min (null
 *  otherwise): the position chosen, the first of equal values, a NaN winning; -1 and 0 for an
 *  empty row. x is (cols, n) of a's dtype.
 */
void GnnSpmm(const GnnCsr& a, int reduce, const void* x, int64_t n, void* out, int64_t* arg,
             void* stream);

/*! \brief out[p] = data[p] * dot(A[i, :], B[indices[p], :]) for each stored p of row i. */
void GnnSddmm(const GnnCsr& a, const void* A, const void* B, int64_t n, void* out, void* stream);

/*!
 * \brief out (nnz, heads) = the softmax of scores (nnz, heads, of dtype) over each row's stored
 *  entries, per head, after subtracting the row's maximum.
 */
void GnnEdgeSoftmax(const GnnCsr& a, DLDataType dtype, const void* scores, int64_t heads, void* out,
                    void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_GNN_CUDA_H_
