/*!
 * \file complex.h
 * \brief The complex element types of the kernels (complex64, complex128) for both devices, and
 *  MXFFI_TYPE_SWITCH_WITH_COMPLEX, the dtype switch of the ops that compute in complex.
 *
 * `op::complex<T>` is std::complex<T> where g++ compiles (the CPU kernels) and
 * cuda::std::complex<T> (libcu++) where nvcc does, on its host and device passes alike, so a
 * kernel names one type. Both are two T, real part first (numpy's and DLPack's layout); the
 * kernels exchange complex data only through memory, never a complex value across the two
 * compilers. Their transcendental functions (exp, log, sqrt, the trigonometric and hyperbolic
 * functions and their inverses) follow C99 Annex G for infinities, NaNs, signed zeros and
 * branch cuts, which the array API standard's special cases follow; the few functions the
 * libraries lack (expm1, log1p, log2) are written here from theirs as numpy writes them. The
 * functions are reached through `op::cx::` (std:: or cuda::std::), which also holds the real
 * overloads, so a functor calls cx::sqrt(x) for either kind of x.
 */
#ifndef MXFFI_SRC_OP_COMPLEX_H_
#define MXFFI_SRC_OP_COMPLEX_H_

#include <cmath>
#include <type_traits>

#if defined(__CUDACC__)
#include <cuda/std/complex>
#else
#include <complex>
#endif

#include "type_switch.h"
#include "xinline.h"

namespace mxffi {
namespace op {

#if defined(__CUDACC__)
template <typename T>
using complex = ::cuda::std::complex<T>;
#else
template <typename T>
using complex = ::std::complex<T>;
#endif

/*! \brief The real and complex math functions, for a real or a complex argument. */
namespace cx {
#if defined(__CUDACC__)
using ::cuda::std::abs;
using ::cuda::std::acos;
using ::cuda::std::acosh;
using ::cuda::std::arg;
using ::cuda::std::asin;
using ::cuda::std::asinh;
using ::cuda::std::atan;
using ::cuda::std::atanh;
using ::cuda::std::conj;
using ::cuda::std::cos;
using ::cuda::std::cosh;
using ::cuda::std::exp;
using ::cuda::std::log;
using ::cuda::std::log10;
using ::cuda::std::pow;
using ::cuda::std::sin;
using ::cuda::std::sinh;
using ::cuda::std::sqrt;
using ::cuda::std::tan;
using ::cuda::std::tanh;
#else
using ::std::abs;
using ::std::acos;
using ::std::acosh;
using ::std::arg;
using ::std::asin;
using ::std::asinh;
using ::std::atan;
using ::std::atanh;
using ::std::conj;
using ::std::cos;
using ::std::cosh;
using ::std::exp;
using ::std::log;
using ::std::log10;
using ::std::pow;
using ::std::sin;
using ::std::sinh;
using ::std::sqrt;
using ::std::tan;
using ::std::tanh;
#endif
}  // namespace cx

/*! \brief Whether T is complex<float> or complex<double>. */
template <typename T>
constexpr bool kIsComplex = false;
template <typename T>
constexpr bool kIsComplex<complex<T>> = true;

/*! \brief The real type of T's parts: T itself for a real T. */
template <typename T>
struct RealOf {
  using type = T;
};
template <typename T>
struct RealOf<complex<T>> {
  using type = T;
};
template <typename T>
using RealT = typename RealOf<T>::type;

/*! \return whether x is NaN, for a real or a complex x (either part NaN). */
template <typename A>
MXFFI_XINLINE bool AnyNan(A x) {
  if constexpr (kIsComplex<A>) {
    return x.real() != x.real() || x.imag() != x.imag();
  } else {
    return x != x;
  }
}

/*!
 * \return e**z - 1 (numpy's nc_expm1: the real part as expm1(x) cos(y) - 2 sin(y/2)**2, exact
 *  near 0).
 */
template <typename R>
MXFFI_XINLINE complex<R> ComplexExpm1(complex<R> z) {
  const R x = z.real(), y = z.imag();
  if (!(std::isfinite(x) && std::isfinite(y))) return cx::exp(z) - complex<R>(R(1));
  // e**(+-0 + 0j) - 1 is +0 + 0j (the array API's special case; the formula below gives -0 for
  // a real part of -0).
  if (x == R(0) && y == R(0)) return complex<R>(R(0), y);
  const R h = std::sin(y / R(2));
  return complex<R>(std::expm1(x) * std::cos(y) - R(2) * h * h, std::exp(x) * std::sin(y));
}

/*! \return log(1 + z) (numpy's nc_log1p: log|1 + z| + i arg(1 + z)). */
template <typename R>
MXFFI_XINLINE complex<R> ComplexLog1p(complex<R> z) {
  const R x = z.real(), y = z.imag();
  // (x + 1, y), not z + 1: adding (1, +0) would turn an imaginary -0 into +0.
  if (!(std::isfinite(x) && std::isfinite(y))) return cx::log(complex<R>(x + R(1), y));
  if (std::fabs(x) < R(0.5) && std::fabs(y) < R(0.5)) {
    // |1 + z|**2 = 1 + (2x + x**2 + y**2): log1p keeps the small part exact.
    return complex<R>(std::log1p(x * (R(2) + x) + y * y) / R(2), std::atan2(y, R(1) + x));
  }
  return cx::log(complex<R>(R(1) + x, y));
}

/*!
 * \return tanh(z), the library's, except that an infinite real part with a finite imaginary
 *  part gives +-1 + 0j with the zero signed as the imaginary part (the array API standard's
 *  special case; C99's ctanh signs that zero as sin(2y)).
 */
template <typename R>
MXFFI_XINLINE complex<R> ComplexTanh(complex<R> z) {
  const R x = z.real(), y = z.imag();
  if (std::isinf(x) && std::isfinite(y)) {
    return complex<R>(std::copysign(R(1), x), std::copysign(R(0), y));
  }
  return cx::tanh(z);
}

/*! \return log2(z) = log(z) / log(2), both parts. */
template <typename R>
MXFFI_XINLINE complex<R> ComplexLog2(complex<R> z) {
  const complex<R> l = cx::log(z);
  const R inv_ln2 = R(1.442695040888963407359924681001892137);
  return complex<R>(l.real() * inv_ln2, l.imag() * inv_ln2);
}

}  // namespace op
}  // namespace mxffi

#define MXFFI_COMPLEX_CASES_(DType, ...)                                            \
  MXFFI_TYPE_CASE_(kDLComplex, 64, ::mxffi::op::complex<float>, DType, __VA_ARGS__) \
  MXFFI_TYPE_CASE_(kDLComplex, 128, ::mxffi::op::complex<double>, DType, __VA_ARGS__)

/*!
 * \brief MXFFI_TYPE_SWITCH with complex64 and complex128 too (as op::complex<float> and
 *  op::complex<double>): the switch of the ops that compute in complex, so that the others
 *  keep refusing complex with their TypeError and compile no complex kernels.
 */
#define MXFFI_TYPE_SWITCH_WITH_COMPLEX(dtype, fname, DType, ...)                        \
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
      MXFFI_COMPLEX_CASES_(DType, __VA_ARGS__)                                          \
      default:                                                                          \
        ::mxffi::op::ThrowUnsupportedDType((fname), mxffi_sw_t_);                       \
    }                                                                                   \
  } while (0)

#endif  // MXFFI_SRC_OP_COMPLEX_H_
