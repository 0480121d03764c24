/*!
 * \file mxffi/op/storage.h
 * \brief Storage types and dispatch modes of the operator layer.
 */
#ifndef MXFFI_OP_STORAGE_H_
#define MXFFI_OP_STORAGE_H_

#include <cstdint>

namespace mxffi {

/*! \brief How an NDArray stores its elements; spelled as MXNet's users know them. */
enum class StorageType : int32_t {
  kUndefined = -1,
  /*! \brief "default": every element, C-contiguous or strided. */
  kDefault = 0,
  /*! \brief "row_sparse": data (k rows) and indices (k sorted row ids). */
  kRowSparse = 1,
  /*! \brief "csr": data, indices (column ids) and indptr. */
  kCSR = 2,
};

/*! \brief Which kernel Invoke runs. */
enum class DispatchMode : int32_t {
  kUndefined = -1,
  /*! \brief The dense kernel (FCompute) on dense arrays. */
  kFCompute = 0,
  /*! \brief The storage-aware kernel (FComputeEx) on the arrays as they are. */
  kFComputeEx = 1,
  /*! \brief Sparse inputs densified, the dense kernel, outputs cast back; warns once. */
  kFComputeFallback = 2,
};

/*! \return "default", "row_sparse", "csr" or "undefined". */
inline const char* StorageTypeName(StorageType stype) {
  switch (stype) {
    case StorageType::kDefault:
      return "default";
    case StorageType::kRowSparse:
      return "row_sparse";
    case StorageType::kCSR:
      return "csr";
    default:
      return "undefined";
  }
}

}  // namespace mxffi

#endif  // MXFFI_OP_STORAGE_H_
