/*!
 * \file vq_sort.cc
 * \brief VQSortLines (vq_sort.h): the values of long lines sorted by Highway's vectorized
 *  quicksort, through the prebuilt entry points of libhwy_contrib (hwy::Sorter), so nothing of
 *  the sort's templates is compiled here.
 *
 * Floats are sorted as integers: the quicksort of Highway 1.0 (Debian 12's) mishandles some
 * floats (it pads with the largest finite value, so an +inf may come out as DBL_MAX, and it
 * steps below a pivot by subtracting epsilon, which does not move a large one), while its
 * integer sort has neither problem. A float's bits with the magnitude bits flipped when the sign
 * is set order as signed integers exactly as the floats order numerically, -0.0 just before
 * 0.0 (FloatKey; flipping again gives the bits back). A number without its sign bit is its
 * own key, so only the sorted keys of the negative numbers (a run at one end) are turned back.
 *
 * The quicksort is not stable. Values alone are written, and two equal values are the same
 * bits except for -0.0 and 0.0 and for NaNs, so the output is made the stable sort's exactly:
 *  - the copy of the line into its sorted place moves every NaN to the end of the line, in
 *    their order in x (a NaN's sign and payload stay with it), and the quicksort sees only the
 *    numbers before them;
 *  - when the sorted numbers hold a -0.0 (its key sorts next to 0.0's), their run of zeros is
 *    rewritten with the zeros of x in x's order (the run is found by a binary search).
 * So np.sort with stable=True and without it write the same array, and the order of -0.0
 * and 0.0 is x's in both (numpy's quicksort leaves it unspecified).
 */
#include "vq_sort.h"

#include <hwy/contrib/sort/vqsort.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>

#include "sort_functors.h"

