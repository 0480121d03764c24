/*!
 * \file init_gpu.cc
 * \brief FCompute<gpu> of _zeros, _ones, _full, _arange, _copy and _cast (src/op/init), launching
 *  the kernels of init.cu and ../elemwise/elemwise_unary.cu on the op's stream.
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
namespace {

/*! \return the bits of value stored as dtype, as the CPU's Fill converts it (0 for +0.0). */
uint64_t FillBits(DLDataType dtype, double value, const char* name) {
  if (value == 0.0 && !std::signbit(value)) return 0;
  uint64_t bits = 0;
  MXFFI_TYPE_SWITCH(dtype, name, DType, {
    const DType v = static_cast<DType>(value);
    std::memcpy(&bits, &v, sizeof(DType));
  });
  return bits;
}

void ZerosGpu(const OpAttrs&, const OpContext& ctx, Span<const DLTensor>, Span<const OpReqType>,
              Span<const DLTensor> out) {
  cuda::Fill(out[0], 0, "zeros", ctx.stream);
}

void OnesGpu(const OpAttrs&, const OpContext& ctx, Span<const DLTensor>, Span<const OpReqType>,
             Span<const DLTensor> out) {
  cuda::Fill(out[0], FillBits(out[0].dtype, 1.0, "ones"), "ones", ctx.stream);
}

void FullGpu(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor>,
             Span<const OpReqType>, Span<const DLTensor> out) {
  const double value = attrs.get<InitParam>().value;
  cuda::Fill(out[0], FillBits(out[0].dtype, value, "full"), "full", ctx.stream);
}

void ArangeGpu(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor>,
               Span<const OpReqType>, Span<const DLTensor> out) {
  const ArangeParam& p = attrs.get<ArangeParam>();
  cuda::Arange(out[0], p.start, p.step, "arange", ctx.stream);
}

void CopyGpu(const OpAttrs&, const OpContext& ctx, Span<const DLTensor> in, Span<const OpReqType>,
             Span<const DLTensor> out) {
  cuda::CopyToContiguous(in[0], out[0], "copy", ctx.stream);
}

void CastGpu(const OpAttrs&, const OpContext& ctx, Span<const DLTensor> in, Span<const OpReqType>,
             Span<const DLTensor> out) {
  if (SameDType(in[0].dtype, out[0].dtype)) {
    cuda::CopyToContiguous(in[0], out[0], "astype", ctx.stream);
    return;
  }
  if (NumElements(out[0]) == 0) return;
  const DLTensor* ins[1] = {&in[0]};
  const elemwise::StridedLoop<2> loop(out[0], ins);
  cuda::ElemInput x;
  x.data = DataPtr<const char>(in[0]);
  x.dtype = in[0].dtype;
  cuda::UnaryElemwise(elemwise::IdentityOp{}, x, loop, out[0], "astype", ctx.stream);
}

}  // namespace

MXFFI_EXTEND_OP(_zeros).set_attr<FCompute>("FCompute<gpu>", ZerosGpu);
MXFFI_EXTEND_OP(_ones).set_attr<FCompute>("FCompute<gpu>", OnesGpu);
MXFFI_EXTEND_OP(_full).set_attr<FCompute>("FCompute<gpu>", FullGpu);
MXFFI_EXTEND_OP(_arange).set_attr<FCompute>("FCompute<gpu>", ArangeGpu);
MXFFI_EXTEND_OP(_copy).set_attr<FCompute>("FCompute<gpu>", CopyGpu);
MXFFI_EXTEND_OP(_cast).set_attr<FCompute>("FCompute<gpu>", CastGpu);

}  // namespace op
}  // namespace mxffi
