/*!
 * \file coo.cc
 * \brief coo <-> csr on the CPU: the conversions every cast from or to coo goes through.
 *
 * coo to csr takes three passes, each split across the pool once the input is large enough:
 * a stable counting sort of the entries by row (each thread counts and then places the entries
 * of its own slice, so the order within a row stays the stored order), a sort of each row's
 * columns that sums repeated columns (skipped for a row already strictly increasing, so a
 * canonical edge list costs one check per entry), and, when duplicates were summed, a
 * compaction. Nothing here is a Python loop: an edge list of millions of entries converts in
 * tens of milliseconds.
 */
#include "coo.h"

#include <mxffi/env.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "../parallel.h"
#include "../type_switch.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

/*! \brief Entries per thread below which a pass runs in the calling thread. */
constexpr int64_t kMinEntriesPerThread = 1 << 15;

/*!
 * \brief The stable counting sort of coo entries by row: col and val in row order, indptr, and,
 *  when out_pos is not null, the coo position of each placed entry.
 */
template <typename IType, typename DType>
void BucketByRow(int64_t rows, int64_t nnz, const IType* row, const IType* col, const DType* val,
                 IType* out_col, DType* out_val, int64_t* indptr, int64_t* out_pos = nullptr) {
  int threads = static_cast<int>(std::min<int64_t>(NumThreads(), nnz / kMinEntriesPerThread));
  // Each thread keeps a count per row: only worth it while those counts are not much larger
  // than the entries themselves (a few entries spread over very many rows sort in one thread).
  if (threads > 1 && static_cast<double>(threads) * rows > 4.0 * static_cast<double>(nnz)) {
    threads = 1;
  }
  threads = std::max(threads, 1);
  auto slice = [&](int t) { return std::make_pair(nnz * t / threads, nnz * (t + 1) / threads); };
  // count[t][r]: the entries of row r in thread t's slice, then where the first of them goes.
  std::vector<std::vector<int64_t>> count(threads, std::vector<int64_t>(rows, 0));
  auto each_thread = [&](auto&& f) {
    if (threads == 1) {
      f(0);
      return;
    }
    ParallelRun(threads, threads, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) f(static_cast<int>(t));
    });
  };
  each_thread([&](int t) {
    auto [b, e] = slice(t);
    int64_t* c = count[t].data();
    for (int64_t j = b; j < e; ++j) ++c[row[j]];
  });
  indptr[0] = 0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t pos = indptr[r];
    for (int t = 0; t < threads; ++t) {
      const int64_t n = count[t][r];
      count[t][r] = pos;
      pos += n;
    }
    indptr[r + 1] = pos;
  }
  each_thread([&](int t) {
    auto [b, e] = slice(t);
    int64_t* next = count[t].data();
    for (int64_t j = b; j < e; ++j) {
      const int64_t p = next[row[j]]++;
      out_col[p] = col[j];
      out_val[p] = val[j];
      if (out_pos != nullptr) out_pos[p] = j;
    }
  });
}

/*! \brief Rows of at most this many entries sort in place by insertion (no allocation). */
constexpr int64_t kInsertionSortMax = 48;

/*!
 * \brief Sort row r's entries [b, e) by column (stable: repeated columns keep their stored
 *  order) and sum repeated columns into the first of each; returns the number left.
 */
