/*!
 * \file functors.h
 * \brief The value functions of the elementwise ops, each written once for both devices: g++
 *  compiles them into the CPU kernels (binary_op.cc, unary_op.cc, quadratic_op.cc and the
 *  sparse ops in ../sparse) and nvcc into the CUDA ones (elemwise_binary.cu, elemwise_unary.cu
 *  and the sparse kernels in ../sparse), so both give numpy's results bit for bit: integers
 *  wrap (the arithmetic is done in unsigned types, where C++ defines the wrap), bools add as
 *  logical or and multiply as logical and, float16 and bfloat16 compute in float32 and round
 *  once on store (the callers widen with ToAcc and store with FromAcc, half.h), maximum and
 *  minimum propagate NaN, floor_divide and remainder round as Python does (integer division
 *  by zero gives 0, never a trap), shifts past the bit width give numpy's results.
 *
 * A binary functor has `static A Map(A a, A b)`, a unary one `A operator()(A x) const` (an
 * object, so that quadratic carries its coefficients into a kernel), both computing in the
 * accumulation type A; `Valid<T>()` says whether a kernel computes in the dtype T (type
 * inference never asks for the others), kCost is the CPU's work per element for splitting
 * loops across threads, and a unary functor's kRule is how its result dtype follows the
 * input's (elemwise.cc's UnaryResultType). A comparison derives from Predicate: its Map gives
 * a bool, stored into a bool output, while A is the dtype the inputs are compared in; a unary
 * predicate (UnaryPredicate: isnan, ...) likewise gives a bool, computed in the input's dtype.
 * Adding a unary op is one functor here (or in math_functors.h) and one line in unary_ops.def;
 * a binary op, one functor and one line in binary_ops.def (and its result dtype rule in
 * elemwise.cc).
 *
 * Complex (complex64, complex128; complex.h's op::complex<T>, computed in itself): a functor
 * whose Valid<complex<float>>() is true has a complex loop, which the op's dtype switch
 * (MXFFI_TYPE_SWITCH_WITH_COMPLEX) instantiates and its type inference allows; the others
 * refuse complex inputs with their TypeError. The complex functions are the C++ library's
 * (std::complex on the CPU, libcu++'s cuda::std::complex on the device: C99 Annex G).
 *
 * The transcendental functions are the C++ library's on the CPU and CUDA's on the device, so
 * they may differ in the last bits. A multiply followed by an add is rounded twice on both
 * devices: nvcc would contract it into one fused multiply-add, so the device uses the _rn
 * intrinsics (MulRn, AddRn, SubRn, DivRn, SqrtRn), which are never contracted.
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_FUNCTORS_H_
#define MXFFI_SRC_OP_ELEMWISE_FUNCTORS_H_

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "../complex.h"
#include "../xinline.h"

namespace mxffi {
namespace op {
namespace elemwise {

/*! \brief The unsigned type integer arithmetic on T wraps in (at least unsigned int). */
template <typename T>
using Wide = std::make_unsigned_t<decltype(T() + T())>;

/*! \brief Whether T is an integer type other than bool. */
template <typename T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/*! \return a * b, rounded (never fused with a following add). */
template <typename A>
MXFFI_XINLINE A MulRn(A a, A b) {
#if MXFFI_DEVICE_CODE
  if constexpr (std::is_same_v<A, float>) {
    return __fmul_rn(a, b);
  } else if constexpr (std::is_same_v<A, double>) {
    return __dmul_rn(a, b);
  }
#endif
  return a * b;
}

/*! \return a + b, rounded. */
template <typename A>
MXFFI_XINLINE A AddRn(A a, A b) {
#if MXFFI_DEVICE_CODE
  if constexpr (std::is_same_v<A, float>) {
    return __fadd_rn(a, b);
  } else if constexpr (std::is_same_v<A, double>) {
    return __dadd_rn(a, b);
  }
#endif
  return a + b;
}

/*! \return a - b, rounded. */
template <typename A>
MXFFI_XINLINE A SubRn(A a, A b) {
#if MXFFI_DEVICE_CODE
  if constexpr (std::is_same_v<A, float>) {
    return __fsub_rn(a, b);
  } else if constexpr (std::is_same_v<A, double>) {
    return __dsub_rn(a, b);
  }
#endif
  return a - b;
}

