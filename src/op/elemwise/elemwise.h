/*!
 * \file elemwise.h
 * \brief What the elementwise ops and their np.* API functions share: numpy's broadcasting and
 *  ufunc type resolution for each op, same_kind casting, and the Python-scalar parameter of the
 *  `_npi_*_scalar` ops.
 *
 * Every rule here was checked against numpy 2 (with ml_dtypes for bfloat16) by running it; the
 * departures are named where they are made.
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_ELEMWISE_H_
#define MXFFI_SRC_OP_ELEMWISE_ELEMWISE_H_

#include <mxffi/op/param.h>

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>

#include "../promote.h"

namespace mxffi {
namespace op {

/*! \brief The binary elementwise ops (numpy ufuncs of two inputs): those of binary_ops.def. */
enum class BinaryKind : int {
#define MXFFI_BINARY_OP(Kind, Stem, Name, Functor, Side, Group, Doc) k##Kind,
#include "binary_ops.def"
};

/*! \brief The unary elementwise ops: those of unary_ops.def, in its order. */
enum class UnaryKind : int {
#define MXFFI_UNARY_OP(Kind, OpName, Name, Functor, Doc) k##Kind,
#include "unary_ops.def"
};

/*! \return "np.add", "np.subtract", ...: the name errors of the op start with. */
const char* BinaryName(BinaryKind kind);
/*! \return whether the op always gives a bool array: the comparisons and the logical ops. */
bool IsBoolResult(BinaryKind kind);
/*!
 * \return whether the unary op always gives a bool array: logical_not and the predicates
 *  (isnan, isinf, isfinite, signbit).
 */
bool IsBoolResult(UnaryKind kind);
/*! \return whether the op is a comparison (equal, not_equal, less, ...). */
bool IsComparison(BinaryKind kind);
/*!
 * \return "np.negative", "np.absolute", ..., "relu" (an MXNet op with no numpy function): the
 *  name unary_ops.def gives the op.
 */
const char* UnaryName(UnaryKind kind);

/*!
 * \return the dtype numpy's ufunc gives for two arrays of dtypes a and b.
 *
 * numpy.result_type of the two (PromoteTypes), with three op rules: `subtract` of two bools is a
 * TypeError, `divide` of integers or bools is float64, `power` of two bools is int8. Where
 * result_type finds no common dtype (bfloat16 with int16..uint64 or float16) numpy's ufuncs
 * still run, in the first loop both inputs cast to safely: float32 or float64, which is the
 * promotion of float32 with the other dtype.
 * floor_divide, remainder and the shifts of two bools compute in int8; the bitwise ops and
 * the shifts refuse inputs that promote to a float (a TypeError, as numpy has no such loop);
 * the comparisons and the logical ops give bool.
 * \throws TypeError naming the op for the bool subtract and for unsupported dtypes.
 */
DLDataType BinaryResultType(BinaryKind kind, DLDataType a, DLDataType b);

/*!
 * \brief The dtype a comparison reads both inputs as (its output is bool): numpy's promotion
 *  of the two, except that a signed integer against uint64 compares exactly (numpy's qQ->?
 *  loops), never through float64: `mixed` then says which input is the signed one.
 */
struct CompareLoop {
  DLDataType dtype{kDLBool, 8, 1};
  /*! \brief 0: one dtype; 1: x1 signed, x2 unsigned; 2: x1 unsigned, x2 signed (int64 and
   *  uint64 read). */
  int mixed = 0;
};
/*! \return the loop of comparison kind for arrays of dtypes a and b. */
CompareLoop CompareLoopType(BinaryKind kind, DLDataType a, DLDataType b);

/*! \brief numpy.can_cast(from, to, "same_kind") for the supported dtypes. */
bool CanCastSameKind(DLDataType from, DLDataType to);

/*!
 * \brief A Python number as an op parameter: its kind (NEP 50 weak typing follows it) and its
 *  value, exact for ints. Reads "True", "False", an integer or a float.
 */
struct ScalarValue {
  ScalarKind kind = ScalarKind::kInt;
  int64_t i = 0;
  double f = 0.0;

