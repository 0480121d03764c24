/*!
 * \file spgemm.cc
 * \brief csr @ csr on the CPU (the dot op's kernel for two csr operands): Gustavson's row by
 *  row product in two passes over the rows of a, split across the pool.
 *
 * Row i of a @ b is the sum, over the stored values (k, v) of row i of a, of v times row k of b.
 * The work of a row is its number of products (the lengths of the rows of b it names); the rows
 * are cut into ranges of about equal work, a few per thread, which the threads take in turn.
 *
 * 1. Count: each row's number of distinct columns, an upper bound of its stored values.
 * 2. Fill: each row's sums, written at the row's place of the counted layout, column ids sorted,
 *    sums that are exactly zero (values that cancel) dropped, as scipy drops them. When any was
 *    dropped, a last pass moves the rows together.
 *
 * A row's sums are accumulated in a dense array of b's columns, one per thread, with a bit per
 * column saying whether the row has touched it. Its columns come out sorted in one of three ways:
 *  - close together (a few bit words per column between the first and the last): read from the
 *    bit words in order, which clears them for the next row. When the ends of the rows of b it
 *    names (sorted, in a canonical csr) and the count pass's number of columns say so before
 *    the products, these are accumulated with nothing else kept; should a row of b not be
 *    sorted after all, the columns found fall short of the count and every word is read;
 *  - at most kInsertionColumns of them: sorted in place by insertion;
 *  - else a bucket pass, then a sort of each bucket.
 * When b has more columns than a thread's accumulator keeps in cache, a row of at most kShortRow
 * products lists them instead, sorts them by column (a bucket pass, then an insertion sort that
 * finishes the nearly sorted list in about one step per product) and sums each run of one
 * column. When b has so many columns that a dense array per thread would cost more than the
 * products themselves, a long row's products are sorted (std::stable_sort) instead. The count
 * pass marks columns with the last row that counted them. A row of a with one stored value is
 * row k of b scaled: copied without either. Within a column the products are summed in the
 * order of a's stored values, on every path, so the result is the same on every run and every
 * thread count.
 */
#include <mxffi/op/op.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "../parallel.h"
#include "csr_kernels.h"
#include "csr_transpose.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

/*! \brief How many of a's stored values ahead the row of b they name is prefetched. */
constexpr int64_t kAhead = 8;

/*! \brief Products up to which a row is summed by sorting its products (FillShortRow). */
constexpr int64_t kShortRow = 256;

/*! \brief Columns of b up to which the accumulator is a dense array per thread. */
constexpr int64_t kDenseMaxCols = int64_t{1} << 23;

/*!
 * \brief Columns of b up to which a thread's dense accumulator (8 bytes a column) stays in
 *  its share of L2, so that short rows accumulate there too rather than sorting products.
 */
constexpr int64_t kCachedAccCols = int64_t{1} << 16;

/*! \brief Columns up to which a row's columns are sorted by insertion alone. */
constexpr int64_t kInsertionColumns = 24;

/*! \brief Bit words scanned per distinct column at most, for a row's columns in order. */
constexpr int64_t kScanWordsPerColumn = 4;

/*! \brief A thread's scratch for FillShortRow: the products, their buckets, and sorted. */
template <typename DType>
struct ShortScratch {
  std::vector<int64_t> col, scol, bucket;
  std::vector<DType> val, sval;
};

template <typename DType, typename IA, typename IB>
struct SpGemm {
  using ShortScratch = ::mxffi::op::ShortScratch<DType>;
  CsrView<DType, IA> a;
  CsrView<DType, IB> b;
  /*! \brief Whether rows accumulate in a dense array (else by sorting their products). */
  bool dense;
  /*! \brief The products before each row (m + 1). */
  const int64_t* flops = nullptr;

  /*! \brief The operands, for the output's index dtype. */
  NDArray a_array, b_array;

  SpGemm(const NDArray& an, const NDArray& bn) : a(an), b(bn), a_array(an), b_array(bn) {}

  /*!
   * \brief Prefetch the row of b that a's stored value j + kAhead names (its column ids, and its
   *  values with values): rows of b are read in a random order, each a cache miss, which the
   *  prefetch starts while the rows before it are read.
   */
  void PrefetchAhead(int64_t j, bool values) const {
    if (j + kAhead >= a.nnz) return;
    const int64_t q = b.indptr[a.indices[j + kAhead]];
    __builtin_prefetch(b.indices + q);
    if (values) __builtin_prefetch(b.data + q);
  }

