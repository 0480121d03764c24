/*!
 * \file mxffi/op/storage.h
 * \brief Storage types and dispatch modes of the operator layer.
 */
#ifndef MXFFI_OP_STORAGE_H_
#define MXFFI_OP_STORAGE_H_

#include <mxffi/c_api.h>

#include <cstdint>

namespace mxffi {

/*!
 * \brief How an NDArray stores its elements; spelled as MXNet's users know them. The values are
 *  the C ABI's MXFFIStorageType (frozen). An array may carry a value this build does not know
 *  (a storage type added in a later minor version): it is sparse (is_sparse()), and code meeting
 *  it refuses what it cannot do, never reading it as dense (IsKnownStorageType).
 */
enum class StorageType : int32_t {
  kUndefined = -1,
  /*! \brief "default": every element, C-contiguous or strided. */
  kDefault = kMXFFIStorageDefault,
  /*! \brief "row_sparse": data (k rows) and indices (k sorted row ids). */
  kRowSparse = kMXFFIStorageRowSparse,
  /*! \brief "csr": data, indices (column ids) and indptr. */
  kCSR = kMXFFIStorageCSR,
  /*!
   * \brief "coo": data, row and col (ABI 1.7); unsorted and repeated pairs allowed. Only
   *  cast_storage reads it; Invoke converts coo inputs of every other op to csr first.
   */
  kCOO = kMXFFIStorageCOO,
};

/*! \return whether stype is one this build can read: default, row_sparse, csr or coo. */
constexpr bool IsKnownStorageType(StorageType stype) {
  return stype == StorageType::kDefault || stype == StorageType::kRowSparse ||
         stype == StorageType::kCSR || stype == StorageType::kCOO;
}

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

/*!
 * \return "default", "row_sparse", "csr", "coo", "undefined" (kUndefined, before inference) or
 *  "unknown" (a value this build does not know; errors name the value as well).
 */
inline const char* StorageTypeName(StorageType stype) {
  switch (stype) {
    case StorageType::kDefault:
      return "default";
    case StorageType::kRowSparse:
      return "row_sparse";
    case StorageType::kCSR:
      return "csr";
    case StorageType::kCOO:
      return "coo";
    case StorageType::kUndefined:
      return "undefined";
    default:
      return "unknown";
  }
}

}  // namespace mxffi

#endif  // MXFFI_OP_STORAGE_H_
