/*!
 * \file gnn_kernels.cc
 * \brief The CPU kernels of spmm, sddmm and edge_softmax (gnn_op.h).
 *
 * Each kernel works row by row of the csr adjacency matrix, rows split across the pool in
 * ranges of about equal work (stored entries times the feature width, plus a cost per row), so
 * that the few very long rows of a power-law graph do not leave a thread idle.
 *
 * spmm keeps a block of columns of the output row in vector registers while it walks the row's
 * stored entries (one gathered row of x per entry, prefetched a few entries ahead), then writes
 * the block once: blocks of 8 vectors for sum and mean, 4 vectors of values plus 4 of positions
 * for max and min. sddmm computes one dot product per stored entry with four vector partial
 * sums. GCC vectors are used, built three times, for SSE2 (any x86-64, and the generic build
 * elsewhere), AVX2 with FMA and AVX-512, the best the CPU runs chosen at run time (capped by
 * MXFFI_SIMD_TARGET); max and min with AVX-512 use intrinsics instead (see Zmm).
 */
#include <mxffi/env.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "../parallel.h"
#include "../simd/simd.h"
#include "csr_kernels.h"
#include "gnn_op.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

/*! \brief Inlined into each caller, so that a caller built for AVX2 gets an AVX2 body. */
#define MXFFI_GNN_INLINE inline __attribute__((always_inline))

/*! \brief GCC vectors of 16 and 32 bytes, and integer vectors of the same lanes. */
template <typename DType>
struct Vectors;
template <>
struct Vectors<float> {
  typedef float V16 __attribute__((vector_size(16)));
  typedef float V32 __attribute__((vector_size(32)));
  typedef float V64 __attribute__((vector_size(64)));
  typedef int32_t I16 __attribute__((vector_size(16)));
  typedef int32_t I32 __attribute__((vector_size(32)));
  typedef int32_t I64 __attribute__((vector_size(64)));
};
template <>
struct Vectors<double> {
  typedef double V16 __attribute__((vector_size(16)));
  typedef double V32 __attribute__((vector_size(32)));
  typedef double V64 __attribute__((vector_size(64)));
  typedef int64_t I16 __attribute__((vector_size(16)));
  typedef int64_t I32 __attribute__((vector_size(32)));
  typedef int64_t I64 __attribute__((vector_size(64)));
};

template <typename V, typename DType>
MXFFI_GNN_INLINE V Load(const DType* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));  // an unaligned vector load
  return v;
}

/*! \brief Stored entries ahead whose gathered rows are prefetched. */
constexpr int64_t kPrefetchAhead = 8;

/*!
 * \brief Prefetch the bytes [0, bytes) of the gathered row of entry j + kPrefetchAhead, when
 *  the row has one: the gathers are random reads, whose misses are the kernels' main cost.
 */
template <typename DType, typename IType>
MXFFI_GNN_INLINE void PrefetchRow(int64_t j, int64_t je, const IType* idx, const DType* x,
                                  int64_t n, int64_t bytes) {
  if (j + kPrefetchAhead >= je) return;
  const char* p =
      reinterpret_cast<const char*>(x + static_cast<int64_t>(idx[j + kPrefetchAhead]) * n);
  for (int64_t off = 0; off < bytes; off += 64) __builtin_prefetch(p + off);
}

/*! \return the bits of f as a To of the same size (a register move at most). */
template <typename To, typename From>
MXFFI_GNN_INLINE To Bits(const From& f) {
  static_assert(sizeof(To) == sizeof(From), "a reinterpretation keeps the size");
  To t;
  std::memcpy(&t, &f, sizeof(To));
  return t;
}

/*! \brief The csr parts, typed. */
template <typename DType, typename IType>
struct Csr {
  int64_t rows;
  const IType* ptr;
  const IType* idx;
  const DType* val;
};

// ---- spmm: sum and mean ---------------------------------------------------------------------

/*!
 * \brief o[0:NV*L] = scale * the sum over p in [jb, je) of val[p] * x[idx[p], 0:NV*L] (x
 *  already offset to the block's first column), NV vector partial sums in registers.
 */