/*! \return a / b, correctly rounded. */
template <typename A>
MXFFI_XINLINE A DivRn(A a, A b) {
#if MXFFI_DEVICE_CODE
  if constexpr (std::is_same_v<A, float>) {
    return __fdiv_rn(a, b);
  } else if constexpr (std::is_same_v<A, double>) {
    return __ddiv_rn(a, b);
  }
#endif
  return a / b;
}

/*! \return the square root of a, correctly rounded. */
template <typename A>
MXFFI_XINLINE A SqrtRn(A a) {
#if MXFFI_DEVICE_CODE
  if constexpr (std::is_same_v<A, float>) {
    return __fsqrt_rn(a);
  } else if constexpr (std::is_same_v<A, double>) {
    return __dsqrt_rn(a);
  }
#endif
  return std::sqrt(a);
}

// ---- binary ---------------------------------------------------------------------------------

/*! \brief x1 + x2 (bools: logical or). */
struct AddOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    if constexpr (std::is_same_v<A, bool>) {
      return a || b;  // numpy: add of bools is logical or
    } else if constexpr (kIsInt<A>) {
      return static_cast<A>(static_cast<Wide<A>>(a) + static_cast<Wide<A>>(b));
    } else {
      return a + b;
    }
  }
};

/*! \brief x1 - x2 (not for two bools). */
struct SubtractOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;  // a TypeError at type inference
  }
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    if constexpr (kIsInt<A>) {
      return static_cast<A>(static_cast<Wide<A>>(a) - static_cast<Wide<A>>(b));
    } else {
      return a - b;
    }
  }
};

/*! \brief x1 * x2 (bools: logical and). */
struct MultiplyOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    if constexpr (std::is_same_v<A, bool>) {
      return a && b;
    } else if constexpr (kIsInt<A>) {
      return static_cast<A>(static_cast<Wide<A>>(a) * static_cast<Wide<A>>(b));
    } else {
      return a * b;
    }
  }
};

/*! \brief x1 / x2, IEEE division (nvcc's default -prec-div=true). */
struct DivideOp {
  static constexpr int64_t kCost = 2;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_integral_v<T>;  // true divide always computes in a float dtype
  }
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    return a / b;
  }
};

/*!
 * \brief z ** w for complex z and w as numpy's nc_pow: w == 0 gives 1; 0 ** w gives 0 when the
 *  real part of w is positive, else NaN; an integer w with |w| < 100 multiplies (exact for small
 *  results, as numpy); any other w is the library's pow, exp(w log z).
 */
template <typename C>
MXFFI_XINLINE C ComplexPower(C z, C w) {
  using R = RealT<C>;
  const R wr = w.real(), wi = w.imag();
  if (wr == R(0) && wi == R(0)) return C(R(1), R(0));
  if (z.real() == R(0) && z.imag() == R(0)) {
    if (wr > R(0)) return C(R(0), R(0));
    const R nan = R(NAN);
    return C(nan, nan);
  }
  if (wi == R(0) && wr == std::floor(wr) && std::fabs(wr) < R(100)) {
    int n = static_cast<int>(wr);
    const bool neg = n < 0;
    if (neg) n = -n;
    C r(R(1), R(0)), b = z;
    for (; n > 0; n >>= 1) {
      if (n & 1) r = r * b;
      b = b * b;
    }
    return neg ? C(R(1), R(0)) / r : r;
  }
  return cx::pow(z, w);
}

/*! \brief x1 ** x2. */
struct PowerOp {
  static constexpr int64_t kCost = 8;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;  // bool ** bool computes in int8
  }
  template <typename A>
  static MXFFI_XINLINE A Map(A base, A exp) {
    if constexpr (kIsInt<A>) {
      // numpy's integer power: square-and-multiply, wrapping; negative exponents were refused
      // before the loop.
      if (exp == 0 || base == 1) return 1;
      Wide<A> b = static_cast<Wide<A>>(base);
      Wide<A> r = (exp & 1) ? b : Wide<A>(1);
      for (exp >>= 1; exp > 0; exp >>= 1) {
        b *= b;
        if (exp & 1) r *= b;
      }
      return static_cast<A>(r);
    } else if constexpr (kIsComplex<A>) {
      return ComplexPower(base, exp);
    } else {
      return std::pow(base, exp);
    }
  }
};

