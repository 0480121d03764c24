/*!
 * \file cast.h
 * \brief The two element conversions of the kernels, for both devices: ConvertOne (how a
 *  ufunc's loop reads an input of another dtype, and how a result is stored) and CastOne
 *  (numpy's astype: the _cast op). Compiled by g++ and nvcc.
 */
#ifndef MXFFI_SRC_OP_CAST_H_
#define MXFFI_SRC_OP_CAST_H_

#include <cstdint>
#include <type_traits>
#include <utility>

#include "half.h"
#include "xinline.h"

namespace mxffi {
namespace op {

/*!
 * \brief Whether T is a complex element type (complex.h's op::complex<float> or <double>),
 *  known by its real() member, so that this header needs no <complex>.
 */
template <typename T, typename = void>
constexpr bool kHasRealPart = false;
template <typename T>
constexpr bool kHasRealPart<T, std::void_t<decltype(std::declval<T>().real())>> = true;

/*!
 * \brief One element converted as a ufunc's input cast does: through From's accumulation type,
 *  the 16-bit floats rounded from float32 (a double through float32 first), bool as v != 0,
 *  any other pair a C++ conversion. The loops never convert a float to an integer (numpy's
 *  promotion never asks for it), so C++'s rules there are never met. Complex: a real value
 *  becomes the real part (the imaginary part 0), complex64 and complex128 convert part by part,
 *  a complex value to bool is whether either part is nonzero, and to any other real type it is
 *  its real part converted (numpy's astype, which warns that the imaginary part is dropped).
 */
template <typename To, typename From>
MXFFI_XINLINE To ConvertOne(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kHasRealPart<From>) {
    if constexpr (kHasRealPart<To>) {
      using R = std::decay_t<decltype(std::declval<To>().real())>;
      return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    } else if constexpr (std::is_same_v<To, bool>) {
      return v.real() != 0 || v.imag() != 0;
    } else {
      return ConvertOne<To>(v.real());
    }
  } else if constexpr (kHasRealPart<To>) {
    using R = std::decay_t<decltype(std::declval<To>().real())>;
    return To(static_cast<R>(ToAcc(v)), R(0));
  } else {
    return FromAcc<To>(ToAcc(v));
  }
}

/*!
 * \brief One element converted as numpy's astype does (unsafe casting): ConvertOne, except a
 *  float to an integer, which goes through int64 with what x86 numpy gives where C++ leaves it
 *  undefined: out of range and NaN give INT64_MIN, truncated to To.
 */
template <typename To, typename From>
MXFFI_XINLINE To CastOne(From v) {
  if constexpr (kHasRealPart<From> && !kHasRealPart<To> && !std::is_same_v<To, bool>) {
    return CastOne<To>(v.real());  // numpy's astype drops the imaginary part
  } else if constexpr (std::is_integral_v<To> && !std::is_same_v<To, bool> &&
                       !std::is_integral_v<From>) {
    const double d = static_cast<double>(ToAcc(v));
    if (!(d >= -9.2233720368547758e18 && d < 9.2233720368547758e18)) {
      return static_cast<To>(static_cast<uint64_t>(1) << 63);
    }
    return static_cast<To>(static_cast<int64_t>(d));
  } else {
    return ConvertOne<To>(v);
  }
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_CAST_H_
