/*!
 * \file indexing.cu
 * \brief The CUDA kernels of the indexing ops: the index range check, the gather and scatter
 *  (instantiated per element size: they move bits), and nonzero's count and ordered write
 *  (per dtype, complex included, through NonzeroSwitch and IsNonzero).
 */
#include "index_layout.h"
#include "indexing_cuda.h"
#include "op/cuda_kernel.cuh"

namespace mxffi {
namespace cuda {
namespace {

using op::indexing::Bytes16;
using op::indexing::IndexLayout;
using op::indexing::IsNonzero;
using op::indexing::NonzeroSwitch;

/*! \brief t's extents and element strides (NULL strides: C-contiguous), unmerged. */
StridedIndex<1> IndexOf(const DLTensor& t) {
  StridedIndex<1> idx;
  idx.ndim = t.ndim;
  int64_t compact = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    idx.shape[d] = t.shape[d];
    idx.stride[0][d] = t.strides != nullptr ? t.strides[d] : compact;
    compact *= t.shape[d];
  }
  return idx;
}

__global__ void OutOfRangeKernel(StridedIndex<1> idx, const int64_t* __restrict__ p, int64_t size,
                                 int64_t n, unsigned long long* first) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[1];
    idx.Offsets(i, off);
    const int64_t v = p[off[0]];
    if (v < -size || v >= size) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

template <typename U>
__global__ void GatherKernel(const IndexLayout* __restrict__ l, const U* __restrict__ x,
                             U* __restrict__ out, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t m[op::indexing::kIndexMaxDims];
    l->Unravel(i, m);
    int64_t xo, vo;
    l->Offsets(m, &xo, &vo);
    out[i] = x[xo];
  }
}

template <typename U>
__global__ void ScatterKernel(const IndexLayout* __restrict__ l, const U* __restrict__ values,
                              U* out, const uint8_t* __restrict__ keep, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t m[op::indexing::kIndexMaxDims];
    l->Unravel(i, m);
    if (keep != nullptr) {
      int64_t b = 0;
      for (int j = 0; j < l->bdim; ++j) b = b * l->shape[l->bfirst + j] + m[l->bfirst + j];
      if (!keep[b]) continue;
    }
    int64_t xo, vo;
    l->Offsets(m, &xo, &vo);
    out[xo] = values[vo];
  }
}

/*! \brief The sum of v over the warp, in lane 0. */
__device__ __forceinline__ int64_t WarpSum(int64_t v) {
  for (int s = 16; s > 0; s >>= 1) v += __shfl_down_sync(0xffffffffu, v, s);
  return v;
}

template <typename T>
__global__ void CountKernel(StridedIndex<1> idx, const T* __restrict__ x, int64_t n,
                            unsigned long long* count) {
  int64_t local = 0;
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[1];
    idx.Offsets(i, off);
    local += IsNonzero(x[off[0]]) ? 1 : 0;
  }
  local = WarpSum(local);
  if ((threadIdx.x & 31) == 0 && local != 0) {
    atomicAdd(count, static_cast<unsigned long long>(local));
  }
}

/*! \brief The part of n elements block b of nonzero's kernels takes: [begin, end). */
__device__ __forceinline__ void BlockPart(int64_t n, int64_t* begin, int64_t* end) {
  const int64_t chunk = (n + gridDim.x - 1) / gridDim.x;
  const int64_t per = (chunk + kThreads - 1) / kThreads * kThreads;
  const int64_t b = static_cast<int64_t>(blockIdx.x) * per;
  *begin = b < n ? b : n;
  *end = *begin + per < n ? *begin + per : n;
}

template <typename T>
__global__ void BlockCountKernel(StridedIndex<1> idx, const T* __restrict__ x, int64_t n,
                                 int64_t* counts) {
  int64_t begin, end;
  BlockPart(n, &begin, &end);
  int64_t total = 0;
  for (int64_t base = begin; base < end; base += kThreads) {
    const int64_t i = base + threadIdx.x;
    bool nz = false;
    if (i < end) {
      int64_t off[1];
      idx.Offsets(i, off);
      nz = IsNonzero(x[off[0]]);
    }
    total += __syncthreads_count(nz);
  }
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

/*!
 * \brief Each block walks its part in tiles of kThreads elements, in order: a thread's column is
 *  the block's start plus the nonzero elements before it (warp ballots, then the warps' totals
 *  in shared memory).
 */
template <typename T>
__global__ void NonzeroWriteKernel(StridedIndex<1> idx, const T* __restrict__ x, int64_t n,
                                   const int64_t* __restrict__ starts, int64_t* __restrict__ out,
                                   int64_t count) {
  constexpr int kWarps = kThreads / 32;
  __shared__ int warp_total[kWarps];
  int64_t begin, end;
  BlockPart(n, &begin, &end);
  int64_t col = starts[blockIdx.x];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int64_t base = begin; base < end; base += kThreads) {
    const int64_t i = base + threadIdx.x;
    bool nz = false;
    if (i < end) {
      int64_t off[1];
      idx.Offsets(i, off);
      nz = IsNonzero(x[off[0]]);
    }
    const unsigned ballot = __ballot_sync(0xffffffffu, nz);
    if (lane == 0) warp_total[warp] = __popc(ballot);
    __syncthreads();
    int before = __popc(ballot & ((1u << lane) - 1u));
    int tile = 0;
    for (int w = 0; w < kWarps; ++w) {
      if (w < warp) before += warp_total[w];
      tile += warp_total[w];
    }
    if (nz) {
      const int64_t c = col + before;
      if (c < count) {
        int64_t rem = i;
        for (int d = idx.ndim - 1; d >= 0; --d) {
          const int64_t q = rem / idx.shape[d];
          out[d * count + c] = rem - q * idx.shape[d];
          rem = q;
        }
      }
    }
    col += tile;
    __syncthreads();
  }
}