/*! \brief The larger of x1 and x2; NaN wins, equal values give x2, as numpy's (not complex). */
struct MaximumOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return !kIsComplex<T>;
  }
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    if constexpr (std::is_floating_point_v<A>) {
      return (a != a || a > b) ? a : b;  // a != a: a is NaN
    } else {
      return a > b ? a : b;
    }
  }
};

/*! \brief The smaller of x1 and x2; NaN wins (not complex). */
struct MinimumOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return !kIsComplex<T>;
  }
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    if constexpr (std::is_floating_point_v<A>) {
      return (a != a || a < b) ? a : b;
    } else {
      return a < b ? a : b;
    }
  }
};

/*!
 * \brief fmod(a, b), exact as the C library's, without the errno wrapper around it: in x86-64
 *  host code the x87 partial remainder (fprem, exact, repeated until it is complete), elsewhere
 *  std::fmod. Special values as fmod: an infinite a or a zero b gives NaN, an infinite b gives
 *  a, NaN propagates, a zero result has a's sign. A float or double widens to long double and
 *  back exactly: the remainder is representable in the operands' type.
 */
template <typename A>
MXFFI_XINLINE A Fmod(A a, A b) {
#if !MXFFI_DEVICE_CODE && defined(__x86_64__) && defined(__GNUC__)
  if constexpr (std::is_same_v<A, float> || std::is_same_v<A, double>) {
    long double x = a;
    const long double y = b;
    // C2 (bit 2 of the status word's high byte) is set while the reduction is incomplete.
    __asm__("1:\n\tfprem\n\tfnstsw %%ax\n\ttestb $4, %%ah\n\tjnz 1b"
            : "+t"(x)
            : "u"(y)
            : "ax", "cc");
    return static_cast<A>(x);
  } else {
    return std::fmod(a, b);
  }
#else
  return std::fmod(a, b);
#endif
}

/*!
 * \brief x1 // x2 as numpy's floor_divide: Python's rounding toward minus infinity. Integers:
 *  x // 0 is 0 and MIN // -1 wraps to MIN (numpy warns; no error); floats: numpy's npy_divmod
 *  (fmod, then the quotient snapped to an integer), x // 0.0 is x / 0.0 (inf or NaN).
 */
struct FloorDivideOp {
  static constexpr int64_t kCost = 4;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool> && !kIsComplex<T>;  // bool // bool computes in int8
  }
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    if constexpr (kIsInt<A>) {
      if (b == 0) return A(0);
      if constexpr (std::is_signed_v<A>) {
        // MIN / -1 overflows (a trap on x86): -a, wrapping, is numpy's result.
        if (b == -1) return static_cast<A>(Wide<A>(0) - static_cast<Wide<A>>(a));
        A q = static_cast<A>(a / b);
        if (static_cast<A>(a % b) != 0 && ((a < 0) != (b < 0))) --q;
        return q;
      } else {
        return static_cast<A>(a / b);
      }
    } else {
      if (b == 0) return a / b;
      const A mod = Fmod(a, b);
      A div = (a - mod) / b;
      if (mod != 0 && ((b < 0) != (mod < 0))) div -= A(1);
      if (div != 0) {
        A f = std::floor(div);
        if (div - f > A(0.5)) f += A(1);
        return f;
      }
      return std::copysign(A(0), a / b);
    }
  }
};

/*!
 * \brief x1 % x2 as numpy's remainder: the sign of x2 (Python's rule). Integers: x % 0 is 0
 *  (numpy warns; no error), MIN % -1 is 0; floats: numpy's npy_divmod, x % 0.0 is NaN, a zero
 *  result takes x2's sign.
 */
