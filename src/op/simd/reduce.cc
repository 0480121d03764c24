/*!
 * \file reduce.cc
 * \brief The vectorized reductions of simd.h (sum, max, min of a contiguous buffer), compiled
 *  once per instruction set by Highway's foreach_target.
 */
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "op/simd/reduce.cc"
// clang-format off: foreach_target.h must come first; it includes this file once per target.
#include <hwy/foreach_target.h>  // NOLINT(build/include)
// clang-format on

#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>
#include <limits>

HWY_BEFORE_NAMESPACE();
namespace mxffi {
namespace op {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/*! \brief Vector accumulators of a sum leaf, and vectors each of them adds in sequence. */
constexpr int64_t kSumAcc = 8, kSumDepth = 8;

/*! \return the lanes of v summed as a binary tree. */
template <class D, class V>
HWY_INLINE hn::TFromD<D> SumLanes(D d, V v) {
  using T = hn::TFromD<D>;
  HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(v, d, buf);
  for (size_t w = hn::Lanes(d) / 2; w >= 1; w /= 2) {
    for (size_t k = 0; k < w; ++k) buf[k] = buf[k] + buf[k + w];
  }
  return buf[0];
}

/*!
 * \brief The sum of n <= kSumAcc * kSumDepth * Lanes(d) elements: kSumAcc accumulators take
 *  consecutive vectors in turn (a partial last vector padded with zeros), then combine as a
 *  tree, then the lanes as a tree.
 */
template <class D>
HWY_INLINE hn::TFromD<D> SumLeaf(D d, const hn::TFromD<D>* x, int64_t n) {
  using T = hn::TFromD<D>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  using V = hn::Vec<D>;
  V acc[kSumAcc];
  for (int u = 0; u < kSumAcc; ++u) acc[u] = hn::Zero(d);
  int64_t i = 0;
  for (; i + kSumAcc * N <= n; i += kSumAcc * N) {
    for (int u = 0; u < kSumAcc; ++u) acc[u] = hn::Add(acc[u], hn::LoadU(d, x + i + u * N));
  }
  int u = 0;
  for (; i + N <= n; i += N, ++u) acc[u] = hn::Add(acc[u], hn::LoadU(d, x + i));
  if (i < n) {
    HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
    for (int64_t k = 0; k < N; ++k) buf[k] = i + k < n ? x[i + k] : T(0);
    acc[u] = hn::Add(acc[u], hn::Load(d, buf));
  }
  for (int w = kSumAcc / 2; w >= 1; w /= 2) {
    for (int k = 0; k < w; ++k) acc[k] = hn::Add(acc[k], acc[k + w]);
  }
  return SumLanes(d, acc[0]);
}

/*! \brief Pairwise: halves (on whole vectors) until a leaf is small enough. */
template <class D>
hn::TFromD<D> SumRec(D d, const hn::TFromD<D>* x, int64_t n) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const int64_t leaf = kSumAcc * kSumDepth * N;
  if (n <= leaf) return SumLeaf(d, x, n);
  int64_t half = n / 2;
  half -= half % (kSumAcc * N);
  return SumRec(d, x, half) + SumRec(d, x + half, n - half);
}

// The sum's vectors start at x itself, not at its first aligned element: which elements share
// an accumulator must not depend on where the array lies, or equal arrays could sum to
// different values.
float SumF32(const float* x, int64_t n) { return SumRec(hn::ScalableTag<float>(), x, n); }
double SumF64(const double* x, int64_t n) { return SumRec(hn::ScalableTag<double>(), x, n); }

/*!
 * \return how many elements of x come before its first vector-aligned one (at most n; 0 when x
 *  is not even element-aligned). Max and min start their vector loops there: a vector load
 *  that straddles two cache lines costs two, and numpy's arrays are only 16-byte aligned.
 */
template <class D>
HWY_INLINE int64_t HeadBeforeAligned(D d, const hn::TFromD<D>* x, int64_t n) {
  using T = hn::TFromD<D>;
  const uintptr_t bytes = hn::Lanes(d) * sizeof(T);
  const uintptr_t mis = reinterpret_cast<uintptr_t>(x) % bytes;
  if (mis == 0 || mis % sizeof(T) != 0) return 0;
  return std::min<int64_t>(n, static_cast<int64_t>((bytes - mis) / sizeof(T)));
}

/*!
 * \brief The largest (kMax) or smallest element of x[0..n), n >= 1. NaN is tracked apart from
 *  the extremum (the x86 max and min instructions are not symmetric in NaN); when there is one
 *  the first NaN is the result, as numpy's max and min give.
 */
template <bool kMax, class D>
HWY_INLINE hn::TFromD<D> Extremum(D d, const hn::TFromD<D>* x, int64_t n) {
  using T = hn::TFromD<D>;
  using V = hn::Vec<D>;
  using M = hn::Mask<D>;
  constexpr int kU = 4;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const T identity =
      kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  auto pick = [](V a, V b) { return kMax ? hn::Max(a, b) : hn::Min(a, b); };
  V m[kU];
  M nan[kU];
  for (int u = 0; u < kU; ++u) {
    m[u] = hn::Set(d, identity);
    nan[u] = hn::FirstN(d, 0);
  }
  HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
  // A part of a vector (the elements before the first aligned one, or the tail), padded.
  auto partial = [&](int64_t i0, int64_t r) {
    for (int64_t k = 0; k < N; ++k) buf[k] = k < r ? x[i0 + k] : identity;
    const V v = hn::Load(d, buf);
    m[0] = pick(m[0], v);
    nan[0] = hn::Or(nan[0], hn::IsNaN(v));
  };
  int64_t i = HeadBeforeAligned(d, x, n);
  if (i > 0) partial(0, i);
  for (; i + kU * N <= n; i += kU * N) {
    for (int u = 0; u < kU; ++u) {
      const V v = hn::LoadU(d, x + i + u * N);
      m[u] = pick(m[u], v);
      nan[u] = hn::Or(nan[u], hn::IsNaN(v));
    }
  }
  for (; i + N <= n; i += N) {
    const V v = hn::LoadU(d, x + i);
    m[0] = pick(m[0], v);
    nan[0] = hn::Or(nan[0], hn::IsNaN(v));
  }
  if (i < n) partial(i, n - i);
  const M any_nan = hn::Or(hn::Or(nan[0], nan[1]), hn::Or(nan[2], nan[3]));
  if (!hn::AllFalse(d, any_nan)) {
    for (int64_t k = 0; k < n; ++k) {
      if (x[k] != x[k]) return x[k];
    }
  }
  const V r = pick(pick(m[0], m[1]), pick(m[2], m[3]));
  hn::Store(r, d, buf);
  T best = buf[0];
  for (int64_t k = 1; k < N; ++k) best = (kMax ? buf[k] > best : buf[k] < best) ? buf[k] : best;
  return best;
}

float MaxF32(const float* x, int64_t n) { return Extremum<true>(hn::ScalableTag<float>(), x, n); }
double MaxF64(const double* x, int64_t n) {
  return Extremum<true>(hn::ScalableTag<double>(), x, n);
}
float MinF32(const float* x, int64_t n) { return Extremum<false>(hn::ScalableTag<float>(), x, n); }
double MinF64(const double* x, int64_t n) {
  return Extremum<false>(hn::ScalableTag<double>(), x, n);
}

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

HWY_EXPORT(SumF32);
HWY_EXPORT(SumF64);
HWY_EXPORT(MaxF32);
HWY_EXPORT(MaxF64);
HWY_EXPORT(MinF32);
HWY_EXPORT(MinF64);

float Sum(const float* x, int64_t n) { MXFFI_SIMD_CALL(SumF32)(x, n); }
double Sum(const double* x, int64_t n) { MXFFI_SIMD_CALL(SumF64)(x, n); }
float Max(const float* x, int64_t n) { MXFFI_SIMD_CALL(MaxF32)(x, n); }
double Max(const double* x, int64_t n) { MXFFI_SIMD_CALL(MaxF64)(x, n); }
float Min(const float* x, int64_t n) { MXFFI_SIMD_CALL(MinF32)(x, n); }
double Min(const double* x, int64_t n) { MXFFI_SIMD_CALL(MinF64)(x, n); }

}  // namespace simd
}  // namespace op
}  // namespace mxffi
#endif  // HWY_ONCE
