/*!
 * \file dtype.h
 * \brief What the CPU kernels read tensors with: element pointers and counts, dtype equality;
 *  and, from the headers CUDA kernels share (half.h, cast.h, type_switch.h), the element types,
 *  their conversions and MXFFI_TYPE_SWITCH.
 */
#ifndef MXFFI_SRC_OP_DTYPE_H_
#define MXFFI_SRC_OP_DTYPE_H_

#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>

#include <cstdint>

#include "cast.h"
#include "half.h"
#include "type_switch.h"

namespace mxffi {
namespace op {

/*! \return the first element of t as T* (data plus byte_offset). */
template <typename T>
inline T* DataPtr(const DLTensor& t) {
  return reinterpret_cast<T*>(static_cast<char*>(t.data) + t.byte_offset);
}

/*! \return the number of elements of t. */
inline int64_t NumElements(const DLTensor& t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

/*! \brief Whether two dtypes are the same (lanes included). */
inline bool SameDType(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_DTYPE_H_