template <typename V, int NV, typename DType, typename IType>
MXFFI_GNN_INLINE void SumBlock(int64_t jb, int64_t je, const IType* idx, const DType* val,
                               const DType* x, int64_t n, DType scale, DType* o) {
  constexpr int64_t L = sizeof(V) / sizeof(DType);
  V acc[NV];
  for (int q = 0; q < NV; ++q) acc[q] = V{};
  for (int64_t j = jb; j < je; ++j) {
    PrefetchRow(j, je, idx, x, n, static_cast<int64_t>(sizeof(acc)));
    const DType v = val[j];
    const DType* b = x + static_cast<int64_t>(idx[j]) * n;
    for (int q = 0; q < NV; ++q) acc[q] += v * Load<V>(b + q * L);
  }
  for (int q = 0; q < NV; ++q) acc[q] *= scale;
  std::memcpy(o, acc, sizeof(acc));
}

template <typename V, typename DType, typename IType>
MXFFI_GNN_INLINE void SumRowsImpl(int64_t rb, int64_t re, const Csr<DType, IType>& a,
                                  const DType* x, int64_t n, bool mean, DType* out) {
  constexpr int64_t L = sizeof(V) / sizeof(DType);
  for (int64_t r = rb; r < re; ++r) {
    DType* o = out + r * n;
    const int64_t jb = a.ptr[r], je = a.ptr[r + 1];
    // mean: the sum over the stored count (an empty row sums to 0 and stays 0).
    const DType scale = mean && je > jb ? DType(1) / static_cast<DType>(je - jb) : DType(1);
    int64_t c = 0;
    for (; c + 8 * L <= n; c += 8 * L) SumBlock<V, 8>(jb, je, a.idx, a.val, x + c, n, scale, o + c);
    if (c + 4 * L <= n) {
      SumBlock<V, 4>(jb, je, a.idx, a.val, x + c, n, scale, o + c);
      c += 4 * L;
    }
    for (; c + L <= n; c += L) SumBlock<V, 1>(jb, je, a.idx, a.val, x + c, n, scale, o + c);
    if (c == n) continue;
    for (int64_t i = c; i < n; ++i) o[i] = DType(0);
    for (int64_t j = jb; j < je; ++j) {
      const DType v = a.val[j];
      const DType* b = x + static_cast<int64_t>(a.idx[j]) * n;
      for (int64_t i = c; i < n; ++i) o[i] += v * b[i];
    }
    for (int64_t i = c; i < n; ++i) o[i] *= scale;
  }
}

// ---- spmm: max and min ----------------------------------------------------------------------

/*!
 * \return whether cand replaces best: greater (kMax) or smaller, or a NaN replacing a number,
 *  so that a NaN product wins as in numpy's argmax and the first NaN stays.
 */
template <bool kMax, typename DType>
MXFFI_GNN_INLINE bool Better(DType cand, DType best) {
  return (kMax ? cand > best : cand < best) || (cand != cand && best == best);
}

/*! \brief One column c of the max or min: the scalar path (tails, and very long rows). */
template <bool kMax, typename DType, typename IType>
MXFFI_GNN_INLINE void ArgColumn(int64_t jb, int64_t je, const IType* idx, const DType* val,
                                const DType* x, int64_t n, int64_t c, DType* o, int64_t* arg) {
  DType best = val[jb] * x[static_cast<int64_t>(idx[jb]) * n + c];
  int64_t at = jb;
  for (int64_t j = jb + 1; j < je; ++j) {
    const DType cand = val[j] * x[static_cast<int64_t>(idx[j]) * n + c];
    if (Better<kMax>(cand, best)) {
      best = cand;
      at = j;
    }
  }
  o[c] = best;
  arg[c] = at;
}

/*!
 * \brief Columns [0, NV*L) of the max or min of a non-empty row: values and positions (relative
 *  to jb, in integer lanes as wide as the values) kept in registers; the positions are written
 *  as int64 edge ids. The row holds fewer than 2**31 entries when the lanes are 32-bit.
 */
