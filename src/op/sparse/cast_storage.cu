/*!
 * \file cast_storage.cu
 * \brief CUDA kernels of the storage conversions between default, row_sparse and csr.
 *
 * Dense to csr reads the dense matrix twice at most. The count pass gives each segment of a
 * row (up to kSegment columns) to one warp, which loads 16 bytes per lane where the rows are
 * 16-byte aligned, counts the non-zeros and writes a bit mask of them (1/8 byte per value). A
 * prefix sum of the counts gives every segment its first output position and the indptr. The
 * fill pass then reads the mask, not the matrix, to find the values: a warp takes 32 mask
 * words (1024 columns) at a time and, for each word with a bit set, every lane whose bit is
 * set loads its value and writes it and its column at consecutive positions. Loads and stores
 * are coalesced, columns come out in increasing order (canonical csr) and the values of an
 * all-zero stretch are never read twice. A value is a zero when its bits, less a float's sign,
 * are all clear: -0.0 is dropped and NaN kept, as on the CPU.
 */
#include <algorithm>

#include "cast_storage_cuda.h"
#include "sparse_util.cuh"

namespace mxffi {
namespace cuda {
namespace {

constexpr int kUnroll = 4;

/*! \return bit i set for each of the 16 / sizeof(T) values packed in v that is not zero. */
template <typename T>
__device__ __forceinline__ uint32_t VectorBits(const uint4& v) {
  using Z = ZeroBits<T>;
  using U = typename Z::U;
  constexpr int kV = 16 / sizeof(T);
  U e[kV];
  memcpy(e, &v, 16);
  uint32_t b = 0;
#pragma unroll
  for (int i = 0; i < kV; ++i) b |= static_cast<uint32_t>((e[i] & Z::kMask) != 0) << i;
  return b;
}

/*!
 * \brief Count pass: one warp per (row, segment) of a rows x cols matrix: counts[w] the
 *  non-zeros of segment w, and (mask not null) their bits, one per column. kVector: rows are
 *  16-byte aligned and whole 16-byte vectors long.
 */
template <typename T, bool kVector>
__global__ void CountKernel(const T* __restrict__ dense, int64_t rows, int64_t cols, int64_t segs,
                            int64_t mask_words, int64_t* __restrict__ counts,
                            uint32_t* __restrict__ mask) {
  using Z = ZeroBits<T>;
  using U = typename Z::U;
  const int lane = threadIdx.x & 31;
  const int64_t first = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int64_t step = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t w = first; w < rows * segs; w += step) {
    const int64_t r = w / segs;
    const int64_t c0 = (w - r * segs) * kSegment, c1 = min(cols, c0 + kSegment);
    uint32_t* mrow = mask == nullptr ? nullptr : mask + r * mask_words;
    uint32_t n = 0;
    if constexpr (kVector) {
      constexpr int kV = 16 / sizeof(T);
      constexpr int kGroup = 32 / kV;  // lanes whose values make one 32-bit mask word
      const uint4* vrow = reinterpret_cast<const uint4*>(dense + r * cols);
      for (int64_t base = c0; base < c1; base += 32 * kV * kUnroll) {
        uint4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const int64_t c = base + (u * 32 + lane) * kV;
          v[u] = c < c1 ? __ldg(vrow + c / kV) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const uint32_t b = VectorBits<T>(v[u]);
          n += __popc(b);
          if (mrow != nullptr) {
            uint32_t word = kGroup == 32 ? b : b << (kV * (lane % kGroup));
#pragma unroll
            for (int o = 1; o < kGroup; o <<= 1) word |= __shfl_xor_sync(kFullMask, word, o);
            const int64_t c = base + u * 32 * kV + (lane / kGroup) * 32;
            if (lane % kGroup == 0 && c < c1) mrow[c / 32] = word;
          }
        }
      }
    } else {
      const U* urow = reinterpret_cast<const U*>(dense + r * cols);
      for (int64_t base = c0; base < c1; base += 32 * kUnroll) {
        U v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const int64_t c = base + u * 32 + lane;
          v[u] = c < c1 ? static_cast<U>(__ldg(urow + c) & Z::kMask) : U(0);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const uint32_t word = __ballot_sync(kFullMask, v[u] != 0);
          const int64_t c = base + u * 32;
          if (lane == 0) {
            n += __popc(word);
            if (mrow != nullptr && c < c1) mrow[c / 32] = word;
          }
        }
      }
    }
    n = __reduce_add_sync(kFullMask, n);
    if (lane == 0) counts[w] = n;
  }
}

