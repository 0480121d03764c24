/*!
 * \file binary_sparse_kernels.h
 * \brief Storage-aware kernels of add, subtract, maximum, minimum and multiply on operands of
 *  one shape (add ... minimum: "add" below, each op's function being 0 for two zeros):
 *
 *  | op                | operands                         | result                     |
 *  |-------------------|----------------------------------|----------------------------|
 *  | add, subtract     | csr, csr                         | csr (rows merged)          |
 *  | add, subtract     | row_sparse, row_sparse           | row_sparse (union of rows) |
 *  | add, subtract     | dense with csr or row_sparse     | dense                      |
 *  | multiply          | csr, csr                         | csr (intersection)         |
 *  | multiply          | row_sparse, row_sparse           | row_sparse (intersection)  |
 *  | multiply          | dense with csr or row_sparse     | the sparse one's stype     |
 *
 * Other storage pairs (csr with row_sparse), operands of different shapes (the op sets
 * "TSparseSameShape", so broadcasting takes the dense path) and devices for which the op has no
 * FComputeEx kernel take the fallback (the GPU kernels: binary_sparse_gpu.cc).
 * Values are combined by the dense ops' own functions (functors.h), so integers wrap and bools
 * add as logical or, as numpy's; an operand of another dtype is converted to the result's first.
 * As in scipy and MXNet, a product where one side is not stored is 0, also when the other side
 * holds inf or NaN (numpy's dense product would give NaN there).
 *
 * Every kernel makes one pass over each row, with rows split across the kernel pool.
 *
 * The kernels are templates over the op; each op instantiates them in a file of its own
 * (binary_sparse.cc: add, binary_sparse_subtract.cc, binary_sparse_multiply.cc,
 * binary_sparse_maximum.cc, binary_sparse_minimum.cc), so that they compile in parallel and none
 * is a large translation unit.
 */
#ifndef MXFFI_SRC_OP_SPARSE_BINARY_SPARSE_KERNELS_H_
#define MXFFI_SRC_OP_SPARSE_BINARY_SPARSE_KERNELS_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "../elemwise/elemwise.h"
#include "../elemwise/functors.h"
#include "elemwise_sparse.h"

namespace mxffi {
namespace op {
namespace binary_sparse {

using elemwise::AddOp;
using elemwise::MultiplyOp;
using elemwise::SubtractOp;

/*! \brief One operand's parts as T values and I indices (indptr null for row_sparse). */
template <typename T, typename I>
struct Parts {
  const T* data;
  const I* indices;
  const I* indptr;
  int64_t nnz;  // stored values (csr) or stored rows (row_sparse)
};

/*! \brief A sparse operand's parts with its values in the result's dtype and the common index
 *  dtype: the array's own parts where they already are. */
struct Converted {
  NDArray data, indices, indptr;

