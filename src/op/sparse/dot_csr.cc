/*!
 * \file dot_csr.cc
 * \brief The CPU kernels of dot with a csr operand: csr @ dense, csr.T @ dense and dense @ csr.
 *
 * csr @ dense computes each output row as a sum of rows of the dense operand, one per stored
 * value of the csr row (a gather), in blocks of columns whose partial sums stay in vector
 * registers (GCC vectors: SSE2 on any x86-64, AVX2 and FMA where the CPU has them, chosen at run
 * time). Output rows are split across the pool in ranges of about equal numbers of stored
 * values, so a few long rows do not leave a thread idle.
 *
 * csr.T @ dense first transposes the csr array (a counting sort by column, split across the pool
 * in row ranges that each write their own slots, so no two threads write one place and the
 * result is the same on every run), keeping only the columns that hold a value, then runs the
 * same gather. The transpose is about a third of the time on the benchmark (10,000 x 10,000 at
 * 1%, 64 dense columns); in exchange every output row is summed in registers by one thread,
 * where a scatter would read and write shared output rows once per stored value.
 *
 * dense @ csr walks the csr array once per block of dense rows (64 bytes of them: 8 doubles or
 * 16 floats), the blocks split across the pool. A scratch buffer keeps the block's outputs of one
 * column side by side, so each stored value is a few vector multiply-adds rather than a scalar
 * one per row; the buffer is then written out as rows.
 */
#include <mxffi/op/op.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <vector>

#include "../parallel.h"
#include "csr_kernels.h"
#include "dot_sparse.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

/*! \brief Inlined into each caller, so that a caller built for AVX2 gets an AVX2 body. */
#define MXFFI_DOT_INLINE inline __attribute__((always_inline))

/*!
 * \brief out[:, 0:NV*L] of one product row: the sum over p in [jb, je) of val[p] times
 *  columns [0, NV*L) of dense row idx[p], with NV vector partial sums kept in registers.
 *  V is a GCC vector of L DType values; the compiler maps it onto the target's registers.
 */
template <typename V, int NV, typename DType, typename IType>
MXFFI_DOT_INLINE void GatherBlock(int64_t jb, int64_t je, const IType* idx, const DType* val,
                                  const DType* dense, int64_t n, DType* o) {
  constexpr int64_t L = sizeof(V) / sizeof(DType);
  V acc[NV];
  for (int q = 0; q < NV; ++q) acc[q] = V{};
  for (int64_t j = jb; j < je; ++j) {
    const DType v = val[j];
    const DType* b = dense + static_cast<int64_t>(idx[j]) * n;
    for (int q = 0; q < NV; ++q) {
      V x;
      std::memcpy(&x, b + q * L, sizeof(V));  // an unaligned vector load
      acc[q] += v * x;
    }
  }
  std::memcpy(o, acc, sizeof(acc));
}

/*!
 * \brief out[row(r), :] = sum over p in [ptr[r], ptr[r+1]) of val[p] * dense[idx[p], :], for r
 *  in [begin, end): columns in blocks of 8 vectors, then 4, then 1, then one at a time.
 * \param out_rows where row r of the product goes in out (nullptr: row r).
 */
template <typename V, typename DType, typename IType, typename PType>
MXFFI_DOT_INLINE void GatherRowsImpl(int64_t begin, int64_t end, const PType* ptr, const IType* idx,
                                     const DType* val, const DType* dense, int64_t n, DType* out,
                                     const int64_t* out_rows) {
  constexpr int64_t L = sizeof(V) / sizeof(DType);
  for (int64_t r = begin; r < end; ++r) {
    DType* o = out + (out_rows == nullptr ? r : out_rows[r]) * n;
    const int64_t jb = static_cast<int64_t>(ptr[r]), je = static_cast<int64_t>(ptr[r + 1]);
    int64_t c = 0;
    for (; c + 8 * L <= n; c += 8 * L) GatherBlock<V, 8>(jb, je, idx, val, dense + c, n, o + c);
    if (c + 4 * L <= n) {
      GatherBlock<V, 4>(jb, je, idx, val, dense + c, n, o + c);
      c += 4 * L;
    }
    for (; c + L <= n; c += L) GatherBlock<V, 1>(jb, je, idx, val, dense + c, n, o + c);
    if (c == n) continue;
    for (int64_t i = c; i < n; ++i) o[i] = DType(0);
    for (int64_t j = jb; j < je; ++j) {
      const DType v = val[j];
      const DType* b = dense + static_cast<int64_t>(idx[j]) * n;
      for (int64_t i = c; i < n; ++i) o[i] += v * b[i];
    }
  }
}

