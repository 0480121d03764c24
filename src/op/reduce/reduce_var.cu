/*!
 * \file reduce_var.cu
 * \brief The var and std kernels: a warp per output element, two passes over its reduced
 *  elements (the mean, then the sum of squared deviations from it), each combined by warp
 *  shuffles, divided by max(count - correction, 0) as numpy. Integers and bools compute in
 *  float64, floats in themselves (float16 and bfloat16 in float32); complex inputs give a real
 *  result of their precision, from a complex mean and |x - mean|**2 (reducers.h's VarMean and
 *  SquaredDeviation, the CPU kernel's). The sums add in another order than the CPU's pairwise
 *  ones: results agree to rounding.
 */
#include "reduce_kernels.cuh"

namespace mxffi {
namespace cuda {
namespace {

template <bool kStd, typename In, typename Out>
__global__ void VarWarps(const In* __restrict__ in, Out* __restrict__ out, StridedIndex<1> kept,
                         StridedIndex<1> red, int64_t out_size, int64_t n, double correction) {
  using A = op::AccT<Out>;
  using S = op::reduce::VarSumT<In, A>;  // complex for a complex In, whose result is real
  const int lane = threadIdx.x & 31;
  const int64_t warp = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int64_t nwarps = (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5;
  for (int64_t o = warp; o < out_size; o += nwarps) {
    const In* base = in + OffsetOf(kept, o);
    S s = S(0);
    for (int64_t j = lane; j < n; j += 32) s += static_cast<S>(op::ToAcc(base[OffsetOf(red, j)]));
    const S mean = op::reduce::VarMean(WarpCombine<SumOp>(s), n);
    A ss = A(0);
    for (int64_t j = lane; j < n; j += 32) {
      ss +=
          op::reduce::SquaredDeviation<A>(static_cast<S>(op::ToAcc(base[OffsetOf(red, j)])), mean);
    }
    ss = WarpCombine<SumOp>(ss);
    if (lane == 0) {
      const double dof = static_cast<double>(n) - correction;
      const A v = ss / static_cast<A>(dof > 0 ? dof : 0.0);
      out[o] = op::FromAcc<Out>(kStd ? sqrt(v) : v);
    }
  }
}

template <bool kStd>
void LaunchVar(const DLTensor& in, const DLTensor& out, const op::ReducePlan& plan,
               double correction, const char* fname, cudaStream_t s) {
  const StridedIndex<1> kept = DimsOf(plan.nk, plan.kept);
  const StridedIndex<1> red = DimsOf(plan.nr, plan.red);
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(in.dtype, fname, In, {
    // float64 for integers and bools, the real type of a complex In, In otherwise.
    using Out = std::conditional_t<std::is_integral_v<In>, double, op::RealT<In>>;
    VarWarps<kStd, In, Out><<<Blocks(plan.out_size * 32), kThreads, 0, s>>>(
        DataPtr<const In>(in), DataPtr<Out>(out), kept, red, plan.out_size, plan.red_size,
        correction);
  });
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace

void VarReduce(bool std_dev, const DLTensor& in, const DLTensor& out, const op::ReducePlan& plan,
               double correction, const char* fname, void* stream) {
  if (plan.out_size == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (std_dev) {
    LaunchVar<true>(in, out, plan, correction, fname, s);
  } else {
    LaunchVar<false>(in, out, plan, correction, fname, s);
  }
}

}  // namespace cuda
}  // namespace mxffi