  Converted(const NDArray& x, DLDataType dtype, bool index64)
      : data(ContiguousAs(x.sparse_data(), dtype)),
        indices(index64 ? IndexAs64(x.sparse_indices()) : x.sparse_indices()) {
    if (x.stype() == StorageType::kCSR) {
      indptr = index64 ? IndexAs64(x.sparse_indptr()) : x.sparse_indptr();
    }
  }
  template <typename T, typename I>
  Parts<T, I> Get() const {
    return Parts<T, I>{Ptr<T>(data), Ptr<I>(indices), indptr.defined() ? Ptr<I>(indptr) : nullptr,
                       indices.tensor().shape[0]};
  }
};

/*! \brief OP with the operands in their given order (kSwap: the sparse one came second). */
template <typename OP, bool kSwap, typename A>
inline A Ordered(A sparse_value, A dense_value) {
  return kSwap ? OP::Map(dense_value, sparse_value) : OP::Map(sparse_value, dense_value);
}

/*! \return v when keep, else A's zero (all bits clear), by masking the bits: no branch. */
template <typename A>
inline A KeepOrZero(A v, bool keep) {
  using Bits =
      std::conditional_t<sizeof(A) == 8, uint64_t,
                         std::conditional_t<sizeof(A) == 4, uint32_t,
                                            std::conditional_t<sizeof(A) == 2, uint16_t, uint8_t>>>;
  static_assert(sizeof(Bits) == sizeof(A), "KeepOrZero: an arithmetic type of 1, 2, 4 or 8 bytes");
  Bits bits;
  std::memcpy(&bits, &v, sizeof(A));
  bits &= static_cast<Bits>(Bits{0} - static_cast<Bits>(keep));
  std::memcpy(&v, &bits, sizeof(A));
  return v;
}

// ---- csr with csr --------------------------------------------------------------------------

/*!
 * \brief a OP b for two csr matrices: the union of their entries (add, subtract) or the
 *  intersection (multiply), each row merged in one pass over both rows.
 *
 * Row r's result has at most bound(r + 1) - bound(r) entries (a's plus b's for the union, the
 * fewer-stored operand's for the intersection). The rows are cut into one chunk per thread,
 * balanced by that bound; each chunk writes its rows back to back into a scratch buffer from
 * bound(first row); the chunks are then moved together.
 */
template <typename OP, bool kUnion, typename T, typename I>
void CSRWithCSR(const Parts<T, I>& a, const Parts<T, I>& b, int64_t rows, DLDataType dtype,
                DLDataType itype, const NDArray& out) {
  using A = typename AccType<T>::type;
  const bool a_bounds = kUnion || a.nnz <= b.nnz;
  auto bound = [&](int64_t r) -> int64_t {
    if (kUnion) return static_cast<int64_t>(a.indptr[r]) + b.indptr[r];
    return a_bounds ? a.indptr[r] : b.indptr[r];
  };
  const int64_t room = bound(rows);
  NDArray indptr = NewArray({rows + 1}, itype);
  I* ip = Ptr<I>(indptr);
  ip[0] = 0;
  NDArray data = NewArray({room}, dtype), indices = NewArray({room}, itype);
  T* d = Ptr<T>(data);
  I* ix = Ptr<I>(indices);
  MaybeReleaseGIL gil(room);

  const int64_t chunks =
      std::max<int64_t>(1, std::min<int64_t>(NumThreads(), room / (int64_t{1} << 16)));
  std::vector<int64_t> first(chunks + 1, rows), written(chunks), offset(chunks + 1, 0);
  for (int64_t c = 0; c < chunks; ++c) {
    // The first row whose room starts at or after c / chunks of the total.
    const int64_t target = room / chunks * c;
    int64_t lo = 0, hi = rows;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (bound(mid) < target) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    first[c] = c == 0 ? 0 : lo;
  }
  const A zero = A(0);
  ParallelFor(chunks, room / chunks, [&](int64_t cb, int64_t ce) {
    // Local restrict pointers: the compiler need not reload them after every store.
    const T* __restrict ad = a.data;
    const I* __restrict ai = a.indices;
    const I* __restrict ap = a.indptr;
    const T* __restrict bd = b.data;
    const I* __restrict bi = b.indices;
    const I* __restrict bp = b.indptr;
    T* __restrict od = d;
    I* __restrict oi = ix;
    I* __restrict counts = ip;
    for (int64_t c = cb; c < ce; ++c) {
      const int64_t start = bound(first[c]);
      int64_t k = start;
      for (int64_t r = first[c]; r < first[c + 1]; ++r) {
        const int64_t row_start = k;
        I pa = ap[r], pb = bp[r];
        const I ea = ap[r + 1], eb = bp[r + 1];
        // Branch-free steps: the column order of two random rows is unpredictable, so each
        // step advances pa, pb or both by comparison results instead of by a branch.
        while (pa < ea && pb < eb) {
          const I ca = ai[pa], cb_ = bi[pb];
          const A va = A(ad[pa]), vb = A(bd[pb]);
          const bool take_a = ca <= cb_, take_b = cb_ <= ca;
          if (kUnion) {
            od[k] = T(OP::Map(KeepOrZero(va, take_a), KeepOrZero(vb, take_b)));
            oi[k++] = take_a ? ca : cb_;
          } else if (take_a && take_b) {
            od[k] = T(OP::Map(va, vb));
            oi[k++] = ca;
          }
          pa += take_a;
          pb += take_b;
        }
        if (kUnion) {
          for (; pa < ea; ++pa) {
            od[k] = T(OP::Map(A(ad[pa]), zero));
            oi[k++] = ai[pa];
          }
          for (; pb < eb; ++pb) {
            od[k] = T(OP::Map(zero, A(bd[pb])));
            oi[k++] = bi[pb];
          }
        }
        counts[r + 1] = static_cast<I>(k - row_start);  // a count until the offsets are known
      }
      written[c] = k - start;
    }
  });
  for (int64_t c = 0; c < chunks; ++c) offset[c + 1] = offset[c] + written[c];
  const int64_t nnz = offset[chunks];
  // As scipy does, the result keeps the scratch buffers when they are at most twice its size
  // (always so for the union), the chunks moved together in place: fresh memory costs a page
  // fault per 4 KiB, more than the merge itself. A much smaller result is copied out.
  const bool in_place = 2 * nnz >= room;
  NDArray out_data = data, out_indices = indices;
  if (in_place) {
    for (int64_t c = 1; c < chunks; ++c) {
      const int64_t from = bound(first[c]);
      if (written[c] == 0 || from == offset[c]) continue;
      std::memmove(static_cast<void*>(d + offset[c]), d + from, sizeof(T) * written[c]);
      std::memmove(ix + offset[c], ix + from, sizeof(I) * written[c]);
    }
    if (nnz != room) {
      out_data = NDArray::View(data, &nnz, nullptr, 1, 0);
      out_indices = NDArray::View(indices, &nnz, nullptr, 1, 0);
    }
  } else {
    out_data = NewArray({nnz}, dtype);
    out_indices = NewArray({nnz}, itype);
  }
  T* od = Ptr<T>(out_data);
  I* oix = Ptr<I>(out_indices);
  ParallelFor(chunks, room / chunks, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      if (!in_place && written[c] > 0) {
        const int64_t from = bound(first[c]);
        std::memcpy(static_cast<void*>(od + offset[c]), d + from, sizeof(T) * written[c]);
        std::memcpy(oix + offset[c], ix + from, sizeof(I) * written[c]);
      }
      int64_t running = offset[c];
      for (int64_t r = first[c]; r < first[c + 1]; ++r) {
        running += ip[r + 1];
        ip[r + 1] = static_cast<I>(running);
      }
    }
  });
  out.SetSparseStorage(out_data, out_indices, indptr);
}

// ---- row_sparse with row_sparse ---------------------------------------------------------------

/*!
 * \brief a OP b for two row_sparse arrays: the union of their rows (add, subtract) or the
 *  intersection (multiply). The sorted row ids are merged first (one pass over the ids), then
 *  the rows are computed in parallel.
 */
template <typename OP, bool kUnion, typename T, typename I>
void RSPWithRSP(const Parts<T, I>& a, const Parts<T, I>& b, int64_t width, DLDataType itype,
                const NDArray& out) {
  using A = typename AccType<T>::type;
  std::vector<int64_t> from_a, from_b;  // the source row of each result row, or -1
  std::vector<I> rows;
  const size_t most = kUnion ? a.nnz + b.nnz : std::min(a.nnz, b.nnz);
  from_a.reserve(most);
  from_b.reserve(most);
  rows.reserve(most);
  int64_t ja = 0, jb = 0;
  while (ja < a.nnz || jb < b.nnz) {
    const bool take_a = jb >= b.nnz || (ja < a.nnz && a.indices[ja] <= b.indices[jb]);
    const bool take_b = ja >= a.nnz || (jb < b.nnz && b.indices[jb] <= a.indices[ja]);
    if (kUnion || (take_a && take_b)) {
      rows.push_back(take_a ? a.indices[ja] : b.indices[jb]);
      from_a.push_back(take_a ? ja : -1);
      from_b.push_back(take_b ? jb : -1);
    }
    ja += take_a;
    jb += take_b;
    if (!kUnion && (ja >= a.nnz || jb >= b.nnz)) break;
  }
  const int64_t k = static_cast<int64_t>(rows.size());
  out.CheckAndAlloc(k, itype);
  if (k > 0) std::memcpy(Ptr<I>(out.sparse_indices()), rows.data(), sizeof(I) * k);
  T* d = Ptr<T>(out.sparse_data());
  MaybeReleaseGIL gil(k * width);
  const A zero = A(0);
  ParallelFor(k, width, [&](int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      T* o = d + j * width;
      const T* ra = from_a[j] >= 0 ? a.data + from_a[j] * width : nullptr;
      const T* rb = from_b[j] >= 0 ? b.data + from_b[j] * width : nullptr;
      if (ra != nullptr && rb != nullptr) {
        for (int64_t c = 0; c < width; ++c) o[c] = T(OP::Map(A(ra[c]), A(rb[c])));
      } else if (ra != nullptr) {
        for (int64_t c = 0; c < width; ++c) o[c] = T(OP::Map(A(ra[c]), zero));
      } else {
        for (int64_t c = 0; c < width; ++c) o[c] = T(OP::Map(zero, A(rb[c])));
      }
    }
  });
}

