/*!
 * \file math_functors.h
 * \brief The value functions of the array API's further math ops (unary: cos ... log10,
 *  reciprocal, floor, ceil, trunc, round, rint, degrees, radians, cbrt; binary: atan2, hypot,
 * copysign, logaddexp, nextafter), written once for both devices as those of functors.h are
 * (included at its end; see there for the conventions). The transcendental ones are the C++
 * library's on the CPU and CUDA's on the device, so the two may differ in the last bits; the
 * rounding ones are exact on both.
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_MATH_FUNCTORS_H_
#define MXFFI_SRC_OP_ELEMWISE_MATH_FUNCTORS_H_

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "functors.h"

namespace mxffi {
namespace op {
namespace elemwise {

MXFFI_FLOAT_UNARY_FUNCTOR(CosOp, std::cos, cx::cos);
MXFFI_FLOAT_UNARY_FUNCTOR(TanOp, std::tan, cx::tan);
MXFFI_FLOAT_UNARY_FUNCTOR(AcosOp, std::acos, cx::acos);
MXFFI_FLOAT_UNARY_FUNCTOR(AsinOp, std::asin, cx::asin);
MXFFI_FLOAT_UNARY_FUNCTOR(AtanOp, std::atan, cx::atan);
MXFFI_FLOAT_UNARY_FUNCTOR(SinhOp, std::sinh, cx::sinh);
MXFFI_FLOAT_UNARY_FUNCTOR(CoshOp, std::cosh, cx::cosh);
MXFFI_FLOAT_UNARY_FUNCTOR(TanhOp, std::tanh, ComplexTanh);
MXFFI_FLOAT_UNARY_FUNCTOR(AsinhOp, std::asinh, cx::asinh);
MXFFI_FLOAT_UNARY_FUNCTOR(AcoshOp, std::acosh, cx::acosh);
MXFFI_FLOAT_UNARY_FUNCTOR(AtanhOp, std::atanh, cx::atanh);
MXFFI_FLOAT_UNARY_FUNCTOR(Expm1Op, std::expm1, ComplexExpm1);
MXFFI_FLOAT_UNARY_FUNCTOR(Log1pOp, std::log1p, ComplexLog1p);
MXFFI_FLOAT_UNARY_FUNCTOR(Log2Op, std::log2, ComplexLog2);
MXFFI_FLOAT_UNARY_FUNCTOR(Log10Op, std::log10, cx::log10);

/*!
 * \brief 1 / x; integers keep their dtype as numpy's integer loops (1 for 1, -1 for -1, 0
 *  otherwise; 1 / 0 is int32's or int64's minimum and 0 for the narrower and unsigned types,
 *  numpy's results on x86, never a trap), bools compute in int8 (kSquare's rule).
 */
struct ReciprocalOp {
  static constexpr int64_t kCost = 2;
  static constexpr UnaryRule kRule = UnaryRule::kSquare;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    if constexpr (kIsInt<A>) {
      if (x == 1) return A(1);
      if constexpr (std::is_signed_v<A>) {
        if (x == -1) return A(-1);
        // numpy computes 1.0 / 0 = inf and converts it as x86 does: int32 and int64 give
        // their minimum, the narrower types 0.
        if (x == 0 && sizeof(A) >= 4) return static_cast<A>(Wide<A>(1) << (sizeof(A) * 8 - 1));
      }
      return A(0);
    } else {
      return A(1) / x;
    }
  }
};

/*!
 * \brief What floor, ceil and trunc share: every dtype keeps its own (numpy 2's integer and
 *  bool loops are the identity), floats round exactly.
 */
struct RoundingUnary {
  static constexpr int64_t kCost = 1;
  static constexpr UnaryRule kRule = UnaryRule::kSame;
  template <typename T>
  static constexpr bool Valid() {
    return !kIsComplex<T>;  // numpy has no complex floor, ceil or trunc
  }
};

/*! \brief A rounding op Name: fn(x) for floats, x itself for integers and bools. */
#define MXFFI_ROUNDING_FUNCTOR(Name, fn)           \
  struct Name : RoundingUnary {                    \
    template <typename A>                          \
    MXFFI_XINLINE A operator()(A x) const {        \
      if constexpr (std::is_floating_point_v<A>) { \
        return fn(x);                              \
      } else {                                     \
        return x;                                  \
      }                                            \
    }                                              \
  }

MXFFI_ROUNDING_FUNCTOR(FloorOp, std::floor);
MXFFI_ROUNDING_FUNCTOR(CeilOp, std::ceil);
MXFFI_ROUNDING_FUNCTOR(TruncOp, std::trunc);
#undef MXFFI_ROUNDING_FUNCTOR

