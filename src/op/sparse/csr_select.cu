/*!
 * \file csr_select.cu
 * \brief CUDA kernels of csr take, concat and where (csr_select_cuda.h): the CPU kernels'
 *  results, values moved by their bytes so one kernel serves every dtype.
 */
#include <climits>

#include "csr_select_cuda.h"
#include "sparse_util.cuh"

namespace mxffi {
namespace cuda {
namespace {

inline cudaStream_t Stream(void* s) { return static_cast<cudaStream_t>(s); }

/*! \brief rows and lengths of the chosen rows; the first bad position kept by atomicMin. */
template <typename I>
__global__ void TakeRowsKernel(const I* __restrict__ indptr, const int64_t* __restrict__ idx,
                               int64_t k, int64_t m, int mode, int64_t* __restrict__ rows,
                               int64_t* __restrict__ len, unsigned long long* first_bad) {
  MXFFI_CUDA_LOOP(p, k) {
    const int64_t r = op::TakeRow(idx[p], m, mode);
    rows[p] = r < 0 ? 0 : r;
    len[p] = r < 0 ? 0 : static_cast<int64_t>(indptr[r + 1]) - static_cast<int64_t>(indptr[r]);
    if (r < 0) atomicMin(first_bad, static_cast<unsigned long long>(p));
  }
}

/*! \brief One warp per chosen row: its indices and item-byte values copied. */
template <typename I>
__global__ void TakeGatherKernel(const unsigned char* __restrict__ data,
                                 const I* __restrict__ indices, const I* __restrict__ indptr,
                                 const int64_t* __restrict__ rows,
                                 const int64_t* __restrict__ offsets, int64_t k, int64_t item,
                                 unsigned char* __restrict__ out_data, I* __restrict__ out_indices,
                                 I* __restrict__ out_indptr) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t p = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; p < k;
       p += warps) {
    const int64_t from = indptr[rows[p]], to = offsets[p], n = offsets[p + 1] - offsets[p];
    if (lane == 0) {
      out_indptr[p + 1] = static_cast<I>(offsets[p + 1]);
      if (p == 0) out_indptr[0] = 0;
    }
    for (int64_t j = lane; j < n; j += 32) out_indices[to + j] = indices[from + j];
    for (int64_t b = lane; b < n * item; b += 32) out_data[to * item + b] = data[from * item + b];
  }
}

template <typename I>
__global__ void ShiftKernel(const I* __restrict__ indptr, int64_t rows, int64_t add,
                            I* __restrict__ out) {
  MXFFI_CUDA_LOOP(r, rows) { out[r] = static_cast<I>(indptr[r + 1] + add); }
}

/*! \brief One warp per row: x's element copied over y's where the stored condition is true. */
template <typename I>
__global__ void WhereKernel(const unsigned char* __restrict__ cond, int64_t cbytes,
                            const I* __restrict__ indices, const I* __restrict__ indptr,
                            int64_t rows, int64_t cols, op::CondBits bits,
                            const unsigned char* __restrict__ x, int64_t item,
                            unsigned char* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  for (int64_t r = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; r < rows;
       r += warps) {
    for (int64_t p = indptr[r] + lane; p < static_cast<int64_t>(indptr[r + 1]); p += 32) {
      if (!op::CondTrue(cond + p * cbytes, bits)) continue;
      const int64_t at = (r * cols + static_cast<int64_t>(indices[p])) * item;
      for (int64_t b = 0; b < item; ++b) out[at + b] = x[at + b];
    }
  }
}

}  // namespace

size_t CsrTakeScratchBytes(int64_t k) {
  return static_cast<size_t>(Align256(sizeof(unsigned long long)) + Align256(k * sizeof(int64_t)) +
                             ScanTempBytes(k, "np.take"));
}