template <typename V, typename VI, int NV, bool kMax, typename DType, typename IType>
MXFFI_GNN_INLINE void ArgBlock(int64_t jb, int64_t je, const IType* idx, const DType* val,
                               const DType* x, int64_t n, DType* o, int64_t* arg) {
  constexpr int64_t L = sizeof(V) / sizeof(DType);
  using Lane = std::conditional_t<sizeof(DType) == 4, int32_t, int64_t>;
  V best[NV];
  VI at[NV];
  {
    const DType v = val[jb];
    const DType* b = x + static_cast<int64_t>(idx[jb]) * n;
    for (int q = 0; q < NV; ++q) {
      best[q] = v * Load<V>(b + q * L);
      at[q] = VI{};
    }
  }
  for (int64_t j = jb + 1; j < je; ++j) {
    PrefetchRow(j, je, idx, x, n, static_cast<int64_t>(sizeof(best)));
    const DType v = val[j];
    const DType* b = x + static_cast<int64_t>(idx[j]) * n;
    const VI here = VI{} + static_cast<Lane>(j - jb);
    for (int q = 0; q < NV; ++q) {
      const V cand = v * Load<V>(b + q * L);
      // Better(): not (cand <= best) holds when cand > best or either is NaN; best == best
      // keeps a NaN best. The selects are bitwise (a cast between vectors of one size is a
      // reinterpretation), which every target does in vector registers; GCC expands a vector
      // ?: piecewise here.
      VI take;
      if constexpr (kMax) {
        take = ~(cand <= best[q]) & (best[q] == best[q]);
      } else {
        take = ~(cand >= best[q]) & (best[q] == best[q]);
      }
      best[q] = Bits<V>((Bits<VI>(cand) & take) | (Bits<VI>(best[q]) & ~take));
      at[q] = (here & take) | (at[q] & ~take);
    }
  }
  std::memcpy(o, best, sizeof(best));
  for (int q = 0; q < NV; ++q) {
    for (int64_t l = 0; l < L; ++l) arg[q * L + l] = jb + static_cast<int64_t>(at[q][l]);
  }
}

template <typename V, typename VI, bool kMax, typename DType, typename IType>
MXFFI_GNN_INLINE void ArgRowsImpl(int64_t rb, int64_t re, const Csr<DType, IType>& a,
                                  const DType* x, int64_t n, DType* out, int64_t* arg) {
  constexpr int64_t L = sizeof(V) / sizeof(DType);
  constexpr bool narrow = sizeof(DType) == 4;  // 32-bit position lanes
  for (int64_t r = rb; r < re; ++r) {
    DType* o = out + r * n;
    int64_t* g = arg + r * n;
    const int64_t jb = a.ptr[r], je = a.ptr[r + 1];
    if (jb == je) {
      for (int64_t c = 0; c < n; ++c) {
        o[c] = DType(0);
        g[c] = -1;
      }
      continue;
    }
    int64_t c = 0;
    if (!narrow || je - jb <= INT32_MAX) {
      for (; c + 4 * L <= n; c += 4 * L) {
        ArgBlock<V, VI, 4, kMax>(jb, je, a.idx, a.val, x + c, n, o + c, g + c);
      }
      for (; c + L <= n; c += L)
        ArgBlock<V, VI, 1, kMax>(jb, je, a.idx, a.val, x + c, n, o + c, g + c);
    }
    for (; c < n; ++c) ArgColumn<kMax>(jb, je, a.idx, a.val, x, n, c, o, g);
  }
}

// ---- spmm: max and min with AVX-512 ------------------------------------------------------

#if defined(__x86_64__) && defined(__GNUC__)
#define MXFFI_GNN_AVX512 __attribute__((target("avx512f,avx512dq,avx2,fma")))
#define MXFFI_GNN_AVX512_INLINE MXFFI_GNN_AVX512 inline __attribute__((always_inline))

/*!
 * \brief The AVX-512 operations of the max and min kernel, written with intrinsics: GCC's
 *  vector extension expands 64-byte comparisons lane by lane, where the intrinsics compare into
 *  a mask register and select with masked moves. Positions are 32-bit lanes for float (rows
 *  shorter than 2**31 entries) and 64-bit lanes for double, relative to the row's first entry.
 */
