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

#include "half.h"
#include "xinline.h"

namespace mxffi {
namespace op {

/*!
 * \brief One element converted as a ufunc's input cast does: through From's accumulation type,
 *  the 16-bit floats rounded from float32 (a double through float32 first), bool as v != 0,
 *  any other pair a C++ conversion. The loops never convert a float to an integer (numpy's
 *  promotion never asks for it), so C++'s rules there are never met.
 */
template <typename To, typename From>
MXFFI_XINLINE To ConvertOne(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
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
  if constexpr (std::is_integral_v<To> && !std::is_same_v<To, bool> && !std::is_integral_v<From>) {
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
