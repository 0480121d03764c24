/*!
 * \file gnn.cu
 * \brief The CUDA kernels of spmm, sddmm and edge_softmax (see gnn_cuda.h).
 *
 * Kept simple, each output element computed by one thread in the CPU kernel's order of the
 * stored entries: spmm gives a thread each (row, column) of the output, so that the threads of
 * a warp read consecutive columns of one gathered row of x; sddmm gives a warp each stored
 * entry (lanes over the features, then a shuffle sum), its row found by a binary search of
 * indptr; edge_softmax gives a thread each (row, head).
 */
#include <climits>
#include <cstdint>

#include "gnn_cuda.h"
#include "op/cuda_kernel.cuh"

namespace mxffi {
namespace cuda {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

inline cudaStream_t AsStream(void* stream) { return static_cast<cudaStream_t>(stream); }

template <typename I>
__global__ void CheckCsrKernel(const I* __restrict__ ip, const I* __restrict__ ix, int64_t rows,
                               int64_t cols, int64_t nnz, unsigned long long* first) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    if (static_cast<int64_t>(ip[0]) != 0 || static_cast<int64_t>(ip[rows]) != nnz) {
      atomicMin(first, static_cast<unsigned long long>(rows));
    }
  }
  MXFFI_CUDA_LOOP(r, rows) {
    const int64_t b = ip[r], e = ip[r + 1];
    bool bad = e < b || b < 0 || e > nnz;
    for (int64_t j = b; !bad && j < e; ++j) {
      bad = ix[j] < 0 || ix[j] >= cols || (j > b && ix[j] <= ix[j - 1]);
    }
    if (bad) atomicMin(first, static_cast<unsigned long long>(r));
  }
}

/*! \brief Whether cand replaces best (the CPU kernel's rule: a NaN wins, the first stays). */
template <bool kMax, typename T>
__device__ __forceinline__ bool Better(T cand, T best) {
  return (kMax ? cand > best : cand < best) || (cand != cand && best == best);
}

template <int kReduce, typename T, typename I>
__global__ void SpmmKernel(const I* __restrict__ ip, const I* __restrict__ ix,
                           const T* __restrict__ val, const T* __restrict__ x, int64_t rows,
                           int64_t n, T* __restrict__ out, int64_t* __restrict__ arg) {
  MXFFI_CUDA_LOOP(i, rows * n) {
    const int64_t r = i / n, c = i - r * n;
    const int64_t b = ip[r], e = ip[r + 1];
    if (kReduce <= 1) {
      T acc = T(0);
      for (int64_t j = b; j < e; ++j) acc += val[j] * x[static_cast<int64_t>(ix[j]) * n + c];
      if (kReduce == 1 && e > b) acc *= T(1) / static_cast<T>(e - b);
      out[i] = acc;
    } else if (b == e) {
      out[i] = T(0);
      arg[i] = -1;
    } else {
      T best = val[b] * x[static_cast<int64_t>(ix[b]) * n + c];
      int64_t at = b;
      for (int64_t j = b + 1; j < e; ++j) {
        const T cand = val[j] * x[static_cast<int64_t>(ix[j]) * n + c];
        if (Better<kReduce == 2>(cand, best)) {
          best = cand;
          at = j;
        }
      }
      out[i] = best;
      arg[i] = at;
    }
  }
}

template <typename T, typename I>
__global__ void SddmmKernel(const I* __restrict__ ip, const I* __restrict__ ix,
                            const T* __restrict__ val, const T* __restrict__ A,
                            const T* __restrict__ B, int64_t rows, int64_t nnz, int64_t n,
                            T* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t p = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; p < nnz;
       p += warps) {
    // The row of entry p: the first r with ip[r + 1] > p.
    int64_t lo = 0, hi = rows - 1;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<int64_t>(ip[mid + 1]) > p) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    const T* a = A + lo * n;
    const T* bb = B + static_cast<int64_t>(ix[p]) * n;
    T s = T(0);
    for (int64_t c = lane; c < n; c += 32) s += a[c] * bb[c];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(kFullMask, s, off);
    if (lane == 0) out[p] = val[p] * s;
  }
}

__device__ __forceinline__ float Exp(float v) { return expf(v); }
__device__ __forceinline__ double Exp(double v) { return exp(v); }