/*! \brief keep[r] = 1 where a segment of row r holds a non-zero, else 0. */
__global__ void KeepRowsKernel(const int64_t* __restrict__ counts, int64_t rows, int64_t segs,
                               int64_t* __restrict__ keep) {
  MXFFI_CUDA_LOOP(r, rows) {
    int64_t any = 0;
    for (int64_t s = 0; s < segs; ++s) any |= counts[r * segs + s];
    keep[r] = any != 0;
  }
}

/*!
 * \brief Fill pass: one warp per (row, segment); the values the mask marks, in column order,
 *  at the segment's offset. U moves a value's bits.
 */
template <typename U, typename I>
__global__ void FillKernel(const U* __restrict__ dense, int64_t rows, int64_t cols, int64_t segs,
                           int64_t mask_words, const uint32_t* __restrict__ mask,
                           const int64_t* __restrict__ offsets, U* __restrict__ data,
                           I* __restrict__ indices, I* __restrict__ indptr) {
  const int lane = threadIdx.x & 31;
  const int64_t first = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int64_t step = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  if (indptr != nullptr && first == 0 && lane == 0)
    indptr[rows] = static_cast<I>(offsets[rows * segs]);
  for (int64_t w = first; w < rows * segs; w += step) {
    const int64_t r = w / segs, s = w - r * segs;
    const int64_t c0 = s * kSegment, c1 = min(cols, c0 + kSegment);
    int64_t pos = offsets[w];
    if (indptr != nullptr && s == 0 && lane == 0) indptr[r] = static_cast<I>(pos);
    const uint32_t* mrow = mask + r * mask_words;
    const U* row = dense + r * cols;
    const int64_t w1 = (c1 + 31) / 32;
    for (int64_t wb = c0 / 32; wb < w1; wb += 32) {
      const uint32_t word = wb + lane < w1 ? mrow[wb + lane] : 0u;
      const uint32_t count = __popc(word);
      uint32_t incl = count;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const uint32_t t = __shfl_up_sync(kFullMask, incl, o);
        if (lane >= o) incl += t;
      }
      const uint32_t excl = incl - count;
      const uint32_t total = __shfl_sync(kFullMask, incl, 31);
      // Every word with a bit set, one at a time: lane l handles column 32 * word + l.
      for (uint32_t busy = __ballot_sync(kFullMask, word != 0); busy != 0; busy &= busy - 1) {
        const int k = __ffs(busy) - 1;
        const uint32_t wk = __shfl_sync(kFullMask, word, k);
        const uint32_t ek = __shfl_sync(kFullMask, excl, k);
        if ((wk >> lane) & 1u) {
          const int64_t p = pos + ek + __popc(wk & ((1u << lane) - 1u));
          const int64_t c = (wb + k) * 32 + lane;
          data[p] = row[c];
          indices[p] = static_cast<I>(c);
        }
      }
      pos += total;
    }
  }
}

/*! \brief indptr[r] = offsets[segs * (number of stored rows below r)], r in [0, rows]. */
template <typename I>
__global__ void ScatterIndptrKernel(const I* __restrict__ stored, int64_t k, int64_t segs,
                                    const int64_t* __restrict__ offsets, int64_t rows,
                                    I* __restrict__ indptr) {
  MXFFI_CUDA_LOOP(r, rows + 1) {
    int64_t lo = 0, hi = k;
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (static_cast<int64_t>(stored[mid]) < r) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    indptr[r] = static_cast<I>(offsets[lo * segs]);
  }
}

/*! \brief indices[offsets[r]] = r for each kept row r. */
template <typename I>
__global__ void KeptRowIdsKernel(const int64_t* __restrict__ keep,
                                 const int64_t* __restrict__ offsets, int64_t rows,
                                 I* __restrict__ indices) {
  MXFFI_CUDA_LOOP(r, rows) {
    if (keep[r]) indices[offsets[r]] = static_cast<I>(r);
  }
}

/*! \brief One block per row j of k: dst[j] = src[ids[j]] (gather) or dst[ids[j]] = src[j]. */
template <typename U, typename I, bool kGather>
__global__ void CopyRowsKernel(const U* __restrict__ src, const I* __restrict__ ids, int64_t k,
                               int64_t width, U* __restrict__ dst) {
  for (int64_t j = blockIdx.x; j < k; j += gridDim.x) {
    const int64_t r = ids[j];
    const U* from = src + (kGather ? r : j) * width;
    U* to = dst + (kGather ? j : r) * width;
    for (int64_t c = threadIdx.x; c < width; c += blockDim.x) to[c] = from[c];
  }
}

