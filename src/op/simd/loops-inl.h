/*!
 * \file loops-inl.h
 * \brief The loops the per-target elementwise kernels share: a function of one or two vectors
 *  mapped over contiguous buffers, four vectors per step, the tail through one padded vector.
 *
 * Included once per instruction set by a file that includes hwy/foreach_target.h (the usual
 * Highway "-inl.h" guard below lets it be included again for each target).
 */
#if defined(MXFFI_SRC_OP_SIMD_LOOPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MXFFI_SRC_OP_SIMD_LOOPS_INL_H_
#undef MXFFI_SRC_OP_SIMD_LOOPS_INL_H_
#else
#define MXFFI_SRC_OP_SIMD_LOOPS_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>

HWY_BEFORE_NAMESPACE();
namespace mxffi {
namespace op {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/*!
 * \brief y[i] = f(d, x[i]) for i < n. The tail (fewer than a vector) goes through a stack
 *  vector padded with zeros, so every element is computed by the same vector code. y may be x.
 */
template <class D, class F>
HWY_INLINE void MapUnary(D d, const hn::TFromD<D>* x, hn::TFromD<D>* y, int64_t n, F f) {
  using T = hn::TFromD<D>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto v0 = hn::LoadU(d, x + i);
    const auto v1 = hn::LoadU(d, x + i + N);
    const auto v2 = hn::LoadU(d, x + i + 2 * N);
    const auto v3 = hn::LoadU(d, x + i + 3 * N);
    hn::StoreU(f(d, v0), d, y + i);
    hn::StoreU(f(d, v1), d, y + i + N);
    hn::StoreU(f(d, v2), d, y + i + 2 * N);
    hn::StoreU(f(d, v3), d, y + i + 3 * N);
  }
  for (; i + N <= n; i += N) hn::StoreU(f(d, hn::LoadU(d, x + i)), d, y + i);
  if (i < n) {
    HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(T)];
    const int64_t r = n - i;
    for (int64_t k = 0; k < N; ++k) buf[k] = k < r ? x[i + k] : T(0);
    hn::Store(f(d, hn::Load(d, buf)), d, buf);
    for (int64_t k = 0; k < r; ++k) y[i + k] = buf[k];
  }
}

/*! \brief out[i] = f(d, a[i], b[i]) for i < n, as MapUnary. out may be a or b. */
template <class D, class F>
HWY_INLINE void MapBinary(D d, const hn::TFromD<D>* a, const hn::TFromD<D>* b, hn::TFromD<D>* out,
                          int64_t n, F f) {
  using T = hn::TFromD<D>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto a0 = hn::LoadU(d, a + i), b0 = hn::LoadU(d, b + i);
    const auto a1 = hn::LoadU(d, a + i + N), b1 = hn::LoadU(d, b + i + N);
    const auto a2 = hn::LoadU(d, a + i + 2 * N), b2 = hn::LoadU(d, b + i + 2 * N);
    const auto a3 = hn::LoadU(d, a + i + 3 * N), b3 = hn::LoadU(d, b + i + 3 * N);
    hn::StoreU(f(d, a0, b0), d, out + i);
    hn::StoreU(f(d, a1, b1), d, out + i + N);
    hn::StoreU(f(d, a2, b2), d, out + i + 2 * N);
    hn::StoreU(f(d, a3, b3), d, out + i + 3 * N);
  }
  for (; i + N <= n; i += N) {
    hn::StoreU(f(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, out + i);
  }
  if (i < n) {
    HWY_ALIGN T abuf[HWY_MAX_BYTES / sizeof(T)];
    HWY_ALIGN T bbuf[HWY_MAX_BYTES / sizeof(T)];
    const int64_t r = n - i;
    for (int64_t k = 0; k < N; ++k) {
      abuf[k] = k < r ? a[i + k] : T(1);  // 1, not 0: no 0 / 0 in the padding
      bbuf[k] = k < r ? b[i + k] : T(1);
    }
    hn::Store(f(d, hn::Load(d, abuf), hn::Load(d, bbuf)), d, abuf);
    for (int64_t k = 0; k < r; ++k) out[i + k] = abuf[k];
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace op
}  // namespace mxffi
HWY_AFTER_NAMESPACE();

#endif  // MXFFI_SRC_OP_SIMD_LOOPS_INL_H_
