/*!
 * \file fft.cc
 * \brief The transforms of fft.h. An array is seen as (outer, n, inner) around the axis; the
 *  lines run through batch-inl.h's ForEachLine on cached plans (plan-inl.h): read in place when
 *  contiguous, else a block of columns at a time; a long line takes the four-step split, and a
 *  real line of even length the complex transform of half its length.
 *
 * Highway's foreach_target compiles this file, KissFFT's template with it, once for AVX2 (with
 * FMA) and once for the baseline instruction set, and each function of fft.h calls the one
 * chosen for this CPU (the same choice as the vectorized kernels', MXFFI_SIMD_TARGET's cap
 * included): compiled for AVX2, KissFFT's butterflies run about 15% faster. The other
 * targets (SSE4, AVX-512) are left out; they would add a compile of every transform each, for
 * little.
 */
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "op/fft/fft.cc"
// clang-format off: foreach_target.h must come first; it includes this file once per target.
#include <hwy/foreach_target.h>  // NOLINT(build/include)
// clang-format on

#include <hwy/highway.h>
#include <mxffi/error.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "../parallel.h"
#include "../simd/dispatch.h"
#include "fft.h"
// The per-target parts: the loops over lines, and the plans they run (which batch-inl.h
// includes first).
#include "batch-inl.h"
#include "plan-inl.h"

