/*!
 * \file reduce_kernels.cuh
 * \brief The reduction CUDA kernels (instantiated in reduce.cu for max and min, reduce_sum.cu
 *  for sum, mean and prod, reduce_logical.cu for all, any and count_nonzero, which compile in
 *  parallel): sum, mean, prod, max, min, all, any and count_nonzero over any set of axes of a
 * strided array, with the CPU kernel's reducers (reducers.h): integer sums in unsigned arithmetic
 *  (numpy's wraparound), float16/bfloat16 in float, max and min propagating NaN, mean dividing
 *  the sum by the count (integer means through float64, as numpy).
 *
 * Two layouts, as the CPU has them:
 *   - the innermost reduced axis has the smallest stride (or everything is reduced): a warp
 *     per output element, its lanes striding along the reduced elements (coalesced), combined
 *     by warp shuffles;
 *   - the innermost kept axis has the smaller stride, or fewer than 32 elements are reduced
 *     per output: a thread per output element, consecutive threads on consecutive outputs
 *     (coalesced), each looping over the reduced elements.
 * When there are too few outputs to fill the device, each output's reduced elements are cut
 * into a fixed number of parts (a function of the shape only, so results are deterministic),
 * reduced into a scratch buffer and combined by a second kernel, a warp per output.
 * Float sums therefore add in another order than the CPU's pairwise sums: results agree to
 * rounding, not bit for bit; integer sums, max and min are exact.
 *
 * Every dtype of the CPU kernels, complex64 and complex128 included (op::complex, the CPU's
 * reducers). Complex max and min (kInOrder) give each lane a run of consecutive elements (or
 * parts) and combine the lanes left to right, so the first element with a NaN part, and the
 * first of equal values, is the result, as on the CPU; complex sums and products agree to
 * rounding.
 */
#ifndef MXFFI_SRC_OP_REDUCE_REDUCE_KERNELS_CUH_
#define MXFFI_SRC_OP_REDUCE_REDUCE_KERNELS_CUH_

#include <cmath>
#include <cstring>
#include <type_traits>

#include "op/complex.h"
#include "op/cuda_kernel.cuh"
#include "reduce_cuda.h"
#include "reducers.h"

namespace mxffi {
namespace cuda {
namespace {

/*! \brief Outputs below which a reduction is split into parts: about a full device of warps. */
constexpr int64_t kTargetWarps = 8192;
/*! \brief Threads the outer layout aims for. */
constexpr int64_t kTargetThreads = 1 << 18;
/*! \brief Fewest reduced elements per part (warp layout, outer layout). */
constexpr int64_t kMinWarpChunk = 2048;
constexpr int64_t kMinThreadChunk = 64;

using op::reduce::AllOp;
using op::reduce::AnyOp;
using op::reduce::CountOp;
using op::reduce::Finish;
using op::reduce::kInOrder;
using op::reduce::kIsInt;
using op::reduce::Load;
using op::reduce::MaxOp;
using op::reduce::MeanOut;
using op::reduce::MinOp;
using op::reduce::ProdOp;
using op::reduce::RedAcc;
using op::reduce::SumOp;
using op::reduce::SumOut;

/*! \brief v from the lane lane ^ mask of the warp, for any accumulator type (complex128: two
 *  8-byte words). */
template <typename A>
__device__ __forceinline__ A ShflXor(A v, int mask) {
  if constexpr (sizeof(A) % 8 == 0) {
    unsigned long long u[sizeof(A) / 8];  // NOLINT(runtime/int): the shuffle's type
    memcpy(u, &v, sizeof(A));
#pragma unroll
    for (size_t w = 0; w < sizeof(A) / 8; ++w) u[w] = __shfl_xor_sync(0xffffffffu, u[w], mask);
    memcpy(&v, u, sizeof(A));
  } else {
    unsigned int u = 0;
    memcpy(&u, &v, sizeof(A));
    u = __shfl_xor_sync(0xffffffffu, u, mask);
    memcpy(&v, &u, sizeof(A));
  }
  return v;
}

/*! \brief Every lane's acc combined; every lane gets the result (a fixed order). */
template <typename R, typename A>
__device__ __forceinline__ A WarpCombine(A acc) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) acc = R::Combine(acc, ShflXor(acc, m));
  return acc;
}

/*!
 * \brief Every lane's acc combined left to right, lane l's acc holding elements before lane
 *  l + 1's (kInOrder reducers); lane 0 gets the result. Step m combines the runs of m lanes
 *  that start at multiples of 2m with the next ones, the lower lanes' on the left.
 */
template <typename R, typename A>
__device__ __forceinline__ A WarpCombineInOrder(A acc) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int m = 1; m < 32; m <<= 1) {
    const A other = ShflXor(acc, m);
    acc = (lane & m) ? R::Combine(other, acc) : R::Combine(acc, other);
  }
  return acc;
}

