/*!
 * \file sparse_misc.cu
 * \brief CUDA kernels of the smaller sparse ops: csr sum and mean, the csr values of
 *  `quadratic`, dtype conversion of stored values, slice_rows and sparse_retain.
 */
#include <algorithm>
#include <climits>

#include "op/elemwise/convert_cuda.h"
#include "op/elemwise/functors.h"
#include "op/reduce/reducers.h"
#include "sparse_misc_cuda.h"
#include "sparse_util.cuh"

namespace mxffi {
namespace cuda {
namespace {

inline cudaStream_t Stream(void* s) { return static_cast<cudaStream_t>(s); }

// ---- dtype conversion --------------------------------------------------------------------------

// ---- csr sum and mean --------------------------------------------------------------------------

using op::reduce::FinishSum;
using op::reduce::SumAcc;
using op::reduce::ToSum;

template <typename A>
__device__ __forceinline__ A WarpSum(A v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(kFullMask, v, o);
  return v;
}

/*! \brief Axis 1: one warp per row. */
template <typename T, typename I, bool kMean>
__global__ void RowSumKernel(const T* __restrict__ data, const I* __restrict__ indptr, int64_t rows,
                             int64_t cols, T* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int64_t first = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int64_t step = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t r = first; r < rows; r += step) {
    SumAcc<T, kMean> acc = 0;
    for (int64_t p = indptr[r] + lane; p < indptr[r + 1]; p += 32) acc += ToSum<T, kMean>(data[p]);
    acc = WarpSum(acc);
    if (lane == 0) out[r] = FinishSum<T, kMean>(acc, cols);
  }
}

/*! \brief Axis 0: each value added to its column's accumulator. */
template <typename T, typename I, bool kMean>
__global__ void ColumnSumKernel(const T* __restrict__ data, const I* __restrict__ indices,
                                int64_t nnz, SumAcc<T, kMean>* __restrict__ acc) {
  MXFFI_CUDA_LOOP(p, nnz) { atomicAdd(acc + indices[p], ToSum<T, kMean>(data[p])); }
}

/*! \brief Both axes: per-warp sums added to one accumulator. */
template <typename T, bool kMean>
__global__ void TotalSumKernel(const T* __restrict__ data, int64_t nnz,
                               SumAcc<T, kMean>* __restrict__ acc) {
  SumAcc<T, kMean> s = 0;
  MXFFI_CUDA_LOOP(p, nnz) { s += ToSum<T, kMean>(data[p]); }
  s = WarpSum(s);
  if ((threadIdx.x & 31) == 0) atomicAdd(acc, s);
}

template <typename T, bool kMean>
__global__ void FinishKernel(const SumAcc<T, kMean>* __restrict__ acc, int64_t n, int64_t count,
                             T* __restrict__ out) {
  MXFFI_CUDA_LOOP(j, n) { out[j] = FinishSum<T, kMean>(acc[j], count); }
}

template <typename T, typename I, bool kMean>
void LaunchReduce(const DLTensor& data, const DLTensor& indices, const DLTensor& indptr,
                  int64_t rows, int64_t cols, uint64_t axes, void* scratch, const DLTensor& out,
                  cudaStream_t s) {
  const char* fname = kMean ? "np.mean" : "np.sum";
  using Acc = SumAcc<T, kMean>;
  const int64_t nnz = indices.shape[0];
  T* o = DataPtr<T>(out);
  Acc* acc = static_cast<Acc*>(scratch);
  if (axes == 2) {
    if (rows == 0) return;
    RowSumKernel<T, I, kMean>
        <<<WarpBlocks(rows), kThreads, 0, s>>>(DataPtr<T>(data), DataPtr<I>(indptr), rows, cols, o);
    MXFFI_CUDA_CHECK_LAUNCH(fname);
    return;
  }
  const int64_t n = axes == 1 ? cols : 1;
  if (n == 0) return;
  MXFFI_CUDA_CALL(fname, cudaMemsetAsync(acc, 0, n * sizeof(Acc), s));
  if (nnz > 0) {
    if (axes == 1) {
      ColumnSumKernel<T, I, kMean>
          <<<Blocks(nnz), kThreads, 0, s>>>(DataPtr<T>(data), DataPtr<I>(indices), nnz, acc);
    } else {
      // A bounded grid: each warp adds its partial sum to the one accumulator once.
      const unsigned int blocks = std::min(Blocks(nnz), 2048u);
      TotalSumKernel<T, kMean><<<blocks, kThreads, 0, s>>>(DataPtr<T>(data), nnz, acc);
    }
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  }
  FinishKernel<T, kMean><<<Blocks(n), kThreads, 0, s>>>(acc, n, axes == 1 ? rows : rows * cols, o);
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

// ---- quadratic -------------------------------------------------------------------------------

/*! \brief out = f(x) for the stored values x of X, converted to T first (the dense op's rule). */
template <typename X, typename T>
__global__ void QuadraticKernel(const X* __restrict__ x, int64_t n, op::elemwise::QuadraticOp f,
                                T* __restrict__ out) {
  MXFFI_CUDA_LOOP(i, n) { out[i] = FromAcc<T>(f(ToAcc(ConvertOne<T>(x[i])))); }
}

// ---- slice_rows ------------------------------------------------------------------------------

template <typename I>
__global__ void SliceIndptrKernel(const I* __restrict__ indptr, int64_t begin, int64_t n,
                                  I* __restrict__ out) {
  MXFFI_CUDA_LOOP(r, n) { out[r] = indptr[begin + r] - indptr[begin]; }
}

/*! \return the first position in sorted[0, k) whose value is >= v. */
template <typename I>
__device__ __forceinline__ int64_t LowerBound(const I* sorted, int64_t k, int64_t v) {
  int64_t lo = 0, hi = k;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<int64_t>(sorted[mid]) < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

template <typename I>
__global__ void RowRangeKernel(const I* __restrict__ stored, int64_t k, int64_t begin, int64_t end,
                               int64_t* __restrict__ range) {
  if (threadIdx.x == 0) range[0] = LowerBound(stored, k, begin);
  if (threadIdx.x == 1) range[1] = LowerBound(stored, k, end);
}

template <typename I>
__global__ void ShiftKernel(const I* __restrict__ stored, int64_t lo, int64_t begin, int64_t n,
                            I* __restrict__ out) {
  MXFFI_CUDA_LOOP(j, n) { out[j] = static_cast<I>(stored[lo + j] - begin); }
}

// ---- sparse_retain ---------------------------------------------------------------------------

/*!
 * \brief keep[j] = 1 for each stored row j some id names; *bad = the least position whose id
 *  is outside [0, rows) (left at its initial all-ones when none is).
 */
template <typename I, typename J>
__global__ void RetainMarkKernel(const I* __restrict__ stored, int64_t k, const J* __restrict__ ids,
                                 int64_t n, int64_t rows, int64_t* __restrict__ keep,
                                 unsigned long long* __restrict__ bad) {
  MXFFI_CUDA_LOOP(i, n) {
    const int64_t v = static_cast<int64_t>(ids[i]);
    if (v < 0 || v >= rows) {
      atomicMin(bad, static_cast<unsigned long long>(i));
      continue;
    }
    const int64_t j = LowerBound(stored, k, v);
    if (j < k && static_cast<int64_t>(stored[j]) == v) keep[j] = 1;
  }
}

/*! \brief One block per stored row j that is kept: its id and values at position offsets[j]. */
template <typename U, typename I>
__global__ void RetainGatherKernel(const I* __restrict__ stored, const U* __restrict__ data,
                                   int64_t width, const int64_t* __restrict__ keep,
                                   const int64_t* __restrict__ offsets, int64_t k,
                                   I* __restrict__ idx_out, U* __restrict__ out) {
  for (int64_t j = blockIdx.x; j < k; j += gridDim.x) {
    if (!keep[j]) continue;
    const int64_t o = offsets[j];
    if (threadIdx.x == 0) idx_out[o] = stored[j];
    for (int64_t c = threadIdx.x; c < width; c += blockDim.x)
      out[o * width + c] = data[j * width + c];
  }
}

/*! \brief The layout of sparse_retain's workspace for k stored rows. */
struct RetainLayout {
  int64_t keep = 0, offsets = 0, bad = 0, temp = 0, bytes = 0;
  size_t temp_bytes = 0;
  explicit RetainLayout(int64_t k) {
    offsets = Align256(k * 8);
    bad = Align256(offsets + (k + 1) * 8);
    temp = Align256(bad + 8);
    temp_bytes = ScanTempBytes(k, "sparse_retain");
    bytes = Align256(temp + static_cast<int64_t>(temp_bytes));
  }
};

template <typename T>
T* At(void* workspace, int64_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(workspace) + offset);
}
template <typename T>
const T* At(const void* workspace, int64_t offset) {
  return reinterpret_cast<const T*>(static_cast<const char*>(workspace) + offset);
}

}  // namespace

void ConvertValues(const DLTensor& in, const DLTensor& out, void* stream) {
  // By numpy's astype (the CPU's _cast): a float to an integer through int64, out of range and
  // NaN giving INT64_MIN truncated, where a plain device cast saturates.
  const int64_t n = NumElements(in), one = 1;
  ConvertElements(DataPtr<const char>(in), in.dtype, 1, &n, &one, DataPtr<char>(out), out.dtype,
                  true, "astype", stream);
}

int64_t CSRReduceScratchBytes(int64_t cols) { return std::max<int64_t>(cols, 1) * 8; }

void CSRReduce(const DLTensor& data, const DLTensor& indices, const DLTensor& indptr, int64_t rows,
               int64_t cols, uint64_t axes, bool mean, void* scratch, const DLTensor& out,
               void* stream) {
  const char* fname = mean ? "np.mean" : "np.sum";
  MXFFI_TYPE_SWITCH(out.dtype, fname, T, {
    MXFFI_INDEX_SWITCH(indices.dtype, fname, I, {
      if (mean) {
        LaunchReduce<T, I, true>(data, indices, indptr, rows, cols, axes, scratch, out,
                                 Stream(stream));
      } else {
        LaunchReduce<T, I, false>(data, indices, indptr, rows, cols, axes, scratch, out,
                                  Stream(stream));
      }
    });
  });
}

void QuadraticValues(const DLTensor& x, double a, double b, double c, const DLTensor& out,
                     void* stream) {
  const char* fname = "quadratic";
  const int64_t n = NumElements(x);
  if (n == 0) return;
  MXFFI_TYPE_SWITCH(x.dtype, fname, X, {
    using T = std::conditional_t<std::is_floating_point_v<X> || kIsHalf<X>, X, double>;
    MXFFI_CHECK(static_cast<size_t>(out.dtype.bits) == sizeof(T) * 8, TypeError)
        << fname << ": the output dtype does not match the input's result dtype";
    QuadraticKernel<X, T><<<Blocks(n), kThreads, 0, Stream(stream)>>>(
        DataPtr<X>(x), n, op::elemwise::QuadraticOp{a, b, c}, DataPtr<T>(out));
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  });
}

void SliceIndptr(const DLTensor& indptr, int64_t begin, const DLTensor& out, void* stream) {
  const char* fname = "slice_rows";
  const int64_t n = out.shape[0];
  MXFFI_INDEX_SWITCH(indptr.dtype, fname, I, {
    SliceIndptrKernel<I>
        <<<Blocks(n), kThreads, 0, Stream(stream)>>>(DataPtr<I>(indptr), begin, n, DataPtr<I>(out));
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  });
}

int64_t ReadIndex(const DLTensor& indices, int64_t i, void* stream) {
  const char* fname = "slice_rows";
  int64_t v = 0;
  MXFFI_INDEX_SWITCH(indices.dtype, fname, I, {
    I h = 0;
    MXFFI_CUDA_CALL(fname, cudaMemcpyAsync(&h, DataPtr<I>(indices) + i, sizeof(I),
                                           cudaMemcpyDeviceToHost, Stream(stream)));
    MXFFI_CUDA_CALL(fname, cudaStreamSynchronize(Stream(stream)));
    v = h;
  });
  return v;
}

void RowRange(const DLTensor& stored, int64_t begin, int64_t end, void* scratch, int64_t range[2],
              void* stream) {
  const char* fname = "slice_rows";
  cudaStream_t s = Stream(stream);
  MXFFI_INDEX_SWITCH(stored.dtype, fname, I, {
    RowRangeKernel<I><<<1, 32, 0, s>>>(DataPtr<I>(stored), stored.shape[0], begin, end,
                                       static_cast<int64_t*>(scratch));
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  });
  MXFFI_CUDA_CALL(fname,
                  cudaMemcpyAsync(range, scratch, 2 * sizeof(int64_t), cudaMemcpyDeviceToHost, s));
  MXFFI_CUDA_CALL(fname, cudaStreamSynchronize(s));
}

void ShiftIndices(const DLTensor& stored, int64_t lo, int64_t begin, const DLTensor& out,
                  void* stream) {
  const char* fname = "slice_rows";
  const int64_t n = out.shape[0];
  if (n == 0) return;
  MXFFI_INDEX_SWITCH(stored.dtype, fname, I, {
    ShiftKernel<I><<<Blocks(n), kThreads, 0, Stream(stream)>>>(DataPtr<I>(stored), lo, begin, n,
                                                               DataPtr<I>(out));
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  });
}

int64_t RetainWorkspaceBytes(int64_t k) { return RetainLayout(k).bytes; }

int64_t RetainCount(const DLTensor& stored, const DLTensor& ids, int64_t rows, void* workspace,
                    int64_t* bad, void* stream) {
  const char* fname = "sparse_retain";
  cudaStream_t s = Stream(stream);
  const int64_t k = stored.shape[0], n = NumElements(ids);
  const RetainLayout l(k);
  int64_t* keep = At<int64_t>(workspace, l.keep);
  int64_t* offsets = At<int64_t>(workspace, l.offsets);
  unsigned long long* first_bad = At<unsigned long long>(workspace, l.bad);
  if (k > 0) MXFFI_CUDA_CALL(fname, cudaMemsetAsync(keep, 0, k * sizeof(int64_t), s));
  MXFFI_CUDA_CALL(fname, cudaMemsetAsync(first_bad, 0xff, sizeof(unsigned long long), s));
  if (n > 0) {
    MXFFI_INDEX_SWITCH(stored.dtype, fname, I, {
      MXFFI_INDEX_SWITCH(ids.dtype, fname, J, {
        RetainMarkKernel<I, J><<<Blocks(n), kThreads, 0, s>>>(
            DataPtr<I>(stored), k, DataPtr<J>(ids), n, rows, keep, first_bad);
        MXFFI_CUDA_CHECK_LAUNCH(fname);
      });
    });
  }
  ExclusiveOffsets(keep, offsets, k, At<char>(workspace, l.temp), l.temp_bytes, s, fname);
  unsigned long long host_bad = 0;
  MXFFI_CUDA_CALL(
      fname, cudaMemcpyAsync(&host_bad, first_bad, sizeof(host_bad), cudaMemcpyDeviceToHost, s));
  const int64_t m = ReadBack(offsets + k, s, fname);
  *bad = host_bad == ULLONG_MAX ? -1 : static_cast<int64_t>(host_bad);
  return m;
}

void RetainGather(const DLTensor& stored, const DLTensor& data, int64_t width,
                  const void* workspace, const DLTensor& idx_out, const DLTensor& data_out,
                  void* stream) {
  const char* fname = "sparse_retain";
  const int64_t k = stored.shape[0];
  if (k == 0 || idx_out.shape[0] == 0) return;
  const RetainLayout l(k);
  MXFFI_CUDA_SIZE_SWITCH(data.dtype, fname, U, {
    MXFFI_INDEX_SWITCH(stored.dtype, fname, I, {
      RetainGatherKernel<U, I><<<Blocks(k, 1), kThreads, 0, Stream(stream)>>>(
          DataPtr<I>(stored), DataPtr<U>(data), width, At<int64_t>(workspace, l.keep),
          At<int64_t>(workspace, l.offsets), k, DataPtr<I>(idx_out), DataPtr<U>(data_out));
      MXFFI_CUDA_CHECK_LAUNCH(fname);
    });
  });
}

}  // namespace cuda
}  // namespace mxffi
