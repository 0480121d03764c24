/*!
 * \file half.h
 * \brief The element types of the kernels on both devices: float16 and bfloat16 storage types
 *  (half_t, bf16_t), the type arithmetic on each dtype is done in (AccType), and the widening
 *  and rounding between the two (ToAcc, FromAcc). Compiled by g++ and nvcc; includes nothing
 *  of the op layer.
 *
 * float16 and bfloat16 compute in float32 and round to nearest even on store, as numpy and
 * ml_dtypes do, so one operation gives the same bits as theirs. On the host the conversions are
 * done in integer arithmetic; in CUDA device code by the hardware's conversions (__half2float,
 * __float2half_rn, ...), which round the same way. The one place they differ is a NaN's payload
 * when rounding a float NaN to the 16-bit types: the host keeps its top bits (quieted), the
 * device gives its canonical NaN; both are NaN.
 */
#ifndef MXFFI_SRC_OP_HALF_H_
#define MXFFI_SRC_OP_HALF_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "xinline.h"

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

namespace mxffi {
namespace op {

/*! \return the bits of f. */
MXFFI_XINLINE uint32_t FloatBits(float f) {
#if MXFFI_DEVICE_CODE
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}

/*! \return the float whose bits are u. */
MXFFI_XINLINE float BitsFloat(uint32_t u) {
#if MXFFI_DEVICE_CODE
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

/*! \brief IEEE binary16, stored as its bits. */
struct half_t {
  uint16_t bits;

  half_t() = default;
  MXFFI_XINLINE half_t(float f) : bits(FromFloat(f)) {}              // NOLINT(runtime/explicit)
  MXFFI_XINLINE half_t(double f) : half_t(static_cast<float>(f)) {}  // NOLINT(runtime/explicit)
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
  MXFFI_XINLINE half_t(I i) : half_t(static_cast<float>(i)) {}    // NOLINT(runtime/explicit)
  MXFFI_XINLINE operator float() const { return ToFloat(bits); }  // NOLINT(runtime/explicit)

  /*! \return f rounded to nearest even, as binary16 bits. */
  static MXFFI_XINLINE uint16_t FromFloat(float f) {
#if MXFFI_DEVICE_CODE
    return __half_as_ushort(__float2half_rn(f));
#else
    uint32_t x = FloatBits(f);
    uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // inf or nan
      return sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u | ((abs >> 13) & 0x3ffu) : 0u);
    }
    if (abs >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: overflow to inf
    if (abs < 0x38800000u) {                        // below the smallest normal half: subnormal
      if (abs < 0x33000000u) return sign;           // rounds to zero
      uint32_t e = abs >> 23;
      uint32_t m = (abs & 0x7fffffu) | 0x800000u;
      uint32_t shift = 126 - e;  // 14 + (112 - e) ... bits dropped to reach the 2^-24 unit
      uint32_t half_m = m >> shift;
      uint32_t rem = m & ((1u << shift) - 1);
      uint32_t halfway = 1u << (shift - 1);
      if (rem > halfway || (rem == halfway && (half_m & 1u))) ++half_m;
      return sign | static_cast<uint16_t>(half_m);
    }
    uint32_t h = ((abs - 0x38000000u) >> 13);  // rebias exponent 127 -> 15
    uint32_t rem = abs & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
    return sign | static_cast<uint16_t>(h);
#endif
  }
  /*! \return the binary16 value with bits h, exactly, as a float. */
  static MXFFI_XINLINE float ToFloat(uint16_t h) {
#if MXFFI_DEVICE_CODE
    return __half2float(__ushort_as_half(h));
#else
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu;
    if (e == 0x1f) return BitsFloat(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
      if (m == 0) return BitsFloat(sign);
      // subnormal: m * 2^-24
      float v = static_cast<float>(m) * 5.9604644775390625e-08f;
      return sign ? -v : v;
    }
    return BitsFloat(sign | ((e + 112) << 23) | (m << 13));
#endif
  }
};

/*! \brief bfloat16: the top half of a float32, rounded to nearest even. */
struct bf16_t {
  uint16_t bits;

  bf16_t() = default;
  MXFFI_XINLINE bf16_t(float f) : bits(FromFloat(f)) {}              // NOLINT(runtime/explicit)
  MXFFI_XINLINE bf16_t(double f) : bf16_t(static_cast<float>(f)) {}  // NOLINT(runtime/explicit)
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
  MXFFI_XINLINE bf16_t(I i) : bf16_t(static_cast<float>(i)) {}  // NOLINT(runtime/explicit)
  MXFFI_XINLINE operator float() const {                        // NOLINT(runtime/explicit)
#if MXFFI_DEVICE_CODE
    return __bfloat162float(__ushort_as_bfloat16(bits));
#else
    return BitsFloat(static_cast<uint32_t>(bits) << 16);
#endif
  }

  /*! \return f rounded to nearest even, as bfloat16 bits. */
  static MXFFI_XINLINE uint16_t FromFloat(float f) {
#if MXFFI_DEVICE_CODE
    return __bfloat16_as_ushort(__float2bfloat16_rn(f));
#else
    uint32_t x = FloatBits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
    uint32_t lsb = (x >> 16) & 1u;
    return static_cast<uint16_t>((x + 0x7fffu + lsb) >> 16);
#endif
  }
};

/*! \brief The type arithmetic on T is done in: float for the 16-bit floats, T otherwise. */
template <typename T>
struct AccType {
  using type = T;
};
template <>
struct AccType<half_t> {
  using type = float;
};
template <>
struct AccType<bf16_t> {
  using type = float;
};
template <typename T>
using AccT = typename AccType<T>::type;

/*! \brief Whether T is one of the 16-bit float storage types. */
template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, half_t> || std::is_same_v<T, bf16_t>;

/*! \return v widened to its accumulation type (the 16-bit floats to float, exactly). */
template <typename T>
MXFFI_XINLINE AccT<T> ToAcc(T v) {
  if constexpr (kIsHalf<T>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}

/*!
 * \return v (an accumulation-type value) stored as T: rounded to nearest even for the 16-bit
 *  floats (a double through float), v != 0 for bool, a C++ conversion otherwise.
 */
template <typename T, typename A>
MXFFI_XINLINE T FromAcc(A v) {
  if constexpr (kIsHalf<T>) {
    return T(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != A(0);
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_HALF_H_