/*! \brief The element offset of index i over dims (a single multiply for one dimension). */
__device__ __forceinline__ int64_t OffsetOf(const StridedIndex<1>& dims, int64_t i) {
  if (dims.ndim == 1) return i * dims.stride[0][0];
  int64_t off[1];
  dims.Offsets(i, off);
  return off[0];
}

/*!
 * \brief The warp layout: task t = o * parts + part; a warp reduces part `part` (elements
 *  [part * chunk, +chunk)) of output o's reduced elements.
 */
template <typename R, bool kMean, typename In, typename Out>
__global__ void ReduceWarps(const In* __restrict__ in, Out* __restrict__ out,
                            RedAcc<R, Out>* __restrict__ partial, StridedIndex<1> kept,
                            StridedIndex<1> red, int64_t out_size, int64_t red_size, int64_t parts,
                            int64_t chunk) {
  using Acc = RedAcc<R, Out>;
  const int lane = threadIdx.x & 31;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int64_t nwarps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  const int64_t tasks = out_size * parts;
  for (int64_t t = warp; t < tasks; t += nwarps) {
    const int64_t o = t / parts, part = t - o * parts;
    const int64_t base = OffsetOf(kept, o);
    const int64_t begin = part * chunk;
    const int64_t end = begin + chunk < red_size ? begin + chunk : red_size;
    Acc acc = R::template Identity<Acc>();
    if constexpr (kInOrder<R, Acc>) {
      // A run of the part's elements per lane, in order, the lanes' runs in order.
      const int64_t per = (end - begin + 31) / 32;
      const int64_t lb = begin + lane * per < end ? begin + lane * per : end;
      const int64_t le = lb + per < end ? lb + per : end;
      for (int64_t j = lb; j < le; ++j) {
        acc = R::Combine(acc, Load<R, Acc, Out>(in[base + OffsetOf(red, j)]));
      }
      acc = WarpCombineInOrder<R>(acc);
    } else {
#pragma unroll 4
      for (int64_t j = begin + lane; j < end; j += 32) {
        acc = R::Combine(acc, Load<R, Acc, Out>(in[base + OffsetOf(red, j)]));
      }
      acc = WarpCombine<R>(acc);
    }
    if (lane == 0) {
      if (parts == 1) {
        out[o] = Finish<kMean, Out>(acc, red_size);
      } else {
        partial[t] = acc;
      }
    }
  }
}

/*! \brief The outer layout: task t = part * out_size + o, a thread each. */
template <typename R, bool kMean, typename In, typename Out>
__global__ void ReduceThreads(const In* __restrict__ in, Out* __restrict__ out,
                              RedAcc<R, Out>* __restrict__ partial, StridedIndex<1> kept,
                              StridedIndex<1> red, int64_t out_size, int64_t red_size,
                              int64_t parts, int64_t chunk) {
  using Acc = RedAcc<R, Out>;
  MXFFI_CUDA_LOOP(t, out_size * parts) {
    const int64_t part = t / out_size, o = t - part * out_size;
    const In* base = in + OffsetOf(kept, o);
    const int64_t begin = part * chunk;
    const int64_t end = begin + chunk < red_size ? begin + chunk : red_size;
    Acc acc = R::template Identity<Acc>();
    for (int64_t r = begin; r < end; ++r) {
      acc = R::Combine(acc, Load<R, Acc, Out>(base[OffsetOf(red, r)]));
    }
    if (parts == 1) {
      out[o] = Finish<kMean, Out>(acc, red_size);
    } else {
      partial[o * parts + part] = acc;
    }
  }
}

