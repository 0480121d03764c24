/*!
 * \file csr_kernels.h
 * \brief What the CPU kernels on csr arrays share: a typed view of the parts, work splitting
 *  across the pool by stored values, and the transpose (a counting sort by column), which
 *  dot(csr.T, dense), the csr transpose op and the transposed csr @ csr products all use.
 */
#ifndef MXFFI_SRC_OP_SPARSE_CSR_KERNELS_H_
#define MXFFI_SRC_OP_SPARSE_CSR_KERNELS_H_

#include <mxffi/ndarray/ndarray.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "../parallel.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {

/*! \brief Work below which a kernel stays on the calling thread (as ParallelFor decides). */
constexpr int64_t kMinParallelWork = int64_t{1} << 17;

/*!
 * \brief Run f(t) for t in [0, parts) across the pool, each t a task the threads take in turn,
 *  so a thread that is held up (another process on its core) leaves its share to the others.
 */
template <typename F>
void ParallelTasks(int64_t parts, F&& f) {
  ParallelRun(parts, static_cast<int>(parts), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) f(t);
  });
}

/*!
 * \brief Cut [0, rows) into ranges of about equal work, counted as cost_per_value per unit of
 *  work_ptr (a prefix count: work_ptr[r] is the work before row r) plus cost_per_row per row:
 *  a few ranges per thread. Returns the range bounds (one range when threads do not pay).
 */
template <typename PType>
std::vector<int64_t> WorkBounds(int64_t rows, const PType* work_ptr, int64_t cost_per_value,
                                int64_t cost_per_row) {
  const int64_t base = static_cast<int64_t>(work_ptr[0]);
  auto work_before = [&](int64_t r) {
    return (static_cast<int64_t>(work_ptr[r]) - base) * cost_per_value + r * cost_per_row;
  };
  const int64_t total = work_before(rows);
  const int threads = NumThreads();
  int64_t parts = std::min<int64_t>({int64_t{4} * threads, rows, total / kMinParallelWork});
  if (threads <= 1) parts = 1;
  parts = std::max<int64_t>(parts, 1);
  // bounds[t]: the first row whose work before it reaches t / parts of the total.
  std::vector<int64_t> bounds(parts + 1, rows);
  bounds[0] = 0;
  for (int64_t t = 1; t < parts; ++t) {
    const int64_t target = total / parts * t + total % parts * t / parts;
    int64_t lo = bounds[t - 1], hi = rows;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (work_before(mid) < target) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    bounds[t] = lo;
  }
  return bounds;
}

/*!
 * \brief f(begin, end) over row ranges of [0, rows) across the pool, cut by WorkBounds so that
 *  each range holds about the same work.
 */
template <typename PType, typename F>
void ParallelRowsByWork(int64_t rows, const PType* ptr, int64_t cost_per_value,
                        int64_t cost_per_row, F&& f) {
  if (rows <= 0) return;
  const std::vector<int64_t> bounds = WorkBounds(rows, ptr, cost_per_value, cost_per_row);
  const int64_t parts = static_cast<int64_t>(bounds.size()) - 1;
  if (parts <= 1) {
    f(int64_t{0}, rows);
    return;
  }
  ParallelTasks(parts, [&](int64_t t) {
    if (bounds[t] < bounds[t + 1]) f(bounds[t], bounds[t + 1]);
  });
}

/*!
 * \brief The ranges of bounds run by at most NumThreads() workers, each taking the next range
 *  in turn: make_worker() builds one worker's state (scratch memory, made once per worker), and
 *  worker(begin, end) runs a range with it.
 */
template <typename MakeWorker>
void ParallelRangesWithScratch(const std::vector<int64_t>& bounds, MakeWorker&& make_worker) {
  const int64_t parts = static_cast<int64_t>(bounds.size()) - 1;
  if (parts <= 0) return;
  const int64_t workers = std::min<int64_t>(parts, NumThreads());
  std::atomic<int64_t> next{0};
  ParallelTasks(workers, [&](int64_t) {
    auto worker = make_worker();
    for (int64_t t = next.fetch_add(1); t < parts; t = next.fetch_add(1)) {
      if (bounds[t] < bounds[t + 1]) worker(bounds[t], bounds[t + 1]);
    }
  });
}

/*! \brief The parts of a csr array, typed. */
template <typename DType, typename IType>
struct CsrView {
  int64_t rows, cols, nnz;
  const DType* data;
  const IType* indices;
  const IType* indptr;

