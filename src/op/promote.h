/*!
 * \file promote.h
 * \brief numpy 2's type promotion (NEP 50) for the supported dtypes, bfloat16 as ml_dtypes
 *  promotes it.
 */
#ifndef MXFFI_SRC_OP_PROMOTE_H_
#define MXFFI_SRC_OP_PROMOTE_H_

#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>

#include <cstdint>

namespace mxffi {
namespace op {

/*! \brief Index of a supported dtype in the promotion table, or -1. */
inline int DTypeIndex(DLDataType t) {
  if (t.lanes != 1) return -1;
  switch (t.code << 8 | t.bits) {
    case kDLBool << 8 | 8:
      return 0;
    case kDLInt << 8 | 8:
      return 1;
    case kDLInt << 8 | 16:
      return 2;
    case kDLInt << 8 | 32:
      return 3;
    case kDLInt << 8 | 64:
      return 4;
    case kDLUInt << 8 | 8:
      return 5;
    case kDLUInt << 8 | 16:
      return 6;
    case kDLUInt << 8 | 32:
      return 7;
    case kDLUInt << 8 | 64:
      return 8;
    case kDLFloat << 8 | 16:
      return 9;
    case kDLBfloat << 8 | 16:
      return 10;
    case kDLFloat << 8 | 32:
      return 11;
    case kDLFloat << 8 | 64:
      return 12;
    default:
      return -1;
  }
}

/*! \brief The dtype at a promotion-table index. */
inline DLDataType DTypeAt(int i) {
  static constexpr DLDataType kTypes[13] = {
      {kDLBool, 8, 1},    {kDLInt, 8, 1},    {kDLInt, 16, 1},  {kDLInt, 32, 1},  {kDLInt, 64, 1},
      {kDLUInt, 8, 1},    {kDLUInt, 16, 1},  {kDLUInt, 32, 1}, {kDLUInt, 64, 1}, {kDLFloat, 16, 1},
      {kDLBfloat, 16, 1}, {kDLFloat, 32, 1}, {kDLFloat, 64, 1}};
  return kTypes[i];
}

/*!
 * \brief numpy.result_type of two array dtypes.
 * \throws TypeError naming fname for a dtype outside the table, or a pair with no common dtype
 *  (bfloat16 with int16..uint64 or float16, as ml_dtypes has it; numpy's DTypePromotionError).
 */
inline DLDataType PromoteTypes(DLDataType a, DLDataType b, const char* fname) {
  // Generated from numpy 2 with ml_dtypes: kTable[i][j] = result_type(dtype i, dtype j);
  // -1 where numpy finds no common dtype.
  static constexpr int8_t kTable[13][13] = {
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
      {1, 1, 2, 3, 4, 2, 3, 4, 12, 9, 10, 11, 12},
      {2, 2, 2, 3, 4, 2, 3, 4, 12, 11, -1, 11, 12},
      {3, 3, 3, 3, 4, 3, 3, 4, 12, 12, -1, 12, 12},
      {4, 4, 4, 4, 4, 4, 4, 4, 12, 12, -1, 12, 12},
      {5, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
      {6, 3, 3, 3, 4, 6, 6, 7, 8, 11, -1, 11, 12},
      {7, 4, 4, 4, 4, 7, 7, 7, 8, 12, -1, 12, 12},
      {8, 12, 12, 12, 12, 8, 8, 8, 8, 12, -1, 12, 12},
      {9, 9, 11, 12, 12, 9, 11, 12, 12, 9, -1, 11, 12},
      {10, 10, -1, -1, -1, 10, -1, -1, -1, -1, 10, 11, 12},
      {11, 11, 11, 12, 12, 11, 11, 12, 12, 11, 11, 11, 12},
      {12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12},
  };
  int i = DTypeIndex(a), j = DTypeIndex(b);
  MXFFI_CHECK(i >= 0, TypeError) << fname << ": unsupported dtype " << DataTypeToString(a);
  MXFFI_CHECK(j >= 0, TypeError) << fname << ": unsupported dtype " << DataTypeToString(b);
  int r = kTable[i][j];
  MXFFI_CHECK(r >= 0, TypeError) << fname << ": the dtypes " << DataTypeToString(a) << " and "
                                 << DataTypeToString(b) << " have no common dtype";
  return DTypeAt(r);
}

/*! \brief The kind of a Python scalar operand, weakly typed under NEP 50. */
enum class ScalarKind { kBool, kInt, kFloat };

/*!
 * \brief NEP 50: the dtype of array_dtype op python_scalar. A Python bool takes the array's
 *  dtype; an int takes it unless it is bool (then int64); a float takes it when it is a float,
 *  else float64.
 */
inline DLDataType PromoteWithScalar(DLDataType array_dtype, ScalarKind kind) {
  bool is_bool = array_dtype.code == kDLBool;
  bool is_float = array_dtype.code == kDLFloat || array_dtype.code == kDLBfloat;
  switch (kind) {
    case ScalarKind::kBool:
      return array_dtype;
    case ScalarKind::kInt:
      return is_bool ? DLDataType{kDLInt, 64, 1} : array_dtype;
    case ScalarKind::kFloat:
      return is_float ? array_dtype : DLDataType{kDLFloat, 64, 1};
  }
  return array_dtype;
}

/*! \return whether dtype is an integer (signed or unsigned) type. */
inline bool IsIntegral(DLDataType t) { return t.code == kDLInt || t.code == kDLUInt; }
/*! \return whether dtype is a floating-point type (bfloat16 included). */
inline bool IsFloating(DLDataType t) { return t.code == kDLFloat || t.code == kDLBfloat; }

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_PROMOTE_H_
