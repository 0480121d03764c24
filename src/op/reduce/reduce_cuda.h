/*!
 * \file reduce_cuda.h
 * \brief Launchers of the reduction CUDA kernels (reduce.cu, reduce_sum.cu, reduce_logical.cu,
 *  reduce_arg.cu, reduce_var.cu): sum, mean, prod, max, min, all, any, count_nonzero, var and
 *  std over any set of axes, argmax and argmin over one axis or all, of a strided device array.
 * Plain functions of DLTensors and plain values, for host-compiled callers.
 */
#ifndef MXFFI_SRC_OP_REDUCE_REDUCE_CUDA_H_
#define MXFFI_SRC_OP_REDUCE_REDUCE_CUDA_H_

#include <mxffi/ndarray/dlpack_compat.h>

#include <cstddef>
#include <cstdint>

#include "reduce_plan.h"

namespace mxffi {
namespace cuda {

/*! \brief The reductions. */
enum class ReduceOpCode : int { kSum, kMean, kMax, kMin, kAll, kAny, kProd, kCountNonzero };

/*! \return the bytes of device scratch Reduce needs for plan (0 when it needs none). */
size_t ReduceScratchBytes(const op::ReducePlan& plan);

/*!
 * \brief out = op over the reduced dimensions of in (laid out by plan, the CPU kernel's
 *  MakeReducePlan), on stream. in's dtype and out's are the same, or out's is the op's natural
 *  result dtype of in's (sum: int64/uint64 for narrower integers and bools; mean: float64 for
 *  integers and bools; prod as sum; all, any: bool, count_nonzero: int64 for every dtype). scratch
 * holds ReduceScratchBytes(plan) bytes of device memory.
 * \throws RuntimeError naming fname for another pair of dtypes or a failed launch.
 */
void Reduce(ReduceOpCode op, const DLTensor& in, const DLTensor& out, const op::ReducePlan& plan,
            void* scratch, const char* fname, void* stream);

/*!
 * \brief out (int64) = the index of the first largest (kmax) or smallest element of in over
 *  the reduced dimensions of plan (made with keep_order: C order), the first NaN where there
 *  is one, on stream. Every reduced extent is nonzero.
 * \throws RuntimeError naming fname for a failed launch.
 */
void ArgReduce(bool kmax, const DLTensor& in, const DLTensor& out, const op::ReducePlan& plan,
               const char* fname, void* stream);

/*!
 * \brief out = the variance (std_dev: the standard deviation) of in over the reduced dimensions
 *  of plan, dividing by max(count - correction, 0), on stream; out is float64 for integer and
 *  bool inputs, in's dtype otherwise (reduce_var.cu).
 * \throws RuntimeError naming fname for a failed launch.
 */
void VarReduce(bool std_dev, const DLTensor& in, const DLTensor& out, const op::ReducePlan& plan,
               double correction, const char* fname, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_REDUCE_REDUCE_CUDA_H_