int ElemBytes(DLDataType t) { return (t.bits * t.lanes + 7) / 8; }

}  // namespace

void FirstIndexOutOfRange(const DLTensor& idx, int64_t size, int64_t* first, const char* fname,
                          void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int64_t n = NumElements(idx);
  // 0x7f in every byte: a position larger than any array has, meaning "none".
  MXFFI_CUDA_CALL(fname, cudaMemsetAsync(first, 0x7f, sizeof(int64_t), s));
  if (n == 0) return;
  OutOfRangeKernel<<<Blocks(n), kThreads, 0, s>>>(IndexOf(idx), DataPtr<const int64_t>(idx), size,
                                                  n, reinterpret_cast<unsigned long long*>(first));
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

#define MXFFI_BYTES_SWITCH(bytes, fname, U, ...)                                   \
  switch (bytes) {                                                                 \
    case 1: {                                                                      \
      using U = uint8_t;                                                           \
      __VA_ARGS__;                                                                 \
    } break;                                                                       \
    case 2: {                                                                      \
      using U = uint16_t;                                                          \
      __VA_ARGS__;                                                                 \
    } break;                                                                       \
    case 4: {                                                                      \
      using U = uint32_t;                                                          \
      __VA_ARGS__;                                                                 \
    } break;                                                                       \
    case 8: {                                                                      \
      using U = uint64_t;                                                          \
      __VA_ARGS__;                                                                 \
    } break;                                                                       \
    case 16: {                                                                     \
      using U = Bytes16;                                                           \
      __VA_ARGS__;                                                                 \
    } break;                                                                       \
    default:                                                                       \
      MXFFI_THROW(TypeError) << fname << ": unsupported element size " << (bytes); \
  }

void Gather(const IndexLayout* layout, int64_t n, const DLTensor& x, const DLTensor& out,
            const char* fname, void* stream) {
  if (n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_BYTES_SWITCH(ElemBytes(x.dtype), fname, U, {
    GatherKernel<U><<<Blocks(n), kThreads, 0, s>>>(layout, DataPtr<const U>(x), DataPtr<U>(out), n);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void Scatter(const IndexLayout* layout, int64_t n, const DLTensor& values, const DLTensor& out,
             const uint8_t* keep, const char* fname, void* stream) {
  if (n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_BYTES_SWITCH(ElemBytes(out.dtype), fname, U, {
    ScatterKernel<U>
        <<<Blocks(n), kThreads, 0, s>>>(layout, DataPtr<const U>(values), DataPtr<U>(out), keep, n);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void CountNonzero(const DLTensor& x, int64_t* count, const char* fname, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_CUDA_CALL(fname, cudaMemsetAsync(count, 0, sizeof(int64_t), s));
  const int64_t n = NumElements(x);
  if (n == 0) return;
  NonzeroSwitch(x.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    CountKernel<T><<<Blocks(n), kThreads, 0, s>>>(IndexOf(x), DataPtr<const T>(x), n,
                                                  reinterpret_cast<unsigned long long*>(count));
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

int NonzeroBlocks(int64_t n) {
  const int64_t tiles = (n + kThreads - 1) / kThreads;
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(tiles, 1024)));
}

void NonzeroBlockCounts(const DLTensor& x, int64_t* counts, const char* fname, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int64_t n = NumElements(x);
  const int blocks = NonzeroBlocks(n);
  NonzeroSwitch(x.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    BlockCountKernel<T><<<blocks, kThreads, 0, s>>>(IndexOf(x), DataPtr<const T>(x), n, counts);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void NonzeroWrite(const DLTensor& x, const int64_t* starts, int64_t* out, int64_t count,
                  const char* fname, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int64_t n = NumElements(x);
  if (n == 0 || count == 0) return;
  const int blocks = NonzeroBlocks(n);
  NonzeroSwitch(x.dtype, fname, [&](auto tag) {
    using T = decltype(tag);
    NonzeroWriteKernel<T>
        <<<blocks, kThreads, 0, s>>>(IndexOf(x), DataPtr<const T>(x), n, starts, out, count);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace cuda
}  // namespace mxffi