template <typename DType>
struct Zmm;
template <>
struct Zmm<float> {
  using V = __m512;
  using M = __mmask16;
  static constexpr int64_t L = 16;
  MXFFI_GNN_AVX512_INLINE static V Scaled(float s, const float* p) {
    return _mm512_mul_ps(_mm512_set1_ps(s), _mm512_loadu_ps(p));
  }
  template <bool kMax>
  MXFFI_GNN_AVX512_INLINE static M Take(V cand, V best) {
    // Better(): not (cand <= best) (unordered: a NaN cand) while best is not NaN.
    return _mm512_cmp_ps_mask(cand, best, kMax ? _CMP_NLE_UQ : _CMP_NGE_UQ) &
           _mm512_cmp_ps_mask(best, best, _CMP_ORD_Q);
  }
  MXFFI_GNN_AVX512_INLINE static V Select(M m, V cand, V best) {
    return _mm512_mask_mov_ps(best, m, cand);
  }
  MXFFI_GNN_AVX512_INLINE static __m512i Splat(int64_t i) {
    return _mm512_set1_epi32(static_cast<int32_t>(i));
  }
  MXFFI_GNN_AVX512_INLINE static __m512i SelectPos(M m, __m512i here, __m512i at) {
    return _mm512_mask_mov_epi32(at, m, here);
  }
  MXFFI_GNN_AVX512_INLINE static void Store(float* o, V v) { _mm512_storeu_ps(o, v); }
  MXFFI_GNN_AVX512_INLINE static void StorePos(int64_t* g, __m512i at, int64_t jb) {
    const __m512i base = _mm512_set1_epi64(jb);
    const __m512i lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(at));
    const __m512i hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(at, 1));
    _mm512_storeu_si512(g, _mm512_add_epi64(lo, base));
    _mm512_storeu_si512(g + 8, _mm512_add_epi64(hi, base));
  }
};
template <>
struct Zmm<double> {
  using V = __m512d;
  using M = __mmask8;
  static constexpr int64_t L = 8;
  MXFFI_GNN_AVX512_INLINE static V Scaled(double s, const double* p) {
    return _mm512_mul_pd(_mm512_set1_pd(s), _mm512_loadu_pd(p));
  }
  template <bool kMax>
  MXFFI_GNN_AVX512_INLINE static M Take(V cand, V best) {
    return _mm512_cmp_pd_mask(cand, best, kMax ? _CMP_NLE_UQ : _CMP_NGE_UQ) &
           _mm512_cmp_pd_mask(best, best, _CMP_ORD_Q);
  }
  MXFFI_GNN_AVX512_INLINE static V Select(M m, V cand, V best) {
    return _mm512_mask_mov_pd(best, m, cand);
  }
  MXFFI_GNN_AVX512_INLINE static __m512i Splat(int64_t i) { return _mm512_set1_epi64(i); }
  MXFFI_GNN_AVX512_INLINE static __m512i SelectPos(M m, __m512i here, __m512i at) {
    return _mm512_mask_mov_epi64(at, m, here);
  }
  MXFFI_GNN_AVX512_INLINE static void Store(double* o, V v) { _mm512_storeu_pd(o, v); }
  MXFFI_GNN_AVX512_INLINE static void StorePos(int64_t* g, __m512i at, int64_t jb) {
    _mm512_storeu_si512(g, _mm512_add_epi64(at, _mm512_set1_epi64(jb)));
  }
};

