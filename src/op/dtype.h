/*!
 * \file dtype.h
 * \brief Element types for kernels: float16 and bfloat16 storage types, and MXFFI_TYPE_SWITCH
 *  to turn a DLDataType into a C++ type.
 *
 * float16 and bfloat16 compute in float32 and round to nearest even on store, as numpy and
 * ml_dtypes do, so one operation gives the same bits as theirs.
 */
#ifndef MXFFI_SRC_OP_DTYPE_H_
#define MXFFI_SRC_OP_DTYPE_H_

#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>

#include <cstdint>
#include <cstring>

namespace mxffi {
namespace op {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/*! \brief IEEE binary16, stored as its bits. */
struct half_t {
  uint16_t bits;

  half_t() = default;
  half_t(float f) : bits(FromFloat(f)) {}              // NOLINT(runtime/explicit)
  half_t(double f) : half_t(static_cast<float>(f)) {}  // NOLINT(runtime/explicit)
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
  half_t(I i) : half_t(static_cast<float>(i)) {}    // NOLINT(runtime/explicit)
  operator float() const { return ToFloat(bits); }  // NOLINT(runtime/explicit)

  static uint16_t FromFloat(float f) {
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
  }
  static float ToFloat(uint16_t h) {
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
  }
};

/*! \brief bfloat16: the top half of a float32, rounded to nearest even. */
struct bf16_t {
  uint16_t bits;

  bf16_t() = default;
  bf16_t(float f) : bits(FromFloat(f)) {}              // NOLINT(runtime/explicit)
  bf16_t(double f) : bf16_t(static_cast<float>(f)) {}  // NOLINT(runtime/explicit)
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
  bf16_t(I i) : bf16_t(static_cast<float>(i)) {}  // NOLINT(runtime/explicit)
  operator float() const { return BitsFloat(static_cast<uint32_t>(bits) << 16); }  // NOLINT

  static uint16_t FromFloat(float f) {
    uint32_t x = FloatBits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
    uint32_t lsb = (x >> 16) & 1u;
    return static_cast<uint16_t>((x + 0x7fffu + lsb) >> 16);
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

/*! \return the first element of t as T* (data plus byte_offset). */
template <typename T>
inline T* DataPtr(const DLTensor& t) {
  return reinterpret_cast<T*>(static_cast<char*>(t.data) + t.byte_offset);
}

/*! \return the number of elements of t. */
inline int64_t NumElements(const DLTensor& t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

/*! \brief Whether two dtypes are the same (lanes included). */
inline bool SameDType(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

}  // namespace op
}  // namespace mxffi

#define MXFFI_TYPE_CASE_(Code, Bits, CType, DType, ...) \
  case ((Code) << 8 | (Bits)): {                        \
    using DType = CType;                                \
    { __VA_ARGS__ }                                     \
  } break;

/*!
 * \brief Run the body with DType bound to the C++ type of dtype (every supported dtype).
 *  TypeError naming fname for any other.
 */
#define MXFFI_TYPE_SWITCH(dtype, fname, DType, ...)                                     \
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
      default:                                                                          \
        MXFFI_THROW(TypeError) << (fname) << ": unsupported dtype "                     \
                               << ::mxffi::DataTypeToString(mxffi_sw_t_);               \
    }                                                                                   \
  } while (0)

#endif  // MXFFI_SRC_OP_DTYPE_H_