struct RemainderOp {
  static constexpr int64_t kCost = 4;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool> && !kIsComplex<T>;
  }
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    if constexpr (kIsInt<A>) {
      if (b == 0) return A(0);
      if constexpr (std::is_signed_v<A>) {
        if (b == -1) return A(0);  // MIN % -1 would trap
        const A r = static_cast<A>(a % b);
        return r != 0 && ((r < 0) != (b < 0)) ? static_cast<A>(r + b) : r;
      } else {
        return static_cast<A>(a % b);
      }
    } else {
      A mod = Fmod(a, b);
      if (b == 0) return mod;  // NaN
      if (mod != 0) {
        if ((b < 0) != (mod < 0)) mod += b;
      } else {
        mod = std::copysign(A(0), b);
      }
      return mod;
    }
  }
};

/*! \brief What the bitwise and/or/xor share: integers and bools only (floats: a TypeError). */
struct BitwiseBinary {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return std::is_integral_v<T>;
  }
};

/*! \brief x1 & x2 (bools: logical and). */
struct BitwiseAndOp : BitwiseBinary {
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    return static_cast<A>(a & b);
  }
};

/*! \brief x1 | x2 (bools: logical or). */
struct BitwiseOrOp : BitwiseBinary {
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    return static_cast<A>(a | b);
  }
};

/*! \brief x1 ^ x2 (bools: logical xor). */
struct BitwiseXorOp : BitwiseBinary {
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    return static_cast<A>(a ^ b);
  }
};

/*! \brief What the shifts share: integers only (bools shift in int8; floats: a TypeError). */
struct ShiftBinary {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return kIsInt<T>;
  }
  /*! \return whether the count b shifts every bit out: negative or at least A's width. */
  template <typename A>
  static MXFFI_XINLINE bool AllOut(A b) {
    if constexpr (std::is_signed_v<A>) {
      if (b < 0) return true;  // numpy casts the count to size_t: a negative one is huge
    }
    return b >= A(sizeof(A) * 8);
  }
};

/*! \brief x1 << x2 as numpy: 0 when x2 is negative or at least the bit width; bits wrap. */
struct LeftShiftOp : ShiftBinary {
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    if (AllOut(b)) return A(0);
    return static_cast<A>(static_cast<Wide<A>>(a) << b);
  }
};

/*!
 * \brief x1 >> x2 as numpy: arithmetic for signed types; a count that is negative or at least
 *  the bit width gives -1 for a negative x1, else 0.
 */
struct RightShiftOp : ShiftBinary {
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    if (AllOut(b)) {
      if constexpr (std::is_signed_v<A>) {
        return a < 0 ? A(-1) : A(0);
      } else {
        return A(0);
      }
    }
    return static_cast<A>(a >> b);
  }
};

/*! \brief What logical and/or/xor share: any input read as a bool (x != 0; NaN is true). */
struct LogicalBinary {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return std::is_same_v<T, bool>;  // the loop is bool: inputs converted as they are read
  }
};

struct LogicalAndOp : LogicalBinary {
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    return a && b;
  }
};

struct LogicalOrOp : LogicalBinary {
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    return a || b;
  }
};

struct LogicalXorOp : LogicalBinary {
  template <typename A>
  static MXFFI_XINLINE A Map(A a, A b) {
    return a != b;
  }
};

/*!
 * \brief The base of the comparisons: their Map gives a bool, stored into a bool output, while
 *  the inputs are read as the loop dtype numpy compares in (elemwise.h's CompareLoopType),
 *  which is not the output's.
 */
struct Predicate {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
};

/*!
 * \brief Whether OP is a comparison or a unary predicate (a Predicate): a bool output, a loop
 *  dtype of its own.
 */
template <typename OP>
constexpr bool kIsPredicate = std::is_base_of_v<Predicate, OP>;

/*! \brief The element type OP stores when it computes in T. */
template <typename OP, typename T>
using OutType = std::conditional_t<kIsPredicate<OP>, bool, T>;

/*!
 * \return the order of a signed and an unsigned 64-bit integer (-1, 0, 1 as s <, ==, > u),
 *  exactly: numpy compares int64 with uint64 in its own loops (qQ->?), never through float64.
 *  A comparison OP then gives OP::Map(order, 0) for (s, u) and OP::Map(0, order) for (u, s).
 */
