/*!
 * \file sparse_dot.h
 * \brief The matrix products and transpose of sparse arrays that np.matmul, np.transpose and
 *  their kin hand sparse operands to (sparse_dot_api.cc).
 */
#ifndef MXFFI_SRC_API_SPARSE_DOT_H_
#define MXFFI_SRC_API_SPARSE_DOT_H_

#include <mxffi/ndarray/ndarray.h>

namespace mxffi {
namespace api {

/*!
 * \brief a @ b where a or b is sparse, as scipy's sparse arrays compute it: csr @ csr is csr,
 *  csr @ dense and dense @ csr are dense (a 1-D dense operand is a vector, and the result
 *  1-D), row_sparse @ csr is row_sparse. Values promote as numpy's (float32 with float64 is
 *  float64). Returns an undefined NDArray for operands it does not take (the caller's dense
 *  path then runs). A shape mismatch is a ValueError naming fname and both shapes.
 */
NDArray SparseMatmul(const NDArray& a, const NDArray& b, const char* fname);

/*! \brief A csr array's transpose: a new canonical csr array (the csr_transpose op). */
NDArray CsrTransposeOf(const NDArray& csr);

}  // namespace api
}  // namespace mxffi

#endif  // MXFFI_SRC_API_SPARSE_DOT_H_
