/*!
 * \file dot_csr.cu
 * \brief The CUDA kernels of dot with a csr operand (see dot_csr_cuda.h).
 *
 * csr @ dense (and the product of a transpose with a dense array) gives each row of the result
 * to a group of G lanes, G the power of two covering the dense array's n columns up to a whole
 * warp. A warp reads the stored values of its row 32 at a time, one per lane, coalesced, and
 * hands each (column, value) to all lanes by shuffles; each lane then loads its columns of that
 * dense row, up to 4 vectors of 1, 2 or 4 consecutive values (float4, float2, double2 where the
 * width and alignment allow), so a warp reads a dense row as whole lines and writes its output
 * row the same way; wider rows take further passes. Each output element sums its products in
 * the order of the stored values, as the CPU kernel does.
 *
 * The transpose is a stable radix sort (CUB) of the stored values by column, so each row of the
 * transpose lists its values in increasing row of the original: the same order as the CPU's
 * counting sort, and the same on every run (no atomics).
 */
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cub/cub.cuh>
#include <type_traits>

#include "dot_csr_cuda.h"
#include "op/cuda_kernel.cuh"

namespace mxffi {
namespace cuda {
namespace {

constexpr int kSpmmThreads = 256;
constexpr unsigned kFullMask = 0xffffffffu;

/*! \brief V consecutive DType values loaded or stored as one access (V = 1, 2 or 4). */
template <typename DType, int V>
struct VecOf;
template <typename DType>
struct VecOf<DType, 1> {
  using type = DType;
};
template <>
struct VecOf<float, 2> {
  using type = float2;
};
template <>
struct VecOf<float, 4> {
  using type = float4;
};
template <>
struct VecOf<double, 2> {
  using type = double2;
};

/*!
 * \brief out[r, :] = sum over p in [ptr[s], ptr[s+1]) of val[p] * dense[idx[p], :], s =
 *  map[r] (r without a map), for each row r this lane group takes. G lanes per row; in each
 *  pass over the row's values a lane accumulates Q vectors of V consecutive columns, vector q
 *  at column c0 + (q * G + lane) * V, so that the warp reads whole lines of a dense row. V > 1
 *  needs n a multiple of V and dense and out aligned to V values.
 */
template <int G, int Q, int V, typename DType, typename IType, typename PType>
__global__ void __launch_bounds__(kSpmmThreads)
    SpmmKernel(int64_t rows, const PType* __restrict__ ptr, const IType* __restrict__ idx,
               const DType* __restrict__ val, const int64_t* __restrict__ map,
               const DType* __restrict__ dense, int64_t n, DType* __restrict__ out) {
  using Vec = typename VecOf<DType, V>::type;
  const int lane = threadIdx.x % G;
  const int64_t groups = static_cast<int64_t>(gridDim.x) * (kSpmmThreads / G);
  for (int64_t r = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / G; r < rows;
       r += groups) {
    const int64_t src = map == nullptr ? r : map[r];
    const int64_t jb = static_cast<int64_t>(ptr[src]), je = static_cast<int64_t>(ptr[src + 1]);
    DType* orow = out + r * n;
    for (int64_t c0 = 0; c0 < n; c0 += G * Q * V) {
      DType acc[Q][V];
#pragma unroll
      for (int q = 0; q < Q; ++q) {
#pragma unroll
        for (int e = 0; e < V; ++e) acc[q][e] = DType(0);
      }
      const int64_t first = c0 + static_cast<int64_t>(lane) * V;  // this lane's first column
      const int64_t left = n - first;  // columns of the row at or after it
      // acc += x * (this lane's vectors of dense row c).
      auto add_row = [&](int64_t c, DType x) {
        const DType* b = dense + c * n + first;
#pragma unroll
        for (int q = 0; q < Q; ++q) {
          if (q * G * V < left) {
            const Vec y = __ldg(reinterpret_cast<const Vec*>(b + q * G * V));
            const DType* ye = reinterpret_cast<const DType*>(&y);
#pragma unroll
            for (int e = 0; e < V; ++e) acc[q][e] += x * ye[e];
          }
        }
      };
      if constexpr (G == 32) {
        // The whole warp has this row: its values are read 32 at a time and shuffled.
        for (int64_t j0 = jb; j0 < je; j0 += 32) {
          const int64_t mine = j0 + lane;
          IType col = 0;
          DType v = DType(0);
          if (mine < je) {
            col = idx[mine];
            v = val[mine];
          }
          const int count = static_cast<int>(min(int64_t{32}, je - j0));
          // Unrolled so that the loads of several dense rows are in flight at once.
#pragma unroll 4
          for (int t = 0; t < count; ++t) {
            add_row(static_cast<int64_t>(__shfl_sync(kFullMask, col, t)),
                    __shfl_sync(kFullMask, v, t));
          }
        }
      } else {
        for (int64_t j = jb; j < je; ++j) add_row(static_cast<int64_t>(idx[j]), val[j]);
      }
#pragma unroll
      for (int q = 0; q < Q; ++q) {
        if (q * G * V < left) {
          Vec y;
          DType* ye = reinterpret_cast<DType*>(&y);
#pragma unroll
          for (int e = 0; e < V; ++e) ye[e] = acc[q][e];
          *reinterpret_cast<Vec*>(orow + first + q * G * V) = y;
        }
      }
    }
  }
}

template <int G, int Q, int V, typename DType, typename IType, typename PType>
void LaunchSpmm(int64_t rows, const PType* ptr, const IType* idx, const DType* val,
                const int64_t* map, const DType* dense, int64_t n, DType* out, cudaStream_t s) {
  const int64_t per_block = kSpmmThreads / G;
  const int64_t blocks = std::min<int64_t>((rows + per_block - 1) / per_block, int64_t{1} << 20);
  SpmmKernel<G, Q, V, DType, IType, PType>
      <<<static_cast<unsigned>(std::max<int64_t>(blocks, 1)), kSpmmThreads, 0, s>>>(
          rows, ptr, idx, val, map, dense, n, out);
}

/*! \brief A warp per row, V columns per access, Q accesses per lane and pass (1, 2 or 4). */
template <int V, typename DType, typename IType, typename PType>
void LaunchWarpSpmm(int64_t rows, const PType* ptr, const IType* idx, const DType* val,
                    const int64_t* map, const DType* dense, int64_t n, DType* out, cudaStream_t s) {
  if (n <= 32 * V) {
    LaunchSpmm<32, 1, V>(rows, ptr, idx, val, map, dense, n, out, s);
  } else if (n <= 64 * V) {
    LaunchSpmm<32, 2, V>(rows, ptr, idx, val, map, dense, n, out, s);
  } else {
    LaunchSpmm<32, 4, V>(rows, ptr, idx, val, map, dense, n, out, s);
  }
}

bool Aligned(const void* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

/*!
 * \brief The lane group, vector width and vectors per lane for n dense columns: a group as
 *  wide as n up to 32 columns; beyond, a warp per row with 16-byte (float4, double2) or 8-byte
 *  (float2) accesses where n and the arrays' alignment allow, else one value per access.
 */
template <typename DType, typename IType, typename PType>
void Spmm(int64_t rows, const PType* ptr, const IType* idx, const DType* val, const int64_t* map,
          const DType* dense, int64_t n, DType* out, cudaStream_t s) {
  if (rows == 0 || n == 0) return;
  auto fits = [&](int v) {
    const size_t bytes = v * sizeof(DType);
    return n % v == 0 && Aligned(dense, bytes) && Aligned(out, bytes);
  };
  if (n <= 1) {
    LaunchSpmm<1, 1, 1>(rows, ptr, idx, val, map, dense, n, out, s);
  } else if (n <= 2) {
    LaunchSpmm<2, 1, 1>(rows, ptr, idx, val, map, dense, n, out, s);
  } else if (n <= 4) {
    LaunchSpmm<4, 1, 1>(rows, ptr, idx, val, map, dense, n, out, s);
  } else if (n <= 8) {
    LaunchSpmm<8, 1, 1>(rows, ptr, idx, val, map, dense, n, out, s);
  } else if (n <= 16) {
    LaunchSpmm<16, 1, 1>(rows, ptr, idx, val, map, dense, n, out, s);
  } else if (n <= 32) {
    LaunchSpmm<32, 1, 1>(rows, ptr, idx, val, map, dense, n, out, s);
  } else if constexpr (std::is_same_v<DType, float>) {
    if (n >= 128 && fits(4)) {
      LaunchWarpSpmm<4>(rows, ptr, idx, val, map, dense, n, out, s);
    } else if (fits(2)) {
      LaunchWarpSpmm<2>(rows, ptr, idx, val, map, dense, n, out, s);
    } else {
      LaunchWarpSpmm<1>(rows, ptr, idx, val, map, dense, n, out, s);
    }
  } else {
    if (fits(2)) {
      LaunchWarpSpmm<2>(rows, ptr, idx, val, map, dense, n, out, s);
    } else {
      LaunchWarpSpmm<1>(rows, ptr, idx, val, map, dense, n, out, s);
    }
  }
  MXFFI_CUDA_CHECK_LAUNCH("dot");
}

template <typename IType>
__global__ void IotaKernel(IType* out, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) { out[i] = static_cast<IType>(i); }
}

/*! \brief tptr[c] = the first position of sorted keys holding c or more, for c in [0, cols]. */
template <typename IType>
__global__ void ColumnStartsKernel(const IType* keys, int64_t nnz, int64_t cols, int64_t* tptr) {
  MXFFI_CUDA_LOOP(c, cols + 1) {
    int64_t lo = 0, hi = nnz;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<int64_t>(keys[mid]) < c) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    tptr[c] = lo;
  }
}

/*! \brief Value p of the transpose: a's value perm[p] and its row (found in indptr). */
template <typename DType, typename IType>
__global__ void GatherTransposeKernel(const IType* perm, const IType* indptr, int64_t rows,
                                      const DType* data, int64_t nnz, IType* tidx, DType* tval) {
  MXFFI_CUDA_LOOP(p, nnz) {
    const int64_t j = static_cast<int64_t>(perm[p]);
    // The last row whose start is at or before j: the row holding value j.
    int64_t lo = 0, hi = rows;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (static_cast<int64_t>(indptr[mid]) <= j) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    tidx[p] = static_cast<IType>(lo);
    tval[p] = data[j];
  }
}

__global__ void NonEmptyFlagsKernel(const int64_t* tptr, int64_t rows, uint8_t* flags,
                                    int64_t* ids) {
  MXFFI_CUDA_LOOP(r, rows) {
    flags[r] = tptr[r + 1] > tptr[r];
    ids[r] = r;
  }
}

template <typename IType>
__global__ void WriteRowIdsKernel(const int64_t* kept, int64_t count, IType* out) {
  MXFFI_CUDA_LOOP(i, count) { out[i] = static_cast<IType>(kept[i]); }
}

/*! \brief out[i, c] = sum over the values p of column c of a of dense[i, tidx[p]] * tval[p]. */
template <typename DType, typename IType>
__global__ void DenseTransposedKernel(int64_t m, int64_t k, int64_t n,
                                      const DType* __restrict__ dense,
                                      const int64_t* __restrict__ tptr,
                                      const IType* __restrict__ tidx,
                                      const DType* __restrict__ tval, DType* __restrict__ out) {
  MXFFI_CUDA_LOOP(e, m * n) {
    const int64_t i = e / n, c = e - i * n;
    const DType* x = dense + i * k;
    DType acc = DType(0);
    const int64_t pe = tptr[c + 1];
    for (int64_t p = tptr[c]; p < pe; ++p) acc += tval[p] * x[static_cast<int64_t>(tidx[p])];
    out[e] = acc;
  }
}

/*! \brief Run the body with DType bound to float or double, IType to int32_t or int64_t. */
#define MXFFI_DOT_CSR_SWITCH(dtype, itype, DType, IType, ...) \
  MXFFI_REAL_SWITCH(dtype, "dot", DType,                      \
                    { MXFFI_INDEX_SWITCH(itype, "dot", IType, {__VA_ARGS__}); })

/*! \return the number of low bits that hold every value in [0, n). */
int BitsFor(int64_t n) {
  int bits = 1;
  while (bits < 63 && (int64_t{1} << bits) < n) ++bits;
  return bits;
}

}  // namespace

void CsrDense(const CsrParts& a, const void* dense, int64_t n, void* out, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_DOT_CSR_SWITCH(a.dtype, a.itype, DType, IType, {
    Spmm<DType, IType, IType>(a.rows, static_cast<const IType*>(a.indptr),
                              static_cast<const IType*>(a.indices),
                              static_cast<const DType*>(a.data), nullptr,
                              static_cast<const DType*>(dense), n, static_cast<DType*>(out), s);
  });
}

void CsrTranspose(const CsrParts& a, const ScratchAlloc& scratch, int64_t* tptr, void* tidx,
                  void* tval, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_DOT_CSR_SWITCH(a.dtype, a.itype, DType, IType, {
    const int64_t nnz = a.nnz;
    IType* keys = nullptr;
    IType* perm = nullptr;
    if (nnz > 0) {
      IType* iota = static_cast<IType*>(scratch(nnz * sizeof(IType)));
      keys = static_cast<IType*>(scratch(nnz * sizeof(IType)));
      perm = static_cast<IType*>(scratch(nnz * sizeof(IType)));
      IotaKernel<IType><<<Blocks(nnz), kThreads, 0, s>>>(iota, nnz);
      MXFFI_CUDA_CHECK_LAUNCH("dot");
      const int end_bit = BitsFor(a.cols);
      size_t bytes = 0;
      MXFFI_CUDA_CALL("dot", cub::DeviceRadixSort::SortPairs(nullptr, bytes,
                                                             static_cast<const IType*>(a.indices),
                                                             keys, iota, perm, nnz, 0, end_bit, s));
      void* temp = scratch(std::max<size_t>(bytes, 1));
      MXFFI_CUDA_CALL(
          "dot", cub::DeviceRadixSort::SortPairs(temp, bytes, static_cast<const IType*>(a.indices),
                                                 keys, iota, perm, nnz, 0, end_bit, s));
    }
    ColumnStartsKernel<IType><<<Blocks(a.cols + 1), kThreads, 0, s>>>(keys, nnz, a.cols, tptr);
    MXFFI_CUDA_CHECK_LAUNCH("dot");
    if (nnz > 0) {
      GatherTransposeKernel<DType, IType><<<Blocks(nnz), kThreads, 0, s>>>(
          perm, static_cast<const IType*>(a.indptr), a.rows, static_cast<const DType*>(a.data), nnz,
          static_cast<IType*>(tidx), static_cast<DType*>(tval));
      MXFFI_CUDA_CHECK_LAUNCH("dot");
    }
  });
}

int64_t NonEmptyRows(const int64_t* tptr, int64_t rows, int64_t* kept, const ScratchAlloc& scratch,
                     void* stream) {
  if (rows == 0) return 0;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  uint8_t* flags = static_cast<uint8_t*>(scratch(rows));
  int64_t* ids = static_cast<int64_t*>(scratch(rows * sizeof(int64_t)));
  int64_t* count = static_cast<int64_t*>(scratch(sizeof(int64_t)));
  NonEmptyFlagsKernel<<<Blocks(rows), kThreads, 0, s>>>(tptr, rows, flags, ids);
  MXFFI_CUDA_CHECK_LAUNCH("dot");
  size_t bytes = 0;
  MXFFI_CUDA_CALL("dot",
                  cub::DeviceSelect::Flagged(nullptr, bytes, ids, flags, kept, count, rows, s));
  void* temp = scratch(std::max<size_t>(bytes, 1));
  MXFFI_CUDA_CALL("dot", cub::DeviceSelect::Flagged(temp, bytes, ids, flags, kept, count, rows, s));
  int64_t host = 0;
  MXFFI_CUDA_CALL("dot", cudaMemcpyAsync(&host, count, sizeof(host), cudaMemcpyDeviceToHost, s));
  MXFFI_CUDA_CALL("dot", cudaStreamSynchronize(s));
  return host;
}

void WriteRowIds(const int64_t* kept, int64_t count, void* out, DLDataType itype, void* stream) {
  if (count == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (itype.bits == 32) {
    WriteRowIdsKernel<int32_t>
        <<<Blocks(count), kThreads, 0, s>>>(kept, count, static_cast<int32_t*>(out));
  } else {
    WriteRowIdsKernel<int64_t>
        <<<Blocks(count), kThreads, 0, s>>>(kept, count, static_cast<int64_t*>(out));
  }
  MXFFI_CUDA_CHECK_LAUNCH("dot");
}

void TransposedDense(int64_t out_rows, const int64_t* tptr, const void* tidx, const void* tval,
                     DLDataType dtype, DLDataType itype, const int64_t* row_map, const void* dense,
                     int64_t n, void* out, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_DOT_CSR_SWITCH(dtype, itype, DType, IType, {
    Spmm<DType, IType, int64_t>(out_rows, tptr, static_cast<const IType*>(tidx),
                                static_cast<const DType*>(tval), row_map,
                                static_cast<const DType*>(dense), n, static_cast<DType*>(out), s);
  });
}

void DenseTransposed(int64_t m, int64_t k, int64_t n, const void* dense, const int64_t* tptr,
                     const void* tidx, const void* tval, DLDataType dtype, DLDataType itype,
                     void* out, void* stream) {
  if (m == 0 || n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_DOT_CSR_SWITCH(dtype, itype, DType, IType, {
    DenseTransposedKernel<DType, IType><<<Blocks(m * n), kThreads, 0, s>>>(
        m, k, n, static_cast<const DType*>(dense), tptr, static_cast<const IType*>(tidx),
        static_cast<const DType*>(tval), static_cast<DType*>(out));
  });
  MXFFI_CUDA_CHECK_LAUNCH("dot");
}

}  // namespace cuda
}  // namespace mxffi