MXFFI_XINLINE int MixedOrder(int64_t s, uint64_t u) {
  if (s < 0) return -1;
  const uint64_t v = static_cast<uint64_t>(s);
  return v < u ? -1 : v > u ? 1 : 0;
}

/*!
 * \brief A comparison Name computing a op b (IEEE: NaN compares false but for !=); kComplex:
 *  whether it compares complex numbers (== and != do, part by part; the orderings do not).
 */
#define MXFFI_COMPARE_FUNCTOR(Name, op, kComplex) \
  struct Name : Predicate {                       \
    template <typename T>                         \
    static constexpr bool Valid() {               \
      return (kComplex) || !kIsComplex<T>;        \
    }                                             \
    template <typename A>                         \
    static MXFFI_XINLINE bool Map(A a, A b) {     \
      return a op b;                              \
    }                                             \
  }

MXFFI_COMPARE_FUNCTOR(EqualOp, ==, true);
MXFFI_COMPARE_FUNCTOR(NotEqualOp, !=, true);
MXFFI_COMPARE_FUNCTOR(LessOp, <, false);
MXFFI_COMPARE_FUNCTOR(LessEqualOp, <=, false);
MXFFI_COMPARE_FUNCTOR(GreaterOp, >, false);
MXFFI_COMPARE_FUNCTOR(GreaterEqualOp, >=, false);
#undef MXFFI_COMPARE_FUNCTOR

// ---- unary ----------------------------------------------------------------------------------

/*! \brief How a unary op's result dtype follows its input's (elemwise.cc's UnaryResultType). */
enum class UnaryRule : int {
  kSame,       // the input's dtype
  kNoBool,     // the input's dtype; a bool input is a TypeError (numpy has no such loop)
  kSquare,     // the input's dtype; a bool squares in int8
  kFloat,      // floats keep theirs; a bool or an integer gives the smallest float holding it
  kInteger,    // the input's dtype; integers and bools only (a float input is a TypeError)
  kBool,       // bool, for any input dtype (the input is read as x != 0)
  kPredicate,  // bool, computed in the input's own dtype (UnaryPredicate: isnan, signbit, ...)
  kRound,      // the input's dtype; a bool gives float16 (numpy's round of bools is rint's)
};

/*! \brief -x; integers wrap (-(-128) of int8 is -128); not for bools. */
struct NegativeOp {
  static constexpr int64_t kCost = 1;
  static constexpr UnaryRule kRule = UnaryRule::kNoBool;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    if constexpr (kIsInt<A>) {
      return static_cast<A>(Wide<A>(0) - static_cast<Wide<A>>(x));
    } else {
      return -x;
    }
  }
};

/*! \brief |x|; the identity for unsigned and bool; abs(-128) of int8 wraps to -128. */
struct AbsoluteOp {
  static constexpr int64_t kCost = 1;
  static constexpr UnaryRule kRule = UnaryRule::kSame;
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    if constexpr (std::is_floating_point_v<A>) {
      return std::fabs(x);
    } else if constexpr (kIsComplex<A>) {
      return A(cx::abs(x));  // the kernels store |z| in the real dtype (AbsComplex)
    } else if constexpr (kIsInt<A> && std::is_signed_v<A>) {
      return x < 0 ? static_cast<A>(Wide<A>(0) - static_cast<Wide<A>>(x)) : x;
    } else {
      return x;
    }
  }
};

/*! \brief x * x; bools square in int8. */
struct SquareOp {
  static constexpr int64_t kCost = 1;
  static constexpr UnaryRule kRule = UnaryRule::kSquare;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    if constexpr (kIsInt<A>) {
      return static_cast<A>(static_cast<Wide<A>>(x) * static_cast<Wide<A>>(x));
    } else {
      return x * x;
    }
  }
};