/*! \brief GCC vectors of 16 and 32 bytes. */
template <typename DType>
struct Vectors {
  typedef DType V16 __attribute__((vector_size(16)));
  typedef DType V32 __attribute__((vector_size(32)));
};

template <typename DType, typename IType, typename PType>
using GatherFn = void (*)(int64_t, int64_t, const PType*, const IType*, const DType*, const DType*,
                          int64_t, DType*, const int64_t*);

/*! \brief The gather for any x86-64 (SSE2) or other target: 16-byte vectors. */
template <typename DType, typename IType, typename PType>
void GatherRowsBase(int64_t begin, int64_t end, const PType* ptr, const IType* idx,
                    const DType* val, const DType* dense, int64_t n, DType* out,
                    const int64_t* out_rows) {
  GatherRowsImpl<typename Vectors<DType>::V16>(begin, end, ptr, idx, val, dense, n, out, out_rows);
}

#if defined(__x86_64__) && defined(__GNUC__)
/*!
 * \brief The gather built for AVX2 and FMA, chosen at run time where the CPU has them: 32-byte
 *  vectors and fused multiply-adds, about twice the SSE2 build's speed on the benchmark.
 */
template <typename DType, typename IType, typename PType>
__attribute__((target("avx2,fma"))) void GatherRowsAVX2(int64_t begin, int64_t end,
                                                        const PType* ptr, const IType* idx,
                                                        const DType* val, const DType* dense,
                                                        int64_t n, DType* out,
                                                        const int64_t* out_rows) {
  GatherRowsImpl<typename Vectors<DType>::V32>(begin, end, ptr, idx, val, dense, n, out, out_rows);
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
/*! \return whether this CPU runs AVX2 and FMA instructions. */
bool HasAVX2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

/*! \return the gather for this CPU. */
template <typename DType, typename IType, typename PType>
GatherFn<DType, IType, PType> SelectGather() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = HasAVX2();
  if (avx2) return GatherRowsAVX2<DType, IType, PType>;
#endif
  return GatherRowsBase<DType, IType, PType>;
}

/*! \brief o (a.rows x n) = a @ b for b C-contiguous (a.cols x n). */
template <typename DType, typename IType>
void CsrDenseView(const CsrView<DType, IType>& a, const DType* b, int64_t n, DType* o) {
  if (a.rows == 0 || n == 0) return;
  std::optional<ScopedGILRelease> gil;
  if (a.nnz * n + a.rows * n > kReleaseGILThreshold) gil.emplace();
  const GatherFn<DType, IType, IType> gather = SelectGather<DType, IType, IType>();
  ParallelRowsByWork(a.rows, a.indptr, n, n, [&](int64_t begin, int64_t end) {
    gather(begin, end, a.indptr, a.indices, a.data, b, n, o, nullptr);
  });
}

template <typename DType, typename IType>
void CsrDense(const NDArray& csr, const NDArray& dense, const NDArray& out) {
  CsrDenseView(CsrView<DType, IType>(csr), Ptr<const DType>(dense), dense.tensor().shape[1],
               Ptr<DType>(out));
}

/*!
 * \brief out = csr @ rsp (dense): csr's column ids become positions among rsp's stored rows
 *  (values in a column rsp does not store are dropped), then the csr @ dense product runs on
 *  rsp's stored rows.
 */
