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
#include <string_view>
#include <utility>

namespace mxffi {
namespace op {

/*!
 * \brief Index of a dtype in the type-rule tables (promotion, casting): the 13 dtypes the ops
 *  compute, then complex64 and complex128; -1 for any other.
 */
inline int DTypeRuleIndex(DLDataType t) {
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
    case kDLComplex << 8 | 64:
      return 13;
    case kDLComplex << 8 | 128:
      return 14;
    default:
      return -1;
  }
}

/*! \brief The number of dtypes in the type-rule tables. */
constexpr int kNumRuleDTypes = 15;

/*! \brief Index of a dtype the ops compute (all but the complex types), or -1. */
inline int DTypeIndex(DLDataType t) {
  int i = DTypeRuleIndex(t);
  return i < 13 ? i : -1;
}

/*! \brief The dtype at a type-rule index. */
inline DLDataType DTypeAt(int i) {
  static constexpr DLDataType kTypes[kNumRuleDTypes] = {
      {kDLBool, 8, 1},   {kDLInt, 8, 1},      {kDLInt, 16, 1},     {kDLInt, 32, 1},
      {kDLInt, 64, 1},   {kDLUInt, 8, 1},     {kDLUInt, 16, 1},    {kDLUInt, 32, 1},
      {kDLUInt, 64, 1},  {kDLFloat, 16, 1},   {kDLBfloat, 16, 1},  {kDLFloat, 32, 1},
      {kDLFloat, 64, 1}, {kDLComplex, 64, 1}, {kDLComplex, 128, 1}};
  return kTypes[i];
}

/*!
 * \brief numpy.result_type of two dtypes by type-rule index, or -1 where numpy finds no common
 *  dtype (bfloat16 with int16..uint64 or float16, as ml_dtypes has it; numpy's
 *  DTypePromotionError).
 */
inline int PromoteIndex(int i, int j) {
  // Generated from numpy 2 with ml_dtypes: kTable[i][j] = result_type(dtype i, dtype j).
  static constexpr int8_t kTable[kNumRuleDTypes][kNumRuleDTypes] = {
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14},
      {1, 1, 2, 3, 4, 2, 3, 4, 12, 9, 10, 11, 12, 13, 14},
      {2, 2, 2, 3, 4, 2, 3, 4, 12, 11, -1, 11, 12, 13, 14},
      {3, 3, 3, 3, 4, 3, 3, 4, 12, 12, -1, 12, 12, 14, 14},
      {4, 4, 4, 4, 4, 4, 4, 4, 12, 12, -1, 12, 12, 14, 14},
      {5, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14},
      {6, 3, 3, 3, 4, 6, 6, 7, 8, 11, -1, 11, 12, 13, 14},
      {7, 4, 4, 4, 4, 7, 7, 7, 8, 12, -1, 12, 12, 14, 14},
      {8, 12, 12, 12, 12, 8, 8, 8, 8, 12, -1, 12, 12, 14, 14},
      {9, 9, 11, 12, 12, 9, 11, 12, 12, 9, -1, 11, 12, 13, 14},
      {10, 10, -1, -1, -1, 10, -1, -1, -1, -1, 10, 11, 12, 13, 14},
      {11, 11, 11, 12, 12, 11, 11, 12, 12, 11, 11, 11, 12, 13, 14},
      {12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 14, 14},
      {13, 13, 13, 14, 14, 13, 13, 14, 14, 13, 13, 13, 14, 13, 14},
      {14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14, 14},
  };
  return kTable[i][j];
}

/*!
 * \brief numpy.result_type of two array dtypes the ops compute.
 * \throws TypeError naming fname for a dtype outside them, or a pair with no common dtype.
 */