/*! \brief One warp per csr row r: its values at dst[out_row(r) * cols + column]. */
template <typename U, typename I, bool kRowSparse>
__global__ void ScatterCSRKernel(const U* __restrict__ data, const I* __restrict__ indices,
                                 const I* __restrict__ indptr, int64_t rows, int64_t cols,
                                 const int64_t* __restrict__ offsets, I* __restrict__ rows_out,
                                 U* __restrict__ dst) {
  const int lane = threadIdx.x & 31;
  const int64_t first = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int64_t step = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t r = first; r < rows; r += step) {
    const int64_t b = indptr[r], e = indptr[r + 1];
    if (b == e) continue;
    int64_t out_row = r;
    if constexpr (kRowSparse) {
      out_row = offsets[r];
      if (lane == 0) rows_out[out_row] = static_cast<I>(r);
    }
    U* to = dst + out_row * cols;
    for (int64_t p = b + lane; p < e; p += 32) to[indices[p]] = data[p];
  }
}

/*! \brief keep[r] = whether csr row r stores a value. */
template <typename I>
__global__ void NonEmptyRowsKernel(const I* __restrict__ indptr, int64_t rows,
                                   int64_t* __restrict__ keep) {
  MXFFI_CUDA_LOOP(r, rows) { keep[r] = indptr[r + 1] > indptr[r]; }
}

template <typename U>
__global__ void CopyStridedKernel(const U* __restrict__ src, U* __restrict__ dst, int64_t n,
                                  StridedIndex<2> index) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[2];
    index.Offsets(i, off);
    dst[off[0]] = src[off[1]];
  }
}

template <typename T>
T* At(void* workspace, int64_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(workspace) + offset);
}
template <typename T>
const T* At(const void* workspace, int64_t offset) {
  return reinterpret_cast<const T*>(static_cast<const char*>(workspace) + offset);
}

inline cudaStream_t Stream(void* s) { return static_cast<cudaStream_t>(s); }

void ZeroFill(const DLTensor& t, void* stream, const char* fname) {
  const int64_t bytes = NumElements(t) * ((t.dtype.bits * t.dtype.lanes + 7) / 8);
  if (bytes > 0) {
    MXFFI_CUDA_CALL(fname, cudaMemsetAsync(DataPtr<void>(t), 0, bytes, Stream(stream)));
  }
}

}  // namespace

NonZeroPlan PlanNonZeros(int64_t rows, int64_t cols, bool csr) {
  NonZeroPlan p;
  p.rows = rows;
  p.cols = cols;
  p.csr = csr;
  p.segs = std::max<int64_t>(1, (cols + kSegment - 1) / kSegment);
  p.mask_words = csr ? (cols + 31) / 32 : 0;
  const int64_t scanned = csr ? rows * p.segs : rows;
  int64_t at = 0;
  p.counts = at;
  at = Align256(at + rows * p.segs * static_cast<int64_t>(sizeof(int64_t)));
  p.mask = at;
  at = Align256(at + rows * p.mask_words * static_cast<int64_t>(sizeof(uint32_t)));
  p.keep = at;
  at = Align256(at + (csr ? 0 : rows) * static_cast<int64_t>(sizeof(int64_t)));
  p.offsets = at;
  at = Align256(at + (scanned + 1) * static_cast<int64_t>(sizeof(int64_t)));
  p.temp = at;
  p.temp_bytes = ScanTempBytes(scanned, "cast_storage");
  p.bytes = Align256(at + static_cast<int64_t>(p.temp_bytes));
  return p;
}

