/*!
 * \file reduce_gpu.cc
 * \brief FCompute<gpu> of _sum, _mean, _prod, _max, _min, _all, _any, _count_nonzero, _argmax,
 *  _argmin, _var and _std (src/op/reduce): the CPU kernel's
 * plan (MakeReducePlan) and dtype rules, run by reduce.cu on the op's stream.
 *
 * As on the CPU, a result dtype other than the input's or the op's natural one (sum and mean's
 * dtype=) reduces a converted copy of the input: numpy converts each element to dtype before
 * it accumulates.
 */
#include <mxffi/op/op.h>

#include <algorithm>

#include "../dtype.h"
#include "../elemwise/broadcast.h"
#include "../elemwise/elemwise_cuda.h"
#include "reduce_cuda.h"
#include "reduce_op.h"

namespace mxffi {
namespace op {
namespace {

/*! \return x converted to dtype in a new C-contiguous device array (the _cast kernel). */
NDArray ConvertOnDevice(const OpContext& ctx, const DLTensor& x, DLDataType dtype,
                        const char* fname) {
  NDArray c = NDArray::Empty(x.shape, x.ndim, dtype, ctx.device);
  const DLTensor& ct = c.tensor();
  if (std::any_of(x.shape, x.shape + x.ndim, [](int64_t d) { return d == 0; })) return c;
  const DLTensor* ins[1] = {&x};
  const elemwise::StridedLoop<2> loop(ct, ins);
  cuda::ElemInput in;
  in.data = DataPtr<const char>(x);
  in.dtype = x.dtype;
  cuda::UnaryElemwise(elemwise::IdentityOp{}, in, loop, ct, fname, ctx.stream);
  return c;
}

template <cuda::ReduceOpCode kCode>
FCompute MakeGpuCompute(const char* fname) {
  return [fname](const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                 Span<const OpReqType>, Span<const DLTensor> out) {
    constexpr bool kMean = kCode == cuda::ReduceOpCode::kMean;
    constexpr bool kSumLike =
        kCode == cuda::ReduceOpCode::kSum || kMean || kCode == cuda::ReduceOpCode::kProd;
    const DLTensor& x = in[0];
    const DLTensor& y = out[0];
    const ReduceParam& param = attrs.get<ReduceParam>();
    const uint64_t mask = ReduceAxesMask(param.axis, x.ndim, fname);
    if (NumElements(y) == 0) return;
    const DLDataType natural =
        kMean ? MeanType(x.dtype, DTypeParam()) : SumType(x.dtype, DTypeParam());
    const bool direct = SameDType(x.dtype, y.dtype) || SameDType(natural, y.dtype) || !kSumLike;
    NDArray converted;
    if (!direct) converted = ConvertOnDevice(ctx, x, y.dtype, fname);
    const DLTensor& src = direct ? x : converted.tensor();
    const ReducePlan plan = MakeReducePlan(src, mask);
    NDArray scratch;
    if (const size_t bytes = cuda::ReduceScratchBytes(plan)) {
      const int64_t n = static_cast<int64_t>(bytes);
      scratch = NDArray::Empty(&n, 1, DLDataType{kDLUInt, 8, 1}, ctx.device);
    }
    cuda::Reduce(kCode, src, y, plan, scratch.defined() ? scratch.data() : nullptr, fname,
                 ctx.stream);
  };
}

template <bool kMax>
FCompute MakeGpuArgCompute(const char* fname) {
  return [fname](const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                 Span<const OpReqType>, Span<const DLTensor> out) {
    const DLTensor& x = in[0];
    const DLTensor& y = out[0];
    const uint64_t mask = ReduceAxesMask(attrs.get<ReduceParam>().axis, x.ndim, fname);
    if (NumElements(y) == 0) return;
    cuda::ArgReduce(kMax, x, y, MakeReducePlan(x, mask, /*keep_order=*/true), fname, ctx.stream);
  };
}

template <bool kStd>
FCompute MakeGpuVarCompute(const char* fname) {
  return [fname](const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                 Span<const OpReqType>, Span<const DLTensor> out) {
    const DLTensor& x = in[0];
    const DLTensor& y = out[0];
    const VarParam& param = attrs.get<VarParam>();
    const uint64_t mask = ReduceAxesMask(param.axis, x.ndim, fname);
    if (NumElements(y) == 0) return;
    cuda::VarReduce(kStd, x, y, MakeReducePlan(x, mask), param.correction, fname, ctx.stream);
  };
}

}  // namespace

MXFFI_EXTEND_OP(_sum).set_attr<FCompute>("FCompute<gpu>",
                                         MakeGpuCompute<cuda::ReduceOpCode::kSum>("np.sum"));
MXFFI_EXTEND_OP(_mean).set_attr<FCompute>("FCompute<gpu>",
                                          MakeGpuCompute<cuda::ReduceOpCode::kMean>("np.mean"));
MXFFI_EXTEND_OP(_max).set_attr<FCompute>("FCompute<gpu>",
                                         MakeGpuCompute<cuda::ReduceOpCode::kMax>("np.max"));
MXFFI_EXTEND_OP(_min).set_attr<FCompute>("FCompute<gpu>",
                                         MakeGpuCompute<cuda::ReduceOpCode::kMin>("np.min"));
MXFFI_EXTEND_OP(_all).set_attr<FCompute>("FCompute<gpu>",
                                         MakeGpuCompute<cuda::ReduceOpCode::kAll>("np.all"));
MXFFI_EXTEND_OP(_any).set_attr<FCompute>("FCompute<gpu>",
                                         MakeGpuCompute<cuda::ReduceOpCode::kAny>("np.any"));
MXFFI_EXTEND_OP(_prod).set_attr<FCompute>("FCompute<gpu>",
                                          MakeGpuCompute<cuda::ReduceOpCode::kProd>("np.prod"));
MXFFI_EXTEND_OP(_count_nonzero)
    .set_attr<FCompute>("FCompute<gpu>",
                        MakeGpuCompute<cuda::ReduceOpCode::kCountNonzero>("np.count_nonzero"));
MXFFI_EXTEND_OP(_argmax).set_attr<FCompute>("FCompute<gpu>", MakeGpuArgCompute<true>("np.argmax"));
MXFFI_EXTEND_OP(_argmin).set_attr<FCompute>("FCompute<gpu>", MakeGpuArgCompute<false>("np.argmin"));

MXFFI_EXTEND_OP(_var).set_attr<FCompute>("FCompute<gpu>", MakeGpuVarCompute<false>("np.var"));
MXFFI_EXTEND_OP(_std).set_attr<FCompute>("FCompute<gpu>", MakeGpuVarCompute<true>("np.std"));

}  // namespace op
}  // namespace mxffi