/*! \brief ArgBlock with AVX-512: NV vectors of 16 floats or 8 doubles per pass. */
template <int NV, bool kMax, typename DType, typename IType>
MXFFI_GNN_AVX512_INLINE void ArgBlock512(int64_t jb, int64_t je, const IType* idx, const DType* val,
                                         const DType* x, int64_t n, DType* o, int64_t* arg) {
  using Z = Zmm<DType>;
  typename Z::V best[NV];
  __m512i at[NV];
  const DType* b0 = x + static_cast<int64_t>(idx[jb]) * n;
  for (int q = 0; q < NV; ++q) {
    best[q] = Z::Scaled(val[jb], b0 + q * Z::L);
    at[q] = _mm512_setzero_si512();
  }
  for (int64_t j = jb + 1; j < je; ++j) {
    PrefetchRow(j, je, idx, x, n, static_cast<int64_t>(NV * Z::L * sizeof(DType)));
    const DType* b = x + static_cast<int64_t>(idx[j]) * n;
    const __m512i here = Z::Splat(j - jb);
    for (int q = 0; q < NV; ++q) {
      const typename Z::V cand = Z::Scaled(val[j], b + q * Z::L);
      const typename Z::M take = Z::template Take<kMax>(cand, best[q]);
      best[q] = Z::Select(take, cand, best[q]);
      at[q] = Z::SelectPos(take, here, at[q]);
    }
  }
  for (int q = 0; q < NV; ++q) {
    Z::Store(o + q * Z::L, best[q]);
    Z::StorePos(arg + q * Z::L, at[q], jb);
  }
}

/*! \brief ArgRowsImpl with AVX-512 blocks of 4 vectors (64 floats, 32 doubles), then 1. */
template <bool kMax, typename DType, typename IType>
MXFFI_GNN_AVX512 void ArgRowsAVX512(int64_t rb, int64_t re, const Csr<DType, IType>& a,
                                    const DType* x, int64_t n, DType* out, int64_t* arg) {
  constexpr int64_t L = Zmm<DType>::L;
  for (int64_t r = rb; r < re; ++r) {
    DType* o = out + r * n;
    int64_t* g = arg + r * n;
    const int64_t jb = a.ptr[r], je = a.ptr[r + 1];
    if (jb == je) {
      for (int64_t c = 0; c < n; ++c) {
        o[c] = DType(0);
        g[c] = -1;
      }
      continue;
    }
    int64_t c = 0;
    if (sizeof(DType) == 8 || je - jb <= INT32_MAX) {
      for (; c + 4 * L <= n; c += 4 * L) {
        ArgBlock512<4, kMax>(jb, je, a.idx, a.val, x + c, n, o + c, g + c);
      }
      for (; c + L <= n; c += L) ArgBlock512<1, kMax>(jb, je, a.idx, a.val, x + c, n, o + c, g + c);
    }
    for (; c < n; ++c) ArgColumn<kMax>(jb, je, a.idx, a.val, x, n, c, o, g);
  }
}
#endif

// ---- sddmm ----------------------------------------------------------------------------------

/*!
 * \return the sum of v's lanes, adding halves (a tree of vector adds): a lane-by-lane loop
 *  would be a chain of dependent scalar adds, per stored entry of sddmm.
 */
template <typename DType, typename V>
MXFFI_GNN_INLINE DType HSum(V v) {
  if constexpr (sizeof(V) > 16) {
    typedef DType H __attribute__((vector_size(sizeof(V) / 2)));
    H lo, hi;
    std::memcpy(&lo, &v, sizeof(H));
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof(H), sizeof(H));
    return HSum<DType>(lo + hi);
  } else {
    DType l[sizeof(V) / sizeof(DType)];
    std::memcpy(l, &v, sizeof(V));
    DType sum = l[0];
    for (size_t i = 1; i < sizeof(V) / sizeof(DType); ++i) sum += l[i];
    return sum;
  }
}

/*! \return the dot product of a[0:n] and b[0:n]: four vector partial sums, then the tail. */
template <typename V, typename DType>
MXFFI_GNN_INLINE DType Dot(const DType* a, const DType* b, int64_t n) {
  constexpr int64_t L = sizeof(V) / sizeof(DType);
  V acc0{}, acc1{}, acc2{}, acc3{};
  int64_t c = 0;
  for (; c + 4 * L <= n; c += 4 * L) {
    acc0 += Load<V>(a + c) * Load<V>(b + c);
    acc1 += Load<V>(a + c + L) * Load<V>(b + c + L);
    acc2 += Load<V>(a + c + 2 * L) * Load<V>(b + c + 2 * L);
    acc3 += Load<V>(a + c + 3 * L) * Load<V>(b + c + 3 * L);
  }
  for (; c + L <= n; c += L) acc0 += Load<V>(a + c) * Load<V>(b + c);
  DType sum = HSum<DType>((acc0 + acc1) + (acc2 + acc3));
  for (; c < n; ++c) sum += a[c] * b[c];
  return sum;
}

