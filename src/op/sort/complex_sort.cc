/*!
 * \file complex_sort.cc
 * \brief The CPU sort of complex64 and complex128 lines (SortComplexLines, sort_op.h): numpy's
 *  lexicographic order (real part, then imaginary part), values with a NaN part last as
 *  [R + Rj, R + nanj, nan + Rj, nan + nanj] (sort::Before), stable, ascending or descending.
 *
 * Each line is copied into a buffer (values, or value and position pairs for argsort), the
 * values without a NaN part are moved to the front stably and sorted by std::stable_sort with a
 * plain two-part comparison, and the few with a NaN part are sorted behind them by the full
 * order. Lines are sorted in parallel when there are several, as the real sorts are.
 */
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "../complex.h"
#include "../parallel.h"
#include "sort_functors.h"
#include "sort_op.h"

namespace mxffi {
namespace op {
namespace {

/*! \return whether a sorts strictly before b, neither holding a NaN part. */
template <bool kDesc, typename R>
inline bool BeforeNumber(const complex<R>& a, const complex<R>& b) {
  if constexpr (kDesc) {
    return a.real() > b.real() || (a.real() == b.real() && a.imag() > b.imag());
  } else {
    return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
  }
}

/*! \brief Sort the items [0, n) stably by key(item), values with a NaN part last. */
template <bool kDesc, typename I, typename K>
void SortItems(I* p, int64_t n, K key) {
  I* mid = std::stable_partition(p, p + n, [&](const I& v) { return !sort::IsNaN(key(v)); });
  std::stable_sort(p, mid,
                   [&](const I& a, const I& b) { return BeforeNumber<kDesc>(key(a), key(b)); });
  std::stable_sort(mid, p + n,
                   [&](const I& a, const I& b) { return sort::Before<kDesc>(key(a), key(b)); });
}

template <bool kDesc, typename R>
void SortLinesC(const complex<R>* x, void* out, int64_t outer, int64_t n, int64_t inner, bool arg) {
  using C = complex<R>;
  int64_t cost = n;  // about n log2 n comparisons per line
  for (int64_t m = n; m > 1; m >>= 1) cost += n;
  ParallelFor(outer * inner, cost, [&](int64_t b, int64_t e) {
    if (arg) {
      using P = std::pair<C, int64_t>;
      std::vector<P> buf(n);
      int64_t* y = static_cast<int64_t*>(out);
      for (int64_t l = b; l < e; ++l) {
        const int64_t base = (l / inner) * n * inner + l % inner;
        for (int64_t j = 0; j < n; ++j) buf[j] = {x[base + j * inner], j};
        SortItems<kDesc>(buf.data(), n, [](const P& v) { return v.first; });
        for (int64_t j = 0; j < n; ++j) y[base + j * inner] = buf[j].second;
      }
      return;
    }
    C* y = static_cast<C*>(out);
    const auto same = [](const C& v) { return v; };
    if (inner == 1) {  // sorted in place in the output
      for (int64_t l = b; l < e; ++l) {
        std::memcpy(static_cast<void*>(y + l * n), x + l * n, n * sizeof(C));
        SortItems<kDesc>(y + l * n, n, same);
      }
      return;
    }
    std::vector<C> buf(n);
    for (int64_t l = b; l < e; ++l) {
      const int64_t base = (l / inner) * n * inner + l % inner;
      for (int64_t j = 0; j < n; ++j) buf[j] = x[base + j * inner];
      SortItems<kDesc>(buf.data(), n, same);
      for (int64_t j = 0; j < n; ++j) y[base + j * inner] = buf[j];
    }
  });
}

template <typename R>
void SortLinesC(const DLTensor& x, void* out, int64_t outer, int64_t n, int64_t inner,
                bool descending, bool arg) {
  const complex<R>* px = DataPtr<const complex<R>>(x);
  if (descending) {
    SortLinesC<true>(px, out, outer, n, inner, arg);
  } else {
    SortLinesC<false>(px, out, outer, n, inner, arg);
  }
}

}  // namespace

void SortComplexLines(const DLTensor& x, void* out, int64_t outer, int64_t n, int64_t inner,
                      bool descending, bool arg, const char* fname) {
  if (x.dtype.code == kDLComplex && x.dtype.bits == 64 && x.dtype.lanes == 1) {
    SortLinesC<float>(x, out, outer, n, inner, descending, arg);
  } else if (x.dtype.code == kDLComplex && x.dtype.bits == 128 && x.dtype.lanes == 1) {
    SortLinesC<double>(x, out, outer, n, inner, descending, arg);
  } else {
    ThrowUnsupportedDType(fname, x.dtype);
  }
}

}  // namespace op
}  // namespace mxffi
