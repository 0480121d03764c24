/*!
 * \file reduce_sum.cu
 * \brief The sum, mean and prod kernels of the reductions (reduce_kernels.cuh), apart from max
 *  and min (reduce.cu) so the two compile in parallel.
 */
#include "reduce_kernels.cuh"

namespace mxffi {
namespace cuda {

void ReduceSum(bool mean, const DLTensor& in, const DLTensor& out, const op::ReducePlan& plan,
               void* scratch, const char* fname, cudaStream_t stream) {
  if (mean) {
    Dispatch<SumOp, true>(in, out, plan, scratch, fname, stream);
  } else {
    Dispatch<SumOp, false>(in, out, plan, scratch, fname, stream);
  }
}

void ReduceProd(const DLTensor& in, const DLTensor& out, const op::ReducePlan& plan, void* scratch,
                const char* fname, cudaStream_t stream) {
  Dispatch<ProdOp, false>(in, out, plan, scratch, fname, stream);
}

}  // namespace cuda
}  // namespace mxffi
