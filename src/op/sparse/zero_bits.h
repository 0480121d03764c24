/*!
 * \file zero_bits.h
 * \brief How cast_storage tells a stored value from a zero on both devices (cast_storage.cc,
 *  cast_storage.cu): by its bits, with no float comparison. Compiled by g++ and nvcc.
 */
#ifndef MXFFI_SRC_OP_SPARSE_ZERO_BITS_H_
#define MXFFI_SRC_OP_SPARSE_ZERO_BITS_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../half.h"

namespace mxffi {
namespace op {

/*!
 * \brief How a value's bits tell a zero: U is the unsigned integer as wide as T, kMask the bits
 *  that must all be clear. All of them for integers and bool; all but the sign for floats, so
 *  -0.0 is a zero and a NaN (which has mantissa bits) is not, exactly as v != 0.
 */
template <typename T>
struct ZeroBits {
  static constexpr bool kFloat = std::is_floating_point_v<T> || kIsHalf<T>;
  using U = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t,
                         std::conditional_t<sizeof(T) == 4, uint32_t, unsigned long long>>>;
  static_assert(sizeof(T) == sizeof(U), "a value type without a same-size unsigned integer");
  static constexpr U kAll = static_cast<U>(~U(0));
  static constexpr U kMask = kFloat ? static_cast<U>(kAll >> 1) : kAll;
  /*! \return the bits of *p that tell whether it is a zero (all clear: it is). */
  static U Get(const T* p) {
    U b;
    std::memcpy(&b, p, sizeof(U));
    return static_cast<U>(b & kMask);
  }
};

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_ZERO_BITS_H_
