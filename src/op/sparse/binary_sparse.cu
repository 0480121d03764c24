/*!
 * \file binary_sparse.cu
 * \brief GPU kernels of the sparse binary ops and of add_n (launchers in binary_sparse_cuda.h).
 *
 * They mirror the CPU kernels (src/op/sparse/binary_sparse.cc, add_n.cc) value for value:
 *  - csr op csr: one thread per row merges the two sorted column lists, once to count the row's
 *    entries and, after a scan of the counts into indptr, once to write them. add and subtract
 *    keep the union of the columns, multiply the intersection; an entry that cancels to zero
 *    stays stored, as on the CPU.
 *  - row_sparse op row_sparse: the result's rows are marked in an array with one slot per row
 *    id, a scan of the marks gives each kept row its place, and each operand's rows are sent
 *    there; then one thread per value combines the two source rows.
 *  - dense with sparse: one thread per element, finding its column in the csr row (or its row in
 *    the row_sparse ids) by binary search, so the output may be the dense operand itself.
 *  - add_n: dense sums left to right; sparse summands added in input order; the csr sum merges
 *    the k rows per thread, adding equal columns' values left to right.
 */
#include <cub/device/device_scan.cuh>
#include <type_traits>

#include "binary_sparse_cuda.h"
#include "op/cuda_kernel.cuh"
#include "op/elemwise/convert_cuda.h"
#include "op/elemwise/functors.h"

namespace mxffi {
namespace cuda {
namespace {

/*! \brief The op a kernel applies, as a template argument. */
using BinaryFn = SparseBinaryOp;

/*! \brief The functor (functors.h, the CPU kernels' own) of F. */
template <BinaryFn F>
using FunctorOf =
    std::conditional_t<F == BinaryFn::kAdd, op::elemwise::AddOp,
                       std::conditional_t<F == BinaryFn::kSubtract, op::elemwise::SubtractOp,
                                          op::elemwise::MultiplyOp>>;

/*! \brief Whether F applies to values of type T (subtract refuses two bools, as numpy does). */
template <BinaryFn F, typename T>
constexpr bool kBinaryValid = FunctorOf<F>::template Valid<T>();

/*! \return a F b for two stored T values: widened to AccT<T>, combined, rounded back to T. */
template <BinaryFn F, typename T>
__device__ __forceinline__ T BinaryApply(T a, T b) {
  return FromAcc<T>(FunctorOf<F>::Map(ToAcc(a), ToAcc(b)));
}

/*! \return a F b where a is absent (its implicit zero) or b is absent; T's zero is +0. */
template <BinaryFn F, typename T>
__device__ __forceinline__ T BinaryWithZero(T present, bool present_first) {
  using A = AccT<T>;
  const A zero = A(0), v = ToAcc(present);
  return FromAcc<T>(present_first ? FunctorOf<F>::Map(v, zero) : FunctorOf<F>::Map(zero, v));
}

/*! \brief Run f(BinaryFn constant) for op. */
template <typename F>
void OpSwitch(SparseBinaryOp op, F&& f) {
  switch (op) {
    case SparseBinaryOp::kAdd:
      f(std::integral_constant<BinaryFn, BinaryFn::kAdd>{});
      break;
    case SparseBinaryOp::kSubtract:
      f(std::integral_constant<BinaryFn, BinaryFn::kSubtract>{});
      break;
    default:
      f(std::integral_constant<BinaryFn, BinaryFn::kMultiply>{});
      break;
  }
}

cudaStream_t AsStream(void* stream) { return static_cast<cudaStream_t>(stream); }

/*!
 * \brief The type a binary kernel on T values runs in: the unsigned type of a signed integer's
 *  size (two's complement add, subtract and multiply wrap to the same bits, so one kernel
 *  serves both, halving the integer kernels), T otherwise.
 */
template <typename T>
struct KernelTypeOf {
  using type = T;
};
template <>
struct KernelTypeOf<int8_t> {
  using type = uint8_t;
};
template <>
struct KernelTypeOf<int16_t> {
  using type = uint16_t;
};
template <>
struct KernelTypeOf<int32_t> {
  using type = uint32_t;
};
template <>
struct KernelTypeOf<int64_t> {
  using type = uint64_t;
};
template <typename T>
using KernelT = typename KernelTypeOf<T>::type;

/*! \return the first position in [lo, hi) of sorted ids whose value is >= key. */
template <typename I>
__device__ __forceinline__ int64_t LowerBound(const I* ids, int64_t lo, int64_t hi, int64_t key) {
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<int64_t>(ids[mid]) < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/*! \return the position of key in sorted ids[lo, hi), or -1. */
template <typename I>
__device__ __forceinline__ int64_t Find(const I* ids, int64_t lo, int64_t hi, int64_t key) {
  const int64_t p = LowerBound(ids, lo, hi, key);
  return p < hi && static_cast<int64_t>(ids[p]) == key ? p : -1;
}

/*! \return the row of csr entry p: the last r with indptr[r] <= p (indptr has rows + 1). */
template <typename I>
__device__ __forceinline__ int64_t RowOf(const I* indptr, int64_t rows, int64_t p) {
  // The first r in [0, rows] with indptr[r] > p, minus one.
  int64_t lo = 0, hi = rows + 1;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<int64_t>(indptr[mid]) <= p) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo - 1;
}

// ---- conversion ---------------------------------------------------------------------------------

/*! \brief An element copy of any strides, by the element's size (U an unsigned of that size). */
template <typename U>
__global__ void StridedCopyKernel(const U* src, U* dst, int64_t n, StridedIndex<2> index) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[2];
    index.Offsets(i, off);
    dst[off[1]] = src[off[0]];
  }
}

/*! \brief t's element strides (C-contiguous ones when t.strides is null) into out. */
void StridesOf(const DLTensor& t, int64_t* out) {
  int64_t s = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    out[d] = t.strides != nullptr ? t.strides[d] : s;
    s *= t.shape[d];
  }
}

