/*!
 * \file init_gpu.cc
 * \brief FCompute<gpu> of _zeros, _ones, _full, _arange, _copy and _cast (src/op/init): the
 *  kernels of init_op.h, written once for both devices, with a CUDA device's pieces (the kernels
 *  of init.cu and, for _cast, ../elemwise/elemwise_unary.cu) in the op's stream.
 *
 * Fill values are converted to the output's dtype here, by the CPU kernel's own conversion, so
 * both devices store the same bits.
 */
#include <mxffi/op/op.h>

#include <cmath>
#include <cstring>

#include "../dtype.h"
#include "../elemwise/broadcast.h"
#include "../elemwise/elemwise_cuda.h"
#include "init_cuda.h"
#include "init_op.h"

namespace mxffi {
namespace op {

void Fill(gpu, const OpContext& ctx, const DLTensor& t, double value, const char* fname) {
  // The bits of value stored as t's dtype, as the CPU's Fill converts it (0 for +0.0).
  uint64_t bits = 0;
  if (!(value == 0.0 && !std::signbit(value))) {
    MXFFI_TYPE_SWITCH(t.dtype, fname, DType, {
      const DType v = static_cast<DType>(value);
      std::memcpy(&bits, &v, sizeof(DType));
    });
  }
  cuda::Fill(t, bits, fname, ctx.stream);
}

void Arange(gpu, const OpContext& ctx, const DLTensor& out, double start, double step,
            const char* fname) {
  cuda::Arange(out, start, step, fname, ctx.stream);
}

void Copy(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, const char* fname) {
  cuda::CopyToContiguous(x, out, fname, ctx.stream);
}

void Cast(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, const char* fname) {
  if (NumElements(out) == 0) return;
  const DLTensor* ins[1] = {&x};
  const elemwise::StridedLoop<2> loop(out, ins);
  cuda::ElemInput in;
  in.data = DataPtr<const char>(x);
  in.dtype = x.dtype;
  cuda::UnaryElemwise(elemwise::IdentityOp{}, in, loop, out, fname, ctx.stream);
}

MXFFI_EXTEND_OP(_zeros).set_attr<FCompute>("FCompute<gpu>", FillCompute<gpu, 0>);
MXFFI_EXTEND_OP(_ones).set_attr<FCompute>("FCompute<gpu>", FillCompute<gpu, 1>);
MXFFI_EXTEND_OP(_full).set_attr<FCompute>("FCompute<gpu>", FullCompute<gpu>);
MXFFI_EXTEND_OP(_arange).set_attr<FCompute>("FCompute<gpu>", ArangeCompute<gpu>);
MXFFI_EXTEND_OP(_copy).set_attr<FCompute>("FCompute<gpu>", CopyCompute<gpu>);
MXFFI_EXTEND_OP(_cast).set_attr<FCompute>("FCompute<gpu>", CastCompute<gpu>);

}  // namespace op
}  // namespace mxffi
