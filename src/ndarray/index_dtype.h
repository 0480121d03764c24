/*!
 * \file index_dtype.h
 * \brief The index dtypes of sparse arrays (int32 and int64) and the switch over them: the
 *  tensor layer's rule, which the sparse kernels on both devices share (it needs only DLPack, so
 *  nvcc compiles it too).
 */
#ifndef MXFFI_SRC_NDARRAY_INDEX_DTYPE_H_
#define MXFFI_SRC_NDARRAY_INDEX_DTYPE_H_

#include <dlpack/dlpack.h>

#include <cstdint>

namespace mxffi {

/*! \brief int64, the index dtype of sparse arrays made from dense ones unless asked otherwise. */
constexpr DLDataType kIndex64{kDLInt, 64, 1};
/*! \brief int32, scipy's usual index dtype. */
constexpr DLDataType kIndex32{kDLInt, 32, 1};

/*!
 * \brief Throws TypeError "<fname>: index arrays must be int32 or int64, got <dtype>"
 *  (MXFFI_INDEX_SWITCH's default).
 */
[[noreturn]] void ThrowBadIndexDType(const char* fname, DLDataType dtype);

/*! \return whether t is an index dtype sparse arrays accept (int32 or int64). */
inline bool IsIndexDType(DLDataType t) {
  return t.code == kDLInt && t.lanes == 1 && (t.bits == 32 || t.bits == 64);
}

}  // namespace mxffi

/*! \brief Run the body with IType bound to the C type of an index dtype (int32 or int64). */
#define MXFFI_INDEX_SWITCH(dtype, fname, IType, ...)                                             \
  do {                                                                                           \
    const DLDataType mxffi_ix_t_ = (dtype);                                                      \
    if (mxffi_ix_t_.code == kDLInt && mxffi_ix_t_.bits == 32 && mxffi_ix_t_.lanes == 1) {        \
      using IType = int32_t;                                                                     \
      { __VA_ARGS__ }                                                                            \
    } else if (mxffi_ix_t_.code == kDLInt && mxffi_ix_t_.bits == 64 && mxffi_ix_t_.lanes == 1) { \
      using IType = int64_t;                                                                     \
      { __VA_ARGS__ }                                                                            \
    } else {                                                                                     \
      ::mxffi::ThrowBadIndexDType((fname), mxffi_ix_t_);                                         \
    }                                                                                            \
  } while (0)

#endif  // MXFFI_SRC_NDARRAY_INDEX_DTYPE_H_
