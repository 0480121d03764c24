/*!
 * \file reduce_logical.cu
 * \brief The all, any and count_nonzero kernels of the reductions (reduce_kernels.cuh): every
 *  input dtype read as x != 0 into a bool (int64) result, apart from the other reductions so
 *  they compile in parallel.
 */
#include "reduce_kernels.cuh"

namespace mxffi {
namespace cuda {

void ReduceLogical(ReduceOpCode op, const DLTensor& in, const DLTensor& out,
                   const op::ReducePlan& plan, void* scratch, const char* fname,
                   cudaStream_t stream) {
  if (op == ReduceOpCode::kAll) {
    DispatchTo<AllOp, bool>(in, out, plan, scratch, fname, stream);
  } else if (op == ReduceOpCode::kAny) {
    DispatchTo<AnyOp, bool>(in, out, plan, scratch, fname, stream);
  } else {
    DispatchTo<CountOp, int64_t>(in, out, plan, scratch, fname, stream);
  }
}

}  // namespace cuda
}  // namespace mxffi