inline DLDataType PromoteTypes(DLDataType a, DLDataType b, const char* fname) {
  int i = DTypeIndex(a), j = DTypeIndex(b);
  MXFFI_CHECK(i >= 0, TypeError) << fname << ": unsupported dtype " << DataTypeToString(a);
  MXFFI_CHECK(j >= 0, TypeError) << fname << ": unsupported dtype " << DataTypeToString(b);
  int r = PromoteIndex(i, j);
  MXFFI_CHECK(r >= 0, TypeError) << fname << ": the dtypes " << DataTypeToString(a) << " and "
                                 << DataTypeToString(b) << " have no common dtype";
  return DTypeAt(r);
}

/*! \brief numpy's casting rules, from the strictest. */
enum class Casting { kNo, kEquiv, kSafe, kSameKind, kUnsafe };

/*! \return whether text names a casting rule ("no", "equiv", "safe", "same_kind", "unsafe"). */
inline bool ParseCasting(std::string_view text, Casting* out) {
  static constexpr std::pair<std::string_view, Casting> kNames[] = {
      {"no", Casting::kNo},
      {"equiv", Casting::kEquiv},
      {"safe", Casting::kSafe},
      {"same_kind", Casting::kSameKind},
      {"unsafe", Casting::kUnsafe}};
  for (const auto& [name, value] : kNames) {
    if (text == name) {
      *out = value;
      return true;
    }
  }
  return false;
}

/*!
 * \brief numpy.can_cast(dtype i, dtype j, casting) by type-rule index (native byte order, so
 *  "no" and "equiv" allow the same dtype only).
 */
inline bool CanCastIndex(int i, int j, Casting casting) {
  // Generated from numpy 2 with ml_dtypes: bit j of kSafe[i] (kSameKind[i]) is
  // can_cast(dtype i, dtype j, "safe" ("same_kind")). ml_dtypes registers the casts between
  // bfloat16 and the complex types as same_kind, and none from bfloat16 to float16.
  static constexpr uint16_t kSafe[kNumRuleDTypes] = {0x7fff, 0x7e1e, 0x781c, 0x5018, 0x5010,
                                                     0x7ffc, 0x79d8, 0x5190, 0x5100, 0x7a00,
                                                     0x7c00, 0x7800, 0x5000, 0x6000, 0x4000};
  static constexpr uint16_t kSameKind[kNumRuleDTypes] = {0x7fff, 0x7e1e, 0x7e1e, 0x7e1e, 0x7e1e,
                                                         0x7ffe, 0x7ffe, 0x7ffe, 0x7ffe, 0x7e00,
                                                         0x7c00, 0x7e00, 0x7e00, 0x6400, 0x6400};
  switch (casting) {
    case Casting::kNo:
    case Casting::kEquiv:
      return i == j;
    case Casting::kSafe:
      return (kSafe[i] >> j) & 1;
    case Casting::kSameKind:
      return (kSameKind[i] >> j) & 1;
    case Casting::kUnsafe:
      return true;
  }
  return false;
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
      return is_float || array_dtype.code == kDLComplex ? array_dtype : DLDataType{kDLFloat, 64, 1};
  }
  return array_dtype;
}

/*!
 * \brief NEP 50 for a Python complex next to dtype t: complex dtypes keep theirs, float16,
 *  bfloat16 and float32 give complex64 (the complex type holding them), anything else
 *  complex128.
 */
inline DLDataType PromoteWithComplex(DLDataType t) {
  if (t.code == kDLComplex) return t;
  const bool narrow_float = (t.code == kDLFloat || t.code == kDLBfloat) && t.bits <= 32;
  return DLDataType{kDLComplex, static_cast<uint8_t>(narrow_float ? 64 : 128), 1};
}

/*! \return whether dtype is an integer (signed or unsigned) type. */
inline bool IsIntegral(DLDataType t) { return t.code == kDLInt || t.code == kDLUInt; }
/*! \return whether dtype is a floating-point type (bfloat16 included). */
inline bool IsFloating(DLDataType t) { return t.code == kDLFloat || t.code == kDLBfloat; }

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_PROMOTE_H_