/*! \brief out[o] from partial[o * parts, +parts), a warp per output. */
template <typename R, bool kMean, typename Acc, typename Out>
__global__ void CombineParts(const Acc* __restrict__ partial, Out* __restrict__ out,
                             int64_t out_size, int64_t parts, int64_t count) {
  const int lane = threadIdx.x & 31;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int64_t nwarps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t o = warp; o < out_size; o += nwarps) {
    Acc acc = R::template Identity<Acc>();
    if constexpr (kInOrder<R, Acc>) {
      const int64_t per = (parts + 31) / 32;
      const int64_t pb = lane * per < parts ? lane * per : parts;
      const int64_t pe = pb + per < parts ? pb + per : parts;
      for (int64_t p = pb; p < pe; ++p) acc = R::Combine(acc, partial[o * parts + p]);
      acc = WarpCombineInOrder<R>(acc);
    } else {
      for (int64_t p = lane; p < parts; p += 32) acc = R::Combine(acc, partial[o * parts + p]);
      acc = WarpCombine<R>(acc);
    }
    if (lane == 0) out[o] = Finish<kMean, Out>(acc, count);
  }
}

/*! \brief How a layout is run: which kernel, how many parts per output, elements per part. */
struct Schedule {
  bool warps = true;
  int64_t parts = 1, chunk = 0;
};

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

Schedule MakeSchedule(const op::ReducePlan& l) {
  Schedule s;
  const int64_t inner_red =
      l.red[l.nr - 1].stride < 0 ? -l.red[l.nr - 1].stride : l.red[l.nr - 1].stride;
  const int64_t inner_kept = l.nk == 0 ? 0
                                       : (l.kept[l.nk - 1].stride < 0 ? -l.kept[l.nk - 1].stride
                                                                      : l.kept[l.nk - 1].stride);
  // A warp per output only pays when there are enough reduced elements for its lanes.
  s.warps = l.nk == 0 || (l.red_size >= 32 && inner_red <= inner_kept);
  if (l.red_size > 0 && l.out_size > 0) {
    if (s.warps) {
      s.parts = std::min(CeilDiv(l.red_size, kMinWarpChunk), CeilDiv(kTargetWarps, l.out_size));
    } else {
      s.parts = std::min(CeilDiv(l.red_size, kMinThreadChunk), CeilDiv(kTargetThreads, l.out_size));
    }
    s.parts = std::max<int64_t>(s.parts, 1);
  }
  s.chunk = s.parts == 1 ? l.red_size : CeilDiv(l.red_size, s.parts);
  return s;
}

StridedIndex<1> DimsOf(int n, const op::ReduceDim* dims) {
  StridedIndex<1> idx;
  idx.ndim = n;
  for (int d = 0; d < n; ++d) {
    idx.shape[d] = dims[d].size;
    idx.stride[0][d] = dims[d].stride;
  }
  return idx;
}

