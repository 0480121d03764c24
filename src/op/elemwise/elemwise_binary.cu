/*!
 * \file elemwise_binary.cu
 * \brief The CUDA kernels of the arithmetic binary ops (Group Arith of binary_ops.def: add,
 *  subtract, ..., minimum; elemwise_kernels.cuh), one instantiation per op, and the integer
 *  power's exponent check. The other groups are instantiated in elemwise_binary_int.cu and
 *  elemwise_binary_bool.cu, so that no one file compiles every kernel.
 */
#include "elemwise_kernels.cuh"

namespace mxffi {
namespace cuda {
namespace {

using op::elemwise::StridedLoop;

template <typename I>
__global__ void AnyNegativeKernel(StridedIndex<1> idx, const I* __restrict__ x, int64_t n,
                                  int* flag) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[1];
    InputOffsets(idx, i, off);
    if (x[off[0]] < 0) *flag = 1;
  }
}

}  // namespace

#define MXFFI_BINARY_GROUP_Arith(Functor) MXFFI_INSTANTIATE_BINARY_ELEMWISE(Functor)
#define MXFFI_BINARY_GROUP_Int(Functor)
#define MXFFI_BINARY_GROUP_Bool(Functor)
#define MXFFI_BINARY_OP(Kind, Stem, Name, Functor, Side, Group, Doc) \
  MXFFI_BINARY_GROUP_##Group(Functor)
#include "binary_ops.def"

bool AnyNegative(const ElemInput& x, const StridedLoop<2>& loop, int64_t n, int* flag,
                 const char* fname, void* stream) {
  if (n == 0 || x.dtype.code != kDLInt) return false;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  MXFFI_CUDA_CALL(fname, cudaMemsetAsync(flag, 0, sizeof(int), s));
  const StridedIndex<1> idx = MakeIndex<1>(loop);
  switch (x.dtype.bits) {
    case 8:
      AnyNegativeKernel<<<Blocks(n), kThreads, 0, s>>>(idx, static_cast<const int8_t*>(x.data), n,
                                                       flag);
      break;
    case 16:
      AnyNegativeKernel<<<Blocks(n), kThreads, 0, s>>>(idx, static_cast<const int16_t*>(x.data), n,
                                                       flag);
      break;
    case 32:
      AnyNegativeKernel<<<Blocks(n), kThreads, 0, s>>>(idx, static_cast<const int32_t*>(x.data), n,
                                                       flag);
      break;
    case 64:
      AnyNegativeKernel<<<Blocks(n), kThreads, 0, s>>>(idx, static_cast<const int64_t*>(x.data), n,
                                                       flag);
      break;
    default:
      op::ThrowUnsupportedDType(fname, x.dtype);
  }
  MXFFI_CUDA_CHECK_LAUNCH(fname);
  int host = 0;
  MXFFI_CUDA_CALL(fname, cudaMemcpyAsync(&host, flag, sizeof(int), cudaMemcpyDeviceToHost, s));
  MXFFI_CUDA_CALL(fname, cudaStreamSynchronize(s));
  return host != 0;
}

}  // namespace cuda
}  // namespace mxffi