bool Compact(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  int64_t s = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.strides[d] != s) return false;
    s *= t.shape[d];
  }
  return true;
}

// ---- csr with csr -------------------------------------------------------------------------------

template <typename I>
__global__ void CSRMergeCountKernel(bool union_rows, const I* ap, const I* ai, const I* bp,
                                    const I* bi, I* out_ptr, int64_t rows) {
  MXFFI_CUDA_LOOP(r, rows) {
    int64_t pa = ap[r], pb = bp[r];
    const int64_t ea = ap[r + 1], eb = bp[r + 1];
    int64_t common = 0;
    while (pa < ea && pb < eb) {
      const I ca = ai[pa], cb = bi[pb];
      common += ca == cb;
      pa += ca <= cb;
      pb += cb <= ca;
    }
    const int64_t total = union_rows ? (ea - ap[r]) + (eb - bp[r]) - common : common;
    out_ptr[r + 1] = static_cast<I>(total);
  }
}

template <BinaryFn F, typename T, typename I>
__global__ void CSRMergeWriteKernel(const T* ad, const I* ap, const I* ai, const T* bd, const I* bp,
                                    const I* bi, T* od, const I* op, I* oi, int64_t rows) {
  constexpr bool kUnion = F != BinaryFn::kMultiply;
  MXFFI_CUDA_LOOP(r, rows) {
    int64_t pa = ap[r], pb = bp[r], k = op[r];
    const int64_t ea = ap[r + 1], eb = bp[r + 1];
    while (pa < ea && pb < eb) {
      const I ca = ai[pa], cb = bi[pb];
      if (ca == cb) {
        od[k] = BinaryApply<F>(ad[pa], bd[pb]);
        oi[k++] = ca;
        ++pa;
        ++pb;
      } else if (ca < cb) {
        if (kUnion) {
          od[k] = BinaryWithZero<F>(ad[pa], true);
          oi[k++] = ca;
        }
        ++pa;
      } else {
        if (kUnion) {
          od[k] = BinaryWithZero<F>(bd[pb], false);
          oi[k++] = cb;
        }
        ++pb;
      }
    }
    if (kUnion) {
      for (; pa < ea; ++pa) {
        od[k] = BinaryWithZero<F>(ad[pa], true);
        oi[k++] = ai[pa];
      }
      for (; pb < eb; ++pb) {
        od[k] = BinaryWithZero<F>(bd[pb], false);
        oi[k++] = bi[pb];
      }
    }
  }
}

// ---- row_sparse rows ----------------------------------------------------------------------------