  int64_t RowLength(int64_t k) const {
    return static_cast<int64_t>(b.indptr[k + 1]) - static_cast<int64_t>(b.indptr[k]);
  }

  /*!
   * \brief The number of distinct columns of row i. stamps: one per column of b (1 + the last
   *  row that counted it, 0 at first; 32 bits, half the cache of 64, as dense rows have fewer
   *  than 2**32 - 1 rows), or empty when rows are sorted instead; keys: scratch.
   */
  int64_t CountRow(int64_t i, std::vector<uint32_t>* stamps, std::vector<int64_t>* keys) const {
    const int64_t jb = a.indptr[i], je = a.indptr[i + 1];
    if (je - jb == 1) return RowLength(a.indices[jb]);
    if (dense) {
      // A column's stamp is the last row that counted it, so stamps are never cleared.
      uint32_t* st = stamps->data();
      const uint32_t mark = static_cast<uint32_t>(i + 1);
      int64_t c = 0;
      for (int64_t j = jb; j < je; ++j) {
        PrefetchAhead(j, false);
        const int64_t k = a.indices[j];
        for (int64_t q = b.indptr[k]; q < b.indptr[k + 1]; ++q) {
          const int64_t col = b.indices[q];
          c += st[col] != mark;
          st[col] = mark;
        }
      }
      return c;
    }
    keys->clear();
    for (int64_t j = jb; j < je; ++j) {
      const int64_t k = a.indices[j];
      for (int64_t q = b.indptr[k]; q < b.indptr[k + 1]; ++q) keys->push_back(b.indices[q]);
    }
    std::sort(keys->begin(), keys->end());
    return std::unique(keys->begin(), keys->end()) - keys->begin();
  }

  /*!
   * \brief Row i's sums when it has few products (f): the products are listed, sorted by column
   *  (a bucket pass, about one bucket per product over the columns' span, then an insertion
   *  sort, both stable) and each run of one column summed in the order of a's values, as the
   *  dense accumulator sums it. No scattered reads or writes beyond the small bucket array.
   */
  template <typename OType>
  int64_t FillShortRow(int64_t i, int64_t f, OType* cols, DType* vals, ShortScratch* sc) const {
    const int64_t jb = a.indptr[i], je = a.indptr[i + 1];
    sc->col.resize(f);
    sc->val.resize(f);
    sc->scol.resize(f);
    sc->sval.resize(f);
    int64_t* pc = sc->col.data();
    DType* pv = sc->val.data();
    int64_t t = 0, lo = b.cols, hi = -1;
    for (int64_t j = jb; j < je; ++j) {
      PrefetchAhead(j, true);
      const DType v = a.data[j];
      const int64_t k = a.indices[j];
      for (int64_t q = b.indptr[k]; q < b.indptr[k + 1]; ++q, ++t) {
        const int64_t col = b.indices[q];
        pc[t] = col;
        pv[t] = v * b.data[q];
        lo = std::min(lo, col);
        hi = std::max(hi, col);
      }
    }
    if (f == 0) return 0;
    const int64_t span = hi - lo + 1;
    int shift = 0;
    while ((span >> shift) > 2 * f) ++shift;
    const int64_t nb = (span >> shift) + 1;
    sc->bucket.assign(nb + 1, 0);
    int64_t* bk = sc->bucket.data();
    int64_t* sk = sc->scol.data();
    DType* sv = sc->sval.data();
    for (t = 0; t < f; ++t) ++bk[((pc[t] - lo) >> shift) + 1];
    for (t = 0; t < nb; ++t) bk[t + 1] += bk[t];
    for (t = 0; t < f; ++t) {
      const int64_t pos = bk[(pc[t] - lo) >> shift]++;
      sk[pos] = pc[t];
      sv[pos] = pv[t];
    }
    for (t = 1; t < f; ++t) {
      const int64_t x = sk[t];
      const DType y = sv[t];
      int64_t u = t;
      for (; u > 0 && sk[u - 1] > x; --u) {
        sk[u] = sk[u - 1];
        sv[u] = sv[u - 1];
      }
      sk[u] = x;
      sv[u] = y;
    }
    int64_t w = 0;
    for (t = 0; t < f;) {
      const int64_t col = sk[t];
      DType s = sv[t];
      for (++t; t < f && sk[t] == col; ++t) s += sv[t];
      cols[w] = static_cast<OType>(col);
      vals[w] = s;
      w += s != DType(0);
    }
    return w;
  }