template <typename IType, typename DType>
int64_t SortRow(int64_t b, int64_t e, IType* col, DType* val,
                std::vector<std::pair<IType, DType>>* scratch) {
  bool sorted = true;
  for (int64_t j = b + 1; j < e && sorted; ++j) sorted = col[j - 1] < col[j];
  if (sorted) return e - b;
  if (e - b <= kInsertionSortMax) {
    for (int64_t j = b + 1; j < e; ++j) {
      const IType c = col[j];
      const DType v = val[j];
      int64_t k = j;
      for (; k > b && col[k - 1] > c; --k) {
        col[k] = col[k - 1];
        val[k] = val[k - 1];
      }
      col[k] = c;
      val[k] = v;
    }
  } else {
    scratch->clear();
    for (int64_t j = b; j < e; ++j) scratch->emplace_back(col[j], val[j]);
    std::stable_sort(scratch->begin(), scratch->end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (int64_t j = b; j < e; ++j) {
      col[j] = (*scratch)[j - b].first;
      val[j] = (*scratch)[j - b].second;
    }
  }
  int64_t n = 1;
  for (int64_t j = b + 1; j < e; ++j) {
    if (col[j] == col[b + n - 1]) {
      val[b + n - 1] = static_cast<DType>(val[b + n - 1] + val[j]);
    } else {
      col[b + n] = col[j];
      val[b + n] = val[j];
      ++n;
    }
  }
  return n;
}

/*! \brief A coo array's entries grouped by row, stably: columns, values, the row starts. */
struct RowGroups {
  NDArray col, val;
  std::vector<int64_t> start;
};

/*!
 * \brief BucketByRow over the parts of coo, into new arrays; perm, when not null, becomes the
 *  coo position of each grouped entry (int64).
 */
template <typename IType, typename DType>
RowGroups GroupByRow(const NDArray& coo, const char* fname, NDArray* perm) {
  const DLTensor& t = coo.tensor();
  const int64_t rows = t.shape[0];
  const NDArray& data = coo.sparse_data();
  const int64_t nnz = data.tensor().shape[0];
  const DLDataType itype = coo.coo_row().tensor().dtype;
  MXFFI_CHECK(sizeof(IType) == 8 || nnz <= INT32_MAX, ValueError)
      << fname << ": " << nnz << " stored values need int64 indices (a csr indptr counts up to "
      << "nnz); convert the row and col ids with astype('int64') first";
  RowGroups g{NewArray({nnz}, itype), NewArray({nnz}, t.dtype),
              std::vector<int64_t>(static_cast<size_t>(rows + 1))};
  if (perm != nullptr) *perm = NewArray({nnz}, DLDataType{kDLInt, 64, 1});
  BucketByRow<IType, DType>(rows, nnz, Ptr<const IType>(coo.coo_row()),
                            Ptr<const IType>(coo.coo_col()), Ptr<const DType>(data),
                            Ptr<IType>(g.col), Ptr<DType>(g.val), g.start.data(),
                            perm != nullptr ? Ptr<int64_t>(*perm) : nullptr);
  return g;
}

template <typename IType, typename DType>
NDArray COOToCSRTyped(const NDArray& coo, const char* fname) {
  const DLTensor& t = coo.tensor();
  const int64_t rows = t.shape[0];
  const int64_t nnz = coo.sparse_data().tensor().shape[0];
  const DLDataType itype = coo.coo_row().tensor().dtype;
  RowGroups g = GroupByRow<IType, DType>(coo, fname, nullptr);
  NDArray col = std::move(g.col), val = std::move(g.val);
  const std::vector<int64_t>& start = g.start;
  // Each row sorted in place; kept[r] is the number of distinct columns it holds.
  std::vector<int64_t> kept(rows);
  IType* c = Ptr<IType>(col);
  DType* v = Ptr<DType>(val);
  ParallelFor(rows, std::max<int64_t>(nnz / std::max<int64_t>(rows, 1), 1) * 8,
              [&](int64_t rb, int64_t re) {
                std::vector<std::pair<IType, DType>> scratch;
                for (int64_t r = rb; r < re; ++r)
                  kept[r] = SortRow(start[r], start[r + 1], c, v, &scratch);
              });
  NDArray indptr = NewArray({rows + 1}, itype);
  IType* ip = Ptr<IType>(indptr);
  ip[0] = 0;
  int64_t total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    total += kept[r];
    ip[r + 1] = static_cast<IType>(total);
  }
  if (total != nnz) {  // duplicates were summed: close the gaps they left
    NDArray col2 = NewArray({total}, itype);
    NDArray val2 = NewArray({total}, t.dtype);
    IType* c2 = Ptr<IType>(col2);
    DType* v2 = Ptr<DType>(val2);
    ParallelFor(rows, std::max<int64_t>(total / std::max<int64_t>(rows, 1), 1),
                [&](int64_t rb, int64_t re) {
                  for (int64_t r = rb; r < re; ++r) {
                    std::copy(c + start[r], c + start[r] + kept[r], c2 + ip[r]);
                    std::copy(v + start[r], v + start[r] + kept[r], v2 + ip[r]);
                  }
                });
    col = std::move(col2);
    val = std::move(val2);
  }
  NDArray out = NDArray::EmptySparse(StorageType::kCSR, t.shape, 2, t.dtype, t.device);
  out.SetSparseStorage(std::move(val), std::move(col), std::move(indptr));
  return out;
}

template <typename IType, typename DType>
NDArray COOToRowGroupedTyped(const NDArray& coo, NDArray* perm, const char* fname) {
  const DLTensor& t = coo.tensor();
  const int64_t rows = t.shape[0];
  const DLDataType itype = coo.coo_row().tensor().dtype;
  RowGroups g = GroupByRow<IType, DType>(coo, fname, perm);
  NDArray col = std::move(g.col), val = std::move(g.val);
  const std::vector<int64_t>& start = g.start;
  NDArray indptr = NewArray({rows + 1}, itype);
  IType* ip = Ptr<IType>(indptr);
  for (int64_t r = 0; r <= rows; ++r) ip[r] = static_cast<IType>(start[r]);
  NDArray out = NDArray::EmptySparse(StorageType::kCSR, t.shape, 2, t.dtype, t.device);
  out.SetSparseStorage(std::move(val), std::move(col), std::move(indptr));
  return out;
}