/*! \brief np.fix: trunc's values under a type of its own (each op's kernels are instantiated
 *  once per functor type). */
struct FixOp : TruncOp {};

/*!
 * \brief np.round(x) (decimals=0): to the nearest integer, halves to even (rint); integers
 *  keep their dtype and value; a bool has no loop of its own and rounds in float16 (kRound).
 */
struct RoundOp {
  static constexpr int64_t kCost = 1;
  static constexpr UnaryRule kRule = UnaryRule::kRound;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    if constexpr (std::is_floating_point_v<A>) {
      return std::rint(x);  // the default rounding mode: to nearest, ties to even
    } else if constexpr (kIsComplex<A>) {
      return A(std::rint(x.real()), std::rint(x.imag()));  // numpy rounds each part
    } else {
      return x;
    }
  }
};

/*!
 * \brief What degrees, radians and cbrt share: float dtypes only (integers and bools were given
 *  numpy's float result dtype, kFloat) and no complex loop (numpy has none: a TypeError).
 */
struct RealFloatUnary {
  static constexpr int64_t kCost = 8;
  static constexpr UnaryRule kRule = UnaryRule::kFloat;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_integral_v<T> && !kIsComplex<T>;
  }
};

/*!
 * \brief x * (180 / pi), the constant's quotient taken in x's own float type as numpy's npymath
 *  takes it (float32's 180 / pi differs from float32(180 / pi) by one ulp).
 */
struct DegreesOp : RealFloatUnary {
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    return x * (A(180) / A(3.14159265358979323846));
  }
};

/*! \brief x * (pi / 180), the constant's quotient taken in x's own float type (numpy's). */
struct RadiansOp : RealFloatUnary {
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    return x * (A(3.14159265358979323846) / A(180));
  }
};

/*! \brief The real cube root (negative for a negative x; -0.0 kept). */
struct CbrtOp : RealFloatUnary {
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    return std::cbrt(x);
  }
};

/*!
 * \brief np.rint: to the nearest integer, halves to even, in a float dtype (integers and bools
 *  give numpy's float dtype, unlike np.round, which keeps an integer's); complex: each part.
 */
struct RintOp : FloatUnary {
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    if constexpr (kIsComplex<A>) {
      return A(std::rint(x.real()), std::rint(x.imag()));
    } else {
      return std::rint(x);  // the default rounding mode: to nearest, ties to even
    }
  }
};

// ---- binary -----------------------------------------------------------------------------------

/*!
 * \brief What the float-only binary ops share (atan2, hypot, copysign, logaddexp, nextafter):
 *  they compute in a float dtype only; integer and bool inputs were given numpy's float
 *  result dtype (elemwise.cc: the smallest float holding the promoted dtype).
 */
struct FloatBinary {
  static constexpr int64_t kCost = 8;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_integral_v<T> && !kIsComplex<T>;
  }
};

/*! \brief The angle of the point (x2, x1), in (-pi, pi], with C's signed-zero rules. */
struct Atan2Op : FloatBinary {
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    return std::atan2(a, b);
  }
};

/*! \brief sqrt(x1**2 + x2**2) without overflow; inf if either is inf, even with a NaN. */
struct HypotOp : FloatBinary {
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    return std::hypot(a, b);
  }
};

/*! \brief |x1| with the sign bit of x2 (NaNs too). */
struct CopysignOp : FloatBinary {
  static constexpr int64_t kCost = 1;
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    return std::copysign(a, b);
  }
};

/*!
 * \brief log(exp(x1) + exp(x2)) without overflow, as numpy's npy_logaddexp: equal inputs give
 *  x1 + log(2) (so inf and inf give inf), else the larger plus log1p(exp(-|x1 - x2|)); a NaN
 *  gives NaN.
 */
struct LogaddexpOp : FloatBinary {
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    if (a == b) return a + static_cast<A>(0.693147180559945309417232121458176568);
    const A d = a - b;
    if (d > 0) return a + std::log1p(std::exp(-d));
    if (d <= 0) return b + std::log1p(std::exp(d));
    return d;  // NaN
  }
};

/*!
 * \brief The next value of x1's dtype after x1 toward x2 (std::nextafter): float32 and float64
 *  only, since float16 and bfloat16 compute in float32, whose step is not theirs.
 */
struct NextafterOp : FloatBinary {
  static constexpr int64_t kCost = 2;
  template <typename T>
  static constexpr bool Valid() {
    return std::is_same_v<T, float> || std::is_same_v<T, double>;
  }
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    return std::nextafter(a, b);
  }
};

}  // namespace elemwise
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_ELEMWISE_MATH_FUNCTORS_H_
