/*!
 * \file np_math.cc
 * \brief np.* elementwise functions of the array API standard beyond np_elemwise.cc's: the
 *  predicates isnan, isinf, isfinite and signbit (bool arrays computed in the input's dtype);
 *  cos, tan, the inverse and hyperbolic functions, expm1, log1p, log2, log10 (floats; integers
 *  give numpy's float dtype) under the standard's names and numpy's (acos and arccos, ...);
 *  reciprocal; floor, ceil, trunc, fix and round (np.round(x, decimals=0)), rint; degrees
 *  (rad2deg), radians (deg2rad) and cbrt; the binary atan2
 *  (arctan2), hypot, copysign, logaddexp, nextafter (float results), and pow (np.power).
 *
 * Each takes an array or a Python number, out= and dtype= as numpy's ufuncs do (np_ufunc.h);
 * a predicate's only loops give bool, so its dtype= is bool or None.
 */
#include <mxffi/registry.h>

#include "../op/dtype.h"
#include "../op/elemwise/elemwise.h"
#include "../op/init/init_op.h"
#include "api_util.h"
#include "np_ufunc.h"

namespace mxffi {
namespace api {

using op::BinaryKind;
using op::UnaryKind;

MXFFI_NP_UNARY("isnan", UnaryKind::kIsNan, "_npi_isnan",
               "Whether x is NaN, elementwise, as bools (all False for integers and bools).");
MXFFI_NP_UNARY("isinf", UnaryKind::kIsInf, "_npi_isinf",
               "Whether x is +inf or -inf, elementwise, as bools (all False for integers and "
               "bools).");
MXFFI_NP_UNARY("isfinite", UnaryKind::kIsFinite, "_npi_isfinite",
               "Whether x is neither NaN nor infinite, elementwise, as bools (all True for "
               "integers and bools).");
MXFFI_NP_UNARY("signbit", UnaryKind::kSignbit, "_npi_signbit",
               "Whether the sign bit of x is set (-0.0 and -nan included), elementwise, as bools "
               "(x < 0 for integers).");

// The float functions of the array API standard (integers and bools give numpy's float dtype),
// under the standard's names and numpy's.
#define MXFFI_NP_FLOAT_UNARY(Name, Kind, Stem, Doc) \
  MXFFI_NP_UNARY(Name, UnaryKind::k##Kind, "_npi_" Stem, Doc)

MXFFI_NP_FLOAT_UNARY("cos", Cos, "cos", "The cosine of x (radians), elementwise.");
MXFFI_NP_FLOAT_UNARY("tan", Tan, "tan", "The tangent of x (radians), elementwise.");
MXFFI_NP_FLOAT_UNARY("acos", Acos, "arccos", "The inverse cosine, elementwise (np.arccos).");
MXFFI_NP_FLOAT_UNARY("arccos", Acos, "arccos", "The inverse cosine, elementwise.");
MXFFI_NP_FLOAT_UNARY("asin", Asin, "arcsin", "The inverse sine, elementwise (np.arcsin).");
MXFFI_NP_FLOAT_UNARY("arcsin", Asin, "arcsin", "The inverse sine, elementwise.");
MXFFI_NP_FLOAT_UNARY("atan", Atan, "arctan", "The inverse tangent, elementwise (np.arctan).");
MXFFI_NP_FLOAT_UNARY("arctan", Atan, "arctan", "The inverse tangent, elementwise.");
MXFFI_NP_FLOAT_UNARY("sinh", Sinh, "sinh", "The hyperbolic sine, elementwise.");
MXFFI_NP_FLOAT_UNARY("cosh", Cosh, "cosh", "The hyperbolic cosine, elementwise.");
MXFFI_NP_FLOAT_UNARY("tanh", Tanh, "tanh", "The hyperbolic tangent, elementwise.");
MXFFI_NP_FLOAT_UNARY("asinh", Asinh, "arcsinh",
                     "The inverse hyperbolic sine, elementwise (np.arcsinh).");
MXFFI_NP_FLOAT_UNARY("arcsinh", Asinh, "arcsinh", "The inverse hyperbolic sine, elementwise.");
MXFFI_NP_FLOAT_UNARY("acosh", Acosh, "arccosh",
                     "The inverse hyperbolic cosine, elementwise (np.arccosh).");
MXFFI_NP_FLOAT_UNARY("arccosh", Acosh, "arccosh", "The inverse hyperbolic cosine, elementwise.");
MXFFI_NP_FLOAT_UNARY("atanh", Atanh, "arctanh",
                     "The inverse hyperbolic tangent, elementwise (np.arctanh).");
MXFFI_NP_FLOAT_UNARY("arctanh", Atanh, "arctanh", "The inverse hyperbolic tangent, elementwise.");
MXFFI_NP_FLOAT_UNARY("expm1", Expm1, "expm1", "e ** x - 1, elementwise, exact near 0.");
MXFFI_NP_FLOAT_UNARY("log1p", Log1p, "log1p", "log(1 + x), elementwise, exact near 0.");
MXFFI_NP_FLOAT_UNARY("log2", Log2, "log2", "The base-2 logarithm, elementwise.");
MXFFI_NP_FLOAT_UNARY("log10", Log10, "log10", "The base-10 logarithm, elementwise.");
#undef MXFFI_NP_FLOAT_UNARY

MXFFI_NP_UNARY("reciprocal", UnaryKind::kReciprocal, "_npi_reciprocal",
               "1 / x, elementwise; integers keep their dtype (1 / x truncated; 1 / 0 as numpy "
               "on x86), bools give int8.");
MXFFI_NP_UNARY("floor", UnaryKind::kFloor, "_npi_floor",
               "The largest integer <= x, elementwise, in x's dtype (integers and bools kept).");
MXFFI_NP_UNARY("ceil", UnaryKind::kCeil, "_npi_ceil",
               "The smallest integer >= x, elementwise, in x's dtype (integers and bools kept).");
MXFFI_NP_UNARY("trunc", UnaryKind::kTrunc, "_npi_trunc",
               "x rounded toward zero, elementwise, in x's dtype (integers and bools kept).");

MXFFI_NP_UNARY("fix", UnaryKind::kFix, "_npi_fix",
               "x rounded toward zero, elementwise, in x's dtype (integers and bools kept; "
               "np.trunc's values).");
MXFFI_NP_UNARY("rint", UnaryKind::kRint, "_npi_rint",
               "x rounded to the nearest integer, halves to even, elementwise; integers and bools "
               "give numpy's float dtype.");
MXFFI_NP_UNARY("degrees", UnaryKind::kDegrees, "_npi_degrees",
               "x radians in degrees, elementwise (np.rad2deg); integers give a float dtype.");
MXFFI_NP_UNARY("rad2deg", UnaryKind::kDegrees, "_npi_degrees",
               "x radians in degrees, elementwise (np.degrees); integers give a float dtype.");
MXFFI_NP_UNARY("radians", UnaryKind::kRadians, "_npi_radians",
               "x degrees in radians, elementwise (np.deg2rad); integers give a float dtype.");
MXFFI_NP_UNARY("deg2rad", UnaryKind::kRadians, "_npi_radians",
               "x degrees in radians, elementwise (np.radians); integers give a float dtype.");
MXFFI_NP_UNARY("cbrt", UnaryKind::kCbrt, "_npi_cbrt",
               "The real cube root, elementwise; integers give a float dtype.");

MXFFI_NP_BINARY_ASYM("atan2", BinaryKind::kAtan2, "arctan2",
                     "The angle of the point (x2, x1), elementwise (np.arctan2).");
MXFFI_NP_BINARY_ASYM("arctan2", BinaryKind::kAtan2, "arctan2",
                     "The angle of the point (x2, x1), elementwise.");
MXFFI_NP_BINARY_SYM("hypot", BinaryKind::kHypot, "hypot",
                    "sqrt(x1**2 + x2**2), elementwise, without overflow.");
MXFFI_NP_BINARY_ASYM("copysign", BinaryKind::kCopysign, "copysign",
                     "|x1| with the sign of x2, elementwise.");
MXFFI_NP_BINARY_SYM("logaddexp", BinaryKind::kLogaddexp, "logaddexp",
                    "log(exp(x1) + exp(x2)), elementwise, without overflow.");
MXFFI_NP_BINARY_ASYM("nextafter", BinaryKind::kNextafter, "nextafter",
                     "The next float after x1 toward x2, elementwise (float32 and float64).");
MXFFI_NP_BINARY("pow", BinaryKind::kPower, "_npi_power", "_npi_power_scalar", "_npi_rpower_scalar",
                "x1 ** x2, elementwise (np.power).");

namespace {

/*! \return 10 ** n for n >= 0, as a double (exact up to 10 ** 22). */
double PowerOfTen(int64_t n) {
  double f = 1.0;
  for (int64_t i = 0; i < n; ++i) f *= 10.0;
  return f;
}

/*!
 * \return np.round(x, decimals): decimals=0 is the `_npi_round` op; otherwise numpy's
 *  scaling: x * 10**decimals (x / 10**-decimals for negative decimals), rounded halves to even,
 *  scaled back, in x's float dtype; an integer x is kept for decimals > 0 and rounds through
 *  float64 for negative decimals, cast back to its dtype (numpy's int8 125 to -1 decimals:
 *  120); a bool x has no such loops (numpy's TypeError).
 */
NDArray RoundAPI(ArrayOrScalar* x, int64_t decimals, const Optional<WritableArray>& out) {
  static const Op* round = Op::Get("_npi_round");
  static const BinaryOps mul{Op::Get("_npi_multiply"), Op::Get("_npi_multiply_scalar"),
                             Op::Get("_npi_multiply_scalar")};
  static const BinaryOps div{Op::Get("_npi_true_divide"), Op::Get("_npi_true_divide_scalar"),
                             Op::Get("_npi_rtrue_divide_scalar")};
  if (decimals == 0) return UnaryAPI(UnaryKind::kRound, round, x, out, DTypeLike());
  MXFFI_CHECK(decimals >= -308 && decimals <= 308, ValueError)
      << "np.round: decimals must be in [-308, 308], got " << decimals;
  MXFFI_CHECK(x->is_array() || !x->scalar().is_bool(), TypeError)
      << "np.round: a bool rounds to decimals=0 only (numpy has no loop scaling bools), got "
         "decimals="
      << decimals;
  // The input as an array of its own dtype (a Python number: numpy's default dtype).
  Optional<WritableArray> none;
  NDArray a = x->is_array()
                  ? x->TakeArray()
                  : UnaryAPI(UnaryKind::kPositive, Op::Get("_npi_positive"), x, none, DTypeLike());
  const DLDataType dt = a.tensor().dtype;
  MXFFI_CHECK(dt.code != kDLBool, TypeError)
      << "np.round: a bool array rounds to decimals=0 only (numpy has no loop scaling bools), "
         "got decimals="
      << decimals;
  const bool integer = !op::IsFloating(dt);
  if (integer && decimals > 0) {
    ArrayOrScalar same(NDArrayLike(a, false));
    return UnaryAPI(UnaryKind::kRound, round, &same, out, DTypeLike());
  }
  const double f = PowerOfTen(decimals > 0 ? decimals : -decimals);
  static const Op* cast = Op::Get("_cast");
  op::CastParam to;
  to.dtype = DLDataType{kDLFloat, 64, 1};
  ArrayOrScalar xa(NDArrayLike(integer ? InvokeOp(cast, to, {a}) : a, false));
  ArrayOrScalar fs(ScalarLike::Float(f));
  NDArray y = decimals > 0 ? BinaryAPI(op::BinaryKind::kMultiply, mul, &xa, &fs, none, DTypeLike())
                           : BinaryAPI(op::BinaryKind::kDivide, div, &xa, &fs, none, DTypeLike());
  ArrayOrScalar ys(NDArrayLike(y, false));
  ArrayOrScalar ya(NDArrayLike(UnaryAPI(UnaryKind::kRound, round, &ys, none, DTypeLike()), false));
  ArrayOrScalar fs2(ScalarLike::Float(f));
  const Optional<WritableArray>& into = integer ? none : out;
  NDArray r = decimals > 0
                  ? BinaryAPI(op::BinaryKind::kDivide, div, &ya, &fs2, into, DTypeLike())
                  : BinaryAPI(op::BinaryKind::kMultiply, mul, &ya, &fs2, into, DTypeLike());
  if (!integer) return r;
  // numpy converts the float64 result back to the integer dtype unsafely (as astype).
  to.dtype = dt;
  ArrayOrScalar ri(NDArrayLike(InvokeOp(cast, to, {r}), false));
  return UnaryAPI(UnaryKind::kPositive, Op::Get("_npi_positive"), &ri, out, DTypeLike());
}

}  // namespace

MXFFI_REGISTER_API("np.round")
    .describe(
        "x rounded to the given number of decimals, halves to even, elementwise, in x's dtype "
        "(numpy's round: integers are kept for decimals >= 0, bools give float16 for "
        "decimals=0); x is an array or a number; out= is an mxffi array to write into.")
    .arg("x")
    .arg("decimals", 0)
    .arg("out", nullptr)
    .set_body_typed([](ArrayOrScalar x, int64_t decimals, Optional<WritableArray> out) {
      return RoundAPI(&x, decimals, out);
    });

}  // namespace api
}  // namespace mxffi
