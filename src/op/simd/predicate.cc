/*!
 * \file predicate.cc
 * \brief The vectorized kernels of simd.h with a bool result: the comparisons (less ...
 *  not_equal) of two float32 or float64 buffers and isnan, isinf, isfinite of one, compiled once
 *  per instruction set by Highway's foreach_target. Each mask becomes bytes 0 and 1 (a bool
 *  array's storage) through the lanes' values 0 and 1 narrowed to uint8.
 */
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "op/simd/predicate.cc"
// clang-format off: foreach_target.h must come first; it includes this file once per target.
#include <hwy/foreach_target.h>  // NOLINT(build/include)
// clang-format on

#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>

#include "op/simd/loops-inl.h"  // kStreamBytes

HWY_BEFORE_NAMESPACE();
namespace mxffi {
namespace op {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/*! \return the mask m as bytes 0 and 1, one per lane. */
template <class D, class M>
HWY_INLINE auto MaskBytes(D d, M m) {
  using T = hn::TFromD<D>;
  const hn::Rebind<int32_t, D> di32;
  const hn::Rebind<uint8_t, D> du8;
  const auto ones = hn::IfThenElseZero(m, hn::Set(d, T(1)));
  if constexpr (sizeof(T) == 8) {
    return hn::DemoteTo(du8, hn::DemoteTo(di32, ones));
  } else {
    return hn::DemoteTo(du8, hn::ConvertTo(di32, ones));
  }
}

/*!
 * \brief out[i..i+r) = f(d, in...[i..i+r)) as bytes for r < Lanes(d), through stack vectors
 *  padded with zeros, so every element is computed by the same vector code.
 */
template <class D, class F, class... In>
HWY_INLINE void MaskPartial(D d, uint8_t* out, int64_t i, int64_t r, F f, const In*... in) {
  using T = hn::TFromD<D>;
  const hn::Rebind<uint8_t, D> du8;
  HWY_ALIGN T buf[sizeof...(In)][HWY_MAX_BYTES / sizeof(T)] = {};
  HWY_ALIGN uint8_t bytes[HWY_MAX_BYTES] = {};
  const T* src[] = {in...};
  for (size_t k = 0; k < sizeof...(In); ++k) {
    for (int64_t j = 0; j < r; ++j) buf[k][j] = src[k][i + j];
  }
  if constexpr (sizeof...(In) == 1) {
    hn::Store(MaskBytes(d, f(d, hn::Load(d, buf[0]))), du8, bytes);
  } else {
    hn::Store(MaskBytes(d, f(d, hn::Load(d, buf[0]), hn::Load(d, buf[1]))), du8, bytes);
  }
  for (int64_t j = 0; j < r; ++j) out[i + j] = bytes[j];
}

#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
#define MXFFI_SIMD_STREAM_BOOL 1
/*!
 * \brief The bytes of kGroups consecutive vectors of results from element i on, as one vector
 *  of kGroups * Lanes(d) bytes (the halves joined by Combine).
 */
template <size_t kGroups, class D, class F, class... In>
HWY_INLINE auto MaskBytesOf(D d, int64_t i, F f, const In*... in) {
  if constexpr (kGroups == 1) {
    return MaskBytes(d, f(d, hn::LoadU(d, in + i)...));
  } else {
    const int64_t half = static_cast<int64_t>(kGroups / 2 * hn::Lanes(d));
    const auto lo = MaskBytesOf<kGroups / 2>(d, i, f, in...);
    const auto hi = MaskBytesOf<kGroups / 2>(d, i + half, f, in...);
    return hn::Combine(hn::Twice<hn::DFromV<decltype(lo)>>(), hi, lo);
  }
}
#else
#define MXFFI_SIMD_STREAM_BOOL 0
#endif

#if MXFFI_SIMD_STREAM_BOOL
/*!
 * \brief MapToBool for an output of kStreamBytes or more: written with streaming stores of whole
 *  16-byte vectors (a vector of results gives fewer bytes than that below 16 lanes; Combine
 *  joins them), from its first 16-byte boundary on. A bool output does not stay in the caches
 *  at that size, and a streaming store does not read the line it fills: a tenth of the memory
 *  traffic of a float32 comparison. Out of line, so that small calls keep their short path.
 */
template <class D, class F, class... In>
HWY_NOINLINE void MapToBoolStream(D d, uint8_t* out, int64_t n, F f, const In*... in) {
  constexpr size_t kLanes = hn::MaxLanes(D());
  const hn::Rebind<uint8_t, D> du8;
  const hn::Full128<uint8_t> d16;
  const int64_t N = static_cast<int64_t>(kLanes);
  int64_t i = 0;
  const int64_t head =
      std::min<int64_t>(n, static_cast<int64_t>((16 - reinterpret_cast<uintptr_t>(out) % 16) % 16));
  for (; i + N <= head; i += N) {
    hn::StoreU(MaskBytes(d, f(d, hn::LoadU(d, in + i)...)), du8, out + i);
  }
  if (i < head) MaskPartial(d, out, i, head - i, f, in...);
  for (i = head; i + 16 <= n; i += 16) {
    hn::Stream(MaskBytesOf<16 / kLanes>(d, i, f, in...), d16, out + i);
  }
  hwy::FlushStream();
  for (; i + N <= n; i += N) hn::StoreU(MaskBytes(d, f(d, hn::LoadU(d, in + i)...)), du8, out + i);
  if (i < n) MaskPartial(d, out, i, n - i, f, in...);
}
#endif

/*!
 * \brief out[i] = f(d, in...[i]) (a mask) for i < n, as bytes 0 and 1 (MapToBoolStream for a
 *  large output). The tail goes through stack vectors padded with zeros, so every element is
 *  computed by the same vector code.
 */
template <class D, class F, class... In>
HWY_INLINE void MapToBool(D d, uint8_t* out, int64_t n, F f, const In*... in) {
#if MXFFI_SIMD_STREAM_BOOL
  constexpr size_t kLanes = hn::MaxLanes(D());
  if constexpr (kLanes <= 16 && 16 % kLanes == 0) {
    if (HWY_UNLIKELY(n >= kStreamBytes)) return MapToBoolStream(d, out, n, f, in...);
  }
#endif
  const hn::Rebind<uint8_t, D> du8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(MaskBytes(d, f(d, hn::LoadU(d, in + i)...)), du8, out + i);
  if (i < n) MaskPartial(d, out, i, n - i, f, in...);
}

#undef MXFFI_SIMD_STREAM_BOOL

// IEEE comparisons: false whenever a NaN is involved, except not_equal (true).
struct LessFn {
  template <class D, class V>
  HWY_INLINE auto operator()(D, V a, V b) const {
    return hn::Lt(a, b);
  }
};
struct LessEqualFn {
  template <class D, class V>
  HWY_INLINE auto operator()(D, V a, V b) const {
    return hn::Le(a, b);
  }
};
struct GreaterFn {
  template <class D, class V>
  HWY_INLINE auto operator()(D, V a, V b) const {
    return hn::Gt(a, b);
  }
};
struct GreaterEqualFn {
  template <class D, class V>
  HWY_INLINE auto operator()(D, V a, V b) const {
    return hn::Ge(a, b);
  }
};
struct EqualFn {
  template <class D, class V>
  HWY_INLINE auto operator()(D, V a, V b) const {
    return hn::Eq(a, b);
  }
};
// Highway's Ne is the ordered comparison (false for NaN): not_equal is "not equal".
struct NotEqualFn {
  template <class D, class V>
  HWY_INLINE auto operator()(D, V a, V b) const {
    return hn::Not(hn::Eq(a, b));
  }
};
struct IsNanFn {
  template <class D, class V>
  HWY_INLINE auto operator()(D, V x) const {
    return hn::IsNaN(x);
  }
};
struct IsInfFn {
  template <class D, class V>
  HWY_INLINE auto operator()(D, V x) const {
    return hn::IsInf(x);
  }
};
struct IsFiniteFn {
  template <class D, class V>
  HWY_INLINE auto operator()(D, V x) const {
    return hn::IsFinite(x);
  }
};

#define MXFFI_SIMD_COMPARE(Name, Fn)                                          \
  void Name##F32(const float* a, const float* b, uint8_t* out, int64_t n) {   \
    MapToBool(hn::ScalableTag<float>(), out, n, Fn(), a, b);                  \
  }                                                                           \
  void Name##F64(const double* a, const double* b, uint8_t* out, int64_t n) { \
    MapToBool(hn::ScalableTag<double>(), out, n, Fn(), a, b);                 \
  }
