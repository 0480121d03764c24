/*!
 * \file sort_functors.h
 * \brief The order the sort, searchsorted and unique kernels share, on both devices: numpy's
 *  order of real values with NaNs last (ascending and descending alike, as sorting -x puts
 *  them), numpy's lexicographic order of complex values (real part, then imaginary part; a
 *  value with a NaN part last, as [R + Rj, R + nanj, nan + Rj, nan + nanj]), the binary search
 *  of searchsorted in that order, and unique's group boundary. Compiled by g++ and nvcc;
 *  includes nothing of the op layer.
 */
#ifndef MXFFI_SRC_OP_SORT_SORT_FUNCTORS_H_
#define MXFFI_SRC_OP_SORT_SORT_FUNCTORS_H_

#include <cstdint>

#include "../complex.h"
#include "../half.h"
#include "../xinline.h"

namespace mxffi {
namespace op {
namespace sort {

/*! \return whether v is NaN (never for integers and bool; complex: either part NaN). */
template <typename A>
MXFFI_XINLINE bool IsNaN(A v) {
  return AnyNan(v);
}

/*!
 * \return whether a sorts strictly before b: a < b ascending, a > b descending, and every
 *  number before every NaN in both orders. Equal elements (and two NaNs) are not ordered, so a
 *  stable sort keeps them as they came.
 */
template <bool kDescending, typename A>
MXFFI_XINLINE bool Before(A a, A b) {
  if (IsNaN(b)) return !IsNaN(a);
  if constexpr (kDescending) {
    return a > b;
  } else {
    return a < b;
  }
}

/*!
 * \return whether the complex a sorts strictly before b: numpy's complex order (its CFLOAT_LT)
 *  ascending; descending, the ascending order of -a and -b, so values with a NaN part stay
 *  last there too. Equal values (-0.0 equals 0.0 in either part) are not ordered.
 */
template <bool kDescending, typename R>
MXFFI_XINLINE bool Before(complex<R> a, complex<R> b) {
  R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  if constexpr (kDescending) {
    ar = -ar;
    ai = -ai;
    br = -br;
    bi = -bi;
  }
  // NOLINTBEGIN(misc-redundant-expression): x != x is the NaN test
  if (ar < br) return ai == ai || bi != bi;
  if (ar > br) return bi != bi && ai == ai;
  if (ar == br || (ar != ar && br != br)) return ai < bi || (bi != bi && ai == ai);
  return br != br;
  // NOLINTEND(misc-redundant-expression)
}

/*!
 * \return the insertion point of v into the n elements x[0], x[stride], ... (ascending, NaNs
 *  last): the first i with v <= x[i] (left) or v < x[i] (right), n when there is none.
 */
template <typename T>
MXFFI_XINLINE int64_t SearchSorted(const T* x, int64_t stride, int64_t n, AccT<T> v, bool right) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const AccT<T> m = ToAcc(x[mid * stride]);
    const bool after = right ? !Before<false>(v, m) : Before<false>(m, v);
    if (after) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/*!
 * \return whether cur, the element after prev in sorted order, starts a new group of equal
 *  values: equality as ==, so -0.0 joins 0.0; NaNs each start one unless equal_nan.
 */
template <typename A>
MXFFI_XINLINE bool NewGroup(A prev, A cur, bool equal_nan) {
  if (cur == prev) return false;
  return !(equal_nan && IsNaN(cur) && IsNaN(prev));
}

}  // namespace sort
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SORT_SORT_FUNCTORS_H_
