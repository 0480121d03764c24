/*!
 * \file reduce.cu
 * \brief The reductions' entry points (reduce_cuda.h) and the max and min kernels; sum and mean
 *  (and prod) are in reduce_sum.cu, all, any and count_nonzero in reduce_logical.cu (the
 *  kernels: reduce_kernels.cuh).
 */
#include "reduce_kernels.cuh"

namespace mxffi {
namespace cuda {

size_t ReduceScratchBytes(const op::ReducePlan& plan) {
  const Schedule s = MakeSchedule(plan);
  // The widest accumulator: complex128 (two doubles).
  constexpr size_t kAccBytes = 2 * sizeof(double);
  return s.parts > 1 ? static_cast<size_t>(plan.out_size * s.parts) * kAccBytes : 0;
}

void Reduce(ReduceOpCode op, const DLTensor& in, const DLTensor& out, const op::ReducePlan& plan,
            void* scratch, const char* fname, void* stream) {
  if (plan.out_size == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (op) {
    case ReduceOpCode::kSum:
      return ReduceSum(false, in, out, plan, scratch, fname, s);
    case ReduceOpCode::kMean:
      return ReduceSum(true, in, out, plan, scratch, fname, s);
    case ReduceOpCode::kMax:
      return Dispatch<MaxOp, false>(in, out, plan, scratch, fname, s);
    case ReduceOpCode::kMin:
      return Dispatch<MinOp, false>(in, out, plan, scratch, fname, s);
    case ReduceOpCode::kProd:
      return ReduceProd(in, out, plan, scratch, fname, s);
    case ReduceOpCode::kAll:
    case ReduceOpCode::kAny:
    case ReduceOpCode::kCountNonzero:
      return ReduceLogical(op, in, out, plan, scratch, fname, s);
  }
  MXFFI_THROW(ValueError) << fname << ": unknown reduction code " << static_cast<int>(op);
}

}  // namespace cuda
}  // namespace mxffi