/*! \brief numpy's sign: -1, 0 or 1 in x's dtype; NaN stays NaN, -0.0 gives 0.0. */
struct SignOp {
  static constexpr int64_t kCost = 1;
  static constexpr UnaryRule kRule = UnaryRule::kNoBool;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    if constexpr (std::is_floating_point_v<A>) {
      return x > 0 ? A(1) : x < 0 ? A(-1) : x == 0 ? A(0) : x;  // the last: NaN
    } else if constexpr (kIsComplex<A>) {
      // numpy 2: z / |z|, 0 for 0, NaN for a NaN part or two infinite parts, the unit along
      // an axis for one infinite part.
      using R = RealT<A>;
      const R re = x.real(), im = x.imag();
      const bool ire = std::isinf(re), iim = std::isinf(im);
      if (AnyNan(x) || (ire && iim)) return A(R(NAN), R(NAN));
      if (ire) return A(std::copysign(R(1), re), R(0));
      if (iim) return A(R(0), std::copysign(R(1), im));
      if (re == R(0) && im == R(0)) return A(R(0), R(0));
      const R m = cx::abs(x);
      return A(re / m, im / m);
    } else if constexpr (std::is_signed_v<A>) {
      return static_cast<A>((x > 0) - (x < 0));
    } else {
      return static_cast<A>(x > 0);
    }
  }
};

/*! \brief MXNet's relu, max(x, 0) in x's dtype; NaN stays NaN (as np.maximum(x, 0)). */
struct ReluOp {
  static constexpr int64_t kCost = 1;
  static constexpr UnaryRule kRule = UnaryRule::kSame;
  template <typename T>
  static constexpr bool Valid() {
    return !kIsComplex<T>;
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    if constexpr (std::is_same_v<A, bool> || std::is_unsigned_v<A>) {
      return x;
    } else if constexpr (std::is_floating_point_v<A>) {
      return x > 0 || x != x ? x : A(0);
    } else {
      return x > 0 ? x : A(0);
    }
  }
};

/*! \brief +x: a copy; not for bools (numpy has no such loop). */
struct PositiveOp {
  static constexpr int64_t kCost = 1;
  static constexpr UnaryRule kRule = UnaryRule::kNoBool;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    return x;
  }
};

/*! \brief The complex conjugate; the identity for real dtypes (bools conjugate in int8). */
struct ConjugateOp {
  static constexpr int64_t kCost = 1;
  static constexpr UnaryRule kRule = UnaryRule::kSquare;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    if constexpr (kIsComplex<A>) {
      return A(x.real(), -x.imag());
    } else {
      return x;
    }
  }
};

/*! \brief ~x: the bits flipped; bools: logical not; not for floats. */
struct InvertOp {
  static constexpr int64_t kCost = 1;
  static constexpr UnaryRule kRule = UnaryRule::kInteger;
  template <typename T>
  static constexpr bool Valid() {
    return std::is_integral_v<T>;
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    if constexpr (std::is_same_v<A, bool>) {
      return !x;
    } else {
      return static_cast<A>(~x);
    }
  }
};

/*! \brief not x, for any input (read as x != 0, so NaN is true and gives false). */
struct LogicalNotOp {
  static constexpr int64_t kCost = 1;
  static constexpr UnaryRule kRule = UnaryRule::kBool;
  template <typename T>
  static constexpr bool Valid() {
    return std::is_same_v<T, bool>;  // the output is bool; inputs are converted on read
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    return !x;
  }
};

/*!
 * \brief The base of the unary predicates (isnan, isinf, isfinite, signbit): operator() gives
 *  a bool, stored into a bool output, while the input is read in its own dtype, never
 *  converted (isnan of a float needs the float, not the bool of it). Every dtype has a loop:
 *  integers and bools have no NaN, infinity or sign bit, as numpy's integer loops say (for
 *  signbit numpy casts an integer to a float, whose sign bit is x < 0).
 */
struct UnaryPredicate : Predicate {
  static constexpr UnaryRule kRule = UnaryRule::kPredicate;
};

/*! \brief Whether x is NaN; false for integers and bools. */
struct IsNanOp : UnaryPredicate {
  template <typename A>
  MXFFI_XINLINE bool operator()(A x) const {
    if constexpr (std::is_floating_point_v<A> || kIsComplex<A>) {
      return AnyNan(x);
    } else {
      return false;
    }
  }
};