template <typename I>
__global__ void RowMarkAllKernel(const I* ids, int64_t k, int64_t* marks) {
  MXFFI_CUDA_LOOP(j, k) { marks[1 + static_cast<int64_t>(ids[j])] = 1; }
}

template <typename I>
__global__ void RowMarkBothKernel(const I* a, int64_t ka, const I* b, int64_t kb, int64_t* marks) {
  MXFFI_CUDA_LOOP(j, ka) {
    const int64_t r = a[j];
    if (Find(b, 0, kb, r) >= 0) marks[1 + r] = 1;
  }
}

template <typename I, typename O>
__global__ void RowPlaceKernel(const I* ids, int64_t k, const int64_t* offsets, O* out_ids,
                               int64_t* source) {
  MXFFI_CUDA_LOOP(j, k) {
    const int64_t r = ids[j];
    const int64_t o = offsets[r];
    if (offsets[r + 1] > o) {
      if (out_ids != nullptr) out_ids[o] = static_cast<O>(r);
      if (source != nullptr) source[o] = j;
    }
  }
}

template <BinaryFn F, typename T>
__global__ void RowCombineKernel(const T* ad, const int64_t* as, const T* bd, const int64_t* bs,
                                 T* od, int64_t n, int64_t width) {
  MXFFI_CUDA_LOOP(i, n) {
    const int64_t o = i / width, c = i - o * width;
    const int64_t ja = as[o], jb = bs[o];
    if (ja >= 0 && jb >= 0) {
      od[i] = BinaryApply<F>(ad[ja * width + c], bd[jb * width + c]);
    } else if (ja >= 0) {
      od[i] = BinaryWithZero<F>(ad[ja * width + c], true);
    } else {
      od[i] = BinaryWithZero<F>(bd[jb * width + c], false);
    }
  }
}

// ---- dense with sparse --------------------------------------------------------------------------

/*! \brief sparse op dense (sparse_first) or dense op sparse, sparse an implicit zero when absent.
 */
template <BinaryFn F, typename T>
__device__ __forceinline__ T Ordered(bool sparse_first, bool stored, T s, T d) {
  if (!stored) return BinaryWithZero<F>(d, !sparse_first);
  return sparse_first ? BinaryApply<F>(s, d) : BinaryApply<F>(d, s);
}

template <BinaryFn F, typename T, typename I>
__global__ void DenseWithSparseKernel(bool sparse_first, const T* dense, const T* sd, const I* si,
                                      const I* sp, int64_t k, T* out, int64_t n, int64_t width) {
  MXFFI_CUDA_LOOP(i, n) {
    const int64_t r = i / width, c = i - r * width;
    int64_t at;
    if (sp != nullptr) {
      const int64_t p = Find(si, sp[r], sp[r + 1], c);
      at = p;
    } else {
      const int64_t j = Find(si, 0, k, r);
      at = j < 0 ? -1 : j * width + c;
    }
    const T d = dense[i];
    out[i] = Ordered<F>(sparse_first, at >= 0, at >= 0 ? sd[at] : d, d);
  }
}

template <BinaryFn F, typename T, typename I>
__global__ void SparseValuesWithDenseKernel(bool sparse_first, const T* dense, const T* sd,
                                            const I* si, const I* sp, int64_t rows, T* out,
                                            int64_t n, int64_t width) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t at;
    if (sp != nullptr) {
      at = RowOf(sp, rows, i) * width + static_cast<int64_t>(si[i]);
    } else {
      const int64_t j = i / width;
      at = static_cast<int64_t>(si[j]) * width + (i - j * width);
    }
    out[i] = Ordered<F>(sparse_first, true, sd[i], dense[at]);
  }
}

// ---- add_n --------------------------------------------------------------------------------------

template <typename T>
struct Summands {
  const T* p[kMaxSummands];
};

template <typename T>
__global__ void AddNDenseKernel(Summands<T> in, int k, T* out, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    T d = in.p[0][i];
    for (int s = 1; s < k; ++s) d += in.p[s][i];
    out[i] = d;
  }
}

