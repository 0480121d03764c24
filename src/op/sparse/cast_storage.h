/*!
 * \file cast_storage.h
 * \brief Conversion between the storage types (default, row_sparse, csr, coo), used by the
 *  cast_storage op and by Invoke's fallback.
 */
#ifndef MXFFI_SRC_OP_SPARSE_CAST_STORAGE_H_
#define MXFFI_SRC_OP_SPARSE_CAST_STORAGE_H_

#include <mxffi/ndarray/ndarray.h>
#include <mxffi/op/param.h>

namespace mxffi {
namespace op {

/*! \brief cast_storage's parameters. */
struct CastStorageParam : public dmlc::Parameter<CastStorageParam> {
  int stype;
  DTypeParam idx_dtype;
  DMLC_DECLARE_PARAMETER(CastStorageParam) {
    DMLC_DECLARE_FIELD(stype)
        .add_enum("default", static_cast<int>(StorageType::kDefault))
        .add_enum("row_sparse", static_cast<int>(StorageType::kRowSparse))
        .add_enum("csr", static_cast<int>(StorageType::kCSR))
        .add_enum("coo", static_cast<int>(StorageType::kCOO))
        .describe("Storage type of the output.");
    DMLC_DECLARE_FIELD(idx_dtype)
        .set_default(DTypeParam())
        .describe(
            "Index dtype (int32 or int64) of a sparse output made from a dense input; "
            "None means int64.");
  }
};

/*!
 * \brief src stored as stype: a new array, with new parts when src already is sparse of that
 *  stype; a C-contiguous dense src asked to be dense comes back as it is. An array on a CUDA
 *  device is converted there, by the cast_storage op's GPU kernel.
 * \param idx_dtype index dtype of a sparse result made from a dense array; a sparse source
 *  keeps its own.
 * \param fname named in errors.
 */
MXFFI_DLL NDArray CastStorage(const NDArray& src, StorageType stype, const char* fname,
                              DLDataType idx_dtype = DLDataType{kDLInt, 64, 1});

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_CAST_STORAGE_H_
