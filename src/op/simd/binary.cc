/*!
 * \file binary.cc
 * \brief The vectorized binary kernels of simd.h (add, subtract, multiply, divide, maximum,
 *  minimum), compiled once per instruction set by Highway's foreach_target.
 */
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "op/simd/binary.cc"
// clang-format off: foreach_target.h must come first; it includes this file once per target.
#include <hwy/foreach_target.h>  // NOLINT(build/include)
// clang-format on

#include <hwy/highway.h>

#include "op/simd/loops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mxffi {
namespace op {
namespace simd {
namespace HWY_NAMESPACE {

struct AddFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::Add(a, b);
  }
};
struct SubtractFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::Sub(a, b);
  }
};
struct MultiplyFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::Mul(a, b);
  }
};
struct DivideFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::Div(a, b);
  }
};
/*! \brief (isnan(a) || a > b) ? a : b: the scalar maximum of elemwise, lane by lane (x86's
 *  max instructions return b for any NaN, so they are not used). */
struct MaximumFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::Gt(a, b)), a, b);
  }
};
struct MinimumFn {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::Lt(a, b)), a, b);
  }
};

#define MXFFI_SIMD_BINARY(Name, Fn)                                          \
  void Name##F32(const float* a, const float* b, float* out, int64_t n) {    \
    MapBinary(hn::ScalableTag<float>(), a, b, out, n, Fn());                 \
  }                                                                          \
  void Name##F64(const double* a, const double* b, double* out, int64_t n) { \
    MapBinary(hn::ScalableTag<double>(), a, b, out, n, Fn());                \
  }

MXFFI_SIMD_BINARY(Add, AddFn)
MXFFI_SIMD_BINARY(Subtract, SubtractFn)
MXFFI_SIMD_BINARY(Multiply, MultiplyFn)
MXFFI_SIMD_BINARY(Divide, DivideFn)
MXFFI_SIMD_BINARY(Maximum, MaximumFn)
MXFFI_SIMD_BINARY(Minimum, MinimumFn)
#undef MXFFI_SIMD_BINARY

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

#define MXFFI_SIMD_BINARY_EXPORT(Name)                                  \
  HWY_EXPORT(Name##F32);                                                \
  HWY_EXPORT(Name##F64);                                                \
  void Name(const float* a, const float* b, float* out, int64_t n) {    \
    MXFFI_SIMD_CALL(Name##F32)(a, b, out, n);                           \
  }                                                                     \
  void Name(const double* a, const double* b, double* out, int64_t n) { \
    MXFFI_SIMD_CALL(Name##F64)(a, b, out, n);                           \
  }

MXFFI_SIMD_BINARY_EXPORT(Add)
MXFFI_SIMD_BINARY_EXPORT(Subtract)
MXFFI_SIMD_BINARY_EXPORT(Multiply)
MXFFI_SIMD_BINARY_EXPORT(Divide)
MXFFI_SIMD_BINARY_EXPORT(Maximum)
MXFFI_SIMD_BINARY_EXPORT(Minimum)
#undef MXFFI_SIMD_BINARY_EXPORT

}  // namespace simd
}  // namespace op
}  // namespace mxffi
#endif  // HWY_ONCE
