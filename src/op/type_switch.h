/*!
 * \file type_switch.h
 * \brief The dtype switches of the kernels on both devices: MXFFI_TYPE_SWITCH (every supported
 *  dtype to its element type), MXFFI_INDEX_SWITCH (the index dtypes of sparse arrays) and
 *  MXFFI_REAL_SWITCH (float32 and float64, the dtypes of the sparse kernels that take only
 *  those), each also as a function of a generic lambda. Compiled by g++ and nvcc; needs only
 *  DLPack, so CUDA kernel files use it without the op layer's headers.
 */
#ifndef MXFFI_SRC_OP_TYPE_SWITCH_H_
#define MXFFI_SRC_OP_TYPE_SWITCH_H_

#include <dlpack/dlpack.h>

#include <cstdint>

#include "../ndarray/index_dtype.h"
#include "half.h"

namespace mxffi {
namespace op {

/*! \brief Throws TypeError "<fname>: unsupported dtype <dtype>" (MXFFI_TYPE_SWITCH's default). */
[[noreturn]] void ThrowUnsupportedDType(const char* fname, DLDataType dtype);

/*!
 * \brief Throws TypeError "<fname>: no kernel computes in <dtype>": the op has no kernel for a
 *  dtype its type inference never gives (a kernel's `Valid<T>()` is false).
 */
[[noreturn]] void ThrowNoKernel(const char* fname, DLDataType dtype);

/*!
 * \brief Throws TypeError "<fname>: sparse kernels take float32 or float64, got <dtype>"
 *  (MXFFI_REAL_SWITCH's default).
 */
[[noreturn]] void ThrowNotRealDType(const char* fname, DLDataType dtype);

}  // namespace op
}  // namespace mxffi

#define MXFFI_TYPE_CASE_(Code, Bits, CType, DType, ...) \
  case ((Code) << 8 | (Bits)): {                        \
    using DType = CType;                                \
    { __VA_ARGS__ }                                     \
  } break;

/*!
 * \brief Run the body with DType bound to the element type of dtype (every supported dtype:
 *  bool, int8..uint64, float16 and bfloat16 as half_t and bf16_t, float, double). TypeError
 *  naming fname for any other.
 */
#define MXFFI_TYPE_SWITCH(dtype, fname, DType, ...)                                     \
  do {                                                                                  \
    const DLDataType mxffi_sw_t_ = (dtype);                                             \
    switch (mxffi_sw_t_.lanes == 1 ? (mxffi_sw_t_.code << 8 | mxffi_sw_t_.bits) : -1) { \
      MXFFI_TYPE_CASE_(kDLBool, 8, bool, DType, __VA_ARGS__)                            \
      MXFFI_TYPE_CASE_(kDLInt, 8, int8_t, DType, __VA_ARGS__)                           \
      MXFFI_TYPE_CASE_(kDLInt, 16, int16_t, DType, __VA_ARGS__)                         \
      MXFFI_TYPE_CASE_(kDLInt, 32, int32_t, DType, __VA_ARGS__)                         \
      MXFFI_TYPE_CASE_(kDLInt, 64, int64_t, DType, __VA_ARGS__)                         \
      MXFFI_TYPE_CASE_(kDLUInt, 8, uint8_t, DType, __VA_ARGS__)                         \
      MXFFI_TYPE_CASE_(kDLUInt, 16, uint16_t, DType, __VA_ARGS__)                       \
      MXFFI_TYPE_CASE_(kDLUInt, 32, uint32_t, DType, __VA_ARGS__)                       \
      MXFFI_TYPE_CASE_(kDLUInt, 64, uint64_t, DType, __VA_ARGS__)                       \
      MXFFI_TYPE_CASE_(kDLFloat, 16, ::mxffi::op::half_t, DType, __VA_ARGS__)           \
      MXFFI_TYPE_CASE_(kDLBfloat, 16, ::mxffi::op::bf16_t, DType, __VA_ARGS__)          \
      MXFFI_TYPE_CASE_(kDLFloat, 32, float, DType, __VA_ARGS__)                         \
      MXFFI_TYPE_CASE_(kDLFloat, 64, double, DType, __VA_ARGS__)                        \
      default:                                                                          \
        ::mxffi::op::ThrowUnsupportedDType((fname), mxffi_sw_t_);                       \
    }                                                                                   \
  } while (0)

/*! \brief Run the body with DType bound to float or double, the dtypes sparse kernels take. */
#define MXFFI_REAL_SWITCH(dtype, fname, DType, ...)                                                \
  do {                                                                                             \
    const DLDataType mxffi_rl_t_ = (dtype);                                                        \
    if (mxffi_rl_t_.code == kDLFloat && mxffi_rl_t_.bits == 64 && mxffi_rl_t_.lanes == 1) {        \
      using DType = double;                                                                        \
      { __VA_ARGS__ }                                                                              \
    } else if (mxffi_rl_t_.code == kDLFloat && mxffi_rl_t_.bits == 32 && mxffi_rl_t_.lanes == 1) { \
      using DType = float;                                                                         \
      { __VA_ARGS__ }                                                                              \
    } else {                                                                                       \
      ::mxffi::op::ThrowNotRealDType((fname), mxffi_rl_t_);                                        \
    }                                                                                              \
  } while (0)

namespace mxffi {
namespace op {

/*! \brief f(I{}) with I the C type of the index dtype t: MXFFI_INDEX_SWITCH for a lambda. */
template <typename F>
inline void IndexSwitch(DLDataType t, const char* fname, F&& f) {
  MXFFI_INDEX_SWITCH(t, fname, I, { f(I{}); });
}

/*! \brief f(T{}) with T float or double for the dtype t: MXFFI_REAL_SWITCH for a lambda. */
template <typename F>
inline void RealSwitch(DLDataType t, const char* fname, F&& f) {
  MXFFI_REAL_SWITCH(t, fname, T, { f(T{}); });
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_TYPE_SWITCH_H_