  /*!
   * \brief Adds the product p to column col of the accumulator. \return whether the row had
   *  not touched col yet. The first product of a column replaces what an earlier row left;
   *  later ones add. Selected, not branched on: whether a column is new is a coin toss in a
   *  sparse row.
   */
  static bool AddProduct(int64_t col, DType p, uint64_t* bt, DType* ac) {
    const uint64_t m = uint64_t{1} << (col & 63);
    const uint64_t word = bt[col >> 6];
    const DType old = ac[col];
    ac[col] = (word & m ? old : DType(0)) + p;
    bt[col >> 6] = word | m;
    return !(word & m);
  }

  /*!
   * \brief The sums of the t sorted columns in sorted, into cols/vals (which may be sorted
   *  itself: each is read before it is written), exact zeros dropped; their bit words cleared
   *  when bt is not null. \return how many were written.
   */
  template <typename I, typename OType>
  static int64_t EmitSorted(const I* sorted, int64_t t, const DType* ac, uint64_t* bt, OType* cols,
                            DType* vals) {
    int64_t w = 0;
    for (int64_t u = 0; u < t; ++u) {
      const int64_t col = sorted[u];
      if (bt != nullptr) bt[col >> 6] = 0;
      const DType s = ac[col];
      cols[w] = static_cast<OType>(col);
      vals[w] = s;
      w += s != DType(0);
    }
    return w;
  }

  /*!
   * \brief Reads the set bits of the words [w0, w1] in order into out (room for two more than
   *  it finds), two bits a step without a branch; clears the words when clear. \return the count.
   */
  static int64_t TakeBits(uint64_t* bt, int64_t w0, int64_t w1, bool clear, int64_t* out) {
    int64_t t = 0;
    for (int64_t wi = w0; wi <= w1; ++wi) {
      uint64_t x = bt[wi];
      if (clear) bt[wi] = 0;
      const int64_t base = wi << 6;
      for (;;) {
        out[t] = base + __builtin_ctzll(x | (uint64_t{1} << 63));
        t += x != 0;
        x &= x - 1;
        out[t] = base + __builtin_ctzll(x | (uint64_t{1} << 63));
        t += x != 0;
        x &= x - 1;
        if (__builtin_expect(x == 0, 1)) break;
      }
    }
    return t;
  }

  /*!
   * \brief Row i's sums (a's values [jb, je)) when its columns lie in [lo, hi] (from the ends
   *  of b's rows) and it has cap distinct columns: accumulated with a count of new columns only,
   *  then read from the bit words of the span. Should a row of b not be sorted after all (the
   *  found count falls short), every word is read instead, so the result stays right.
   */
  template <typename OType>
  int64_t FillRowInSpan(int64_t jb, int64_t je, int64_t lo, int64_t hi, int64_t cap, OType* cols,
                        DType* vals, uint64_t* bt, DType* ac,
                        std::vector<int64_t>* scratch_sorted) const {
    int64_t c = 0;
    for (int64_t j = jb; j < je; ++j) {
      PrefetchAhead(j, true);
      const DType v = a.data[j];
      const int64_t k = a.indices[j];
      for (int64_t q = b.indptr[k]; q < b.indptr[k + 1]; ++q) {
        c += AddProduct(b.indices[q], v * b.data[q], bt, ac);
      }
    }
    std::vector<int64_t>& sorted = *scratch_sorted;
    sorted.resize(std::max(c, cap) + 2);
    int64_t* out = sorted.data();
    int64_t t = TakeBits(bt, lo >> 6, hi >> 6, true, out);
    if (t != c) {
      // Columns outside [lo, hi]: the bits read so far are set again and every word is read.
      for (int64_t u = 0; u < t; ++u) bt[out[u] >> 6] |= uint64_t{1} << (out[u] & 63);
      t = TakeBits(bt, 0, (b.cols - 1) >> 6, true, out);
    }
    return EmitSorted(out, t, ac, static_cast<uint64_t*>(nullptr), cols, vals);
  }

