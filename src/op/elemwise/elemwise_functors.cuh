/*!
 * \file elemwise_functors.cuh
 * \brief The device value functions of the elementwise ops and the conversions their kernels read
 *  inputs with, each the CUDA twin of a CPU functor (src/op/elemwise/functors.h, binary_op.cc,
 *  unary_op.cc, quadratic_op.cc, init/init_op.cc's CastOne), so one op gives the CPU kernel's
 *  bits: integers wrap (arithmetic done in unsigned types), halves compute in float32 and round
 *  to nearest even once on store, maximum and minimum propagate NaN. nvcc only.
 *
 * nvcc contracts a*b + c into one fused multiply-add, which rounds once where the CPU rounds
 * twice; the few functions that multiply and add (quadratic, arange) use the _rn intrinsics,
 * which are never contracted.
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_ELEMWISE_FUNCTORS_CUH_
#define MXFFI_SRC_OP_ELEMWISE_ELEMWISE_FUNCTORS_CUH_

#include <cstdint>
#include <type_traits>

#include "op/cuda_kernel.cuh"
#include "op/promote.h"

namespace mxffi {
namespace cuda {
namespace elemwise {

/*! \brief The unsigned type integer arithmetic on T wraps in (at least unsigned int). */
template <typename T>
using Wide = std::make_unsigned_t<decltype(T() + T())>;

/*! \brief Whether T is an integer type other than bool. */
template <typename T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/*! \brief a * b and a + b rounded separately (never fused into an fma by nvcc). */
__device__ __forceinline__ float MulRn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double MulRn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float AddRn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double AddRn(double a, double b) { return __dadd_rn(a, b); }

/*! \brief Dense index of a supported dtype (the promotion table's); the general kernels switch
 *  on it to read an input of another dtype. */
using op::DTypeIndex;

/*! \return element off of base (an array whose dtype has index code) converted to To. */
template <typename To>
__device__ __forceinline__ To LoadAs(const void* base, int64_t off, int code) {
#define MXFFI_LOAD_CASE_(I, From) \
  case I:                         \
    return CastOne<To>(static_cast<const From*>(base)[off]);
  switch (code) {
    MXFFI_LOAD_CASE_(0, bool)
    MXFFI_LOAD_CASE_(1, int8_t)
    MXFFI_LOAD_CASE_(2, int16_t)
    MXFFI_LOAD_CASE_(3, int32_t)
    MXFFI_LOAD_CASE_(4, int64_t)
    MXFFI_LOAD_CASE_(5, uint8_t)
    MXFFI_LOAD_CASE_(6, uint16_t)
    MXFFI_LOAD_CASE_(7, uint32_t)
    MXFFI_LOAD_CASE_(8, uint64_t)
    MXFFI_LOAD_CASE_(9, half_t)
    MXFFI_LOAD_CASE_(10, bf16_t)
    MXFFI_LOAD_CASE_(11, float)
    default:
      return CastOne<To>(static_cast<const double*>(base)[off]);
  }
#undef MXFFI_LOAD_CASE_
}

// ---- binary ---------------------------------------------------------------------------------
// Map(a, b) computes in the accumulation type A (float for the halves); Valid<T>() is the CPU
// functor's: whether a kernel computes in T (type inference never asks for the others).

struct AddOp {
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  __device__ static A Map(A a, A b) {
    if constexpr (std::is_same_v<A, bool>) {
      return a || b;
    } else if constexpr (kIsInt<A>) {
      return static_cast<A>(static_cast<Wide<A>>(a) + static_cast<Wide<A>>(b));
    } else {
      return a + b;
    }
  }
};

struct SubtractOp {
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  __device__ static A Map(A a, A b) {
    if constexpr (kIsInt<A>) {
      return static_cast<A>(static_cast<Wide<A>>(a) - static_cast<Wide<A>>(b));
    } else {
      return a - b;
    }
  }
};

struct MultiplyOp {
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  __device__ static A Map(A a, A b) {
    if constexpr (std::is_same_v<A, bool>) {
      return a && b;
    } else if constexpr (kIsInt<A>) {
      return static_cast<A>(static_cast<Wide<A>>(a) * static_cast<Wide<A>>(b));
    } else {
      return a * b;
    }
  }
};

struct DivideOp {
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_integral_v<T>;
  }
  template <typename A>
  __device__ static A Map(A a, A b) {
    return a / b;  // IEEE division: nvcc's default -prec-div=true
  }
};

