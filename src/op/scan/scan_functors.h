/*!
 * \file scan_functors.h
 * \brief The running sum and product of the cumulative ops, written once for the CPU kernel
 *  (scan_op.cc) and the CUDA one (scan.cu): g++ and nvcc compile it, and it needs nothing of
 *  the op layer.
 *
 * numpy's add.accumulate and multiply.accumulate compute in the result dtype: each element is
 * converted to it (astype's unsafe conversion), and each partial result is stored in it, so a
 * float16 running sum rounds at every step and an integer one wraps. Complex products multiply
 * as numpy's loop does (the plain formula).
 */
#ifndef MXFFI_SRC_OP_SCAN_SCAN_FUNCTORS_H_
#define MXFFI_SRC_OP_SCAN_SCAN_FUNCTORS_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <type_traits>

#include "../cast.h"
#include "../half.h"
#include "../xinline.h"

namespace mxffi {
namespace op {
namespace scan {

/*! \brief Which running result: the sum (cumulative_sum) or the product (cumulative_prod). */
enum ScanKind : int { kSum = 0, kProd = 1 };

/*!
 * \brief a + b (kSum) or a * b (kProd) in T. Integers wrap (computed in an unsigned type at
 *  least 32 bits wide, where C++ defines overflow); bool is logical or / and, as numpy's bool
 *  loops; the 16-bit floats compute in float and round to T.
 */
template <int kKind, typename T>
MXFFI_XINLINE T Combine(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return kKind == kSum ? (a || b) : (a && b);
  } else if constexpr (std::is_integral_v<T>) {
    using W = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
    return static_cast<T>(kKind == kSum ? static_cast<W>(static_cast<W>(a) + static_cast<W>(b))
                                        : static_cast<W>(static_cast<W>(a) * static_cast<W>(b)));
  } else if constexpr (kIsHalf<T>) {
    const float fa = static_cast<float>(a), fb = static_cast<float>(b);
    return T(kKind == kSum ? fa + fb : fa * fb);
  } else if constexpr (kHasRealPart<T>) {
    // numpy's complex multiply: the plain formula, no C99 Annex G recovery of infinities.
    if constexpr (kKind == kSum) return a + b;
    return T(a.real() * b.real() - a.imag() * b.imag(),
             a.real() * b.imag() + a.imag() * b.real());
  } else {
    return kKind == kSum ? a + b : a * b;
  }
}

/*! \return the identity of kKind in T: 0 for the sum, 1 for the product. */
template <int kKind, typename T>
MXFFI_XINLINE T Identity() {
  return FromAcc<T>(kKind == kSum ? 0 : 1);
}

/*!
 * \brief One line of the scan: out[k * step] = x[0] op ... op x[k] for k in [0, len), each x
 *  converted to O; with include_initial the identity comes first and the rest one step later.
 */
template <int kKind, typename O, typename I>
MXFFI_XINLINE void ScanLine(const I* x, O* out, int64_t len, int64_t step, bool include_initial) {
  if (include_initial) {
    *out = Identity<kKind, O>();
    out += step;
  }
  if (len == 0) return;
  // The first result is x[0] itself, as numpy's accumulate copies it: combining it with the
  // identity would change a complex infinity (1 * (inf + 0j) is inf + nanj).
  O acc = CastOne<O, I>(x[0]);
  out[0] = acc;
  for (int64_t k = 1; k < len; ++k) {
    acc = Combine<kKind, O>(acc, CastOne<O, I>(x[k * step]));
    out[k * step] = acc;
  }
}

/*!
 * \return whether the kernels scan an input of dtype in into a result of dtype out: the same
 *  dtype, or numpy's default widening of bool and the narrower integers (to int64 for bool and
 *  signed ones, to uint64 for unsigned ones). Any other pair is converted to the result dtype
 *  first.
 */
inline bool ScanPairSupported(DLDataType in, DLDataType out) {
  if (in.lanes != 1 || out.lanes != 1) return false;
  if (in.code == out.code && in.bits == out.bits) return true;
  if (out.code == kDLInt && out.bits == 64) {
    return in.code == kDLBool || (in.code == kDLInt && in.bits < 64);
  }
  if (out.code == kDLUInt && out.bits == 64) return in.code == kDLUInt && in.bits < 64;
  return false;
}

/*!
 * \brief f(I{}, O{}) for a supported pair whose result type is O: I is O, or one of the
 *  narrower inputs ScanPairSupported lets widen to it. Returns false for any other input.
 */
template <typename O, typename F>
inline bool ScanInputSwitch(DLDataType in, F&& f) {
  if constexpr (std::is_same_v<O, int64_t>) {
    if (in.code == kDLBool) return f(bool{}, O{}), true;
    if (in.code == kDLInt && in.bits == 8) return f(int8_t{}, O{}), true;
    if (in.code == kDLInt && in.bits == 16) return f(int16_t{}, O{}), true;
    if (in.code == kDLInt && in.bits == 32) return f(int32_t{}, O{}), true;
  } else if constexpr (std::is_same_v<O, uint64_t>) {
    if (in.code == kDLUInt && in.bits == 8) return f(uint8_t{}, O{}), true;
    if (in.code == kDLUInt && in.bits == 16) return f(uint16_t{}, O{}), true;
    if (in.code == kDLUInt && in.bits == 32) return f(uint32_t{}, O{}), true;
  }
  return false;
}

}  // namespace scan
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SCAN_SCAN_FUNCTORS_H_