  explicit CsrView(const NDArray& a) {
    const DLTensor& t = a.tensor();
    rows = t.shape[0];
    cols = t.shape[1];
    data = Ptr<const DType>(a.sparse_data());
    indices = Ptr<const IType>(a.sparse_indices());
    indptr = Ptr<const IType>(a.sparse_indptr());
    nnz = static_cast<int64_t>(indptr[rows]);
  }
  CsrView(int64_t rows_, int64_t cols_, const DType* data_, const IType* indices_,
          const IType* indptr_)
      : rows(rows_), cols(cols_), data(data_), indices(indices_), indptr(indptr_) {
    nnz = static_cast<int64_t>(indptr[rows]);
  }
};

/*!
 * \brief The transpose of a, by counting sort over the columns: ptr (a.cols + 1 row starts of
 *  the transpose), rows (for each value its row in a, increasing within a column) and vals. The
 *  rows of a are cut into ranges of about equal numbers of values; each range counts its values
 *  per column, then writes them into slots reserved for it (after those of the ranges before
 *  it), so ranges run in parallel without sharing a slot and the result is the same on every
 *  run. RType and PType must hold a.rows - 1 and a.nnz.
 */
template <typename RType, typename PType, typename DType, typename IType>
void TransposeCsr(const CsrView<DType, IType>& a, PType* ptr, RType* rows, DType* vals) {
  const int64_t k = a.cols, nnz = a.nnz;
  // One count per column and range: at most about nnz counts in all, so the count arrays never
  // cost more than the values themselves.
  int parts = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(NumThreads(), nnz / std::max<int64_t>(k, 1))));
  if (nnz < (int64_t{1} << 15)) parts = 1;
  std::vector<int64_t> bounds(parts + 1, a.rows);
  bounds[0] = 0;
  for (int p = 1; p < parts; ++p) {
    const IType target = static_cast<IType>(nnz / parts * p);
    bounds[p] = std::lower_bound(a.indptr, a.indptr + a.rows + 1, target) - a.indptr;
  }
  // calloc, not new[]: a column count no machine can hold (a csr of 2**40 columns) is then a
  // null pointer turned into std::bad_alloc here (MemoryError naming the function), under
  // AddressSanitizer too, whose operator new aborts on it instead of throwing.
  std::unique_ptr<int64_t[], decltype(&std::free)> counts(
      static_cast<int64_t*>(
          std::calloc(static_cast<size_t>(parts) * static_cast<size_t>(std::max<int64_t>(k, 1)),
                      sizeof(int64_t))),
      &std::free);
  if (counts == nullptr) throw std::bad_alloc();
  auto count = [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) {
      int64_t* c = counts.get() + p * k;
      const int64_t jb = a.indptr[bounds[p]], je = a.indptr[bounds[p + 1]];
      for (int64_t j = jb; j < je; ++j) ++c[a.indices[j]];
    }
  };
  ParallelFor(parts, std::max<int64_t>(nnz / parts, 1), count);
  // Each (range, column) count becomes that range's first slot in the column.
  int64_t pos = 0;
  ptr[0] = 0;
  for (int64_t col = 0; col < k; ++col) {
    for (int p = 0; p < parts; ++p) {
      const int64_t n = counts[p * k + col];
      counts[p * k + col] = pos;
      pos += n;
    }
    ptr[col + 1] = static_cast<PType>(pos);
  }
  // The writes land in about one cache line per column, far apart: prefetching the slots of
  // the value kPrefetch places ahead keeps several of those misses in flight.
  constexpr int64_t kPrefetch = 16;
  const IType* __restrict indptr = a.indptr;
  const IType* __restrict indices = a.indices;
  const DType* __restrict data = a.data;
  RType* __restrict out_rows = rows;
  DType* __restrict out_vals = vals;
  auto scatter = [&](int64_t pb, int64_t pe) {
    for (int64_t p = pb; p < pe; ++p) {
      int64_t* __restrict next = counts.get() + p * k;
      const int64_t last = static_cast<int64_t>(indptr[bounds[p + 1]]) - kPrefetch;
      for (int64_t r = bounds[p]; r < bounds[p + 1]; ++r) {
        const int64_t je = indptr[r + 1];
        for (int64_t j = indptr[r]; j < je; ++j) {
          if (j < last) {
            const int64_t ahead = next[indices[j + kPrefetch]];
            __builtin_prefetch(out_vals + ahead, 1);
            __builtin_prefetch(out_rows + ahead, 1);
          }
          const int64_t slot = next[indices[j]]++;
          out_rows[slot] = static_cast<RType>(r);
          out_vals[slot] = data[j];
        }
      }
    }
  };
  ParallelFor(parts, std::max<int64_t>(nnz / parts, 1), scatter);
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_CSR_KERNELS_H_