  /*!
   * \brief Row i's sums into cols/vals (room for cap, its count), sorted by column, exact zeros
   *  dropped; returns how many were written.
   */
  template <typename OType>
  int64_t FillRow(int64_t i, int64_t cap, OType* cols, DType* vals, std::vector<uint64_t>* bits,
                  std::vector<DType>* acc, std::vector<std::pair<int64_t, DType>>* pairs,
                  std::vector<int64_t>* scratch_bucket, std::vector<int64_t>* scratch_sorted,
                  ShortScratch* short_scratch) const {
    const int64_t jb = a.indptr[i], je = a.indptr[i + 1];
    int64_t w = 0;
    if (je - jb == 1) {
      const DType v = a.data[jb];
      const int64_t k = a.indices[jb];
      for (int64_t q = b.indptr[k]; q < b.indptr[k + 1]; ++q) {
        const DType p = v * b.data[q];
        if (p != DType(0)) {
          cols[w] = static_cast<OType>(b.indices[q]);
          vals[w++] = p;
        }
      }
      return w;
    }
    const int64_t f = flops[i + 1] - flops[i];
    if (f <= kShortRow && (!dense || b.cols > kCachedAccCols)) {
      return FillShortRow<OType>(i, f, cols, vals, short_scratch);
    }
    if (dense && cap > 0) {
      // The span of the row's columns from the first and last column of each row of b it names
      // (rows of a canonical csr are sorted): when the bit words of that span give the columns
      // in order at a few words per column, the products accumulate with nothing else kept.
      int64_t lo = b.cols, hi = -1;
      for (int64_t j = jb; j < je; ++j) {
        const int64_t k = a.indices[j];
        if (b.indptr[k] == b.indptr[k + 1]) continue;
        lo = std::min<int64_t>(lo, b.indices[b.indptr[k]]);
        hi = std::max<int64_t>(hi, b.indices[b.indptr[k + 1] - 1]);
      }
      if (hi >= 0 && (hi >> 6) - (lo >> 6) + 1 <= kScanWordsPerColumn * cap) {
        return FillRowInSpan<OType>(jb, je, lo, hi, cap, cols, vals, bits->data(), acc->data(),
                                    scratch_sorted);
      }
    }
    if (dense) {
      uint64_t* bt = bits->data();
      DType* ac = acc->data();
      int64_t c = 0, lo = b.cols, hi = -1;
      for (int64_t j = jb; j < je; ++j) {
        PrefetchAhead(j, true);
        const DType v = a.data[j];
        const int64_t k = a.indices[j];
        for (int64_t q = b.indptr[k]; q < b.indptr[k + 1]; ++q) {
          const int64_t col = b.indices[q];
          if (AddProduct(col, v * b.data[q], bt, ac)) cols[c++] = static_cast<OType>(col);
          lo = std::min(lo, col);
          hi = std::max(hi, col);
        }
      }
      if (c == 0) return 0;
      // Columns close together (a span of at most kScanWordsPerColumn words per column): the
      // bit words from lo to hi give them in order, with no sort at all.
      if ((hi >> 6) - (lo >> 6) + 1 <= kScanWordsPerColumn * c) {
        // Into sorted, which has room for two more than c (TakeBits).
        std::vector<int64_t>& sorted = *scratch_sorted;
        sorted.resize(c + 2);
        const int64_t t = TakeBits(bt, lo >> 6, hi >> 6, true, sorted.data());
        return EmitSorted(sorted.data(), t, ac, static_cast<uint64_t*>(nullptr), cols, vals);
      }
      if (c <= kInsertionColumns) {
        // A few columns (the short rows of a sparse graph): sorted in place by insertion.
        for (int64_t e = 1; e < c; ++e) {
          const OType x = cols[e];
          int64_t u = e;
          for (; u > 0 && cols[u - 1] > x; --u) cols[u] = cols[u - 1];
          cols[u] = x;
        }
        return EmitSorted(cols, c, ac, bt, cols, vals);
      }
      // Sorted by one bucket pass (about one bucket per column over [lo, hi]), which leaves
      // the columns nearly in order, then a sort of each bucket.
      const int64_t span = hi - lo + 1;
      int shift = 0;
      while ((span >> shift) > 2 * c) ++shift;
      const int64_t nb = (span >> shift) + 1;
      std::vector<int64_t>& bucket = *scratch_bucket;
      std::vector<int64_t>& sorted = *scratch_sorted;
      bucket.assign(nb + 1, 0);
      sorted.resize(c);
      for (int64_t t = 0; t < c; ++t) ++bucket[((cols[t] - lo) >> shift) + 1];
      for (int64_t t = 0; t < nb; ++t) bucket[t + 1] += bucket[t];
      for (int64_t t = 0; t < c; ++t) sorted[bucket[(cols[t] - lo) >> shift]++] = cols[t];
      // bucket[t] is now the end of bucket t. Each bucket is sorted on its own: by insertion
      // when small, else by std::sort, so that columns crowded into a few buckets (a cluster
      // and a far outlier) cost c log c, not c * c.
      for (int64_t t = 0, start = 0; t < nb; start = bucket[t++]) {
        const int64_t end = bucket[t];
        if (end - start > 16) {
          std::sort(sorted.begin() + start, sorted.begin() + end);
          continue;
        }
        for (int64_t e = start + 1; e < end; ++e) {
          const int64_t x = sorted[e];
          int64_t u = e;
          for (; u > start && sorted[u - 1] > x; --u) sorted[u] = sorted[u - 1];
          sorted[u] = x;
        }
      }
      return EmitSorted(sorted.data(), c, ac, bt, cols, vals);
    }
    pairs->clear();
    for (int64_t j = jb; j < je; ++j) {
      const DType v = a.data[j];
      const int64_t k = a.indices[j];
      for (int64_t q = b.indptr[k]; q < b.indptr[k + 1]; ++q) {
        pairs->emplace_back(static_cast<int64_t>(b.indices[q]), v * b.data[q]);
      }
    }
    // Stable: products of one column keep the order of a's values, as the dense path sums them.
    std::stable_sort(pairs->begin(), pairs->end(),
                     [](const std::pair<int64_t, DType>& x, const std::pair<int64_t, DType>& y) {
                       return x.first < y.first;
                     });
    const int64_t np = static_cast<int64_t>(pairs->size());
    for (int64_t t = 0; t < np;) {
      const int64_t col = (*pairs)[t].first;
      DType s = (*pairs)[t].second;
      for (++t; t < np && (*pairs)[t].first == col; ++t) s += (*pairs)[t].second;
      if (s != DType(0)) {
        cols[w] = static_cast<OType>(col);
        vals[w++] = s;
      }
    }
    return w;
  }