/*! \brief Bytes of one row (everything after axis 0) of a C-contiguous CPU array. */
int64_t RowBytes(const DLTensor& t) {
  int64_t n = (t.dtype.bits * t.dtype.lanes + 7) / 8;
  for (int i = 1; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

/*! \brief dst row perm[p] = src row p (scatter) or dst row p = src row perm[p] (gather). */
NDArray MoveRows(const NDArray& src_arg, const NDArray& perm, bool scatter) {
  const NDArray src = src_arg.Contiguous();
  const DLTensor& t = src.tensor();
  NDArray dst = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
  const int64_t n = t.ndim == 0 ? 0 : t.shape[0];
  const int64_t bytes = RowBytes(t);
  const int64_t* pos = Ptr<const int64_t>(perm);
  const char* s = static_cast<const char*>(src.data());
  char* d = static_cast<char*>(dst.data());
  ParallelFor(n, std::max<int64_t>(4096 / std::max<int64_t>(bytes, 1), 1),
              [&](int64_t b, int64_t e) {
                for (int64_t p = b; p < e; ++p) {
                  if (scatter) {
                    std::memcpy(d + pos[p] * bytes, s + p * bytes, bytes);
                  } else {
                    std::memcpy(d + p * bytes, s + pos[p] * bytes, bytes);
                  }
                }
              });
  return dst;
}

/*!
 * \brief coo as csr: canonical (COOToCSRTyped) when perm is null, else grouped by row with
 *  perm the coo position of each entry (COOToRowGroupedTyped).
 */
NDArray COOToRows(const NDArray& coo, NDArray* perm, const char* fname) {
  MXFFI_CHECK(coo.stype() == StorageType::kCOO, TypeError)
      << fname << ": expected a coo array, got " << StorageTypeName(coo.stype());
  const int64_t nnz = coo.sparse_data().tensor().shape[0];
  std::optional<ScopedGILRelease> gil;
  if (nnz >= kReleaseGILThreshold) gil.emplace();
  NDArray out;
  MXFFI_INDEX_SWITCH(coo.coo_row().tensor().dtype, fname, IType, {
    MXFFI_TYPE_SWITCH(coo.tensor().dtype, fname, DType, {
      out = perm == nullptr ? COOToCSRTyped<IType, DType>(coo, fname)
                            : COOToRowGroupedTyped<IType, DType>(coo, perm, fname);
    });
  });
  return out;
}

}  // namespace

NDArray COOToCSR(const NDArray& coo, const char* fname) { return COOToRows(coo, nullptr, fname); }

NDArray CSRToCOO(const NDArray& csr, const char* fname) {
  const DLTensor& t = csr.tensor();
  const int64_t rows = t.shape[0];
  const NDArray& indices = csr.sparse_indices();
  const DLDataType itype = indices.tensor().dtype;
  const int64_t nnz = indices.tensor().shape[0];
  NDArray row = NewArray({nnz}, itype);
  MXFFI_INDEX_SWITCH(itype, fname, IType, {
    const IType* ip = Ptr<const IType>(csr.sparse_indptr());
    IType* r = Ptr<IType>(row);
    ParallelFor(rows, std::max<int64_t>(nnz / std::max<int64_t>(rows, 1), 1),
                [&](int64_t rb, int64_t re) {
                  for (int64_t i = rb; i < re; ++i) {
                    std::fill(r + ip[i], r + ip[i + 1], static_cast<IType>(i));
                  }
                });
  });
  NDArray out = NDArray::EmptySparse(StorageType::kCOO, t.shape, 2, t.dtype, t.device);
  out.SetSparseStorage(NDArray::Copy(csr.sparse_data().tensor()), std::move(row),
                       NDArray::Copy(indices.tensor()));
  return out;
}

NDArray COOToRowGrouped(const NDArray& coo, NDArray* perm, const char* fname) {
  return COOToRows(coo, perm, fname);
}

NDArray GatherRowsByPerm(const NDArray& src, const NDArray& perm) {
  return MoveRows(src, perm, false);
}

NDArray ScatterRowsByPerm(const NDArray& src, const NDArray& perm) {
  return MoveRows(src, perm, true);
}

void MapPositions(const NDArray& pos, const NDArray& perm) {
  int64_t* a = Ptr<int64_t>(pos);
  const int64_t* p = Ptr<const int64_t>(perm);
  int64_t n = 1;
  for (int i = 0; i < pos.tensor().ndim; ++i) n *= pos.tensor().shape[i];
  ParallelFor(n, 4096, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) a[k] = a[k] < 0 ? a[k] : p[a[k]];
  });
}

bool COOIsCanonical(const NDArray& coo, const char* fname) {
  MXFFI_CHECK(coo.stype() == StorageType::kCOO, TypeError)
      << fname << ": expected a coo array, got " << StorageTypeName(coo.stype());
  const NDArray& row = coo.coo_row();
  const int64_t nnz = row.tensor().shape[0];
  bool ok = true;
  MXFFI_INDEX_SWITCH(row.tensor().dtype, fname, IType, {
    const IType* r = Ptr<const IType>(row);
    const IType* c = Ptr<const IType>(coo.coo_col());
    for (int64_t j = 1; j < nnz; ++j) {
      ok &= r[j - 1] < r[j] || (r[j - 1] == r[j] && c[j - 1] < c[j]);
    }
  });
  return ok;
}

}  // namespace op
}  // namespace mxffi
