/*!
 * \file dot_csr_cuda.h
 * \brief The CUDA kernels of dot with a csr operand (dot_csr.cu): csr @ dense, the transpose
 *  of a csr array (for csr.T @ dense and dense @ csr), and the products on a transposed one.
 *  Values are float32 or float64, indices int32 or int64, as on the CPU.
 */
#ifndef MXFFI_SRC_OP_SPARSE_DOT_CSR_CUDA_H_
#define MXFFI_SRC_OP_SPARSE_DOT_CSR_CUDA_H_

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace mxffi {
namespace cuda {

/*! \brief The parts of a csr array on the device. */
struct CsrParts {
  int64_t rows = 0, cols = 0, nnz = 0;
  const void* data = nullptr;     // nnz values of dtype
  const void* indices = nullptr;  // nnz column ids of itype
  const void* indptr = nullptr;   // rows + 1 row starts of itype
  DLDataType dtype{kDLFloat, 32, 1};
  DLDataType itype{kDLInt, 64, 1};
};

/*! \brief Device scratch memory of the given size in bytes, alive until the caller returns. */
using ScratchAlloc = std::function<void*(size_t bytes)>;

/*!
 * \brief out (rows x n, C-contiguous) = a @ dense, dense C-contiguous (cols x n). Each output
 *  element is the sum of its products in the order of the stored values, as on the CPU.
 */
void CsrDense(const CsrParts& a, const void* dense, int64_t n, void* out, void* stream);

/*!
 * \brief The transpose of a as a csr array of cols rows with int64 row starts tptr (cols + 1),
 *  row ids tidx (nnz, a's itype) and values tval (nnz): a stable sort of the stored values by
 *  column, so that each row of the transpose lists its values in increasing row of a, the
 *  order the CPU kernels sum them in. Deterministic.
 */
void CsrTranspose(const CsrParts& a, const ScratchAlloc& scratch, int64_t* tptr, void* tidx,
                  void* tval, void* stream);

/*!
 * \brief The rows of a transpose (tptr, rows + 1 starts) that hold a value, in increasing order,
 *  into kept (room for rows ids); returns their count, read back to the host on stream.
 */
int64_t NonEmptyRows(const int64_t* tptr, int64_t rows, int64_t* kept, const ScratchAlloc& scratch,
                     void* stream);

/*! \brief out[i] = kept[i] as itype (the indices of a row_sparse result). */
void WriteRowIds(const int64_t* kept, int64_t count, void* out, DLDataType itype, void* stream);

/*!
 * \brief out (out_rows x n, C-contiguous) where out row r is the sum over p in [tptr[s],
 *  tptr[s+1]) of tval[p] * dense[tidx[p], :], s = row_map[r] (r when row_map is null): the
 *  product of a transpose (from CsrTranspose) with a C-contiguous dense array of n columns.
 */
void TransposedDense(int64_t out_rows, const int64_t* tptr, const void* tidx, const void* tval,
                     DLDataType dtype, DLDataType itype, const int64_t* row_map, const void* dense,
                     int64_t n, void* out, void* stream);

/*!
 * \brief out (m x n, C-contiguous) = dense (m x k, C-contiguous) @ a, a (k x n) given as its
 *  transpose (tptr, n + 1 starts; tidx, tval): out[i, c] sums dense[i, tidx[p]] * tval[p] over
 *  the values p of column c of a in increasing row, the CPU kernel's order.
 */
void DenseTransposed(int64_t m, int64_t k, int64_t n, const void* dense, const int64_t* tptr,
                     const void* tidx, const void* tval, DLDataType dtype, DLDataType itype,
                     void* out, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_DOT_CSR_CUDA_H_