int64_t CountNonZeros(const DLTensor& dense, const NonZeroPlan& p, void* workspace, void* stream) {
  const char* fname = "cast_storage";
  cudaStream_t s = Stream(stream);
  int64_t* counts = At<int64_t>(workspace, p.counts);
  uint32_t* mask = p.csr ? At<uint32_t>(workspace, p.mask) : nullptr;
  const int64_t items = p.rows * p.segs;
  if (items > 0) {
    MXFFI_TYPE_SWITCH(dense.dtype, fname, T, {
      const T* src = DataPtr<T>(dense);
      const bool vector = reinterpret_cast<uintptr_t>(src) % 16 == 0 &&
                          (p.cols * static_cast<int64_t>(sizeof(T))) % 16 == 0;
      if (vector) {
        CountKernel<T, true><<<WarpBlocks(items), kThreads, 0, s>>>(src, p.rows, p.cols, p.segs,
                                                                    p.mask_words, counts, mask);
      } else {
        CountKernel<T, false><<<WarpBlocks(items), kThreads, 0, s>>>(src, p.rows, p.cols, p.segs,
                                                                     p.mask_words, counts, mask);
      }
      MXFFI_CUDA_CHECK_LAUNCH(fname);
    });
  }
  int64_t* offsets = At<int64_t>(workspace, p.offsets);
  void* temp = At<char>(workspace, p.temp);
  if (p.csr) {
    ExclusiveOffsets(counts, offsets, items, temp, p.temp_bytes, s, fname);
    return ReadBack(offsets + items, s, fname);
  }
  int64_t* keep = At<int64_t>(workspace, p.keep);
  if (p.rows > 0) {
    KeepRowsKernel<<<Blocks(p.rows), kThreads, 0, s>>>(counts, p.rows, p.segs, keep);
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  }
  ExclusiveOffsets(keep, offsets, p.rows, temp, p.temp_bytes, s, fname);
  return ReadBack(offsets + p.rows, s, fname);
}

void FillCSR(const DLTensor& dense, const NonZeroPlan& p, const void* workspace,
             const DLTensor& data, const DLTensor& indices, const DLTensor* indptr, void* stream) {
  const char* fname = "cast_storage";
  const uint32_t* mask = At<uint32_t>(workspace, p.mask);
  const int64_t* offsets = At<int64_t>(workspace, p.offsets);
  MXFFI_CUDA_SIZE_SWITCH(dense.dtype, fname, U, {
    MXFFI_INDEX_SWITCH(indices.dtype, fname, I, {
      FillKernel<U, I><<<WarpBlocks(p.rows * p.segs), kThreads, 0, Stream(stream)>>>(
          DataPtr<U>(dense), p.rows, p.cols, p.segs, p.mask_words, mask, offsets, DataPtr<U>(data),
          DataPtr<I>(indices), indptr == nullptr ? nullptr : DataPtr<I>(*indptr));
      MXFFI_CUDA_CHECK_LAUNCH(fname);
    });
  });
}

void ScatterIndptr(const NonZeroPlan& p, const void* workspace, const DLTensor& stored,
                   const DLTensor& indptr, void* stream) {
  const char* fname = "cast_storage";
  const int64_t rows = indptr.shape[0] - 1;
  MXFFI_INDEX_SWITCH(indptr.dtype, fname, I, {
    ScatterIndptrKernel<I><<<Blocks(rows + 1), kThreads, 0, Stream(stream)>>>(
        DataPtr<I>(stored), p.rows, p.segs, At<int64_t>(workspace, p.offsets), rows,
        DataPtr<I>(indptr));
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  });
}

void GatherRows(const DLTensor& dense, const NonZeroPlan& p, const void* workspace,
                const DLTensor& data, const DLTensor& indices, void* stream) {
  const char* fname = "cast_storage";
  const int64_t k = indices.shape[0];
  if (k == 0) return;
  cudaStream_t s = Stream(stream);
  MXFFI_INDEX_SWITCH(indices.dtype, fname, I, {
    KeptRowIdsKernel<I><<<Blocks(p.rows), kThreads, 0, s>>>(At<int64_t>(workspace, p.keep),
                                                            At<int64_t>(workspace, p.offsets),
                                                            p.rows, DataPtr<I>(indices));
    MXFFI_CUDA_CHECK_LAUNCH(fname);
    if (p.cols == 0) return;
    MXFFI_CUDA_SIZE_SWITCH(dense.dtype, fname, U, {
      CopyRowsKernel<U, I, true><<<Blocks(k, 1), kThreads, 0, s>>>(
          DataPtr<U>(dense), DataPtr<I>(indices), k, p.cols, DataPtr<U>(data));
      MXFFI_CUDA_CHECK_LAUNCH(fname);
    });
  });
}