MXFFI_SIMD_COMPARE(Less, LessFn)
MXFFI_SIMD_COMPARE(LessEqual, LessEqualFn)
MXFFI_SIMD_COMPARE(Greater, GreaterFn)
MXFFI_SIMD_COMPARE(GreaterEqual, GreaterEqualFn)
MXFFI_SIMD_COMPARE(Equal, EqualFn)
MXFFI_SIMD_COMPARE(NotEqual, NotEqualFn)
#undef MXFFI_SIMD_COMPARE

#define MXFFI_SIMD_CLASSIFY(Name, Fn)                        \
  void Name##F32(const float* x, uint8_t* out, int64_t n) {  \
    MapToBool(hn::ScalableTag<float>(), out, n, Fn(), x);    \
  }                                                          \
  void Name##F64(const double* x, uint8_t* out, int64_t n) { \
    MapToBool(hn::ScalableTag<double>(), out, n, Fn(), x);   \
  }
MXFFI_SIMD_CLASSIFY(IsNan, IsNanFn)
MXFFI_SIMD_CLASSIFY(IsInf, IsInfFn)
MXFFI_SIMD_CLASSIFY(IsFinite, IsFiniteFn)
#undef MXFFI_SIMD_CLASSIFY

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

#define MXFFI_SIMD_COMPARE_EXPORT(Name)                                   \
  HWY_EXPORT(Name##F32);                                                  \
  HWY_EXPORT(Name##F64);                                                  \
  void Name(const float* a, const float* b, bool* out, int64_t n) {       \
    MXFFI_SIMD_CALL(Name##F32)(a, b, reinterpret_cast<uint8_t*>(out), n); \
  }                                                                       \
  void Name(const double* a, const double* b, bool* out, int64_t n) {     \
    MXFFI_SIMD_CALL(Name##F64)(a, b, reinterpret_cast<uint8_t*>(out), n); \
  }
MXFFI_SIMD_COMPARE_EXPORT(Less)
MXFFI_SIMD_COMPARE_EXPORT(LessEqual)
MXFFI_SIMD_COMPARE_EXPORT(Greater)
MXFFI_SIMD_COMPARE_EXPORT(GreaterEqual)
MXFFI_SIMD_COMPARE_EXPORT(Equal)
MXFFI_SIMD_COMPARE_EXPORT(NotEqual)
#undef MXFFI_SIMD_COMPARE_EXPORT

#define MXFFI_SIMD_CLASSIFY_EXPORT(Name)                               \
  HWY_EXPORT(Name##F32);                                               \
  HWY_EXPORT(Name##F64);                                               \
  void Name(const float* x, bool* out, int64_t n) {                    \
    MXFFI_SIMD_CALL(Name##F32)(x, reinterpret_cast<uint8_t*>(out), n); \
  }                                                                    \
  void Name(const double* x, bool* out, int64_t n) {                   \
    MXFFI_SIMD_CALL(Name##F64)(x, reinterpret_cast<uint8_t*>(out), n); \
  }
MXFFI_SIMD_CLASSIFY_EXPORT(IsNan)
MXFFI_SIMD_CLASSIFY_EXPORT(IsInf)
MXFFI_SIMD_CLASSIFY_EXPORT(IsFinite)
#undef MXFFI_SIMD_CLASSIFY_EXPORT

}  // namespace simd
}  // namespace op
}  // namespace mxffi
#endif  // HWY_ONCE