namespace mxffi {
namespace op {
namespace sort {

namespace {

/*! \brief The signed integer of T's size: the sort key of a float. */
template <typename T>
using FloatKeyT = std::conditional_t<sizeof(T) == 8, int64_t, int32_t>;

/*!
 * \return the float with bits b as a key that orders as signed integers as the floats do
 *  numerically (-0.0 before 0.0, NaNs beyond the infinities by sign); FloatKey(FloatKey(b))
 *  is b.
 */
template <typename K>
inline K FloatKey(K b) {
  using U = std::make_unsigned_t<K>;
  // b >> (bits - 1): all ones for a set sign bit (arithmetic shift), then without the sign.
  return static_cast<K>(static_cast<U>(b) ^ (static_cast<U>(b >> (8 * sizeof(K) - 1)) >> 1));
}

/*!
 * \brief Copy the n floats x[0], x[inner], ... into dst[0, n): the keys (FloatKey) of the
 *  numbers first, then the NaNs themselves, each in x's order.
 * \return the number of numbers.
 */
template <typename T>
int64_t CopyKeysFirst(const T* x, int64_t inner, int64_t n, T* dst) {
  using K = FloatKeyT<T>;
  using U = std::make_unsigned_t<K>;
  constexpr int64_t kBlock = 512;
  int64_t lo = 0, hi = n;
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t len = std::min(kBlock, n - j0);
    if (inner == 1) {
      // A contiguous block in one loop the compiler vectorizes, its keys to the front (hi - lo
      // >= len: room for all of them); kept unless it held a NaN.
      int nan = 0;
      for (int64_t j = 0; j < len; ++j) {
        const T v = x[j0 + j];
        U b;
        std::memcpy(&b, &v, sizeof(b));
        const U key = static_cast<U>(b ^ (static_cast<U>(U(0) - (b >> (8 * sizeof(U) - 1))) >> 1));
        std::memcpy(dst + lo + j, &key, sizeof(key));
        nan |= IsNaN(v);
      }
      if (!nan) {
        lo += len;
        continue;
      }
    }
    for (int64_t j = j0; j < j0 + len; ++j) {
      const T v = x[j * inner];
      K b;
      std::memcpy(&b, &v, sizeof(b));
      // Without branches (NaNs anywhere cost no mispredictions): v goes to the back, then its
      // key (v itself for a NaN) to the front, and the end it belongs to moves. The slots from
      // lo to hi - 1 are free; when they are one, the front's write is the one that stays.
      const int nan = IsNaN(v);
      const K front = nan ? b : FloatKey(b);
      std::memcpy(dst + hi - 1, &b, sizeof(b));
      std::memcpy(dst + lo, &front, sizeof(front));
      lo += 1 - nan;
      hi -= nan;
    }
  }
  std::reverse(dst + lo, dst + n);  // the NaNs were written from the end backwards
  return lo;
}

/*! \brief The keys dst[0, m) (CopyKeysFirst) back into their floats. */
template <typename T>
void KeysToFloats(T* dst, int64_t m) {
  using K = FloatKeyT<T>;
  for (int64_t j = 0; j < m; ++j) {
    K k;
    std::memcpy(&k, dst + j, sizeof(k));
    k = FloatKey(k);
    std::memcpy(dst + j, &k, sizeof(k));
  }
}

/*! \brief Rewrite the zeros of the sorted numbers dst[0, m) with those of x in x's order. */
template <bool kDesc, typename T>
void RestoreZeroOrder(const T* x, int64_t inner, int64_t n, T* dst, int64_t m) {
  // The zeros lie after the numbers that sort before 0 and before those that sort after it.
  T* first = std::partition_point(dst, dst + m, [](T v) { return kDesc ? v > 0 : v < 0; });
  for (int64_t j = 0; j < n; ++j) {
    const T v = x[j * inner];
    if (v == 0) *first++ = v;
  }
}

template <bool kDesc, typename K>
void SortIntegers(const hwy::Sorter& sorter, K* v, int64_t m) {
  if constexpr (kDesc) {
    sorter(v, static_cast<size_t>(m), hwy::SortDescending());
  } else {
    sorter(v, static_cast<size_t>(m), hwy::SortAscending());
  }
}

/*! \brief Sort the line x[0], x[inner], ... (n elements) into dst[0, n) (see vq_sort.h). */
template <bool kDesc, typename T>
void SortLine(const hwy::Sorter& sorter, const T* x, int64_t inner, int64_t n, T* dst) {
  if constexpr (std::is_floating_point_v<T>) {
    const int64_t m = CopyKeysFirst(x, inner, n, dst);
    // The library's own memory: it reads the keys as integers, which CopyKeysFirst wrote.
    SortIntegers<kDesc>(sorter, reinterpret_cast<FloatKeyT<T>*>(dst), m);
    // Keys below 0 are the negative numbers': the first ones ascending, the last descending.
    using K = FloatKeyT<T>;
    const auto key = [dst](int64_t j) {
      K k;
      std::memcpy(&k, dst + j, sizeof(k));
      return k;
    };
    int64_t lo = 0, hi = m;  // the boundary between negative and other keys, by bisection
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if ((key(mid) < 0) != kDesc) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    // -0.0's key, -1, is the largest negative one: next to the boundary when there is one.
    const bool neg_zero = kDesc ? lo < m && key(lo) == -1 : lo > 0 && key(lo - 1) == -1;
    if (kDesc) {
      KeysToFloats(dst + lo, m - lo);
    } else {
      KeysToFloats(dst, lo);
    }
    if (neg_zero) RestoreZeroOrder<kDesc>(x, inner, n, dst, m);
  } else {
    if (inner == 1) {
      std::memcpy(dst, x, n * sizeof(T));
    } else {
      for (int64_t j = 0; j < n; ++j) dst[j] = x[j * inner];
    }
    SortIntegers<kDesc>(sorter, dst, n);
  }
}

}  // namespace

template <bool kDesc, typename T>
void VQSortLines(const T* x, T* y, int64_t b, int64_t e, int64_t n, int64_t inner) {
  const hwy::Sorter sorter;
  std::unique_ptr<T[]> buf;
  if (inner > 1) buf.reset(new T[n]);
  for (int64_t l = b; l < e; ++l) {
    const int64_t base = (l / inner) * n * inner + l % inner;
    if (inner == 1) {  // sorted in its place in y
      SortLine<kDesc>(sorter, x + base, 1, n, y + base);
      continue;
    }
    SortLine<kDesc>(sorter, x + base, inner, n, buf.get());
    for (int64_t j = 0; j < n; ++j) y[base + j * inner] = buf[j];
  }
}

#define MXFFI_VQSORT_INSTANTIATE(T)                                                      \
  template void VQSortLines<false, T>(const T*, T*, int64_t, int64_t, int64_t, int64_t); \
  template void VQSortLines<true, T>(const T*, T*, int64_t, int64_t, int64_t, int64_t);
MXFFI_VQSORT_INSTANTIATE(int16_t)
MXFFI_VQSORT_INSTANTIATE(uint16_t)
MXFFI_VQSORT_INSTANTIATE(int32_t)
MXFFI_VQSORT_INSTANTIATE(uint32_t)
MXFFI_VQSORT_INSTANTIATE(int64_t)
MXFFI_VQSORT_INSTANTIATE(uint64_t)
MXFFI_VQSORT_INSTANTIATE(float)
MXFFI_VQSORT_INSTANTIATE(double)
#undef MXFFI_VQSORT_INSTANTIATE

}  // namespace sort
}  // namespace op
}  // namespace mxffi