  /*! \brief The product into out: the count, the fill, the compaction when zeros dropped. */
  void Run(const NDArray& out) {
    const int64_t m = a.rows, n = b.cols;
    std::optional<ScopedGILRelease> gil;
    if ((a.nnz + b.nnz + m) * 4 > kReleaseGILThreshold) gil.emplace();
    // flops[i]: the products before row i.
    std::vector<int64_t> flops(m + 1, 0);
    ParallelFor(m, std::max<int64_t>(a.nnz / std::max<int64_t>(m, 1), 1) + 1,
                [&](int64_t rb, int64_t re) {
                  for (int64_t i = rb; i < re; ++i) {
                    int64_t f = 0;
                    for (int64_t j = a.indptr[i]; j < a.indptr[i + 1]; ++j) {
                      f += RowLength(a.indices[j]);
                    }
                    flops[i + 1] = f;
                  }
                });
    for (int64_t i = 0; i < m; ++i) flops[i + 1] += flops[i];
    const int64_t total = flops[m];
    this->flops = flops.data();
    dense = n <= kDenseMaxCols && n <= 8 * total + 4096 && m < int64_t{UINT32_MAX};
    const std::vector<int64_t> bounds = WorkBounds(m, flops.data(), 4, 1);
    std::vector<int64_t> offsets(m + 1, 0);
    ParallelRangesWithScratch(bounds, [&] {
      return [this, &offsets, stamps = std::vector<uint32_t>(dense ? n : 0, 0),
              keys = std::vector<int64_t>()](int64_t rb, int64_t re) mutable {
        for (int64_t i = rb; i < re; ++i) offsets[i + 1] = CountRow(i, &stamps, &keys);
      };
    });
    for (int64_t i = 0; i < m; ++i) offsets[i + 1] += offsets[i];
    const int64_t upper = offsets[m];
    const DLDataType otype = SpGemmIndexDType(a_array, b_array, upper);
    out.CheckAndAlloc(upper, otype);
    if (otype.bits == 64) {
      Fill<int64_t>(out, bounds, offsets);
    } else {
      Fill<int32_t>(out, bounds, offsets);
    }
  }

