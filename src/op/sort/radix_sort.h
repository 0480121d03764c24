/*!
 * \file radix_sort.h
 * \brief The CPU sort of long lines: a least-significant-digit radix sort (stable, 8-bit
 *  digits) on an unsigned key per element that orders as the sort's comparison does: integers
 *  with the sign bit flipped, floats by their bits flipped so that the integer order is the
 *  numeric one, -0.0 keyed as +0.0 (they are equal: a stable sort keeps their order), every
 *  NaN keyed last, and a descending sort on the complemented key (NaNs still last). A digit
 *  that every key shares is skipped, so the constant high bytes of small values, and the zero
 *  low bytes of the 16-bit floats widened to float, cost one histogram pass only.
 */
#ifndef MXFFI_SRC_OP_SORT_RADIX_SORT_H_
#define MXFFI_SRC_OP_SORT_RADIX_SORT_H_

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

namespace mxffi {
namespace op {
namespace sort {

/*! \brief The unsigned integer of A's size: the radix key type. */
template <typename A>
using RadixKeyT =
    std::conditional_t<sizeof(A) == 8, uint64_t,
                       std::conditional_t<sizeof(A) == 4, uint32_t,
                                          std::conditional_t<sizeof(A) == 2, uint16_t, uint8_t>>>;

/*! \return v's radix key: keys order as the sort orders the values (see the file comment). */
template <bool kDesc, typename A>
inline RadixKeyT<A> RadixKey(A v) {
  using U = RadixKeyT<A>;
  constexpr int kBits = 8 * sizeof(U);
  constexpr U kSign = static_cast<U>(U(1) << (kBits - 1));
  U k;
  if constexpr (std::is_floating_point_v<A>) {
    // On the bits, without branches (the loops filling keys vectorize).
    constexpr U kInf = sizeof(A) == 4 ? U(0x7f800000u) : U(0x7ff0000000000000ull);
    U b;
    std::memcpy(&b, &v, sizeof(b));
    const U mag = static_cast<U>(b & ~kSign);
    const bool nan = mag > kInf;
    b = mag == 0 ? U(0) : b;  // -0.0 keyed as +0.0
    // Negative: every bit flipped; positive: the sign bit set.
    k = static_cast<U>(b ^ (static_cast<U>(U(0) - (b >> (kBits - 1))) | kSign));
    if (kDesc) k = static_cast<U>(~k);
    // Non-NaN keys lie in [~key(+inf), key(+inf)], so neither they nor their complements are ~0.
    return nan ? static_cast<U>(~U(0)) : k;  // NaN: last in both orders
  } else if constexpr (std::is_signed_v<A>) {
    k = static_cast<U>(static_cast<U>(v) ^ kSign);
  } else {
    k = static_cast<U>(v);
  }
  return kDesc ? static_cast<U>(~k) : k;
}

/*! \return whether FromRadixKey gives v back from its key: v is neither NaN nor -0.0. */
template <typename A>
inline bool RadixExact(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    using U = RadixKeyT<A>;
    constexpr U kSign = static_cast<U>(U(1) << (8 * sizeof(U) - 1));
    constexpr U kInf = sizeof(A) == 4 ? U(0x7f800000u) : U(0x7ff0000000000000ull);
    U b;
    std::memcpy(&b, &v, sizeof(b));
    return static_cast<U>(b & ~kSign) <= kInf && b != kSign;
  } else {
    return true;
  }
}

/*!
 * \return the value whose RadixKey<kDesc> is k, for a k that came from a number other than
 *  -0.0 and NaN (for those the key does not tell the value).
 */
template <bool kDesc, typename A>
inline A FromRadixKey(RadixKeyT<A> k) {
  using U = RadixKeyT<A>;
  constexpr U kSign = static_cast<U>(U(1) << (8 * sizeof(U) - 1));
  if (kDesc) k = static_cast<U>(~k);
  if constexpr (std::is_floating_point_v<A>) {
    k = (k & kSign) ? static_cast<U>(k & ~kSign) : static_cast<U>(~k);
  } else if constexpr (std::is_signed_v<A>) {
    k = static_cast<U>(k ^ kSign);
  }
  A v;
  std::memcpy(&v, &k, sizeof(v));
  return v;
}

/*!
 * \brief Sort key[0, n) with payload pay[0, n) alongside, stably, using key2 and pay2 (n each)
 *  as the second buffers.
 * \return the payload buffer holding the result (pay or pay2).
 */
template <typename U, typename P>
P* RadixSortPairs(U* key, P* pay, U* key2, P* pay2, int64_t n) {
  constexpr int kBytes = sizeof(U);
  std::vector<int64_t> hist(kBytes * 256, 0);
  for (int64_t i = 0; i < n; ++i) {
    const U k = key[i];
    for (int b = 0; b < kBytes; ++b) ++hist[b * 256 + ((k >> (8 * b)) & 255)];
  }
  for (int b = 0; b < kBytes; ++b) {
    int64_t* h = hist.data() + b * 256;
    bool shared = false;
    int64_t sum = 0;
    for (int d = 0; d < 256; ++d) {
      shared = shared || h[d] == n;
      const int64_t c = h[d];
      h[d] = sum;
      sum += c;
    }
    if (shared) continue;  // every key has this digit: the pass would move nothing
    const int shift = 8 * b;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t o = h[(key[i] >> shift) & 255]++;
      key2[o] = key[i];
      pay2[o] = pay[i];
    }
    std::swap(key, key2);
    std::swap(pay, pay2);
  }
  return pay;
}

/*!
 * \brief Sort the values v[0, n) stably by their radix keys (to_key(v), e.g. RadixKey of ToAcc(v)),
 *  using v2 (n) as the second buffer; the keys (to_key of a value) are recomputed at each pass
 * rather than moved, which halves the memory traffic.
 * \return the buffer holding the result (v or v2).
 */
template <typename T, typename ToKey>
T* RadixSortValues(T* v, T* v2, int64_t n, ToKey to_key) {
  using U = decltype(to_key(v[0]));
  constexpr int kBytes = sizeof(U);
  std::vector<int64_t> hist(kBytes * 256, 0);
  for (int64_t i = 0; i < n; ++i) {
    const U k = to_key(v[i]);
    for (int b = 0; b < kBytes; ++b) ++hist[b * 256 + ((k >> (8 * b)) & 255)];
  }
  for (int b = 0; b < kBytes; ++b) {
    int64_t* h = hist.data() + b * 256;
    bool shared = false;
    int64_t sum = 0;
    for (int d = 0; d < 256; ++d) {
      shared = shared || h[d] == n;
      const int64_t c = h[d];
      h[d] = sum;
      sum += c;
    }
    if (shared) continue;
    const int shift = 8 * b;
    for (int64_t i = 0; i < n; ++i) v2[h[(to_key(v[i]) >> shift) & 255]++] = v[i];
    std::swap(v, v2);
  }
  return v;
}

/*! \brief Lines at least this long sort by radix: below it the histograms cost more. */
constexpr int64_t kRadixMinLength = 256;

/*! \brief Per-thread buffers of the radix sort of lines of n elements with payload P. */
template <typename U, typename P>
struct RadixBuffers {
  explicit RadixBuffers(int64_t n) : key(2 * n), pay(2 * n), n(n) {}
  std::vector<U> key;
  std::vector<P> pay;
  int64_t n;

  /*!
   * \brief Sort the keys and payloads filled into the first halves (key.data(), pay.data()).
   * \return the payloads in sorted order.
   */
  const P* Sort() {
    return RadixSortPairs(key.data(), pay.data(), key.data() + n, pay.data() + n, n);
  }
};

}  // namespace sort
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SORT_RADIX_SORT_H_
