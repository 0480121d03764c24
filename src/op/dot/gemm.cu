/*!
 * \file gemm.cu
 * \brief Packing of strided GEMM operands and the tiled GEMM kernel (see gemm_cuda.h).
 *
 * The tiled kernel computes a 64 x 64 block of c per thread block of 256 threads, each thread a
 * 4 x 4 set of outputs spread 16 apart (so that a warp's shared-memory reads fall in distinct
 * banks or broadcast), over K in steps of 16: the a and b tiles are loaded into shared memory
 * already widened to the accumulation type. It accumulates as the CPU loop kernel does (GemmAcc,
 * MulAdd of gemm_layout.h): integers in unsigned arithmetic of 32 or 64 bits (numpy's wraparound,
 * with no signed overflow), bool as bool, float16/bfloat16 in float32 rounded once at the end.
 */
#include <algorithm>
#include <type_traits>

#include "gemm_cuda.h"
#include "op/cuda_kernel.cuh"
#include "op/dot/gemm_layout.h"
#include "op/elemwise/convert_cuda.h"

namespace mxffi {
namespace cuda {
namespace {

static_assert(kGemmMaxDims == kMaxDims, "gemm_cuda.h's axis limit is kernel_util.cuh's");

using op::GemmAcc;
using op::MulAdd;

template <typename T>
__device__ __forceinline__ GemmAcc<T> LoadAcc(T v) {
  if constexpr (kIsHalf<T>) {
    return ToAcc(v);
  } else {
    return static_cast<GemmAcc<T>>(v);
  }
}

template <typename T>
__device__ __forceinline__ T StoreAcc(GemmAcc<T> v) {
  if constexpr (kIsHalf<T>) {
    return FromAcc<T>(v);
  } else {
    return static_cast<T>(v);  // integers: modulo 2^bits, as numpy wraps
  }
}

constexpr int kTile = 64;   // rows and columns of c per block
constexpr int kTileK = 16;  // depth of one step over K
constexpr int kGemmThreads = 256;
constexpr int kPerThread = 4;  // outputs per thread along each axis, kTile / 16 apart

/*! \brief The element offsets of batch t of the product's operands. */
__device__ __forceinline__ void BatchOffsets(const GemmBatch& batch, int64_t t, int64_t* oa,
                                             int64_t* ob) {
  *oa = 0;
  *ob = 0;
  for (int d = batch.ndim - 1; d >= 0; --d) {
    const int64_t e = batch.shape[d];
    const int64_t q = t / e, r = t - q * e;
    *oa += r * batch.a_stride[d];
    *ob += r * batch.b_stride[d];
    t = q;
  }
}

template <typename T>
__global__ void __launch_bounds__(kGemmThreads)
    TiledGemmKernel(int64_t M, int64_t N, int64_t K, const T* a, int64_t a_rs, int64_t a_cs,
                    const T* b, int64_t b_rs, int64_t b_cs, GemmBatch batch, int64_t nbatch, T* c) {
  using A = GemmAcc<T>;
  __shared__ A as[kTileK][kTile + 1];
  __shared__ A bs[kTileK][kTile + 1];
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int64_t col0 = static_cast<int64_t>(blockIdx.x) * kTile;
  for (int64_t t = blockIdx.z; t < nbatch; t += gridDim.z) {
    for (int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTile; row0 < M;
         row0 += static_cast<int64_t>(gridDim.y) * kTile) {
      int64_t oa, ob;
      BatchOffsets(batch, t, &oa, &ob);
      const T* at = a + oa;
      const T* bt = b + ob;
      A acc[kPerThread][kPerThread];
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
#pragma unroll
        for (int j = 0; j < kPerThread; ++j) acc[i][j] = A(0);
      }
      for (int64_t k0 = 0; k0 < K; k0 += kTileK) {
        // a's tile: 64 rows x 16 k, k fastest; b's: 16 k x 64 columns, columns fastest.
#pragma unroll
        for (int l = 0; l < kTile * kTileK / kGemmThreads; ++l) {
          const int e = tid + l * kGemmThreads;
          const int kk = e % kTileK, r = e / kTileK;
          const int64_t gi = row0 + r, gk = k0 + kk;
          as[kk][r] = gi < M && gk < K ? LoadAcc(at[gi * a_rs + gk * a_cs]) : A(0);
          const int cc = e % kTile, kb = e / kTile;
          const int64_t gj = col0 + cc, gkb = k0 + kb;
          bs[kb][cc] = gj < N && gkb < K ? LoadAcc(bt[gkb * b_rs + gj * b_cs]) : A(0);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < kTileK; ++kk) {
          A x[kPerThread], y[kPerThread];
#pragma unroll
          for (int i = 0; i < kPerThread; ++i) x[i] = as[kk][ty + 16 * i];
#pragma unroll
          for (int j = 0; j < kPerThread; ++j) y[j] = bs[kk][tx + 16 * j];
#pragma unroll
          for (int i = 0; i < kPerThread; ++i) {
#pragma unroll
            for (int j = 0; j < kPerThread; ++j) acc[i][j] = MulAdd<A>(acc[i][j], x[i], y[j]);
          }
        }
        __syncthreads();
      }
      T* ct = c + t * M * N;
#pragma unroll
      for (int i = 0; i < kPerThread; ++i) {
        const int64_t gi = row0 + ty + 16 * i;
        if (gi >= M) continue;
#pragma unroll
        for (int j = 0; j < kPerThread; ++j) {
          const int64_t gj = col0 + tx + 16 * j;
          if (gj < N) ct[gi * N + gj] = StoreAcc<T>(acc[i][j]);
        }
      }
    }
  }
}

}  // namespace

void PackStrided(const void* src, DLDataType src_dtype, int ndim, const int64_t* shape,
                 const int64_t* strides, void* dst, DLDataType dst_dtype, void* stream) {
  // Extent-1 axes dropped, neighbours merged where their strides allow it.
  int64_t n = 1;
  int m = 0;
  int64_t mshape[kMaxDims * 2], mstride[kMaxDims * 2];
  for (int d = 0; d < ndim; ++d) {
    n *= shape[d];
    if (shape[d] == 1) continue;
    MXFFI_CHECK(m < kMaxDims * 2, ValueError)
        << "dot: an operand of more than " << kMaxDims * 2 << " axes cannot be packed";
    if (m > 0 && mstride[m - 1] == strides[d] * shape[d]) {
      mshape[m - 1] *= shape[d];
      mstride[m - 1] = strides[d];
    } else {
      mshape[m] = shape[d];
      mstride[m] = strides[d];
      ++m;
    }
  }
  if (n == 0) return;
  MXFFI_CHECK(m <= kMaxDims, ValueError)
      << "dot: an operand of " << m << " axes that do not merge cannot be packed; at most "
      << kMaxDims;
  ConvertElements(src, src_dtype, m, mshape, mstride, dst, dst_dtype, false, "dot", stream);
}

void TiledGemm(DLDataType dtype, int64_t M, int64_t N, int64_t K, const void* a, int64_t a_rs,
               int64_t a_cs, const void* b, int64_t b_rs, int64_t b_cs, const GemmBatch& batch,
               int64_t nbatch, void* c, void* stream) {
  if (M == 0 || N == 0 || nbatch == 0) return;
  const int64_t gx = (N + kTile - 1) / kTile, gy = (M + kTile - 1) / kTile;
  MXFFI_CHECK(gx <= INT32_MAX, ValueError)
      << "dot: a product with " << N << " columns is too wide for the GPU GEMM kernel";
  // Row blocks beyond the grid's 65535 are taken by the blocks in turn.
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(std::min<int64_t>(gy, 65535)),
                  static_cast<unsigned>(std::min<int64_t>(nbatch, 65535)));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_TYPE_SWITCH(dtype, "dot", T, {
    TiledGemmKernel<T><<<grid, kGemmThreads, 0, s>>>(M, N, K, static_cast<const T*>(a), a_rs, a_cs,
                                                     static_cast<const T*>(b), b_rs, b_cs, batch,
                                                     nbatch, static_cast<T*>(c));
  });
  MXFFI_CUDA_CHECK_LAUNCH("dot");
}

}  // namespace cuda
}  // namespace mxffi
