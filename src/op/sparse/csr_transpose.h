/*!
 * \file csr_transpose.h
 * \brief The csr transpose (the csr_transpose op, csr_transpose.cc) and csr @ csr (spgemm.cc),
 *  as the dot op's kernels and the CUDA registration call them.
 */
#ifndef MXFFI_SRC_OP_SPARSE_CSR_TRANSPOSE_H_
#define MXFFI_SRC_OP_SPARSE_CSR_TRANSPOSE_H_

#include <mxffi/ndarray/ndarray.h>

namespace mxffi {
namespace op {

/*! \return the index dtype of csr's transpose: csr's, int64 when its row ids exceed int32. */
DLDataType CsrTransposeIndexDType(const NDArray& csr);

/*!
 * \brief The transpose of a csr array on the CPU: a new canonical csr array of shape (cols,
 *  rows) with the index dtype CsrTransposeIndexDType names. fname names the caller in errors.
 */
NDArray CsrTransposeCPU(const NDArray& csr, const char* fname);

/*!
 * \brief The index dtype of a @ b for csr a and b with nnz stored values: the wider of their
 *  index dtypes, int64 when nnz or b's column count does not fit int32.
 */
DLDataType SpGemmIndexDType(const NDArray& a, const NDArray& b, int64_t nnz);

/*!
 * \brief out = a @ b on the CPU for csr a (m x k) and b (k x n) of one value dtype (float32 or
 *  float64), any mix of int32 and int64 indices: out (a csr array from EmptySparse) gets
 *  canonical parts, sums that are exactly zero dropped (as scipy drops them).
 */
void CsrCsrCPU(const NDArray& a, const NDArray& b, const NDArray& out);

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_CSR_TRANSPOSE_H_
