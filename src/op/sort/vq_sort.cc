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
 *
 * Long lines of 32- and 64-bit integers whose values span a narrow range (a sample of the line
 * tells, then one pass finds the exact range) skip the comparison sort: values within 2^16 of
 * the smallest are counted, and 64-bit values within 2^32 of the smallest sort as 32-bit
 * offsets from it, twice as many per vector (at 10^7 elements about 1.5x faster than the
 * 64-bit sort, and counting 2.5x faster than the 32-bit sort; measured on AVX-512). A line whose
 * sample is narrow but whose range is not pays one pass over it for nothing.
 */
#include "vq_sort.h"

#include <hwy/contrib/sort/vqsort.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "sort_functors.h"

namespace mxffi {
namespace op {
namespace sort {

namespace {

/*!
 * \brief Integer lines at least this long check their range (a sample of kRangeSample
 *  elements, then a pass for the exact one when the sample's is narrow) for the paths below.
 *  The sample is small: its reads miss the cache, and a line of a wide range (most lines)
 *  should pay nothing measurable for the check (64 reads: microseconds).
 */
constexpr int64_t kNarrowMinLength = int64_t{1} << 16;
constexpr int64_t kRangeSample = 64;
/*! \brief Lines of 32- and 64-bit integers spanning fewer values than this are counted, when
 *  they hold at least kCountMinLength elements (the table of counts stays in the L2 cache). */
constexpr uint64_t kCountRange = uint64_t{1} << 16;
constexpr int64_t kCountMinLength = int64_t{1} << 17;

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

/*!
 * \brief The smallest and largest of the n integers x[0], x[inner], ... (four accumulators on a
 *  contiguous line, so the loop vectorizes).
 */
template <typename T>
void MinMax(const T* x, int64_t inner, int64_t n, T* lo, T* hi) {
  T l[4] = {x[0], x[0], x[0], x[0]}, h[4] = {x[0], x[0], x[0], x[0]};
  int64_t j = 0;
  if (inner == 1) {
    for (; j + 4 <= n; j += 4) {
      for (int k = 0; k < 4; ++k) {
        l[k] = x[j + k] < l[k] ? x[j + k] : l[k];
        h[k] = x[j + k] > h[k] ? x[j + k] : h[k];
      }
    }
  }
  for (; j < n; ++j) {
    l[0] = x[j * inner] < l[0] ? x[j * inner] : l[0];
    h[0] = x[j * inner] > h[0] ? x[j * inner] : h[0];
  }
  *lo = std::min(std::min(l[0], l[1]), std::min(l[2], l[3]));
  *hi = std::max(std::max(h[0], h[1]), std::max(h[2], h[3]));
}

/*! \return b - a (a <= b) as an unsigned 64-bit number: exact for every pair of T. */
template <typename T>
uint64_t RangeOf(T a, T b) {
  return static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
}

/*!
 * \brief Sort the n integers x[0], x[inner], ..., all in [lo, lo + range], into dst[0, n) by
 *  counting each value (range < kCountRange, n < 2^32): one pass to count, one to write.
 */
template <bool kDesc, typename T>
void CountSortLine(const T* x, int64_t inner, int64_t n, T lo, uint64_t range, T* dst) {
  std::vector<uint32_t> count(range + 1, 0);  // n < 2^32: no count overflows
  const uint64_t base = static_cast<uint64_t>(lo);
  for (int64_t j = 0; j < n; ++j) ++count[static_cast<uint64_t>(x[j * inner]) - base];
  int64_t o = 0;
  for (uint64_t i = 0; i <= range; ++i) {
    const uint64_t d = kDesc ? range - i : i;
    const T v = static_cast<T>(base + d);
    for (uint32_t c = count[d]; c > 0; --c) dst[o++] = v;
  }
}

/*!
 * \brief Sort the n 64-bit integers x[0], x[inner], ..., all in [lo, lo + 2^32), into dst[0, n)
 *  as 32-bit keys x - lo, which the vectorized sort takes twice as many of per vector: the keys
 *  are written (through memcpy) into the upper half of dst's bytes, sorted there, and widened
 *  back block by block, each block's keys copied out before dst's elements over them are
 *  written (element j lies below key j + 1, so no later key is overwritten).
 */
template <bool kDesc, typename T>
void NarrowSortLine(const hwy::Sorter& sorter, const T* x, int64_t inner, int64_t n, T lo, T* dst);

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
    if (n >= (sizeof(T) == 8 ? kNarrowMinLength : kCountMinLength) && sizeof(T) >= 4) {
      // Lines whose values span a narrow range: counted (a range below kCountRange) or, for
      // 64-bit integers within 2^32 of each other, sorted as 32-bit keys. A sample of the line
      // decides whether the full pass over it for its range is worth making.
      const uint64_t limit = sizeof(T) == 8 ? uint64_t{0xffffffffu} : kCountRange - 1;
      const int64_t step = n / kRangeSample;
      T slo = x[0], shi = x[0];
      for (int64_t j = 0; j < n; j += step) {
        slo = std::min(slo, x[j * inner]);
        shi = std::max(shi, x[j * inner]);
      }
      if (RangeOf(slo, shi) <= limit) {
        T lo, hi;
        MinMax(x, inner, n, &lo, &hi);
        const uint64_t range = RangeOf(lo, hi);
        if (range < kCountRange && n >= kCountMinLength && n < (int64_t{1} << 32)) {
          CountSortLine<kDesc>(x, inner, n, lo, range, dst);
          return;
        }
        if constexpr (sizeof(T) == 8) {
          if (range <= limit) {
            NarrowSortLine<kDesc>(sorter, x, inner, n, lo, dst);
            return;
          }
        }
      }
    }
    if (inner == 1) {
      std::memcpy(dst, x, n * sizeof(T));
    } else {
      for (int64_t j = 0; j < n; ++j) dst[j] = x[j * inner];
    }
    SortIntegers<kDesc>(sorter, dst, n);
  }
}

template <bool kDesc, typename T>
void NarrowSortLine(const hwy::Sorter& sorter, const T* x, int64_t inner, int64_t n, T lo, T* dst) {
  static_assert(sizeof(T) == 8);
  char* keys = reinterpret_cast<char*>(dst) + n * sizeof(uint32_t);
  const uint64_t base = static_cast<uint64_t>(lo);
  constexpr int64_t kBlock = 1024;
  uint32_t k[kBlock];
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t len = std::min(kBlock, n - j0);
    for (int64_t j = 0; j < len; ++j) {
      k[j] = static_cast<uint32_t>(static_cast<uint64_t>(x[(j0 + j) * inner]) - base);
    }
    std::memcpy(keys + j0 * sizeof(uint32_t), k, len * sizeof(uint32_t));
  }
  // The library's own memory: it reads the keys as uint32, which the loop above wrote.
  SortIntegers<kDesc>(sorter, reinterpret_cast<uint32_t*>(keys), n);
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t len = std::min(kBlock, n - j0);
    std::memcpy(k, keys + j0 * sizeof(uint32_t), len * sizeof(uint32_t));
    for (int64_t j = 0; j < len; ++j) dst[j0 + j] = static_cast<T>(base + k[j]);
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