template <typename V, typename DType, typename IType>
MXFFI_GNN_INLINE void SddmmRowsImpl(int64_t rb, int64_t re, const Csr<DType, IType>& adj,
                                    const DType* a, const DType* b, int64_t n, DType* out) {
  for (int64_t r = rb; r < re; ++r) {
    const DType* ar = a + r * n;
    const int64_t je = adj.ptr[r + 1];
    for (int64_t j = adj.ptr[r]; j < je; ++j) {
      PrefetchRow(j, je, adj.idx, b, n, n * static_cast<int64_t>(sizeof(DType)));
      out[j] = adj.val[j] * Dot<V>(ar, b + static_cast<int64_t>(adj.idx[j]) * n, n);
    }
  }
}

// ---- the builds for SSE2 and AVX2 -----------------------------------------------------------

/*! \brief The row kernels for one vector width (the template bodies above, inlined). */
template <typename DType, typename IType>
struct RowKernels {
  void (*sum)(int64_t, int64_t, const Csr<DType, IType>&, const DType*, int64_t, bool, DType*);
  void (*max)(int64_t, int64_t, const Csr<DType, IType>&, const DType*, int64_t, DType*, int64_t*);
  void (*min)(int64_t, int64_t, const Csr<DType, IType>&, const DType*, int64_t, DType*, int64_t*);
  void (*sddmm)(int64_t, int64_t, const Csr<DType, IType>&, const DType*, const DType*, int64_t,
                DType*);
};

#define MXFFI_GNN_ROW_KERNELS(ATTR, SUFFIX, VN, IN)                                                \
  template <typename DType, typename IType>                                                        \
  ATTR void SumRows##SUFFIX(int64_t rb, int64_t re, const Csr<DType, IType>& a, const DType* x,    \
                            int64_t n, bool mean, DType* out) {                                    \
    SumRowsImpl<typename Vectors<DType>::VN>(rb, re, a, x, n, mean, out);                          \
  }                                                                                                \
  template <typename DType, typename IType>                                                        \
  ATTR void MaxRows##SUFFIX(int64_t rb, int64_t re, const Csr<DType, IType>& a, const DType* x,    \
                            int64_t n, DType* out, int64_t* arg) {                                 \
    ArgRowsImpl<typename Vectors<DType>::VN, typename Vectors<DType>::IN, true>(rb, re, a, x, n,   \
                                                                                out, arg);         \
  }                                                                                                \
  template <typename DType, typename IType>                                                        \
  ATTR void MinRows##SUFFIX(int64_t rb, int64_t re, const Csr<DType, IType>& a, const DType* x,    \
                            int64_t n, DType* out, int64_t* arg) {                                 \
    ArgRowsImpl<typename Vectors<DType>::VN, typename Vectors<DType>::IN, false>(rb, re, a, x, n,  \
                                                                                 out, arg);        \
  }                                                                                                \
  template <typename DType, typename IType>                                                        \
  ATTR void SddmmRows##SUFFIX(int64_t rb, int64_t re, const Csr<DType, IType>& adj,                \
                              const DType* a, const DType* b, int64_t n, DType* out) {             \
    SddmmRowsImpl<typename Vectors<DType>::VN>(rb, re, adj, a, b, n, out);                         \
  }                                                                                                \
  template <typename DType, typename IType>                                                        \
  constexpr RowKernels<DType, IType> kRowKernels##SUFFIX = {                                       \
      SumRows##SUFFIX<DType, IType>, MaxRows##SUFFIX<DType, IType>, MinRows##SUFFIX<DType, IType>, \
      SddmmRows##SUFFIX<DType, IType>};

