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

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>
#include <utility>

HWY_BEFORE_NAMESPACE();
namespace mxffi {
namespace op {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

/*!
 * \brief Outputs of at least this many bytes per call are written with non-temporal (streaming)
 *  stores: an output that large does not stay in the caches anyway, and a streaming store
 *  writes its line without reading it first (ordinary stores read every output line before
 *  they fill it), which is a quarter of the memory traffic of a binary op and a third of a
 *  unary one's.
 */
constexpr int64_t kStreamBytes = int64_t{8} << 20;

/*!
 * \brief out[i] = f(d, in...[i]) for i < n, for one or two inputs. Four vectors per step; the
 *  tail (fewer than a vector) goes through stack vectors padded with pad, so every element is
 *  computed by the same vector code. With kStream the output is written with streaming stores
 *  from its first vector-aligned element on (the elements before it go the way of the tail).
 *  The output may be one of the inputs: each vector is read before it is written.
 */
/*!
 * \brief out[i..i+r) = f(d, in...[i..i+r)) for r < Lanes(d), through stack vectors padded with
 *  pad (Is: the indices of the inputs).
 */
template <class D, class F, size_t... Is, class... In>
HWY_INLINE void MapPartial(D d, hn::TFromD<D>* out, int64_t i, int64_t r, hn::TFromD<D> pad, F f,
                           std::index_sequence<Is...>, const In*... in) {
  using T = hn::TFromD<D>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  HWY_ALIGN T buf[sizeof...(In)][HWY_MAX_BYTES / sizeof(T)];
  const T* src[] = {in...};
  for (size_t k = 0; k < sizeof...(In); ++k) {
    for (int64_t j = 0; j < N; ++j) buf[k][j] = j < r ? src[k][i + j] : pad;
  }
  hn::Store(f(d, hn::Load(d, buf[Is])...), d, buf[0]);
  for (int64_t j = 0; j < r; ++j) out[i + j] = buf[0][j];
}

template <bool kStream, class D, class F, class... In>
HWY_INLINE void MapN(D d, hn::TFromD<D>* out, int64_t n, hn::TFromD<D> pad, F f, const In*... in) {
  using T = hn::TFromD<D>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  auto partial = [&](int64_t i, int64_t r) {
    MapPartial(d, out, i, r, pad, f, std::index_sequence_for<In...>(), in...);
  };
  int64_t i = 0;
  if (kStream) {
    const int64_t bytes = static_cast<int64_t>(N * sizeof(T));
    const int64_t mis = static_cast<int64_t>(reinterpret_cast<uintptr_t>(out) % bytes);
    if (mis % static_cast<int64_t>(sizeof(T)) != 0) {  // not even element-aligned: no streaming
      MapN<false>(d, out, n, pad, f, in...);
      return;
    }
    const int64_t head = std::min(n, mis == 0 ? 0 : (bytes - mis) / int64_t(sizeof(T)));
    if (head > 0) partial(0, head);
    i = head;
  }
  auto store = [&](auto v, T* p) {
    if (kStream) {
      hn::Stream(v, d, p);
    } else {
      hn::StoreU(v, d, p);
    }
  };
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto v0 = f(d, hn::LoadU(d, in + i)...);
    const auto v1 = f(d, hn::LoadU(d, in + i + N)...);
    const auto v2 = f(d, hn::LoadU(d, in + i + 2 * N)...);
    const auto v3 = f(d, hn::LoadU(d, in + i + 3 * N)...);
    store(v0, out + i);
    store(v1, out + i + N);
    store(v2, out + i + 2 * N);
    store(v3, out + i + 3 * N);
  }
  for (; i + N <= n; i += N) store(f(d, hn::LoadU(d, in + i)...), out + i);
  if (i < n) partial(i, n - i);
  if (kStream) hwy::FlushStream();
}

/*! \brief y[i] = f(d, x[i]) for i < n; y may be x. */
template <class D, class F>
HWY_INLINE void MapUnary(D d, const hn::TFromD<D>* x, hn::TFromD<D>* y, int64_t n, F f) {
  using T = hn::TFromD<D>;
  if (n * static_cast<int64_t>(sizeof(T)) >= kStreamBytes) {
    MapN<true>(d, y, n, T(0), f, x);
  } else {
    MapN<false>(d, y, n, T(0), f, x);
  }
}

/*! \brief out[i] = f(d, a[i], b[i]) for i < n; out may be a or b. The padding is 1, so a
 *  division in the tail never computes 0 / 0. */
template <class D, class F>
HWY_INLINE void MapBinary(D d, const hn::TFromD<D>* a, const hn::TFromD<D>* b, hn::TFromD<D>* out,
                          int64_t n, F f) {
  using T = hn::TFromD<D>;
  if (n * static_cast<int64_t>(sizeof(T)) >= kStreamBytes) {
    MapN<true>(d, out, n, T(1), f, a, b);
  } else {
    MapN<false>(d, out, n, T(1), f, a, b);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace op
}  // namespace mxffi
HWY_AFTER_NAMESPACE();

#endif  // MXFFI_SRC_OP_SIMD_LOOPS_INL_H_