struct PowerOp {
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  __device__ static A Map(A base, A exp) {
    if constexpr (kIsInt<A>) {
      // Square-and-multiply, wrapping; negative exponents were refused before the launch.
      if (exp == 0 || base == 1) return 1;
      Wide<A> b = static_cast<Wide<A>>(base);
      Wide<A> r = (exp & 1) ? b : Wide<A>(1);
      for (exp >>= 1; exp > 0; exp >>= 1) {
        b *= b;
        if (exp & 1) r *= b;
      }
      return static_cast<A>(r);
    } else if constexpr (std::is_same_v<A, float>) {
      return powf(base, exp);
    } else {
      return pow(base, exp);
    }
  }
};

struct MaximumOp {
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  __device__ static A Map(A a, A b) {
    if constexpr (std::is_floating_point_v<A>) {
      return (a != a || a > b) ? a : b;  // NaN wins; equal values give b, as numpy
    } else {
      return a > b ? a : b;
    }
  }
};

struct MinimumOp {
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  __device__ static A Map(A a, A b) {
    if constexpr (std::is_floating_point_v<A>) {
      return (a != a || a < b) ? a : b;
    } else {
      return a < b ? a : b;
    }
  }
};

// ---- unary ----------------------------------------------------------------------------------
// Objects, not static functions: quadratic carries its coefficients into the kernel.

struct NegativeOp {
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  __device__ A operator()(A x) const {
    if constexpr (kIsInt<A>) {
      return static_cast<A>(Wide<A>(0) - static_cast<Wide<A>>(x));
    } else {
      return -x;
    }
  }
};

struct AbsoluteOp {
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  __device__ A operator()(A x) const {
    if constexpr (std::is_floating_point_v<A>) {
      return fabs(x);
    } else if constexpr (kIsInt<A> && std::is_signed_v<A>) {
      return x < 0 ? static_cast<A>(Wide<A>(0) - static_cast<Wide<A>>(x)) : x;
    } else {
      return x;
    }
  }
};

struct SquareOp {
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  __device__ A operator()(A x) const {
    if constexpr (kIsInt<A>) {
      return static_cast<A>(static_cast<Wide<A>>(x) * static_cast<Wide<A>>(x));
    } else {
      return x * x;
    }
  }
};

/*! \brief numpy's sign: -1, 0 or 1 in x's dtype; NaN stays NaN, -0.0 gives 0.0. */
struct SignOp {
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;
  }
  template <typename A>
  __device__ A operator()(A x) const {
    if constexpr (std::is_floating_point_v<A>) {
      return x > 0 ? A(1) : x < 0 ? A(-1) : x == 0 ? A(0) : x;
    } else if constexpr (std::is_signed_v<A>) {
      return static_cast<A>((x > 0) - (x < 0));
    } else {
      return static_cast<A>(x > 0);
    }
  }
};

/*! \brief MXNet's relu, max(x, 0) in x's dtype; NaN stays NaN. */
struct ReluOp {
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  __device__ A operator()(A x) const {
    if constexpr (std::is_same_v<A, bool> || std::is_unsigned_v<A>) {
      return x;
    } else if constexpr (std::is_floating_point_v<A>) {
      return x > 0 || x != x ? x : A(0);
    } else {
      return x > 0 ? x : A(0);
    }
  }
};

/*! \brief sqrt, exp, log: float dtypes only (integer inputs were given a float result dtype). */
struct SqrtOp {
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_integral_v<T>;
  }
  template <typename A>
  __device__ A operator()(A x) const {
    return sqrt(x);  // correctly rounded: nvcc's default -prec-sqrt=true
  }
};
struct ExpOp {
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_integral_v<T>;
  }
  template <typename A>
  __device__ A operator()(A x) const {
    return exp(x);
  }
};
struct LogOp {
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_integral_v<T>;
  }
  template <typename A>
  __device__ A operator()(A x) const {
    return log(x);
  }
};

/*! \brief The input converted to the output's dtype (_cast). */
struct IdentityOp {
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  __device__ A operator()(A x) const {
    return x;
  }
};

/*! \brief a*x**2 + b*x + c with the coefficients in A, rounded after each step as the CPU. */
struct QuadraticOp {
  double a, b, c;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_integral_v<T>;
  }
  template <typename A>
  __device__ A operator()(A x) const {
    const A ca = static_cast<A>(a), cb = static_cast<A>(b), cc = static_cast<A>(c);
    return AddRn(AddRn(MulRn(MulRn(ca, x), x), MulRn(cb, x)), cc);
  }
};

}  // namespace elemwise
}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_ELEMWISE_ELEMWISE_FUNCTORS_CUH_