  static ScalarValue Bool(bool v) {
    return ScalarValue{ScalarKind::kBool, v ? 1 : 0, v ? 1.0 : 0.0};
  }
  static ScalarValue Int(int64_t v) {
    return ScalarValue{ScalarKind::kInt, v, static_cast<double>(v)};
  }
  static ScalarValue Float(double v) {
    return ScalarValue{ScalarKind::kFloat, static_cast<int64_t>(0), v};
  }
  /*! \return the dtype numpy gives the number alone: bool, int64 or float64. */
  DLDataType DefaultDType() const {
    return kind == ScalarKind::kBool  ? DLDataType{kDLBool, 8, 1}
           : kind == ScalarKind::kInt ? DLDataType{kDLInt, 64, 1}
                                      : DLDataType{kDLFloat, 64, 1};
  }
  bool operator==(const ScalarValue& o) const {
    return kind == o.kind && (kind == ScalarKind::kFloat ? f == o.f : i == o.i);
  }
};
std::istream& operator>>(std::istream& is, ScalarValue& v);
std::ostream& operator<<(std::ostream& os, const ScalarValue& v);

}  // namespace op
}  // namespace mxffi

namespace dmlc {
// The type dmlc names in parameter docs and in "expect <type> but value=..." errors.
DMLC_DECLARE_TYPE_NAME(::mxffi::op::ScalarValue, "number");
}  // namespace dmlc

namespace mxffi {
namespace op {

/*!
 * \brief The parameter of `_npi_<op>_scalar` and `_npi_r<op>_scalar`: the Python number on the
 *  other side of the array.
 */
struct BinaryScalarParam : public dmlc::Parameter<BinaryScalarParam> {
  ScalarValue scalar;
  DMLC_DECLARE_PARAMETER(BinaryScalarParam) {
    DMLC_DECLARE_FIELD(scalar).describe(
        "The Python number on the other side: True/False, an int or a float; it is weakly "
        "typed (NEP 50), so it takes the array's dtype where it fits that dtype's kind.");
  }
};

/*!
 * \return the dtype numpy gives `array op scalar` (or `scalar op array`) for an array of dtype
 *  a and a Python number, NEP 50: the number takes a's dtype unless its kind is wider (an int
 *  against bool gives int64, a float against a non-float gives float64); then the op rules of
 *  BinaryResultType.
 * \note bfloat16 against a Python float stays bfloat16, as NEP 50 has it and as float16 does;
 *  numpy with ml_dtypes 0.6 gives float32 there (ml_dtypes does not take part in weak-scalar
 *  promotion), a departure kept on purpose.
 * \throws OverflowError when an int does not fit a's integer dtype and the op computes in it
 *  ("Python integer 300 out of bounds for uint8", as numpy 2).
 */
DLDataType ScalarResultType(BinaryKind kind, DLDataType a, const ScalarValue& s);

/*!
 * \return the loop of comparison kind for an array of dtype a and the number s (first when
 *  reverse): NEP 50's, except that an int outside a's integer range compares exactly, as
 *  numpy 2 does (`int8_array < 1000` is all True, `uint8_array == -1` all False): the loop
 *  widens to int64, or, for an unsigned a and a negative int, compares the int as int64 with
 *  the array as uint64 (mixed).
 */
CompareLoop CompareScalarLoopType(BinaryKind kind, DLDataType a, const ScalarValue& s,
                                  bool reverse);

/*!
 * \return the dtype numpy gives the unary op on dtype a, by its functor's UnaryRule
 *  (functors.h): the float ops (sqrt, exp, log, ...) of a bool or an integer give the smallest
 *  float holding it (bool, int8, uint8: float16; int16, uint16: float32; wider: float64),
 *  square of a bool gives int8, logical_not gives bool; the others keep the dtype.
 * \throws TypeError for negative, positive and sign of a bool and invert of a float (numpy
 *  has no such loop).
 */
DLDataType UnaryResultType(UnaryKind kind, DLDataType a);

/*! \return whether the Python int v fits dtype (always, for a float or bool dtype). */
bool IntFits(int64_t v, DLDataType dtype);

/*!
 * \brief numpy's check that a Python int fits the integer dtype it is converted to.
 * \throws OverflowError "<fname>: Python integer 300 out of bounds for uint8".
 */
void CheckIntFits(int64_t v, DLDataType dtype, const char* fname);

/*! \return shape as numpy prints it in broadcast errors: "(2,3)", "(4,)", "()". */
std::string NumpyShapeString(const TShape& shape);

/*!
 * \brief The broadcast of shapes a and b into out.
 * \throws ValueError "<fname>: operands could not be broadcast together with shapes (2,3) (4,)".
 */
void BroadcastShapes(const TShape& a, const TShape& b, TShape* out, const char* fname);

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_ELEMWISE_ELEMWISE_H_
