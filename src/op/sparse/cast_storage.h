/*!
 * \file cast_storage.h
 * \brief Conversion between the storage types (default, row_sparse, csr), used by the
 *  cast_storage op and by Invoke's fallback.
 */
#ifndef MXFFI_SRC_OP_SPARSE_CAST_STORAGE_H_
#define MXFFI_SRC_OP_SPARSE_CAST_STORAGE_H_

#include <mxffi/ndarray/ndarray.h>

namespace mxffi {
namespace op {

/*!
 * \brief src stored as stype: a new array, with new parts when src already is sparse of that
 *  stype; a C-contiguous dense src asked to be dense comes back as it is.
 * \param idx_dtype index dtype of a sparse result made from a dense array; a sparse source
 *  keeps its own.
 * \param fname named in errors.
 */
MXFFI_DLL NDArray CastStorage(const NDArray& src, StorageType stype, const char* fname,
                              DLDataType idx_dtype = DLDataType{kDLInt, 64, 1});

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_CAST_STORAGE_H_
