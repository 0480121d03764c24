/*!
 * \file fft.cc
 * \brief The transforms of fft.h. An array is seen as (outer, n, inner) around the axis: each
 *  line is gathered into a contiguous buffer (stride inner), transformed by a kissfft plan made
 *  once per call, and scattered back. Lines are split across the thread pool when there are many.
 */
#include "fft.h"

#include <mxffi/error.h>

#include <algorithm>
#include <complex>
#include <kissfft/kissfft.hh>
#include <type_traits>
#include <vector>

#include "../parallel.h"

namespace mxffi {
namespace op {
namespace fft {
namespace {

/*! \brief An array's extents around one axis: outer lines, the axis' length, inner stride. */
struct Lines {
  int64_t outer = 1, n = 0, inner = 1;
};

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
  for (int64_t o = 0; o < s.outer; ++o) {
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
}

template <typename T>
void TransformLines(std::complex<T>* data, const Lines& l, bool inverse, double scale) {
  if (l.n == 0) return;
  const kissfft<T> plan(static_cast<size_t>(l.n), inverse);
  const T s = static_cast<T>(scale);
  const int64_t count = l.outer * l.inner;
  // A line costs about n log n: the pool splits the lines when there is enough work.
  ParallelFor(count, l.n * 8, [&](int64_t begin, int64_t end) {
    std::vector<std::complex<T>> in(static_cast<size_t>(l.n)), out(static_cast<size_t>(l.n));
    for (int64_t line = begin; line < end; ++line) {
      std::complex<T>* base = data + (line / l.inner) * l.n * l.inner + line % l.inner;
      for (int64_t j = 0; j < l.n; ++j) in[j] = base[j * l.inner];
      plan.transform(in.data(), out.data());
      for (int64_t j = 0; j < l.n; ++j) base[j * l.inner] = s == T(1) ? out[j] : out[j] * s;
    }
  });
}

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
    TransformLines(static_cast<std::complex<float>*>(c.data()), l, inverse, scale);
  } else {
    TransformLines(static_cast<std::complex<double>*>(c.data()), l, inverse, scale);
  }
}

NDArray RealForward(const NDArray& a, int axis, int64_t n, double scale) {
  const DLTensor& t = a.tensor();
  const bool single = IsSingle(t.dtype);
  const int64_t half = n / 2 + 1;
  NDArray out = NDArray::Empty(Resized(t, axis, half), ComplexOf(single), kHost);
  const Lines l = LinesOf(t, axis);
  const int64_t keep = std::min(l.n, n);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(a.data());
    auto* dst = static_cast<std::complex<T>*>(out.data());
    const T s = static_cast<T>(scale);
    const bool even = n % 2 == 0;
    // An even length: a real transform of n points as a complex one of n / 2 (kissfft's
    // transform_real), half the work. An odd one: the complex transform of the real line.
    const kissfft<T> plan(static_cast<size_t>(even ? n / 2 : n), false);
    const int64_t count = l.outer * l.inner;
    ParallelFor(count, n * 4, [&](int64_t begin, int64_t end) {
      std::vector<T> re(static_cast<size_t>(n));
      std::vector<std::complex<T>> in(even ? 0 : static_cast<size_t>(n)),
          spec(static_cast<size_t>(even ? n / 2 : n));
      for (int64_t line = begin; line < end; ++line) {
        const int64_t o = line / l.inner, i = line % l.inner;
        const T* p = src + o * l.n * l.inner + i;
        for (int64_t j = 0; j < n; ++j) re[j] = j < keep ? p[j * l.inner] : T(0);
        std::complex<T>* q = dst + o * half * l.inner + i;
        if (even) {
          plan.transform_real(re.data(), spec.data());
          // spec[0] holds the zero and the Nyquist terms, both real, as its two parts.
          q[0] = std::complex<T>(spec[0].real() * s, T(0));
          for (int64_t k = 1; k < n / 2; ++k) q[k * l.inner] = spec[k] * s;
          q[(n / 2) * l.inner] = std::complex<T>(spec[0].imag() * s, T(0));
        } else {
          for (int64_t j = 0; j < n; ++j) in[j] = std::complex<T>(re[j], T(0));
          plan.transform(in.data(), spec.data());
          for (int64_t k = 0; k < half; ++k) q[k * l.inner] = spec[k] * s;
        }
      }
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
  const DLTensor& t = c.tensor();
  const bool single = IsSingle(t.dtype);
  const int64_t half = n / 2 + 1;
  // The input cropped or zero-padded to n (so the first half terms are there), then the rest of
  // each line rebuilt from them by Hermitian symmetry.
  const NDArray full = ToComplex(c, axis, n);
  const Lines l = LinesOf(full.tensor(), axis);
  NDArray out = NDArray::Empty(
      Resized(t, axis, n), DLDataType{kDLFloat, static_cast<uint8_t>(single ? 32 : 64), 1}, kHost);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    auto* data = static_cast<std::complex<T>*>(full.data());
    T* real = static_cast<T*>(out.data());
    for (int64_t o = 0; o < l.outer; ++o) {
      std::complex<T>* line = data + o * n * l.inner;
      for (int64_t i = 0; i < l.inner; ++i) {
        line[i] = std::complex<T>(line[i].real(), T(0));
        if (n % 2 == 0 && n > 0) {
          std::complex<T>& nyq = line[(n / 2) * l.inner + i];
          nyq = std::complex<T>(nyq.real(), T(0));
        }
        for (int64_t k = 1; k < half; ++k) {
          if (n - k >= half) line[(n - k) * l.inner + i] = std::conj(line[k * l.inner + i]);
        }
      }
    }
    TransformLines(data, l, true, scale);
    const int64_t count = out.numel();
    for (int64_t i = 0; i < count; ++i) real[i] = data[i].real();
  };
  if (single) {
    run(float{});
  } else {
    run(double{});
  }
  return out;
}

}  // namespace fft
}  // namespace op
}  // namespace mxffi
