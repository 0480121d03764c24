/*!
 * \file elemwise_binary.cu
 * \brief The CUDA kernels of the binary elementwise ops (elemwise_kernels.cuh), one
 *  instantiation per functor of functors.h, and the integer power's exponent check.
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

template <typename OP>
void BinaryElemwise(const ElemInput& a, const ElemInput& b, const StridedLoop<3>& loop,
                    const DLTensor& out, const char* fname, void* stream) {
  LaunchBinary<OP>(a, b, loop, out, fname, static_cast<cudaStream_t>(stream));
}

#define MXFFI_INSTANTIATE_BINARY(OP)                                                     \
  template void BinaryElemwise<op::elemwise::OP>(const ElemInput&, const ElemInput&,     \
                                                 const StridedLoop<3>&, const DLTensor&, \
                                                 const char*, void*)
MXFFI_INSTANTIATE_BINARY(AddOp);
MXFFI_INSTANTIATE_BINARY(SubtractOp);
MXFFI_INSTANTIATE_BINARY(MultiplyOp);
MXFFI_INSTANTIATE_BINARY(DivideOp);
MXFFI_INSTANTIATE_BINARY(PowerOp);
MXFFI_INSTANTIATE_BINARY(MaximumOp);
MXFFI_INSTANTIATE_BINARY(MinimumOp);

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