// ---- dense with sparse ----------------------------------------------------------------------

/*!
 * \brief dense OP csr (or csr OP dense, kSwap false) into a dense output: each row written in
 *  one pass, the stretches between stored columns with the implicit zero. Each output element
 *  is computed from the dense element at the same place only, so out may be the dense input.
 */
template <typename OP, bool kSwap, typename T, typename I>
void DenseWithCSR(const T* dense, const Parts<T, I>& s, int64_t rows, int64_t cols, T* o) {
  using A = typename AccType<T>::type;
  const A zero = A(0);
  MaybeReleaseGIL gil(rows * cols);
  ParallelFor(rows, cols, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* dr = dense + r * cols;
      T* orow = o + r * cols;
      int64_t c = 0;
      for (I p = s.indptr[r]; p < s.indptr[r + 1]; ++p) {
        const int64_t col = s.indices[p];
        for (; c < col; ++c) orow[c] = T(Ordered<OP, kSwap>(zero, A(dr[c])));
        orow[col] = T(Ordered<OP, kSwap>(A(s.data[p]), A(dr[col])));
        c = col + 1;
      }
      for (; c < cols; ++c) orow[c] = T(Ordered<OP, kSwap>(zero, A(dr[c])));
    }
  });
}

/*! \brief dense OP row_sparse (or the other order) into a dense output, row by row. */
template <typename OP, bool kSwap, typename T, typename I>
void DenseWithRSP(const T* dense, const Parts<T, I>& s, int64_t rows, int64_t width, T* o) {
  using A = typename AccType<T>::type;
  const A zero = A(0);
  MaybeReleaseGIL gil(rows * width);
  ParallelFor(rows, width, [&](int64_t begin, int64_t end) {
    int64_t j = std::lower_bound(s.indices, s.indices + s.nnz, static_cast<I>(begin)) - s.indices;
    for (int64_t r = begin; r < end; ++r) {
      const T* dr = dense + r * width;
      T* orow = o + r * width;
      if (j < s.nnz && s.indices[j] == r) {
        const T* sr = s.data + j * width;
        for (int64_t c = 0; c < width; ++c) orow[c] = T(Ordered<OP, kSwap>(A(sr[c]), A(dr[c])));
        ++j;
      } else {
        for (int64_t c = 0; c < width; ++c) orow[c] = T(Ordered<OP, kSwap>(zero, A(dr[c])));
      }
    }
  });
}