template <typename T, typename I>
__global__ void AddSparseIntoKernel(const T* data, const I* ids, const I* indptr, int64_t rows,
                                    T* dst, int64_t n, int64_t width) {
  MXFFI_CUDA_LOOP(i, n) {
    if (indptr != nullptr) {
      dst[RowOf(indptr, rows, i) * width + static_cast<int64_t>(ids[i])] += data[i];
    } else {
      const int64_t j = i / width;
      dst[static_cast<int64_t>(ids[j]) * width + (i - j * width)] += data[i];
    }
  }
}

template <typename T, typename I>
__global__ void AddRowsAtKernel(const T* data, const I* ids, const int64_t* offsets, T* dst,
                                int64_t n, int64_t width) {
  MXFFI_CUDA_LOOP(i, n) {
    const int64_t j = i / width;
    dst[offsets[static_cast<int64_t>(ids[j])] * width + (i - j * width)] += data[i];
  }
}

/*! \brief The csr summands of one add_n: parts and whether each has int64 indices. */
struct CSRSummands {
  const void* data[kMaxSummands];
  const void* indptr[kMaxSummands];
  const void* indices[kMaxSummands];
  bool wide[kMaxSummands];
  int n;

  __device__ __forceinline__ int64_t At(const void* a, int s, int64_t j) const {
    return wide[s] ? static_cast<const int64_t*>(a)[j] : static_cast<const int32_t*>(a)[j];
  }
};

/*!
 * \brief Merge row r of every summand: emit(column, value) once per column of the union, in
 *  increasing order, the value the summands' values there added left to right (when kValues;
 *  counting reads no values and emits zeros).
 */
template <typename T, bool kValues, typename Emit>
__device__ __forceinline__ void MergeSumRow(const CSRSummands& s, int64_t r, Emit&& emit) {
  constexpr int64_t kDone = INT64_MAX;
  int64_t head[kMaxSummands], end[kMaxSummands], cur[kMaxSummands];
  for (int i = 0; i < s.n; ++i) {
    head[i] = s.At(s.indptr[i], i, r);
    end[i] = s.At(s.indptr[i], i, r + 1);
    cur[i] = head[i] < end[i] ? s.At(s.indices[i], i, head[i]) : kDone;
  }
  while (true) {
    int64_t next = kDone;
    for (int i = 0; i < s.n; ++i) next = cur[i] < next ? cur[i] : next;
    if (next == kDone) return;
    T sum = T(0);
    bool first = true;
    for (int i = 0; i < s.n; ++i) {
      if (cur[i] != next) continue;
      if constexpr (kValues) {
        const T v = static_cast<const T*>(s.data[i])[head[i]];
        sum = first ? v : sum + v;
      }
      first = false;
      ++head[i];
      cur[i] = head[i] < end[i] ? s.At(s.indices[i], i, head[i]) : kDone;
    }
    emit(next, sum);
  }
}

template <typename I>
__global__ void CSRSumCountKernel(CSRSummands s, I* out_ptr, int64_t rows) {
  MXFFI_CUDA_LOOP(r, rows) {
    int64_t count = 0;
    MergeSumRow<float, false>(s, r, [&](int64_t, float) { ++count; });
    out_ptr[r + 1] = static_cast<I>(count);
  }
}

template <typename T, typename I>
__global__ void CSRSumWriteKernel(CSRSummands s, T* od, const I* op, I* oi, int64_t rows) {
  MXFFI_CUDA_LOOP(r, rows) {
    int64_t k = op[r];
    MergeSumRow<T, true>(s, r, [&](int64_t col, T v) {
      od[k] = v;
      oi[k++] = static_cast<I>(col);
    });
  }
}

CSRSummands MakeSummands(const DLTensor* data, const DLTensor* indptr, const DLTensor* indices,
                         int n, const char* fname) {
  MXFFI_CHECK(n >= 1 && n <= kMaxSummands, ValueError)
      << fname << ": one kernel sums 1 to " << kMaxSummands << " arrays; got " << n;
  CSRSummands s{};
  s.n = n;
  for (int i = 0; i < n; ++i) {
    s.data[i] = data != nullptr ? DataPtr<void>(data[i]) : nullptr;
    s.indptr[i] = DataPtr<void>(indptr[i]);
    s.indices[i] = DataPtr<void>(indices[i]);
    IndexSwitch(indices[i].dtype, fname, [&](auto) {});
    s.wide[i] = indices[i].dtype.bits == 64;
    MXFFI_CHECK(indptr[i].dtype.bits == indices[i].dtype.bits, TypeError)
        << fname << ": arrays[" << i << "] has indptr of " << int(indptr[i].dtype.bits)
        << " bits but indices of " << int(indices[i].dtype.bits) << " bits";
  }
  return s;
}

}  // namespace

