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

#include "../../ndarray/index_dtype.h"
#include "../dtype.h"

namespace mxffi {
namespace op {

// The index dtypes and their switch (MXFFI_INDEX_SWITCH) are the tensor layer's rule.
using ::mxffi::IsIndexDType;
using ::mxffi::kIndex32;
using ::mxffi::kIndex64;

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
