/*!
 * \file sparse_util.h
 * \brief Helpers shared by the sparse kernels: index dtypes and part allocation (the index and
 *  float dtype switches are type_switch.h's).
 */
#ifndef MXFFI_SRC_OP_SPARSE_SPARSE_UTIL_H_
#define MXFFI_SRC_OP_SPARSE_SPARSE_UTIL_H_

#include <mxffi/ndarray/ndarray.h>

#include <cstdint>
#include <vector>

#include "../dtype.h"

namespace mxffi {
namespace op {

/*! \brief int64, the index dtype of sparse arrays made from dense ones unless asked otherwise. */
constexpr DLDataType kIndex64{kDLInt, 64, 1};
/*! \brief int32, scipy's usual index dtype. */
constexpr DLDataType kIndex32{kDLInt, 32, 1};

/*! \return whether t is an index dtype sparse arrays accept (int32 or int64). */
inline bool IsIndexDType(DLDataType t) {
  return t.code == kDLInt && t.lanes == 1 && (t.bits == 32 || t.bits == 64);
}

/*! \return a new C-contiguous CPU array. */
inline NDArray NewArray(std::initializer_list<int64_t> shape, DLDataType dtype,
                        DLDevice device = DLDevice{kDLCPU, 0}) {
  std::vector<int64_t> s(shape);
  return NDArray::Empty(s.data(), static_cast<int32_t>(s.size()), dtype, device);
}

/*! \return the elements of a C-contiguous part as T*. */
template <typename T>
inline T* Ptr(const NDArray& a) {
  return static_cast<T*>(a.data());
}

/*! \return the number of values per row of a row_sparse array (the product of shape[1:]). */
inline int64_t RowWidth(const DLTensor& logical) {
  int64_t w = 1;
  for (int i = 1; i < logical.ndim; ++i) w *= logical.shape[i];
  return w;
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_SPARSE_UTIL_H_