void CSRToDense(const DLTensor& data, const DLTensor& indices, const DLTensor& indptr,
                const DLTensor& dense, void* stream) {
  const char* fname = "cast_storage";
  ZeroFill(dense, stream, fname);
  const int64_t rows = dense.shape[0], cols = dense.shape[1];
  if (rows == 0 || indices.shape[0] == 0) return;
  MXFFI_CUDA_SIZE_SWITCH(dense.dtype, fname, U, {
    MXFFI_INDEX_SWITCH(indices.dtype, fname, I, {
      ScatterCSRKernel<U, I, false><<<WarpBlocks(rows), kThreads, 0, Stream(stream)>>>(
          DataPtr<U>(data), DataPtr<I>(indices), DataPtr<I>(indptr), rows, cols, nullptr, nullptr,
          DataPtr<U>(dense));
      MXFFI_CUDA_CHECK_LAUNCH(fname);
    });
  });
}

int64_t CountNonEmptyRows(const DLTensor& indptr, const NonZeroPlan& p, void* workspace,
                          void* stream) {
  const char* fname = "cast_storage";
  cudaStream_t s = Stream(stream);
  int64_t* keep = At<int64_t>(workspace, p.keep);
  int64_t* offsets = At<int64_t>(workspace, p.offsets);
  if (p.rows > 0) {
    MXFFI_INDEX_SWITCH(indptr.dtype, fname, I, {
      NonEmptyRowsKernel<I><<<Blocks(p.rows), kThreads, 0, s>>>(DataPtr<I>(indptr), p.rows, keep);
      MXFFI_CUDA_CHECK_LAUNCH(fname);
    });
  }
  ExclusiveOffsets(keep, offsets, p.rows, At<char>(workspace, p.temp), p.temp_bytes, s, fname);
  return ReadBack(offsets + p.rows, s, fname);
}

void CSRToRowSparse(const DLTensor& csr_data, const DLTensor& indices, const DLTensor& indptr,
                    const NonZeroPlan& p, const void* workspace, const DLTensor& data,
                    const DLTensor& rows_out, void* stream) {
  const char* fname = "cast_storage";
  ZeroFill(data, stream, fname);
  if (rows_out.shape[0] == 0) return;
  MXFFI_CUDA_SIZE_SWITCH(data.dtype, fname, U, {
    MXFFI_INDEX_SWITCH(indices.dtype, fname, I, {
      ScatterCSRKernel<U, I, true><<<WarpBlocks(p.rows), kThreads, 0, Stream(stream)>>>(
          DataPtr<U>(csr_data), DataPtr<I>(indices), DataPtr<I>(indptr), p.rows, p.cols,
          At<int64_t>(workspace, p.offsets), DataPtr<I>(rows_out), DataPtr<U>(data));
      MXFFI_CUDA_CHECK_LAUNCH(fname);
    });
  });
}

void RowSparseToDense(const DLTensor& data, const DLTensor& indices, int64_t width,
                      const DLTensor& dense, void* stream) {
  const char* fname = "cast_storage";
  ZeroFill(dense, stream, fname);
  const int64_t k = indices.shape[0];
  if (k == 0 || width == 0) return;
  MXFFI_CUDA_SIZE_SWITCH(dense.dtype, fname, U, {
    MXFFI_INDEX_SWITCH(indices.dtype, fname, I, {
      CopyRowsKernel<U, I, false><<<Blocks(k, 1), kThreads, 0, Stream(stream)>>>(
          DataPtr<U>(data), DataPtr<I>(indices), k, width, DataPtr<U>(dense));
      MXFFI_CUDA_CHECK_LAUNCH(fname);
    });
  });
}

void CopyStrided(const DLTensor& src, const DLTensor& dst, void* stream) {
  const char* fname = "cast_storage";
  const int64_t n = NumElements(src);
  if (n == 0) return;
  StridedIndex<2> index;
  index.ndim = src.ndim;
  int64_t stride = 1;
  for (int d = src.ndim - 1; d >= 0; --d) {
    index.shape[d] = src.shape[d];
    index.stride[0][d] = dst.strides == nullptr ? stride : dst.strides[d];
    index.stride[1][d] = src.strides == nullptr ? stride : src.strides[d];
    stride *= src.shape[d];
  }
  MXFFI_CUDA_SIZE_SWITCH(src.dtype, fname, U, {
    CopyStridedKernel<U>
        <<<Blocks(n), kThreads, 0, Stream(stream)>>>(DataPtr<U>(src), DataPtr<U>(dst), n, index);
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  });
}

}  // namespace cuda
}  // namespace mxffi
