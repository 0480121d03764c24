/*!
 * \file sparse_select.h
 * \brief The csr take and concat the np.* functions share with sparse.take
 *  (sparse_select_api.cc): the typed calls of the _sparse_take_csr and _sparse_concat_csr ops.
 */
#ifndef MXFFI_SRC_API_SPARSE_SELECT_H_
#define MXFFI_SRC_API_SPARSE_SELECT_H_

#include <mxffi/container/array.h>
#include <mxffi/ndarray/ndarray.h>

namespace mxffi {
namespace api {

/*!
 * \return the rows of csr a at indices (an integer array on a's device, 1-D), a csr array;
 *  mode one of op::TakeMode (raise: numpy's take and its IndexError).
 */
NDArray CsrTake(const NDArray& a, const NDArray& indices, int mode, const char* fname);

/*!
 * \return csr arrays of one column count stacked along axis 0, a csr array of dtype (each
 *  input's values converted to it), int64 indices unless all inputs have int32 ones.
 */
NDArray CsrConcat(const Array<NDArray>& arrays, DLDataType dtype, const char* fname);

}  // namespace api
}  // namespace mxffi

#endif  // MXFFI_SRC_API_SPARSE_SELECT_H_