template <typename DType, typename IType, typename RType>
void CsrRsp(const NDArray& csr, const NDArray& rsp, const NDArray& out) {
  const CsrView<DType, IType> a(csr);
  const int64_t n = out.tensor().shape[1];
  const int64_t stored = rsp.sparse_indices().tensor().shape[0];
  const RType* ids = Ptr<const RType>(rsp.sparse_indices());
  DType* o = Ptr<DType>(out);
  std::vector<int64_t> position(a.cols, -1);
  for (int64_t p = 0; p < stored; ++p) position[static_cast<int64_t>(ids[p])] = p;
  std::vector<int64_t> ptr(a.rows + 1, 0);
  std::vector<int64_t> idx;
  std::vector<DType> val;
  idx.reserve(a.nnz);
  val.reserve(a.nnz);
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int64_t j = a.indptr[r]; j < a.indptr[r + 1]; ++j) {
      const int64_t q = position[static_cast<int64_t>(a.indices[j])];
      if (q < 0) continue;
      idx.push_back(q);
      val.push_back(a.data[j]);
    }
    ptr[r + 1] = static_cast<int64_t>(idx.size());
  }
  const CsrView<DType, int64_t> mapped(a.rows, stored, val.data(), idx.data(), ptr.data());
  if (mapped.nnz == 0 || n == 0) {
    std::fill(o, o + a.rows * n, DType(0));
    return;
  }
  CsrDenseView(mapped, Ptr<const DType>(rsp.sparse_data().Contiguous()), n, o);
}

/*!
 * \brief A csr array transposed (TransposeCsr), keeping only the columns that hold a value. RType
 *  holds row ids: int32 whenever they fit, fewer bytes to write and read per value.
 */
template <typename DType, typename RType>
struct CompressedTranspose {
  /*! \brief The kept columns, increasing: the rows of the transpose. */
  std::vector<int64_t> cols;
  /*! \brief Row starts of the transpose (cols.size() + 1). */
  std::vector<int64_t> ptr;
  /*! \brief For each value, its row in the csr array (increasing within a column). */
  std::unique_ptr<RType[]> rows;
  std::unique_ptr<DType[]> vals;
};

template <typename RType, typename DType, typename IType>
CompressedTranspose<DType, RType> Transpose(const CsrView<DType, IType>& a) {
  CompressedTranspose<DType, RType> t;
  std::vector<int64_t> full(a.cols + 1);
  t.rows.reset(new RType[a.nnz]);
  t.vals.reset(new DType[a.nnz]);
  TransposeCsr(a, full.data(), t.rows.get(), t.vals.get());
  t.ptr.push_back(0);
  for (int64_t col = 0; col < a.cols; ++col) {
    if (full[col + 1] > full[col]) {
      t.cols.push_back(col);
      t.ptr.push_back(full[col + 1]);
    }
  }
  return t;
}

template <typename DType, typename IType, typename RType>
void CsrTDenseAs(const CsrView<DType, IType>& a, const NDArray& csr, const NDArray& dense,
                 const NDArray& out) {
  const int64_t n = dense.tensor().shape[1];
  std::optional<ScopedGILRelease> gil;
  if (a.nnz * n + a.cols * n > kReleaseGILThreshold) gil.emplace();
  CompressedTranspose<DType, RType> t = Transpose<RType>(a);
  const int64_t kept = static_cast<int64_t>(t.cols.size());
  const DType* b = Ptr<const DType>(dense);
  DType* o = nullptr;
  const int64_t* out_rows = nullptr;
  if (out.is_sparse()) {
    const DLDataType itype = csr.sparse_indices().tensor().dtype;
    out.CheckAndAlloc(kept, itype);
    IType* rows = Ptr<IType>(out.sparse_indices());
    for (int64_t i = 0; i < kept; ++i) rows[i] = static_cast<IType>(t.cols[i]);
    o = Ptr<DType>(out.sparse_data());
  } else {
    // Dense: the rows of the columns without a value are zero; the others are written below.
    o = Ptr<DType>(out);
    ParallelFor(a.cols, n, [&](int64_t rb, int64_t re) {
      std::memset(static_cast<void*>(o + rb * n), 0, sizeof(DType) * (re - rb) * n);
    });
    out_rows = t.cols.data();
  }
  if (n == 0) return;
  const GatherFn<DType, RType, int64_t> gather = SelectGather<DType, RType, int64_t>();
  ParallelRowsByWork(kept, t.ptr.data(), n, n, [&](int64_t begin, int64_t end) {
    gather(begin, end, t.ptr.data(), t.rows.get(), t.vals.get(), b, n, o, out_rows);
  });
}