template <typename R, bool kMean, typename In, typename Out>
void Launch(const DLTensor& in, const DLTensor& out, const op::ReducePlan& l, void* scratch,
            const char* fname, cudaStream_t stream) {
  using Acc = RedAcc<R, Out>;
  const Schedule s = MakeSchedule(l);
  const StridedIndex<1> kept = DimsOf(l.nk, l.kept);
  const StridedIndex<1> red = DimsOf(l.nr, l.red);
  const In* x = DataPtr<const In>(in);
  Out* y = DataPtr<Out>(out);
  Acc* partial = static_cast<Acc*>(scratch);
  const int64_t tasks = l.out_size * s.parts;
  if (s.warps) {
    ReduceWarps<R, kMean, In, Out><<<Blocks(tasks * 32), kThreads, 0, stream>>>(
        x, y, partial, kept, red, l.out_size, l.red_size, s.parts, s.chunk);
  } else {
    ReduceThreads<R, kMean, In, Out><<<Blocks(tasks), kThreads, 0, stream>>>(
        x, y, partial, kept, red, l.out_size, l.red_size, s.parts, s.chunk);
  }
  MXFFI_CUDA_CHECK_LAUNCH(fname);
  if (s.parts > 1) {
    CombineParts<R, kMean, Acc, Out><<<Blocks(l.out_size * 32), kThreads, 0, stream>>>(
        partial, y, l.out_size, s.parts, l.red_size);
    MXFFI_CUDA_CHECK_LAUNCH(fname);
  }
}

template <typename T>
bool IsDType(DLDataType t) {
  if constexpr (std::is_same_v<T, int64_t>) {
    return t.code == kDLInt && t.bits == 64 && t.lanes == 1;
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return t.code == kDLUInt && t.bits == 64 && t.lanes == 1;
  } else {
    return t.code == kDLFloat && t.bits == 64 && t.lanes == 1;
  }
}

template <typename R, bool kMean>
void Dispatch(const DLTensor& in, const DLTensor& out, const op::ReducePlan& l, void* scratch,
              const char* fname, cudaStream_t stream) {
  const bool same = in.dtype.code == out.dtype.code && in.dtype.bits == out.dtype.bits &&
                    in.dtype.lanes == out.dtype.lanes;
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(in.dtype, fname, In, {
    using Natural = std::conditional_t<kMean, MeanOut<In>, SumOut<In>>;
    if (same) {
      Launch<R, kMean, In, In>(in, out, l, scratch, fname, stream);
    } else if constexpr ((std::is_same_v<R, SumOp> || std::is_same_v<R, ProdOp>) &&
                         !std::is_same_v<Natural, In>) {
      if (IsDType<Natural>(out.dtype)) {
        Launch<R, kMean, In, Natural>(in, out, l, scratch, fname, stream);
      } else {
        MXFFI_THROW(RuntimeError) << fname << ": no kernel from dtype code " << int(in.dtype.code)
                                  << " bits " << int(in.dtype.bits) << " to code "
                                  << int(out.dtype.code) << " bits " << int(out.dtype.bits);
      }
    } else {
      MXFFI_THROW(RuntimeError) << fname << ": no kernel from dtype code " << int(in.dtype.code)
                                << " bits " << int(in.dtype.bits) << " to code "
                                << int(out.dtype.code) << " bits " << int(out.dtype.bits);
    }
  });
}

/*! \brief R of in into out, whose element type is Out whatever in's dtype (all and any: bool,
 *  count_nonzero: int64). */
template <typename R, typename Out>
void DispatchTo(const DLTensor& in, const DLTensor& out, const op::ReducePlan& l, void* scratch,
                const char* fname, cudaStream_t stream) {
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(
      in.dtype, fname, In, { Launch<R, false, In, Out>(in, out, l, scratch, fname, stream); });
}

}  // namespace

/*! \brief Sum (mean false) or mean of in into out (reduce_sum.cu). */
void ReduceSum(bool mean, const DLTensor& in, const DLTensor& out, const op::ReducePlan& plan,
               void* scratch, const char* fname, cudaStream_t stream);

/*! \brief prod of in into out (reduce_sum.cu). */
void ReduceProd(const DLTensor& in, const DLTensor& out, const op::ReducePlan& plan, void* scratch,
                const char* fname, cudaStream_t stream);

/*! \brief all, any (bool out) or count_nonzero (int64 out) of in (reduce_logical.cu). */
void ReduceLogical(ReduceOpCode op, const DLTensor& in, const DLTensor& out,
                   const op::ReducePlan& plan, void* scratch, const char* fname,
                   cudaStream_t stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_REDUCE_REDUCE_KERNELS_CUH_