  template <typename OType>
  void Fill(const NDArray& out, const std::vector<int64_t>& bounds,
            const std::vector<int64_t>& offsets) {
    const int64_t m = a.rows, n = b.cols;
    OType* ix = Ptr<OType>(out.sparse_indices());
    OType* ip = Ptr<OType>(out.sparse_indptr());
    DType* dv = Ptr<DType>(out.sparse_data());
    std::vector<int64_t> kept(m + 1, 0);
    ParallelRangesWithScratch(bounds, [&] {
      return [this, &offsets, &kept, ix, dv, bits = std::vector<uint64_t>(dense ? n / 64 + 1 : 0),
              acc = std::vector<DType>(dense ? n : 0),
              pairs = std::vector<std::pair<int64_t, DType>>(), bucket = std::vector<int64_t>(),
              sorted = std::vector<int64_t>(),
              short_scratch = ShortScratch()](int64_t rb, int64_t re) mutable {
        for (int64_t i = rb; i < re; ++i) {
          kept[i + 1] =
              FillRow<OType>(i, offsets[i + 1] - offsets[i], ix + offsets[i], dv + offsets[i],
                             &bits, &acc, &pairs, &bucket, &sorted, &short_scratch);
        }
      };
    });
    for (int64_t i = 0; i < m; ++i) kept[i + 1] += kept[i];
    const int64_t nnz = kept[m];
    if (nnz == offsets[m]) {
      for (int64_t i = 0; i <= m; ++i) ip[i] = static_cast<OType>(offsets[i]);
      return;
    }
    // Sums cancelled to zero: the rows move together into parts of the final length.
    const DLDataType itype = out.sparse_indices().tensor().dtype;
    NDArray data = NewArray({nnz}, out.tensor().dtype);
    NDArray indices = NewArray({nnz}, itype);
    NDArray indptr = NewArray({m + 1}, itype);
    OType* nix = Ptr<OType>(indices);
    OType* nip = Ptr<OType>(indptr);
    DType* ndv = Ptr<DType>(data);
    ParallelFor(m, std::max<int64_t>(nnz / std::max<int64_t>(m, 1), 1) + 1,
                [&](int64_t rb, int64_t re) {
                  for (int64_t i = rb; i < re; ++i) {
                    const int64_t len = kept[i + 1] - kept[i];
                    std::copy(ix + offsets[i], ix + offsets[i] + len, nix + kept[i]);
                    std::copy(dv + offsets[i], dv + offsets[i] + len, ndv + kept[i]);
                  }
                });
    for (int64_t i = 0; i <= m; ++i) nip[i] = static_cast<OType>(kept[i]);
    out.SetSparseStorage(data, indices, indptr);
  }
};

}  // namespace

DLDataType SpGemmIndexDType(const NDArray& a, const NDArray& b, int64_t nnz) {
  const DLDataType ia = a.sparse_indices().tensor().dtype;
  const DLDataType ib = b.sparse_indices().tensor().dtype;
  if (ia.bits == 64 || ib.bits == 64) return kIndex64;
  if (nnz > INT32_MAX || b.tensor().shape[1] - 1 > INT32_MAX) return kIndex64;
  return kIndex32;
}

void CsrCsrCPU(const NDArray& a, const NDArray& b, const NDArray& out) {
  const DLDataType ia = a.sparse_indices().tensor().dtype;
  const DLDataType ib = b.sparse_indices().tensor().dtype;
  MXFFI_REAL_SWITCH(a.tensor().dtype, "dot", DType, {
    MXFFI_INDEX_SWITCH(ia, "dot", IA, {
      MXFFI_INDEX_SWITCH(ib, "dot", IB, { SpGemm<DType, IA, IB>(a, b).Run(out); });
    });
  });
}

}  // namespace op
}  // namespace mxffi
