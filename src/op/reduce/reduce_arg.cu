/*!
 * \file reduce_arg.cu
 * \brief The argmax and argmin kernels: a warp per output element, its lanes striding along the
 *  reduced elements in C order (each keeping its first best), then combined by warp shuffles
 *  where the better value wins and equal values (or two NaNs) go to the smaller index, so the
 *  result is numpy's: the first extremum, or the first NaN where there is one. Complex values
 *  compare as on the CPU (ArgTakes: lexicographic, the first element with a NaN part wins).
 */
#include "reduce_kernels.cuh"

namespace mxffi {
namespace cuda {
namespace {

using op::reduce::ArgTakes;

template <bool kMax, typename T>
__global__ void ArgWarps(const T* __restrict__ in, int64_t* __restrict__ out, StridedIndex<1> kept,
                         StridedIndex<1> red, int64_t out_size, int64_t n) {
  using A = op::AccT<T>;
  const int lane = threadIdx.x & 31;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int64_t nwarps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t o = warp; o < out_size; o += nwarps) {
    const T* base = in + OffsetOf(kept, o);
    // A lane without elements holds element 0's value at index n: it never wins.
    A best = op::ToAcc(base[OffsetOf(red, 0)]);
    int64_t bi = n;
    for (int64_t j = lane; j < n; j += 32) {
      const A v = op::ToAcc(base[OffsetOf(red, j)]);
      if (bi == n || ArgTakes<kMax>(v, best)) {
        best = v;
        bi = j;
      }
    }
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) {
      const A ov = ShflXor(best, m);
      const int64_t oi = ShflXor(bi, m);
      if (ArgTakes<kMax>(ov, best) || (!ArgTakes<kMax>(best, ov) && oi < bi)) {
        best = ov;
        bi = oi;
      }
    }
    if (lane == 0) out[o] = bi;
  }
}

}  // namespace

void ArgReduce(bool kmax, const DLTensor& in, const DLTensor& out, const op::ReducePlan& plan,
               const char* fname, void* stream) {
  if (plan.out_size == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const StridedIndex<1> kept = DimsOf(plan.nk, plan.kept);
  const StridedIndex<1> red = DimsOf(plan.nr, plan.red);
  int64_t* y = DataPtr<int64_t>(out);
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(in.dtype, fname, T, {
    const T* x = DataPtr<const T>(in);
    if (kmax) {
      ArgWarps<true, T><<<Blocks(plan.out_size * 32), kThreads, 0, s>>>(
          x, y, kept, red, plan.out_size, plan.red_size);
    } else {
      ArgWarps<false, T><<<Blocks(plan.out_size * 32), kThreads, 0, s>>>(
          x, y, kept, red, plan.out_size, plan.red_size);
    }
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace cuda
}  // namespace mxffi