MXFFI_GNN_ROW_KERNELS(, Base, V16, I16)
#if defined(__x86_64__) && defined(__GNUC__)
MXFFI_GNN_ROW_KERNELS(__attribute__((target("avx2,fma"))), AVX2, V32, I32)
MXFFI_GNN_ROW_KERNELS(__attribute__((target("avx512f,avx512vl,avx512dq,avx2,fma"))), AVX512, V64,
                      I64)
#endif

/*! \return the row kernels for this CPU: AVX2 and FMA where it has them. */
template <typename DType, typename IType>
const RowKernels<DType, IType>& SelectKernels() {
#if defined(__x86_64__) && defined(__GNUC__)
  // The best build this CPU runs, capped as the other vectorized kernels are by
  // MXFFI_SIMD_TARGET (runtime.simd_target names the result: AVX3* is AVX-512).
  static const int level = [] {
    __builtin_cpu_init();
    const std::string chosen = simd::TargetName();
    const int cap = chosen.rfind("AVX3", 0) == 0 ? 2 : chosen == "AVX2" ? 1 : 0;
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") &&
                        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    return std::min(cap, avx512 ? 2 : avx2 ? 1 : 0);
  }();
  const bool avx512 = level == 2, avx2 = level == 1;
  // Max and min with AVX-512 are ArgRowsAVX512's intrinsics: GCC's vector extension expands
  // 64-byte comparisons lane by lane.
  static constexpr RowKernels<DType, IType> kAVX512 = {
      SumRowsAVX512<DType, IType>, ArgRowsAVX512<true, DType, IType>,
      ArgRowsAVX512<false, DType, IType>, SddmmRowsAVX512<DType, IType>};
  if (avx512) return kAVX512;
  if (avx2) return kRowKernelsAVX2<DType, IType>;
#endif
  return kRowKernelsBase<DType, IType>;
}

template <typename DType, typename IType>
Csr<DType, IType> CsrOf(const NDArray& adj) {
  return {adj.tensor().shape[0], Ptr<const IType>(adj.sparse_indptr()),
          Ptr<const IType>(adj.sparse_indices()), Ptr<const DType>(adj.sparse_data())};
}

template <typename DType, typename IType>
void Spmm(SpmmReduce reduce, const NDArray& adj, const NDArray& x_array, const NDArray& out_array,
          const NDArray& arg_array) {
  const Csr<DType, IType> a = CsrOf<DType, IType>(adj);
  const int64_t n = x_array.tensor().shape[1];
  if (a.rows == 0 || n == 0) return;
  const int64_t nnz = a.ptr[a.rows];
  const DType* x = Ptr<const DType>(x_array);
  DType* out = Ptr<DType>(out_array);
  std::optional<ScopedGILRelease> gil;
  if ((nnz + a.rows) * n > kReleaseGILThreshold) gil.emplace();
  const RowKernels<DType, IType>& k = SelectKernels<DType, IType>();
  if (reduce == SpmmReduce::kSum || reduce == SpmmReduce::kMean) {
    const bool mean = reduce == SpmmReduce::kMean;
    ParallelRowsByWork(a.rows, a.ptr, n, n,
                       [&](int64_t rb, int64_t re) { k.sum(rb, re, a, x, n, mean, out); });
    return;
  }
  int64_t* arg = Ptr<int64_t>(arg_array);
  auto rows = reduce == SpmmReduce::kMax ? k.max : k.min;
  ParallelRowsByWork(a.rows, a.ptr, 2 * n, 2 * n,
                     [&](int64_t rb, int64_t re) { rows(rb, re, a, x, n, out, arg); });
}

