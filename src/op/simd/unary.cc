/*!
 * \file unary.cc
 * \brief The vectorized unary kernels of simd.h (exp, sqrt, negative, absolute, square, sign,
 *  relu, floor, ceil, trunc),
 *  compiled once per instruction set by Highway's foreach_target.
 */
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "op/simd/unary.cc"
// clang-format off: foreach_target.h must come first; it includes this file once per target.
#include <hwy/foreach_target.h>  // NOLINT(build/include)
// clang-format on

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "op/simd/loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mxffi {
namespace op {
namespace simd {
namespace HWY_NAMESPACE {

/*!
 * \brief Highway's exp (1 ulp) made total: it is defined for x up to about 104 (float) or 706
 *  (double) and gives 0 for NaN, so inputs past the overflow bound give +inf and NaN stays NaN.
 *  Below the underflow bound (and at -inf) it gives +0 itself.
 */
struct ExpFn {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    using T = hn::TFromD<D>;
    // Above log(max finite) the result overflows; the bound leaves Highway's 2^q scaling in
    // range, and exp between log(max) and the bound overflows to inf on its own.
    const V kOverflow = hn::Set(d, static_cast<T>(sizeof(T) == 4 ? 88.75 : 709.8));
    V y = hn::Exp(d, x);
    y = hn::IfThenElse(hn::Gt(x, kOverflow), hn::Inf(d), y);
    return hn::IfThenElse(hn::IsNaN(x), hn::Add(x, x), y);  // x + x: the NaN, quieted
  }
};

struct SqrtFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const {
    return hn::Sqrt(x);
  }
};

struct NegativeFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const {
    return hn::Neg(x);
  }
};

struct AbsoluteFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const {
    return hn::Abs(x);
  }
};

struct SquareFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const {
    return hn::Mul(x, x);
  }
};

/*! \brief numpy's sign: 1, -1, +0 for either zero, NaN itself. */
struct SignFn {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V zero = hn::Zero(d), one = hn::Set(d, hn::TFromD<D>(1));
    const V nonpositive = hn::IfThenElse(hn::Eq(x, zero), zero, x);  // NaN stays
    return hn::IfThenElse(hn::Gt(x, zero), one,
                          hn::IfThenElse(hn::Lt(x, zero), hn::Neg(one), nonpositive));
  }
};

struct ReluFn {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return hn::IfThenElseZero(hn::Or(hn::Gt(x, hn::Zero(d)), hn::IsNaN(x)), x);
  }
};

struct FloorFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const {
    return hn::Floor(x);
  }
};

struct CeilFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const {
    return hn::Ceil(x);
  }
};

struct TruncFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const {
    return hn::Trunc(x);
  }
};

#define MXFFI_SIMD_UNARY(Name, Fn)                        \
  void Name##F32(const float* x, float* y, int64_t n) {   \
    MapUnary(hn::ScalableTag<float>(), x, y, n, Fn());    \
  }                                                       \
  void Name##F64(const double* x, double* y, int64_t n) { \
    MapUnary(hn::ScalableTag<double>(), x, y, n, Fn());   \
  }

MXFFI_SIMD_UNARY(Exp, ExpFn)
MXFFI_SIMD_UNARY(Sqrt, SqrtFn)
MXFFI_SIMD_UNARY(Negative, NegativeFn)
MXFFI_SIMD_UNARY(Absolute, AbsoluteFn)
MXFFI_SIMD_UNARY(Square, SquareFn)
MXFFI_SIMD_UNARY(Sign, SignFn)
MXFFI_SIMD_UNARY(Relu, ReluFn)
MXFFI_SIMD_UNARY(Floor, FloorFn)
MXFFI_SIMD_UNARY(Ceil, CeilFn)
MXFFI_SIMD_UNARY(Trunc, TruncFn)
#undef MXFFI_SIMD_UNARY

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace op
}  // namespace mxffi
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "op/simd/dispatch.h"
#include "op/simd/simd.h"

namespace mxffi {
namespace op {
namespace simd {

#define MXFFI_SIMD_UNARY_EXPORT(Name)                                                     \
  HWY_EXPORT(Name##F32);                                                                  \
  HWY_EXPORT(Name##F64);                                                                  \
  void Name(const float* x, float* y, int64_t n) { MXFFI_SIMD_CALL(Name##F32)(x, y, n); } \
  void Name(const double* x, double* y, int64_t n) { MXFFI_SIMD_CALL(Name##F64)(x, y, n); }

MXFFI_SIMD_UNARY_EXPORT(Exp)
MXFFI_SIMD_UNARY_EXPORT(Sqrt)
MXFFI_SIMD_UNARY_EXPORT(Negative)
MXFFI_SIMD_UNARY_EXPORT(Absolute)
MXFFI_SIMD_UNARY_EXPORT(Square)
MXFFI_SIMD_UNARY_EXPORT(Sign)
MXFFI_SIMD_UNARY_EXPORT(Relu)
MXFFI_SIMD_UNARY_EXPORT(Floor)
MXFFI_SIMD_UNARY_EXPORT(Ceil)
MXFFI_SIMD_UNARY_EXPORT(Trunc)
#undef MXFFI_SIMD_UNARY_EXPORT

}  // namespace simd
}  // namespace op
}  // namespace mxffi
#endif  // HWY_ONCE