template <typename DType, typename IType>
void CsrTDense(const NDArray& csr, const NDArray& dense, const NDArray& out) {
  const CsrView<DType, IType> a(csr);
  if (a.rows <= INT32_MAX) {
    CsrTDenseAs<DType, IType, int32_t>(a, csr, dense, out);
  } else {
    CsrTDenseAs<DType, IType, int64_t>(a, csr, dense, out);
  }
}

/*! \brief out[i, :] for one row i of the dense operand: zeroed, then the scatter. */
template <typename DType, typename IType>
void ScatterRow(int64_t i, const DType* lhs, int64_t k, const CsrView<DType, IType>& c, int64_t n,
                DType* out) {
  DType* o = out + i * n;
  const DType* x = lhs + i * k;
  std::memset(static_cast<void*>(o), 0, sizeof(DType) * n);
  for (int64_t kk = 0; kk < k; ++kk) {
    const DType s = x[kk];
    for (int64_t j = c.indptr[kk]; j < c.indptr[kk + 1]; ++j) o[c.indices[j]] += s * c.data[j];
  }
}

/*! \brief Rows of the dense operand that share one pass over the csr array: 64 bytes of them. */
template <typename DType>
constexpr int64_t kDenseRowBlock = 64 / static_cast<int64_t>(sizeof(DType));

/*!
 * \brief out[i0:i0+R, :] for R = kDenseRowBlock rows of the dense operand, from row i0. tmp
 *  (n x R) holds the R outputs of each column side by side, so each stored value (kk, col, v) of
 *  csr is NV vector multiply-adds into tmp[col] of v times lhs[i0:i0+R, kk]; tmp is then written
 *  out as R rows.
 */
template <typename V, typename DType, typename IType>
MXFFI_DOT_INLINE void ScatterBlockImpl(int64_t i0, const DType* lhs, int64_t k, const IType* indptr,
                                       const IType* indices, const DType* data, int64_t n,
                                       DType* out, DType* tmp) {
  constexpr int64_t L = sizeof(V) / sizeof(DType), R = kDenseRowBlock<DType>;
  constexpr int NV = static_cast<int>(R / L);
  static_assert(NV * L == R, "a row block is whole vectors");
  std::memset(static_cast<void*>(tmp), 0, sizeof(DType) * n * R);
  const DType* x = lhs + i0 * k;
  for (int64_t kk = 0; kk < k; ++kk) {
    const int64_t jb = indptr[kk], je = indptr[kk + 1];
    if (jb == je) continue;
    DType col_of_lhs[R];
    for (int64_t r = 0; r < R; ++r) col_of_lhs[r] = x[r * k + kk];
    V s[NV];
    std::memcpy(s, col_of_lhs, sizeof(s));
    for (int64_t j = jb; j < je; ++j) {
      DType* t = tmp + static_cast<int64_t>(indices[j]) * R;
      const DType v = data[j];
      for (int q = 0; q < NV; ++q) {
        V y;
        std::memcpy(&y, t + q * L, sizeof(V));
        y += v * s[q];
        std::memcpy(t + q * L, &y, sizeof(V));
      }
    }
  }
  for (int64_t r = 0; r < R; ++r) {
    DType* o = out + (i0 + r) * n;
    for (int64_t col = 0; col < n; ++col) o[col] = tmp[col * R + r];
  }
}

template <typename DType, typename IType>
using ScatterFn = void (*)(int64_t, const DType*, int64_t, const IType*, const IType*, const DType*,
                           int64_t, DType*, DType*);

template <typename DType, typename IType>
void ScatterBlockBase(int64_t i0, const DType* lhs, int64_t k, const IType* indptr,
                      const IType* indices, const DType* data, int64_t n, DType* out, DType* tmp) {
  ScatterBlockImpl<typename Vectors<DType>::V16>(i0, lhs, k, indptr, indices, data, n, out, tmp);
}