/*! \brief Whether x is +inf or -inf; false for integers and bools. */
struct IsInfOp : UnaryPredicate {
  template <typename A>
  MXFFI_XINLINE bool operator()(A x) const {
    if constexpr (std::is_floating_point_v<A>) {
      return std::fabs(x) == static_cast<A>(INFINITY);
    } else if constexpr (kIsComplex<A>) {
      return (*this)(x.real()) || (*this)(x.imag());
    } else {
      return false;
    }
  }
};

/*! \brief Whether x is neither NaN nor infinite; true for integers and bools. */
struct IsFiniteOp : UnaryPredicate {
  template <typename A>
  MXFFI_XINLINE bool operator()(A x) const {
    if constexpr (std::is_floating_point_v<A>) {
      return std::fabs(x) < static_cast<A>(INFINITY);  // false for NaN
    } else if constexpr (kIsComplex<A>) {
      return (*this)(x.real()) && (*this)(x.imag());
    } else {
      return true;
    }
  }
};

/*!
 * \brief Whether x's sign bit is set: true for -0.0 and a NaN with its sign bit; x < 0 for
 *  signed integers; false for unsigned integers and bools.
 */
struct SignbitOp : UnaryPredicate {
  template <typename T>
  static constexpr bool Valid() {
    return !kIsComplex<T>;  // numpy has no complex loop
  }
  template <typename A>
  MXFFI_XINLINE bool operator()(A x) const {
    if constexpr (std::is_floating_point_v<A>) {
      return std::copysign(A(1), x) < A(0);
    } else if constexpr (std::is_signed_v<A>) {
      return x < 0;
    } else {
      return false;
    }
  }
};

/*!
 * \brief What the float-only unary ops share: they compute in a float dtype only (an integer
 *  or bool input was given a float result dtype, kFloat) and cost about a libm call each.
 */
struct FloatUnary {
  static constexpr int64_t kCost = 8;
  static constexpr UnaryRule kRule = UnaryRule::kFloat;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_integral_v<T>;
  }
};

/*!
 * \brief A float-only unary op Name computing fn(x) (std::sqrt: correctly rounded on both), and
 *  cfn(x) for a complex x (complex.h's cx:: functions).
 */
#define MXFFI_FLOAT_UNARY_FUNCTOR(Name, fn, cfn) \
  struct Name : FloatUnary {                     \
    template <typename A>                        \
    MXFFI_XINLINE A operator()(A x) const {      \
      if constexpr (kIsComplex<A>) {             \
        return cfn(x);                           \
      } else {                                   \
        return fn(x);                            \
      }                                          \
    }                                            \
  }

MXFFI_FLOAT_UNARY_FUNCTOR(SqrtOp, std::sqrt, cx::sqrt);
MXFFI_FLOAT_UNARY_FUNCTOR(ExpOp, std::exp, cx::exp);
MXFFI_FLOAT_UNARY_FUNCTOR(LogOp, std::log, cx::log);
// [sin_functor.begin]
MXFFI_FLOAT_UNARY_FUNCTOR(SinOp, std::sin, cx::sin);
// [sin_functor.end]

/*! \brief The input converted to the output's dtype (the _cast op's kernel on the GPU). */
struct IdentityOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    return x;
  }
};

/*!
 * \brief a*x**2 + b*x + c, the coefficients converted to A and every product and sum rounded:
 *  ((a*x)*x + b*x) + c.
 */
struct QuadraticOp {
  static constexpr int64_t kCost = 3;
  double a, b, c;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_integral_v<T>;
  }
  template <typename A>
  MXFFI_XINLINE A operator()(A x) const {
    const A ca = static_cast<A>(a), cb = static_cast<A>(b), cc = static_cast<A>(c);
    return AddRn(AddRn(MulRn(MulRn(ca, x), x), MulRn(cb, x)), cc);
  }
};

}  // namespace elemwise
}  // namespace op
}  // namespace mxffi

// The further unary math functors (cos ... log10, reciprocal, floor, ceil, trunc, round).
#include "math_functors.h"  // NOLINT(build/include_order): needs the definitions above

#endif  // MXFFI_SRC_OP_ELEMWISE_FUNCTORS_H_