int64_t CsrTakeRows(const DLTensor& indptr, const int64_t* idx, int64_t k, int64_t m, int mode,
                    int64_t* rows, int64_t* offsets, void* scratch, int64_t* nnz, void* stream) {
  const char* fname = "np.take";
  const cudaStream_t s = Stream(stream);
  char* base = static_cast<char*>(scratch);
  auto* first_bad = reinterpret_cast<unsigned long long*>(base);
  auto* len = reinterpret_cast<int64_t*>(base + Align256(sizeof(unsigned long long)));
  void* temp = base + Align256(sizeof(unsigned long long)) + Align256(k * sizeof(int64_t));
  MXFFI_CUDA_CALL(fname, cudaMemsetAsync(first_bad, 0xff, sizeof(unsigned long long), s));
  if (k > 0) {
    MXFFI_INDEX_SWITCH(indptr.dtype, fname, I, {
      TakeRowsKernel<I><<<Blocks(k), kThreads, 0, s>>>(DataPtr<I>(indptr), idx, k, m, mode, rows,
                                                       len, first_bad);
      MXFFI_CUDA_CHECK_LAUNCH(fname);
    });
  }
  ExclusiveOffsets(len, offsets, k, temp, ScanTempBytes(k, fname), s, fname);
  unsigned long long bad = 0;
  MXFFI_CUDA_CALL(fname, cudaMemcpyAsync(&bad, first_bad, sizeof(bad), cudaMemcpyDeviceToHost, s));
  *nnz = ReadBack(offsets + k, s, fname);  // waits for the stream, bad included
  return bad == ULLONG_MAX ? -1 : static_cast<int64_t>(bad);
}

void CsrTakeGather(const DLTensor& data, const DLTensor& indices, const DLTensor& indptr,
                   const int64_t* rows, const int64_t* offsets, int64_t k, const DLTensor& out_data,
                   const DLTensor& out_indices, const DLTensor& out_indptr, void* stream) {
  const char* fname = "np.take";
  const cudaStream_t s = Stream(stream);
  if (k == 0) {
    MXFFI_CUDA_CALL(fname,
                    cudaMemsetAsync(DataPtr<char>(out_indptr), 0, (out_indptr.dtype.bits / 8), s));
    return;
  }
  const int64_t item = (data.dtype.bits * data.dtype.lanes + 7) / 8;
  MXFFI_INDEX_SWITCH(indices.dtype, fname, I, {
    TakeGatherKernel<I><<<WarpBlocks(k), kThreads, 0, s>>>(
        DataPtr<unsigned char>(data), DataPtr<I>(indices), DataPtr<I>(indptr), rows, offsets, k,
        item, DataPtr<unsigned char>(out_data), DataPtr<I>(out_indices), DataPtr<I>(out_indptr));
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  });
}

void CsrShiftIndptr(const DLTensor& indptr, int64_t rows, int64_t add, void* out, void* stream) {
  const char* fname = "np.concatenate";
  if (rows == 0) return;
  MXFFI_INDEX_SWITCH(indptr.dtype, fname, I, {
    ShiftKernel<I><<<Blocks(rows), kThreads, 0, Stream(stream)>>>(DataPtr<I>(indptr), rows, add,
                                                                  static_cast<I*>(out));
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  });
}

void CsrWhere(const DLTensor& cond_data, const DLTensor& cond_indices, const DLTensor& cond_indptr,
              int64_t rows, int64_t cols, op::CondBits bits, const void* x, void* out, int64_t item,
              void* stream) {
  const char* fname = "np.where";
  if (rows == 0) return;
  const int64_t cbytes = (cond_data.dtype.bits * cond_data.dtype.lanes + 7) / 8;
  MXFFI_INDEX_SWITCH(cond_indices.dtype, fname, I, {
    WhereKernel<I><<<WarpBlocks(rows), kThreads, 0, Stream(stream)>>>(
        DataPtr<unsigned char>(cond_data), cbytes, DataPtr<I>(cond_indices),
        DataPtr<I>(cond_indptr), rows, cols, bits, static_cast<const unsigned char*>(x), item,
        static_cast<unsigned char*>(out));
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  });
}

}  // namespace cuda
}  // namespace mxffi
