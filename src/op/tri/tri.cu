/*!
 * \file tri.cu
 * \brief The CUDA kernel of tril and triu: one thread per output element, the input read through
 *  its strides, instantiated per element size (the elements move as bits).
 */
#include "op/cuda_kernel.cuh"
#include "op/elemwise/strided_loop.h"
#include "tri_cuda.h"

namespace mxffi {
namespace cuda {
namespace {

using op::tri::TriMask;

template <typename U>
__global__ void TriKernel(StridedIndex<1> idx, const U* __restrict__ src, U* __restrict__ dst,
                          TriMask mask, int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[1];
    idx.Offsets(i, off);
    dst[i] = mask.Keep(i) ? src[off[0]] : op::tri::Zero<U>();
  }
}

template <typename U>
void Launch(const StridedIndex<1>& idx, const DLTensor& x, const DLTensor& out, TriMask mask,
            int64_t n, cudaStream_t stream) {
  TriKernel<U>
      <<<Blocks(n), kThreads, 0, stream>>>(idx, DataPtr<const U>(x), DataPtr<U>(out), mask, n);
}

}  // namespace

void Tri(const DLTensor& x, const DLTensor& out, TriMask mask, const char* fname, void* stream) {
  const int64_t n = NumElements(out);
  if (n == 0) return;
  // The input's strides along the output's merged dimensions (the output is C-contiguous, so
  // its flat index is i).
  const DLTensor* ins[1] = {&x};
  const op::elemwise::StridedLoop<2> loop(out, ins);
  StridedIndex<1> idx;
  idx.ndim = loop.ndim;
  for (int d = 0; d < loop.ndim; ++d) {
    idx.shape[d] = loop.shape[d];
    idx.stride[0][d] = loop.stride[1][d];
  }
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch ((x.dtype.bits * x.dtype.lanes + 7) / 8) {
    case 1:
      Launch<uint8_t>(idx, x, out, mask, n, s);
      break;
    case 2:
      Launch<uint16_t>(idx, x, out, mask, n, s);
      break;
    case 4:
      Launch<uint32_t>(idx, x, out, mask, n, s);
      break;
    case 8:
      Launch<uint64_t>(idx, x, out, mask, n, s);
      break;
    case 16:
      Launch<op::tri::Bytes16>(idx, x, out, mask, n, s);
      break;
    default:
      MXFFI_THROW(TypeError) << fname << ": unsupported element size "
                             << (x.dtype.bits * x.dtype.lanes + 7) / 8;
  }
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace cuda
}  // namespace mxffi