template <typename DType, typename IType>
void Sddmm(const NDArray& adj, const NDArray& a_array, const NDArray& b_array,
           const NDArray& out_data) {
  const Csr<DType, IType> c = CsrOf<DType, IType>(adj);
  const int64_t n = a_array.tensor().shape[1];
  const int64_t nnz = c.rows > 0 ? static_cast<int64_t>(c.ptr[c.rows]) : 0;
  if (nnz == 0) return;
  DType* out = Ptr<DType>(out_data);
  std::optional<ScopedGILRelease> gil;
  if (nnz * (n + 1) > kReleaseGILThreshold) gil.emplace();
  const RowKernels<DType, IType>& k = SelectKernels<DType, IType>();
  const DType* a = Ptr<const DType>(a_array);
  const DType* b = Ptr<const DType>(b_array);
  ParallelRowsByWork(c.rows, c.ptr, n + 1, 1,
                     [&](int64_t rb, int64_t re) { k.sddmm(rb, re, c, a, b, n, out); });
}

template <typename DType, typename IType>
void EdgeSoftmax(const NDArray& adj, const NDArray& scores, const NDArray& out_array) {
  const int64_t rows = adj.tensor().shape[0];
  const IType* ptr = Ptr<const IType>(adj.sparse_indptr());
  const DLTensor& t = scores.tensor();
  const int64_t heads = t.ndim == 2 ? t.shape[1] : 1;
  const int64_t nnz = t.shape[0];
  if (nnz == 0 || heads == 0) return;
  const DType* s = Ptr<const DType>(scores);
  DType* out = Ptr<DType>(out_array);
  std::optional<ScopedGILRelease> gil;
  if (nnz * heads > kReleaseGILThreshold) gil.emplace();
  ParallelRowsByWork(rows, ptr, 8 * heads, 1, [&](int64_t rb, int64_t re) {
    std::vector<DType> top(heads), inv(heads);
    for (int64_t r = rb; r < re; ++r) {
      const int64_t jb = ptr[r], je = ptr[r + 1];
      if (jb == je) continue;
      // Numerically stable: exp(s - max) is at most 1, and the max term is exactly 1.
      for (int64_t h = 0; h < heads; ++h) top[h] = s[jb * heads + h];
      for (int64_t j = jb + 1; j < je; ++j) {
        const DType* sj = s + j * heads;
        for (int64_t h = 0; h < heads; ++h) top[h] = std::max(top[h], sj[h]);
      }
      std::fill(inv.begin(), inv.end(), DType(0));
      for (int64_t j = jb; j < je; ++j) {
        const DType* sj = s + j * heads;
        DType* oj = out + j * heads;
        for (int64_t h = 0; h < heads; ++h) {
          oj[h] = std::exp(sj[h] - top[h]);
          inv[h] += oj[h];
        }
      }
      for (int64_t h = 0; h < heads; ++h) inv[h] = DType(1) / inv[h];
      for (int64_t j = jb; j < je; ++j) {
        DType* oj = out + j * heads;
        for (int64_t h = 0; h < heads; ++h) oj[h] *= inv[h];
      }
    }
  });
}

}  // namespace

void SpmmCPU(SpmmReduce reduce, const NDArray& adj, const NDArray& x, const NDArray& out,
             const NDArray& arg) {
  MXFFI_REAL_SWITCH(adj.tensor().dtype, "sparse.spmm", DType, {
    MXFFI_INDEX_SWITCH(adj.sparse_indices().tensor().dtype, "sparse.spmm", IType,
                       { Spmm<DType, IType>(reduce, adj, x, out, arg); });
  });
}

void SddmmCPU(const NDArray& adj, const NDArray& a, const NDArray& b, const NDArray& out_data) {
  MXFFI_REAL_SWITCH(adj.tensor().dtype, "sparse.sddmm", DType, {
    MXFFI_INDEX_SWITCH(adj.sparse_indices().tensor().dtype, "sparse.sddmm", IType,
                       { Sddmm<DType, IType>(adj, a, b, out_data); });
  });
}

void EdgeSoftmaxCPU(const NDArray& adj, const NDArray& scores, const NDArray& out) {
  MXFFI_REAL_SWITCH(scores.tensor().dtype, "sparse.edge_softmax", DType, {
    MXFFI_INDEX_SWITCH(adj.sparse_indices().tensor().dtype, "sparse.edge_softmax", IType,
                       { EdgeSoftmax<DType, IType>(adj, scores, out); });
  });
}

}  // namespace op
}  // namespace mxffi