HWY_BEFORE_NAMESPACE();
namespace mxffi {
namespace op {
namespace fft {
namespace HWY_NAMESPACE {
namespace {

Lines LinesOf(const DLTensor& t, int axis) {
  Lines l;
  for (int i = 0; i < axis; ++i) l.outer *= t.shape[i];
  l.n = t.shape[axis];
  for (int i = axis + 1; i < t.ndim; ++i) l.inner *= t.shape[i];
  return l;
}

bool IsSingle(DLDataType t) {
  return (t.code == kDLFloat && t.bits == 32) || (t.code == kDLComplex && t.bits == 64);
}

DLDataType ComplexOf(bool single) {
  return DLDataType{kDLComplex, static_cast<uint8_t>(single ? 64 : 128), 1};
}

/*! \return t's shape with axis set to n. */
std::vector<int64_t> Resized(const DLTensor& t, int axis, int64_t n) {
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  shape[axis] = n;
  return shape;
}

constexpr DLDevice kHost{kDLCPU, 0};

/*!
 * \brief dst (complex T, lines of length n) from src (element S, lines of length m): each line
 *  cropped or zero-padded to n.
 */
template <typename T, typename S>
void CopyLines(const S* src, const Lines& s, std::complex<T>* dst, int64_t n) {
  const int64_t keep = std::min(s.n, n);
  ParallelFor(s.outer, n * s.inner, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      for (int64_t j = 0; j < n; ++j) {
        std::complex<T>* d = dst + (o * n + j) * s.inner;
        if (j >= keep) {
          std::fill(d, d + s.inner, std::complex<T>(0));
          continue;
        }
        const S* p = src + (o * s.n + j) * s.inner;
        for (int64_t i = 0; i < s.inner; ++i) {
          if constexpr (std::is_arithmetic_v<S>) {
            d[i] = std::complex<T>(static_cast<T>(p[i]), T(0));
          } else {
            d[i] = std::complex<T>(static_cast<T>(p[i].real()), static_cast<T>(p[i].imag()));
          }
        }
      }
    }
  });
}

/*!
 * \brief The complex transforms of length n (cropped or zero-padded from src's lines l) into
 *  dst (lines of length n; dst may be src when l.n == n), times scale.
 */
template <typename T>
void ComplexLines(const std::complex<T>* src, const Lines& l, int64_t n, std::complex<T>* dst,
                  bool inverse, T scale) {
  using C = std::complex<T>;
  if (l.outer * l.inner == 0 || n == 0) return;
  const std::shared_ptr<const FourStep<T>> fs = GetFourStep<T>(n, inverse);
  const std::shared_ptr<const Plan<T>> plan = fs ? nullptr : GetPlan<T>(n, inverse);
  NDArray scratch;
  if (fs) scratch = NDArray::Empty(std::vector<int64_t>{n}, ComplexOf(sizeof(T) == 4), kHost);
  C* tmp = fs ? static_cast<C*>(scratch.data()) : nullptr;
  ForEachLine(src, l, n, dst, n, fs != nullptr,
              [&] { return ComplexLine<T>(plan.get(), fs.get(), tmp, scale); });
}

/*!
 * \brief f(k, w^k) for k in [1, count] (the pairs k, h - k of a real split), the twiddles stepped
 *  through RealSplit's two tables; split across the pool for a long line (a line of a batch
 *  already runs in one of the pool's jobs, where this runs in the calling thread).
 */
template <typename T, typename F>
void ForTwiddles(const RealSplit<T>& split, int64_t count, F f) {
  ParallelFor(count, 16, [&](int64_t begin, int64_t end) {
    const int64_t first = begin + 1;
    int64_t hi = first / split.lo_size, lo = first % split.lo_size;
    for (int64_t k = first; k <= end; ++k) {
      f(k, split.hi[hi] * split.lo[lo]);
      if (++lo == split.lo_size) {
        lo = 0;
        ++hi;
      }
    }
  });
}

/*!
 * \brief One thread's transform of a real line of length n into its n / 2 + 1 terms: for an
 *  even n the complex transform of its n / 2 pairs (x[2j] + i x[2j + 1]), split into the
 *  transforms of the even and the odd samples and joined with the twiddles w^k; for an odd n
 *  the complex transform of the line.
 */
template <typename T>
class RealForwardLine {
 public:
  using C = std::complex<T>;
  RealForwardLine(int64_t n, const Plan<T>* plan, const FourStep<T>* fs, C* scratch,
                  const RealSplit<T>* split, T scale)
      : n_(n), half_(plan, fs, scratch, T(1)), split_(split), scale_(scale) {
    if (n % 2 != 0) buf_.resize(static_cast<size_t>(n) * 2);
  }
  bool in_place() const { return true; }
  void operator()(const T* in, C* out) const {
    if (n_ % 2 != 0) {
      C* z = buf_.data();
      for (int64_t j = 0; j < n_; ++j) z[j] = C(in[j], T(0));
      half_(z, z + n_);
      for (int64_t k = 0; k <= n_ / 2; ++k) out[k] = z[n_ + k] * scale_;
      return;
    }
    const int64_t h = n_ / 2;
    half_(reinterpret_cast<const C*>(in), out);
    const C z0 = out[0];
    ForTwiddles(*split_, h / 2, [&](int64_t k, C w) {
      const C a = out[k], b = std::conj(out[h - k]);
      const C even = (a + b) * T(0.5), odd = (a - b) * C(T(0), T(-0.5));
      const C t = w * odd;
      out[k] = (even + t) * scale_;
      out[h - k] = std::conj(even - t) * scale_;
    });
    out[0] = C((z0.real() + z0.imag()) * scale_, T(0));
    out[h] = C((z0.real() - z0.imag()) * scale_, T(0));
  }

 private:
  int64_t n_;
  ComplexLine<T> half_;
  const RealSplit<T>* split_;
  T scale_;
  mutable std::vector<C> buf_;
};

/*!
 * \brief One thread's real inverse of n / 2 + 1 Hermitian terms into a real line of length n
 *  (the imaginary parts of the zero and, for an even n, the Nyquist term ignored): for an even
 *  n the inverse of RealForwardLine's split, then the complex inverse of length n / 2 whose
 *  result is the line's pairs; for an odd n the complex inverse of the whole symmetric line.
 */
template <typename T>
class RealInverseLine {
 public:
  using C = std::complex<T>;
  RealInverseLine(int64_t n, const Plan<T>* plan, const FourStep<T>* fs, C* scratch,
                  const RealSplit<T>* split, T scale)
      : n_(n), full_(plan, fs, scratch, T(1)), split_(split), scale_(scale) {
    buf_.resize(static_cast<size_t>(n % 2 == 0 ? n / 2 : 2 * n));
  }
  bool in_place() const { return true; }
  void operator()(const C* in, T* out) const {
    C* z = buf_.data();
    if (n_ % 2 != 0) {
      const int64_t half = n_ / 2 + 1;
      z[0] = C(in[0].real(), T(0));
      for (int64_t k = 1; k < half; ++k) {
        z[k] = in[k];
        z[n_ - k] = std::conj(in[k]);
      }
      full_(z, z + n_);
      for (int64_t j = 0; j < n_; ++j) out[j] = z[n_ + j].real() * scale_;
      return;
    }
    const int64_t h = n_ / 2;
    // 2 (E + i O): E, O the transforms of the even and odd samples, from X[k] and X[h - k].
    const T x0 = in[0].real(), xh = in[h].real();
    z[0] = C((x0 + xh) * scale_, (x0 - xh) * scale_);
    ForTwiddles(*split_, h / 2, [&](int64_t k, C w) {
      const C a = in[k], b = std::conj(in[h - k]);
      const C even = a + b, odd = (a - b) * std::conj(w);
      const C i_odd(-odd.imag(), odd.real());
      z[k] = (even + i_odd) * scale_;
      z[h - k] = (std::conj(even) + C(odd.imag(), odd.real())) * scale_;
    });
    full_(z, reinterpret_cast<C*>(out));
  }

