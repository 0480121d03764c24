/*!
 * \file reduce_cuda.h
 * \brief Launchers of the reduction CUDA kernels (reduce.cu): sum, mean, max and min over any
 *  set of axes of a strided device array. Plain functions of DLTensors and plain values, for
 *  host-compiled callers.
 */
#ifndef MXFFI_SRC_OP_REDUCE_REDUCE_CUDA_H_
#define MXFFI_SRC_OP_REDUCE_REDUCE_CUDA_H_

#include <mxffi/ndarray/dlpack_compat.h>

#include <cstddef>
#include <cstdint>

namespace mxffi {
namespace cuda {

/*! \brief The reductions. */
enum class ReduceOpCode : int { kSum, kMean, kMax, kMin };

/*! \brief Most dimensions of a reduction layout (kMaxNDim). */
constexpr int kReduceMaxDims = 32;

/*!
 * \brief The input's kept dimensions (in output order) and reduced ones, with their element
 *  strides, as src/op/reduce's ReducePlan lays them out; red_size 0 for an empty input.
 */
struct ReduceLayout {
  int nk = 0, nr = 0;
  int64_t kept_shape[kReduceMaxDims], kept_stride[kReduceMaxDims];
  int64_t red_shape[kReduceMaxDims], red_stride[kReduceMaxDims];
  int64_t out_size = 1, red_size = 1;
};

/*! \return the bytes of device scratch Reduce needs for layout (0 when it needs none). */
size_t ReduceScratchBytes(const ReduceLayout& layout);

/*!
 * \brief out = op over the reduced dimensions of in, on stream. in's dtype and out's are the
 *  same, or out's is the op's natural result dtype of in's (sum: int64/uint64 for narrower
 *  integers and bools; mean: float64 for integers and bools). scratch holds
 *  ReduceScratchBytes(layout) bytes of device memory.
 * \throws RuntimeError naming fname for another pair of dtypes or a failed launch.
 */
void Reduce(ReduceOpCode op, const DLTensor& in, const DLTensor& out, const ReduceLayout& layout,
            void* scratch, const char* fname, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_REDUCE_REDUCE_CUDA_H_