template <typename T, typename I>
__global__ void EdgeSoftmaxKernel(const I* __restrict__ ip, const T* __restrict__ s, int64_t rows,
                                  int64_t heads, T* __restrict__ out) {
  MXFFI_CUDA_LOOP(i, rows * heads) {
    const int64_t r = i / heads, h = i - r * heads;
    const int64_t b = ip[r], e = ip[r + 1];
    if (b == e) continue;
    T top = s[b * heads + h];
    for (int64_t j = b + 1; j < e; ++j) {
      const T v = s[j * heads + h];
      top = top < v ? v : top;  // std::max's rule, as on the CPU
    }
    T sum = T(0);
    for (int64_t j = b; j < e; ++j) {
      const T t = Exp(s[j * heads + h] - top);
      out[j * heads + h] = t;
      sum += t;
    }
    const T inv = T(1) / sum;
    for (int64_t j = b; j < e; ++j) out[j * heads + h] *= inv;
  }
}

}  // namespace

int64_t GnnFirstBadRow(const GnnCsr& a, void* scratch, void* stream) {
  const char* fname = "sparse.spmm";
  const cudaStream_t s = AsStream(stream);
  auto* first = static_cast<unsigned long long*>(scratch);
  MXFFI_CUDA_CALL(fname, cudaMemsetAsync(first, 0xff, sizeof(unsigned long long), s));
  MXFFI_INDEX_SWITCH(a.itype, fname, I, {
    CheckCsrKernel<I><<<Blocks(a.rows + 1), kThreads, 0, s>>>(static_cast<const I*>(a.indptr),
                                                              static_cast<const I*>(a.indices),
                                                              a.rows, a.cols, a.nnz, first);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
  unsigned long long host = 0;
  MXFFI_CUDA_CALL(fname, cudaMemcpyAsync(&host, first, sizeof(host), cudaMemcpyDeviceToHost, s));
  MXFFI_CUDA_CALL(fname, cudaStreamSynchronize(s));
  return host == ULLONG_MAX ? -1 : static_cast<int64_t>(host);
}

void GnnSpmm(const GnnCsr& a, int reduce, const void* x, int64_t n, void* out, int64_t* arg,
             void* stream) {
  const char* fname = "sparse.spmm";
  if (a.rows == 0 || n == 0) return;
  const cudaStream_t s = AsStream(stream);
  MXFFI_REAL_SWITCH(a.dtype, fname, T, {
    MXFFI_INDEX_SWITCH(a.itype, fname, I, {
      const I* ip = static_cast<const I*>(a.indptr);
      const I* ix = static_cast<const I*>(a.indices);
      const T* val = static_cast<const T*>(a.data);
      const T* xv = static_cast<const T*>(x);
      T* o = static_cast<T*>(out);
      const unsigned int blocks = Blocks(a.rows * n);
      switch (reduce) {
        case 0:
          SpmmKernel<0, T, I><<<blocks, kThreads, 0, s>>>(ip, ix, val, xv, a.rows, n, o, arg);
          break;
        case 1:
          SpmmKernel<1, T, I><<<blocks, kThreads, 0, s>>>(ip, ix, val, xv, a.rows, n, o, arg);
          break;
        case 2:
          SpmmKernel<2, T, I><<<blocks, kThreads, 0, s>>>(ip, ix, val, xv, a.rows, n, o, arg);
          break;
        default:
          SpmmKernel<3, T, I><<<blocks, kThreads, 0, s>>>(ip, ix, val, xv, a.rows, n, o, arg);
          break;
      }
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void GnnSddmm(const GnnCsr& a, const void* A, const void* B, int64_t n, void* out, void* stream) {
  const char* fname = "sparse.sddmm";
  if (a.nnz == 0) return;
  const cudaStream_t s = AsStream(stream);
  MXFFI_REAL_SWITCH(a.dtype, fname, T, {
    MXFFI_INDEX_SWITCH(a.itype, fname, I, {
      SddmmKernel<T, I><<<Blocks(a.nnz * 32), kThreads, 0, s>>>(
          static_cast<const I*>(a.indptr), static_cast<const I*>(a.indices),
          static_cast<const T*>(a.data), static_cast<const T*>(A), static_cast<const T*>(B), a.rows,
          a.nnz, n, static_cast<T*>(out));
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

void GnnEdgeSoftmax(const GnnCsr& a, DLDataType dtype, const void* scores, int64_t heads, void* out,
                    void* stream) {
  const char* fname = "sparse.edge_softmax";
  if (a.rows == 0 || heads == 0 || a.nnz == 0) return;
  const cudaStream_t s = AsStream(stream);
  MXFFI_REAL_SWITCH(dtype, fname, T, {
    MXFFI_INDEX_SWITCH(a.itype, fname, I, {
      EdgeSoftmaxKernel<T, I><<<Blocks(a.rows * heads), kThreads, 0, s>>>(
          static_cast<const I*>(a.indptr), static_cast<const T*>(scores), a.rows, heads,
          static_cast<T*>(out));
    });
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace cuda
}  // namespace mxffi