/*!
 * \brief The stored values of sparse OP dense where the result keeps the sparse operand's
 *  structure (multiply): csr value p of row r with dense[r, indices[p]], row_sparse row j with
 *  dense row indices[j].
 */
template <typename OP, bool kSwap, typename T, typename I>
void SparseValuesWithDense(const T* dense, const Parts<T, I>& s, bool csr, int64_t rows,
                           int64_t width, T* o) {
  using A = typename AccType<T>::type;
  if (csr) {
    MaybeReleaseGIL gil(s.nnz);
    ParallelFor(rows, s.nnz / std::max<int64_t>(rows, 1) + 1, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* dr = dense + r * width;
        for (I p = s.indptr[r]; p < s.indptr[r + 1]; ++p) {
          o[p] = T(Ordered<OP, kSwap>(A(s.data[p]), A(dr[s.indices[p]])));
        }
      }
    });
    return;
  }
  MaybeReleaseGIL gil(s.nnz * width);
  ParallelFor(s.nnz, width, [&](int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      const T* dr = dense + static_cast<int64_t>(s.indices[j]) * width;
      const T* sr = s.data + j * width;
      T* orow = o + j * width;
      for (int64_t c = 0; c < width; ++c) orow[c] = T(Ordered<OP, kSwap>(A(sr[c]), A(dr[c])));
    }
  });
}

// ---- storage inference and the kernel ---------------------------------------------------------

/*!
 * \brief The storage types in the table at the top of the file; kStructured: the result of
 *  dense with sparse keeps the sparse operand's storage type (multiply), else it is dense.
 */