#if defined(__x86_64__) && defined(__GNUC__)
template <typename DType, typename IType>
__attribute__((target("avx2,fma"))) void ScatterBlockAVX2(int64_t i0, const DType* lhs, int64_t k,
                                                          const IType* indptr, const IType* indices,
                                                          const DType* data, int64_t n, DType* out,
                                                          DType* tmp) {
  ScatterBlockImpl<typename Vectors<DType>::V32>(i0, lhs, k, indptr, indices, data, n, out, tmp);
}
#endif

template <typename DType, typename IType>
ScatterFn<DType, IType> SelectScatter() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = HasAVX2();
  if (avx2) return ScatterBlockAVX2<DType, IType>;
#endif
  return ScatterBlockBase<DType, IType>;
}

template <typename DType, typename IType>
void DenseCsr(const NDArray& dense, const NDArray& csr, const NDArray& out) {
  const CsrView<DType, IType> c(csr);
  const int64_t m = dense.tensor().shape[0], k = c.rows, n = c.cols;
  if (m == 0 || n == 0) return;
  const DType* lhs = Ptr<const DType>(dense);
  DType* o = Ptr<DType>(out);
  std::optional<ScopedGILRelease> gil;
  if (m * (c.nnz + k + n) > kReleaseGILThreshold) gil.emplace();
  constexpr int64_t R = kDenseRowBlock<DType>;
  const int64_t blocks = m / R;
  const ScatterFn<DType, IType> scatter = SelectScatter<DType, IType>();
  // Whole blocks, then the rows after the last one, each on its own.
  auto run_blocks = [&](int64_t bb, int64_t be) {
    std::unique_ptr<DType[]> tmp(new DType[n * R]);
    for (int64_t blk = bb; blk < be; ++blk) {
      scatter(blk * R, lhs, k, c.indptr, c.indices, c.data, n, o, tmp.get());
    }
  };
  if (NumThreads() > 1 && blocks > 1 && blocks * R * (c.nnz + k + n) >= kMinParallelWork) {
    // A few tasks per thread, each a run of blocks with one scratch buffer.
    const int64_t tasks = std::min<int64_t>(blocks, int64_t{4} * NumThreads());
    ParallelTasks(tasks,
                  [&](int64_t t) { run_blocks(blocks * t / tasks, blocks * (t + 1) / tasks); });
  } else {
    run_blocks(0, blocks);
  }
  ParallelFor(m - blocks * R, c.nnz + k + n, [&](int64_t rb, int64_t re) {
    for (int64_t i = blocks * R + rb; i < blocks * R + re; ++i) ScatterRow(i, lhs, k, c, n, o);
  });
}

}  // namespace

void DotCsrDense(const NDArray& csr, const NDArray& dense, const NDArray& out) {
  MXFFI_REAL_SWITCH(csr.tensor().dtype, "dot", DType, {
    MXFFI_INDEX_SWITCH(csr.sparse_indices().tensor().dtype, "dot", IType,
                       { CsrDense<DType, IType>(csr, dense, out); });
  });
}

void DotCsrRsp(const NDArray& csr, const NDArray& rsp, const NDArray& out) {
  MXFFI_REAL_SWITCH(csr.tensor().dtype, "dot", DType, {
    MXFFI_INDEX_SWITCH(csr.sparse_indices().tensor().dtype, "dot", IType, {
      MXFFI_INDEX_SWITCH(rsp.sparse_indices().tensor().dtype, "dot", RType,
                         { CsrRsp<DType, IType, RType>(csr, rsp, out); });
    });
  });
}

void DotCsrTDense(const NDArray& csr, const NDArray& dense, const NDArray& out) {
  MXFFI_REAL_SWITCH(csr.tensor().dtype, "dot", DType, {
    MXFFI_INDEX_SWITCH(csr.sparse_indices().tensor().dtype, "dot", IType,
                       { CsrTDense<DType, IType>(csr, dense, out); });
  });
}

void DotDenseCsr(const NDArray& dense, const NDArray& csr, const NDArray& out) {
  MXFFI_REAL_SWITCH(csr.tensor().dtype, "dot", DType, {
    MXFFI_INDEX_SWITCH(csr.sparse_indices().tensor().dtype, "dot", IType,
                       { DenseCsr<DType, IType>(dense, csr, out); });
  });
}

}  // namespace op
}  // namespace mxffi
