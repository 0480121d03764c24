/*!
 * \file where.cu
 * \brief The CUDA kernel of np.where: one thread per output element, the three inputs read
 *  through their strides (0 along broadcast dimensions), instantiated per element size (the
 *  elements move as bits).
 */
#include "op/cuda_kernel.cuh"
#include "op/elemwise/strided_loop.h"
#include "where_cuda.h"
#include "where_functors.h"

namespace mxffi {
namespace cuda {
namespace {

template <typename U>
__global__ void WhereKernel(StridedIndex<3> idx, const uint8_t* __restrict__ c,
                            const U* __restrict__ x, const U* __restrict__ y, U* __restrict__ out,
                            int64_t n) {
  MXFFI_CUDA_LOOP(i, n) {
    int64_t off[3];
    idx.Offsets(i, off);
    out[i] = op::where::Select(c[off[0]], x[off[1]], y[off[2]]);
  }
}

template <typename U>
void Launch(const StridedIndex<3>& idx, const DLTensor& c, const DLTensor& x, const DLTensor& y,
            const DLTensor& out, int64_t n, cudaStream_t stream) {
  WhereKernel<U><<<Blocks(n), kThreads, 0, stream>>>(
      idx, DataPtr<const uint8_t>(c), DataPtr<const U>(x), DataPtr<const U>(y), DataPtr<U>(out), n);
}

}  // namespace

void Where(const DLTensor& c, const DLTensor& x, const DLTensor& y, const DLTensor& out,
           const char* fname, void* stream) {
  const int64_t n = NumElements(out);
  if (n == 0) return;
  // The inputs' strides along the output's merged dimensions (the output is C-contiguous, so
  // its flat index is i).
  const DLTensor* ins[3] = {&c, &x, &y};
  const op::elemwise::StridedLoop<4> loop(out, ins);
  StridedIndex<3> idx;
  idx.ndim = loop.ndim;
  for (int d = 0; d < loop.ndim; ++d) {
    idx.shape[d] = loop.shape[d];
    for (int k = 0; k < 3; ++k) idx.stride[k][d] = loop.stride[k + 1][d];
  }
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int bytes = (x.dtype.bits * x.dtype.lanes + 7) / 8;
  switch (bytes) {
    case 1:
      Launch<uint8_t>(idx, c, x, y, out, n, s);
      break;
    case 2:
      Launch<uint16_t>(idx, c, x, y, out, n, s);
      break;
    case 4:
      Launch<uint32_t>(idx, c, x, y, out, n, s);
      break;
    case 8:
      Launch<uint64_t>(idx, c, x, y, out, n, s);
      break;
    case 16:
      Launch<op::where::Bytes16>(idx, c, x, y, out, n, s);
      break;
    default:
      MXFFI_THROW(TypeError) << fname << ": unsupported element size " << bytes;
  }
  MXFFI_CUDA_CHECK_LAUNCH(fname);
}

}  // namespace cuda
}  // namespace mxffi