// ---- shared -------------------------------------------------------------------------------------

void CopyConvert(const DLTensor& src, const DLTensor& dst, void* stream) {
  constexpr const char* fname = "CopyConvert";
  MXFFI_CHECK(src.ndim == dst.ndim && src.ndim <= kMaxDims, ValueError)
      << fname << ": src has " << src.ndim << " dimensions, dst " << dst.ndim;
  const int64_t n = NumElements(dst);
  for (int d = 0; d < src.ndim; ++d) {
    MXFFI_CHECK(src.shape[d] == dst.shape[d], ValueError)
        << fname << ": src.shape[" << d << "]=" << src.shape[d] << " but dst.shape[" << d
        << "]=" << dst.shape[d];
  }
  if (n == 0) return;
  const bool same = src.dtype.code == dst.dtype.code && src.dtype.bits == dst.dtype.bits &&
                    src.dtype.lanes == dst.dtype.lanes;
  const bool compact = Compact(src) && Compact(dst);
  if (same && compact) {
    MXFFI_CUDA_CALL(fname, cudaMemcpyAsync(DataPtr<void>(dst), DataPtr<void>(src),
                                           static_cast<size_t>(n) * (src.dtype.bits / 8),
                                           cudaMemcpyDeviceToDevice, AsStream(stream)));
    return;
  }
  if (!same) {
    MXFFI_CHECK(compact, ValueError)
        << fname << ": a copy that changes the dtype takes C-contiguous arrays";
    const int64_t one = 1;
    ConvertElements(DataPtr<const char>(src), src.dtype, 1, &n, &one, DataPtr<char>(dst), dst.dtype,
                    false, fname, stream);
    return;
  }
  StridedIndex<2> index;
  index.ndim = src.ndim;
  for (int d = 0; d < src.ndim; ++d) index.shape[d] = src.shape[d];
  StridesOf(src, index.stride[0]);
  StridesOf(dst, index.stride[1]);
  auto launch = [&](auto tag) {
    using U = decltype(tag);
    StridedCopyKernel<U>
        <<<Blocks(n), kThreads, 0, AsStream(stream)>>>(DataPtr<U>(src), DataPtr<U>(dst), n, index);
  };
  switch (src.dtype.bits) {
    case 8:
      launch(uint8_t{});
      break;
    case 16:
      launch(uint16_t{});
      break;
    case 32:
      launch(uint32_t{});
      break;
    case 64:
      launch(uint64_t{});
      break;
    default:
      MXFFI_THROW(TypeError) << fname << ": unsupported element size " << int(src.dtype.bits)
                             << " bits";
  }
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void FillBytes(void* ptr, int value, size_t bytes, void* stream) {
  if (bytes == 0) return;
  MXFFI_CUDA_CALL("FillBytes", cudaMemsetAsync(ptr, value, bytes, AsStream(stream)));
}

size_t OffsetsWorkspaceBytes(int64_t n, DLDataType itype) {
  size_t bytes = 0;
  IndexSwitch(itype, "OffsetsWorkspaceBytes", [&](auto tag) {
    using I = decltype(tag);
    MXFFI_CUDA_CALL("OffsetsWorkspaceBytes",
                    cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<I*>(nullptr),
                                                  static_cast<I*>(nullptr), n));
  });
  return bytes > 0 ? bytes : 1;
}

int64_t OffsetsFromCounts(const DLTensor& offsets, void* workspace, size_t workspace_bytes,
                          void* stream) {
  constexpr const char* fname = "OffsetsFromCounts";
  const int64_t n = offsets.shape[0] - 1;
  int64_t total = 0;
  IndexSwitch(offsets.dtype, fname, [&](auto tag) {
    using I = decltype(tag);
    I* p = DataPtr<I>(offsets);
    MXFFI_CUDA_CALL(fname, cudaMemsetAsync(p, 0, sizeof(I), AsStream(stream)));
    if (n <= 0) return;
    MXFFI_CUDA_CALL(fname, cub::DeviceScan::InclusiveSum(workspace, workspace_bytes, p + 1, p + 1,
                                                         n, AsStream(stream)));
    I last = 0;
    MXFFI_CUDA_CALL(
        fname, cudaMemcpyAsync(&last, p + n, sizeof(I), cudaMemcpyDeviceToHost, AsStream(stream)));
    MXFFI_CUDA_CALL(fname, cudaStreamSynchronize(AsStream(stream)));
    total = static_cast<int64_t>(last);
  });
  return total;
}

