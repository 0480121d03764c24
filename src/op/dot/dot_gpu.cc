/*!
 * \file dot_gpu.cc
 * \brief _tensordot and _matmul on a CUDA device: the operands become device GEMM operands
 *  without copying, as dot_op.cc makes them for the CPU GEMM, and src/ndarray/cuda/blas.cc runs the product
 *  (cuBLAS for floats, the tiled kernel for integers and bool). A batched matmul is one
 *  product over all its batches.
 */
#include <mxffi/op/op.h>

#include <algorithm>

#include "../../ndarray/cuda/blas.h"
#include "dot_op.h"

namespace mxffi {
namespace op {
namespace {

void StridesOf(const DLTensor& t, int64_t* strides) {
  int64_t s = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    strides[i] = t.strides ? t.strides[i] : s;
    s *= t.shape[i];
  }
}

const char* DataOf(const DLTensor& t) { return static_cast<const char*>(t.data) + t.byte_offset; }

void TensordotComputeGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                         Span<const OpReqType>, Span<const DLTensor> out) {
  const TensordotParam& p = attrs.get<TensordotParam>();
  const DLTensor &x = in[0], &y = in[1];
  TShape xs(x.shape, x.ndim), ys(y.shape, y.ndim), xa, ya;
  TensordotShape(xs, ys, p.a_axes, p.b_axes, "np.tensordot", &xa, &ya);
  int64_t xst[kMaxNDim], yst[kMaxNDim];
  StridesOf(x, xst);
  StridesOf(y, yst);
  // a: rows over its free axes, columns over the summed ones in the order given; b: rows over
  // the summed axes in the same order, columns over its free axes (dot_op.cc's layout).
  cuda::DeviceGemmOperand a, b;
  a.data = DataOf(x);
  a.dtype = x.dtype;
  b.data = DataOf(y);
  b.dtype = y.dtype;
  uint64_t xmask = 0, ymask = 0;
  for (int i = 0; i < xa.ndim(); ++i) {
    xmask |= uint64_t{1} << xa[i];
    ymask |= uint64_t{1} << ya[i];
    a.col[a.ncol++] = cuda::GemmAxis{x.shape[xa[i]], xst[xa[i]]};
    b.row[b.nrow++] = cuda::GemmAxis{y.shape[ya[i]], yst[ya[i]]};
  }
  for (int i = 0; i < x.ndim; ++i) {
    if (!(xmask >> i & 1)) a.row[a.nrow++] = cuda::GemmAxis{x.shape[i], xst[i]};
  }
  for (int i = 0; i < y.ndim; ++i) {
    if (!(ymask >> i & 1)) b.col[b.ncol++] = cuda::GemmAxis{y.shape[i], yst[i]};
  }
  cuda::DeviceGemm(a, b, 0, nullptr, out[0].dtype,
                   static_cast<char*>(out[0].data) + out[0].byte_offset, ctx.device, ctx.stream,
                   "np.tensordot");
}

void MatmulComputeGPU(const OpAttrs&, const OpContext& ctx, Span<const DLTensor> in,
                      Span<const OpReqType>, Span<const DLTensor> out) {
  const DLTensor &x = in[0], &y = in[1], &z = out[0];
  int64_t xst[kMaxNDim], yst[kMaxNDim];
  StridesOf(x, xst);
  StridesOf(y, yst);
  // The core of each operand; a 1-D one is a single row (a) or column (b).
  const bool x1 = x.ndim == 1, y1 = y.ndim == 1;
  const int64_t n = x1 ? 1 : x.shape[x.ndim - 2], k = x.shape[x.ndim - 1];
  const int64_t m = y1 ? 1 : y.shape[y.ndim - 1];
  cuda::DeviceGemmOperand a, b;
  a.data = DataOf(x);
  a.dtype = x.dtype;
  b.data = DataOf(y);
  b.dtype = y.dtype;
  a.nrow = a.ncol = b.nrow = b.ncol = 1;
  a.row[0] = cuda::GemmAxis{n, x1 ? 0 : xst[x.ndim - 2]};
  a.col[0] = cuda::GemmAxis{k, xst[x.ndim - 1]};
  b.row[0] = cuda::GemmAxis{k, y1 ? yst[0] : yst[y.ndim - 2]};
  b.col[0] = cuda::GemmAxis{m, y1 ? 0 : yst[y.ndim - 1]};
  // Batch axes of the output, and each operand's stride along them (0 where it broadcasts).
  const int xb = std::max(x.ndim - 2, 0), yb = std::max(y.ndim - 2, 0);
  const int nb = std::max(xb, yb);
  int64_t bshape[kMaxNDim];
  for (int i = 0; i < nb; ++i) {
    const int ix = i - (nb - xb), iy = i - (nb - yb);
    const int64_t dx = ix >= 0 ? x.shape[ix] : 1, dy = iy >= 0 ? y.shape[iy] : 1;
    bshape[i] = dx == 1 ? dy : dx;
    a.batch_stride[i] = dx == 1 ? 0 : xst[ix];
    b.batch_stride[i] = dy == 1 ? 0 : yst[iy];
  }
  cuda::DeviceGemm(a, b, nb, bshape, z.dtype, static_cast<char*>(z.data) + z.byte_offset,
                   ctx.device, ctx.stream, "np.matmul");
}

}  // namespace

MXFFI_EXTEND_OP(_tensordot).set_attr<FCompute>("FCompute<gpu>", TensordotComputeGPU);
MXFFI_EXTEND_OP(_matmul).set_attr<FCompute>("FCompute<gpu>", MatmulComputeGPU);

}  // namespace op
}  // namespace mxffi