template <bool kStructured>
DispatchMode BinaryStorageType(const OpAttrs& attrs, DLDevice device, Span<const StorageType> in,
                               Span<StorageType> out) {
  const StorageType a = in[0], b = in[1];
  if (a == StorageType::kDefault && b == StorageType::kDefault) {
    out[0] = StorageType::kDefault;
    return DispatchMode::kFCompute;
  }
  out[0] = StorageType::kDefault;
  const bool gpu = device.device_type != kDLCPU;
  if (attrs.op->call_attrs().compute_ex[gpu] == nullptr) return DispatchMode::kFComputeFallback;
  if (a == b) {
    out[0] = a;
    return DispatchMode::kFComputeEx;
  }
  if (a == StorageType::kDefault || b == StorageType::kDefault) {
    if (kStructured) out[0] = a == StorageType::kDefault ? b : a;
    return DispatchMode::kFComputeEx;
  }
  return DispatchMode::kFComputeFallback;
}

/*! \brief dense with sparse: the result dense (add, subtract) or sparse (multiply). */
template <typename OP, bool kSwap, typename T, typename I>
void DenseWithSparse(const NDArray& dense_in, const NDArray& sparse, const Converted& sv,
                     const NDArray& out) {
  const Parts<T, I> s = sv.Get<T, I>();
  const DLTensor& t = sparse.tensor();
  const int64_t rows = t.shape[0], width = RowWidth(t);
  const NDArray dense = ContiguousAs(dense_in, out.tensor().dtype);
  const T* dp = Ptr<T>(dense);
  const bool csr = sparse.stype() == StorageType::kCSR;
  if (out.is_sparse()) {
    const DLTensor& values = sv.data.tensor();
    NDArray data = NDArray::Empty(values.shape, values.ndim, values.dtype, values.device);
    SparseValuesWithDense<OP, kSwap, T, I>(dp, s, csr, rows, width, Ptr<T>(data));
    out.SetSparseStorage(data, sv.indices, sv.indptr);
    return;
  }
  DenseOutput target(out);
  T* o = static_cast<T*>(target.data());
  if (csr) {
    DenseWithCSR<OP, kSwap, T, I>(dp, s, rows, width, o);
  } else {
    DenseWithRSP<OP, kSwap, T, I>(dp, s, rows, width, o);
  }
  target.Finish();
}

template <BinaryKind K, typename OP>
void BinarySparseCompute(const OpAttrs&, const OpContext&, Span<const NDArray> in,
                         Span<const OpReqType>, Span<const NDArray> out) {
  constexpr bool kUnion = K != BinaryKind::kMultiply;
  const char* fname = BinaryName(K);
  const NDArray &a = in[0], &b = in[1];
  const DLDataType dtype = out[0].tensor().dtype;
  if (a.stype() == b.stype()) {
    const DLDataType ia = a.sparse_indices().tensor().dtype;
    const DLDataType ib = b.sparse_indices().tensor().dtype;
    const bool index64 = ia.bits != ib.bits;  // results keep their inputs' index dtype
    const DLDataType itype = index64 ? kIndex64 : ia;
    const Converted ca(a, dtype, index64), cb(b, dtype, index64);
    MXFFI_TYPE_SWITCH(dtype, fname, T, {
      if constexpr (OP::template Valid<T>()) {
        MXFFI_INDEX_SWITCH(itype, fname, I, {
          if (a.stype() == StorageType::kCSR) {
            CSRWithCSR<OP, kUnion, T, I>(ca.Get<T, I>(), cb.Get<T, I>(), a.tensor().shape[0], dtype,
                                         itype, out[0]);
          } else {
            RSPWithRSP<OP, kUnion, T, I>(ca.Get<T, I>(), cb.Get<T, I>(), RowWidth(a.tensor()),
                                         itype, out[0]);
          }
        });
      } else {
        MXFFI_THROW(TypeError) << fname << ": no kernel computes in " << DataTypeToString(dtype);
      }
    });
    return;
  }
  const bool swap = a.is_sparse() ? false : true;  // the sparse operand came second
  const NDArray& sparse = swap ? b : a;
  const NDArray& dense = swap ? a : b;
  const Converted cs(sparse, dtype, false);
  MXFFI_TYPE_SWITCH(dtype, fname, T, {
    if constexpr (OP::template Valid<T>()) {
      MXFFI_INDEX_SWITCH(cs.indices.tensor().dtype, fname, I, {
        if (swap) {
          DenseWithSparse<OP, true, T, I>(dense, sparse, cs, out[0]);
        } else {
          DenseWithSparse<OP, false, T, I>(dense, sparse, cs, out[0]);
        }
      });
    } else {
      MXFFI_THROW(TypeError) << fname << ": no kernel computes in " << DataTypeToString(dtype);
    }
  });
}

}  // namespace binary_sparse
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_BINARY_SPARSE_KERNELS_H_