 private:
  int64_t n_;
  ComplexLine<T> full_;
  const RealSplit<T>* split_;
  T scale_;
  mutable std::vector<C> buf_;
};

/*!
 * \brief The plans a real transform of length n needs: of n / 2 (and the split) for an even n,
 *  of n for an odd one; a four-step split where that length takes one.
 */
template <typename T>
struct RealPlans {
  RealPlans(int64_t n, bool inverse) {
    const int64_t len = n % 2 == 0 ? n / 2 : n;
    fs = GetFourStep<T>(len, inverse);
    if (!fs) plan = GetPlan<T>(len, inverse);
    if (n % 2 == 0) split = GetRealSplit<T>(n);
    if (fs) {
      scratch = NDArray::Empty(std::vector<int64_t>{len}, ComplexOf(sizeof(T) == 4), kHost);
    }
  }
  std::complex<T>* tmp() const {
    return fs ? static_cast<std::complex<T>*>(scratch.data()) : nullptr;
  }
  std::shared_ptr<const FourStep<T>> fs;
  std::shared_ptr<const Plan<T>> plan;
  std::shared_ptr<const RealSplit<T>> split;
  NDArray scratch;
};

}  // namespace

NDArray ToComplex(const NDArray& a, int axis, int64_t n) {
  const DLTensor& t = a.tensor();
  const bool single = IsSingle(t.dtype);
  NDArray out = NDArray::Empty(Resized(t, axis, n), ComplexOf(single), kHost);
  const Lines l = LinesOf(t, axis);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    auto* dst = static_cast<std::complex<T>*>(out.data());
    switch (t.dtype.code << 8 | t.dtype.bits) {
      case kDLFloat << 8 | 32:
        return CopyLines(static_cast<const float*>(a.data()), l, dst, n);
      case kDLFloat << 8 | 64:
        return CopyLines(static_cast<const double*>(a.data()), l, dst, n);
      case kDLComplex << 8 | 64:
        return CopyLines(static_cast<const std::complex<float>*>(a.data()), l, dst, n);
      case kDLComplex << 8 | 128:
        return CopyLines(static_cast<const std::complex<double>*>(a.data()), l, dst, n);
      default:
        MXFFI_THROW(TypeError) << "fft: internal: unexpected dtype " << DataTypeToString(t.dtype);
    }
  };
  if (single) {
    run(float{});
  } else {
    run(double{});
  }
  return out;
}

void Transform(const NDArray& c, int axis, bool inverse, double scale) {
  const Lines l = LinesOf(c.tensor(), axis);
  if (IsSingle(c.tensor().dtype)) {
    auto* p = static_cast<std::complex<float>*>(c.data());
    ComplexLines(p, l, l.n, p, inverse, static_cast<float>(scale));
  } else {
    auto* p = static_cast<std::complex<double>*>(c.data());
    ComplexLines(p, l, l.n, p, inverse, scale);
  }
}

NDArray ComplexTransform(const NDArray& a, int axis, int64_t n, bool inverse, double scale) {
  const DLTensor& t = a.tensor();
  if (t.dtype.code != kDLComplex) {
    NDArray c = ToComplex(a, axis, n);
    Transform(c, axis, inverse, scale);
    return c;
  }
  const bool single = IsSingle(t.dtype);
  NDArray out = NDArray::Empty(Resized(t, axis, n), ComplexOf(single), kHost);
  const Lines l = LinesOf(t, axis);
  if (single) {
    ComplexLines(static_cast<const std::complex<float>*>(a.data()), l, n,
                 static_cast<std::complex<float>*>(out.data()), inverse, static_cast<float>(scale));
  } else {
    ComplexLines(static_cast<const std::complex<double>*>(a.data()), l, n,
                 static_cast<std::complex<double>*>(out.data()), inverse, scale);
  }
  return out;
}

NDArray RealForward(const NDArray& a, int axis, int64_t n, double scale) {
  const DLTensor& t = a.tensor();
  const bool single = IsSingle(t.dtype);
  NDArray out = NDArray::Empty(Resized(t, axis, n / 2 + 1), ComplexOf(single), kHost);
  const Lines l = LinesOf(t, axis);
  if (l.outer * l.inner == 0) return out;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const RealPlans<T> p(n, false);
    const T s = static_cast<T>(scale);
    ForEachLine(static_cast<const T*>(a.data()), l, n, static_cast<std::complex<T>*>(out.data()),
                n / 2 + 1, p.fs != nullptr, [&] {
                  return RealForwardLine<T>(n, p.plan.get(), p.fs.get(), p.tmp(), p.split.get(), s);
                });
  };
  if (single) {
    run(float{});
  } else {
    run(double{});
  }
  return out;
}