// ---- csr with csr -------------------------------------------------------------------------------

void CSRMergeCount(bool union_rows, const DLTensor& a_indptr, const DLTensor& a_indices,
                   const DLTensor& b_indptr, const DLTensor& b_indices, const DLTensor& out_indptr,
                   void* stream) {
  constexpr const char* fname = "CSRMergeCount";
  const int64_t rows = out_indptr.shape[0] - 1;
  if (rows <= 0) return;
  IndexSwitch(out_indptr.dtype, fname, [&](auto tag) {
    using I = decltype(tag);
    CSRMergeCountKernel<I><<<Blocks(rows), kThreads, 0, AsStream(stream)>>>(
        union_rows, DataPtr<I>(a_indptr), DataPtr<I>(a_indices), DataPtr<I>(b_indptr),
        DataPtr<I>(b_indices), DataPtr<I>(out_indptr), rows);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void CSRMergeWrite(SparseBinaryOp op, const DLTensor& a_data, const DLTensor& a_indptr,
                   const DLTensor& a_indices, const DLTensor& b_data, const DLTensor& b_indptr,
                   const DLTensor& b_indices, const DLTensor& out_data, const DLTensor& out_indptr,
                   const DLTensor& out_indices, void* stream) {
  constexpr const char* fname = "CSRMergeWrite";
  const int64_t rows = out_indptr.shape[0] - 1;
  if (rows <= 0) return;
  OpSwitch(op, [&](auto fn) {
    constexpr BinaryFn F = decltype(fn)::value;
    MXFFI_TYPE_SWITCH(out_data.dtype, fname, DType, {
      using T = KernelT<DType>;
      if constexpr (kBinaryValid<F, T>) {
        IndexSwitch(out_indptr.dtype, fname, [&](auto tag) {
          using I = decltype(tag);
          CSRMergeWriteKernel<F, T, I><<<Blocks(rows), kThreads, 0, AsStream(stream)>>>(
              DataPtr<T>(a_data), DataPtr<I>(a_indptr), DataPtr<I>(a_indices), DataPtr<T>(b_data),
              DataPtr<I>(b_indptr), DataPtr<I>(b_indices), DataPtr<T>(out_data),
              DataPtr<I>(out_indptr), DataPtr<I>(out_indices), rows);
        });
      } else {
        MXFFI_THROW(TypeError) << fname << ": subtract does not take bool values";
      }
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

// ---- row_sparse rows ----------------------------------------------------------------------------

void RowMarkAll(const DLTensor& indices, const DLTensor& marks, void* stream) {
  constexpr const char* fname = "RowMarkAll";
  const int64_t k = indices.shape[0];
  if (k == 0) return;
  IndexSwitch(indices.dtype, fname, [&](auto tag) {
    using I = decltype(tag);
    RowMarkAllKernel<I><<<Blocks(k), kThreads, 0, AsStream(stream)>>>(DataPtr<I>(indices), k,
                                                                      DataPtr<int64_t>(marks));
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void RowMarkBoth(const DLTensor& a_indices, const DLTensor& b_indices, const DLTensor& marks,
                 void* stream) {
  constexpr const char* fname = "RowMarkBoth";
  const int64_t ka = a_indices.shape[0], kb = b_indices.shape[0];
  if (ka == 0 || kb == 0) return;
  IndexSwitch(a_indices.dtype, fname, [&](auto tag) {
    using I = decltype(tag);
    RowMarkBothKernel<I><<<Blocks(ka), kThreads, 0, AsStream(stream)>>>(
        DataPtr<I>(a_indices), ka, DataPtr<I>(b_indices), kb, DataPtr<int64_t>(marks));
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void RowPlace(const DLTensor& indices, const DLTensor& offsets, const DLTensor* out_indices,
              const DLTensor* source, void* stream) {
  constexpr const char* fname = "RowPlace";
  const int64_t k = indices.shape[0];
  if (k == 0) return;
  int64_t* src = source != nullptr ? DataPtr<int64_t>(*source) : nullptr;
  IndexSwitch(indices.dtype, fname, [&](auto tag) {
    using I = decltype(tag);
    const DLDataType otype = out_indices != nullptr ? out_indices->dtype : indices.dtype;
    IndexSwitch(otype, fname, [&](auto otag) {
      using O = decltype(otag);
      RowPlaceKernel<I, O><<<Blocks(k), kThreads, 0, AsStream(stream)>>>(
          DataPtr<I>(indices), k, DataPtr<int64_t>(offsets),
          out_indices != nullptr ? DataPtr<O>(*out_indices) : nullptr, src);
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void RowCombine(SparseBinaryOp op, const DLTensor& a_data, const DLTensor& a_source,
                const DLTensor& b_data, const DLTensor& b_source, const DLTensor& out_data,
                int64_t width, void* stream) {
  constexpr const char* fname = "RowCombine";
  const int64_t n = NumElements(out_data);
  if (n == 0 || width == 0) return;
  OpSwitch(op, [&](auto fn) {
    constexpr BinaryFn F = decltype(fn)::value;
    MXFFI_TYPE_SWITCH(out_data.dtype, fname, DType, {
      using T = KernelT<DType>;
      if constexpr (kBinaryValid<F, T>) {
        RowCombineKernel<F, T><<<Blocks(n), kThreads, 0, AsStream(stream)>>>(
            DataPtr<T>(a_data), DataPtr<int64_t>(a_source), DataPtr<T>(b_data),
            DataPtr<int64_t>(b_source), DataPtr<T>(out_data), n, width);
      } else {
        MXFFI_THROW(TypeError) << fname << ": subtract does not take bool values";
      }
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

// ---- dense with sparse --------------------------------------------------------------------------

void DenseWithSparse(SparseBinaryOp op, bool sparse_first, const DLTensor& dense,
                     const DLTensor& s_data, const DLTensor& s_indices, const DLTensor* s_indptr,
                     const DLTensor& out, void* stream) {
  constexpr const char* fname = "DenseWithSparse";
  const int64_t n = NumElements(out);
  if (n == 0) return;
  const int64_t width = n / out.shape[0];
  const int64_t k = s_indices.shape[0];
  OpSwitch(op, [&](auto fn) {
    constexpr BinaryFn F = decltype(fn)::value;
    MXFFI_TYPE_SWITCH(out.dtype, fname, DType, {
      using T = KernelT<DType>;
      if constexpr (kBinaryValid<F, T>) {
        IndexSwitch(s_indices.dtype, fname, [&](auto tag) {
          using I = decltype(tag);
          DenseWithSparseKernel<F, T, I><<<Blocks(n), kThreads, 0, AsStream(stream)>>>(
              sparse_first, DataPtr<T>(dense), DataPtr<T>(s_data), DataPtr<I>(s_indices),
              s_indptr != nullptr ? DataPtr<I>(*s_indptr) : nullptr, k, DataPtr<T>(out), n, width);
        });
      } else {
        MXFFI_THROW(TypeError) << fname << ": subtract does not take bool values";
      }
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void SparseValuesWithDense(SparseBinaryOp op, bool sparse_first, const DLTensor& dense,
                           const DLTensor& s_data, const DLTensor& s_indices,
                           const DLTensor* s_indptr, const DLTensor& out_data, void* stream) {
  constexpr const char* fname = "SparseValuesWithDense";
  const int64_t n = NumElements(out_data);
  if (n == 0) return;
  const int64_t rows = dense.shape[0];
  const int64_t width = NumElements(dense) / rows;
  OpSwitch(op, [&](auto fn) {
    constexpr BinaryFn F = decltype(fn)::value;
    MXFFI_TYPE_SWITCH(out_data.dtype, fname, DType, {
      using T = KernelT<DType>;
      if constexpr (kBinaryValid<F, T>) {
        IndexSwitch(s_indices.dtype, fname, [&](auto tag) {
          using I = decltype(tag);
          SparseValuesWithDenseKernel<F, T, I><<<Blocks(n), kThreads, 0, AsStream(stream)>>>(
              sparse_first, DataPtr<T>(dense), DataPtr<T>(s_data), DataPtr<I>(s_indices),
              s_indptr != nullptr ? DataPtr<I>(*s_indptr) : nullptr, rows, DataPtr<T>(out_data), n,
              width);
        });
      } else {
        MXFFI_THROW(TypeError) << fname << ": subtract does not take bool values";
      }
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

// ---- add_n --------------------------------------------------------------------------------------

void AddNDense(const DLTensor* in, int n, const DLTensor& out, void* stream) {
  constexpr const char* fname = "add_n";
  MXFFI_CHECK(n >= 1 && n <= kMaxSummands, ValueError)
      << fname << ": one kernel sums 1 to " << kMaxSummands << " arrays; got " << n;
  const int64_t size = NumElements(out);
  if (size == 0) return;
  RealSwitch(out.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    Summands<T> s{};
    for (int i = 0; i < n; ++i) s.p[i] = DataPtr<T>(in[i]);
    AddNDenseKernel<T>
        <<<Blocks(size), kThreads, 0, AsStream(stream)>>>(s, n, DataPtr<T>(out), size);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void AddSparseInto(const DLTensor& data, const DLTensor& indices, const DLTensor* indptr,
                   const DLTensor& dst, void* stream) {
  constexpr const char* fname = "add_n";
  const int64_t n = NumElements(data);
  if (n == 0) return;
  const int64_t rows = dst.shape[0];
  const int64_t width = NumElements(dst) / rows;
  RealSwitch(dst.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    IndexSwitch(indices.dtype, fname, [&](auto itag) {
      using I = decltype(itag);
      AddSparseIntoKernel<T, I><<<Blocks(n), kThreads, 0, AsStream(stream)>>>(
          DataPtr<T>(data), DataPtr<I>(indices), indptr != nullptr ? DataPtr<I>(*indptr) : nullptr,
          rows, DataPtr<T>(dst), n, width);
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void AddRowsAt(const DLTensor& data, const DLTensor& indices, const DLTensor& offsets,
               const DLTensor& dst, int64_t width, void* stream) {
  constexpr const char* fname = "add_n";
  const int64_t n = NumElements(data);
  if (n == 0 || width == 0) return;
  RealSwitch(dst.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    IndexSwitch(indices.dtype, fname, [&](auto itag) {
      using I = decltype(itag);
      AddRowsAtKernel<T, I><<<Blocks(n), kThreads, 0, AsStream(stream)>>>(
          DataPtr<T>(data), DataPtr<I>(indices), DataPtr<int64_t>(offsets), DataPtr<T>(dst), n,
          width);
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void CSRSumCount(const DLTensor* indptr, const DLTensor* indices, int n, const DLTensor& out_indptr,
                 void* stream) {
  constexpr const char* fname = "add_n";
  const CSRSummands s = MakeSummands(nullptr, indptr, indices, n, fname);
  const int64_t rows = out_indptr.shape[0] - 1;
  if (rows <= 0) return;
  IndexSwitch(out_indptr.dtype, fname, [&](auto tag) {
    using I = decltype(tag);
    CSRSumCountKernel<I>
        <<<Blocks(rows), kThreads, 0, AsStream(stream)>>>(s, DataPtr<I>(out_indptr), rows);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void CSRSumWrite(const DLTensor* data, const DLTensor* indptr, const DLTensor* indices, int n,
                 const DLTensor& out_data, const DLTensor& out_indptr, const DLTensor& out_indices,
                 void* stream) {
  constexpr const char* fname = "add_n";
  const CSRSummands s = MakeSummands(data, indptr, indices, n, fname);
  const int64_t rows = out_indptr.shape[0] - 1;
  if (rows <= 0) return;
  RealSwitch(out_data.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    IndexSwitch(out_indptr.dtype, fname, [&](auto itag) {
      using I = decltype(itag);
      CSRSumWriteKernel<T, I><<<Blocks(rows), kThreads, 0, AsStream(stream)>>>(
          s, DataPtr<T>(out_data), DataPtr<I>(out_indptr), DataPtr<I>(out_indices), rows);
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace cuda
}  // namespace mxffi