NDArray RealInverse(const NDArray& c, int axis, int64_t n, double scale) {
  if (c.tensor().dtype.code != kDLComplex) {
    return RealInverse(ToComplex(c, axis, c.tensor().shape[axis]), axis, n, scale);
  }
  const DLTensor& t = c.tensor();
  const bool single = IsSingle(t.dtype);
  NDArray out = NDArray::Empty(
      Resized(t, axis, n), DLDataType{kDLFloat, static_cast<uint8_t>(single ? 32 : 64), 1}, kHost);
  const Lines l = LinesOf(t, axis);
  if (l.outer * l.inner == 0) return out;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const RealPlans<T> p(n, true);
    const T s = static_cast<T>(scale);
    // The first n / 2 + 1 terms of each line (zero-padded when fewer) are all it reads.
    ForEachLine(static_cast<const std::complex<T>*>(c.data()), l, n / 2 + 1,
                static_cast<T*>(out.data()), n, p.fs != nullptr, [&] {
                  return RealInverseLine<T>(n, p.plan.get(), p.fs.get(), p.tmp(), p.split.get(), s);
                });
  };
  if (single) {
    run(float{});
  } else {
    run(double{});
  }
  return out;
}

}  // namespace HWY_NAMESPACE
}  // namespace fft
}  // namespace op
}  // namespace mxffi
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mxffi {
namespace op {
namespace fft {

HWY_EXPORT(ToComplex);
HWY_EXPORT(Transform);
HWY_EXPORT(ComplexTransform);
HWY_EXPORT(RealForward);
HWY_EXPORT(RealInverse);

NDArray ToComplex(const NDArray& a, int axis, int64_t n) { MXFFI_SIMD_CALL(ToComplex)(a, axis, n); }

void Transform(const NDArray& c, int axis, bool inverse, double scale) {
  MXFFI_SIMD_CALL(Transform)(c, axis, inverse, scale);
}

NDArray ComplexTransform(const NDArray& a, int axis, int64_t n, bool inverse, double scale) {
  MXFFI_SIMD_CALL(ComplexTransform)(a, axis, n, inverse, scale);
}

NDArray RealForward(const NDArray& a, int axis, int64_t n, double scale) {
  MXFFI_SIMD_CALL(RealForward)(a, axis, n, scale);
}

NDArray RealInverse(const NDArray& c, int axis, int64_t n, double scale) {
  MXFFI_SIMD_CALL(RealInverse)(c, axis, n, scale);
}

}  // namespace fft
}  // namespace op
}  // namespace mxffi
#endif  // HWY_ONCE
