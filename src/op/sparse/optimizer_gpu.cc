/*!
 * \file optimizer_gpu.cc
 * \brief The GPU kernels of sgd_update, adam_update, sgd_mom_update, ftrl_update and
 *  adagrad_update, beside optimizer_op.cc's CPU ones: the
 *  dense step (FCompute<gpu>) and the step for a row_sparse gradient (FComputeEx<gpu>), which
 *  with lazy_update touches only the rows the gradient stores. As on the CPU, the new weight
 *  (and Adam's mean and var) are written into the op's outputs, which the caller makes the
 *  inputs themselves for an update in place.
 */
#include <mxffi/op/op.h>

#include <vector>

#include "binary_sparse_cuda.h"
#include "optimizer_cuda.h"
#include "optimizer_param.h"
#include "sparse_misc_op.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

cuda::SGDHyper Hyper(const SGDParam& p) {
  return cuda::SGDHyper{p.lr, p.wd, p.rescale_grad, p.clip_gradient};
}

cuda::AdamHyper Hyper(const AdamParam& p) {
  return cuda::AdamHyper{p.lr, p.beta1, p.beta2, p.epsilon, p.wd, p.rescale_grad, p.clip_gradient};
}

cuda::SGDMomHyper Hyper(const SGDMomParam& p) {
  return cuda::SGDMomHyper{p.lr, p.momentum, p.wd, p.rescale_grad, p.clip_gradient};
}

cuda::FtrlHyper Hyper(const FtrlParam& p) {
  return cuda::FtrlHyper{p.lr, p.lamda1, p.beta, p.wd, p.rescale_grad, p.clip_gradient};
}

cuda::AdagradHyper Hyper(const AdagradParam& p) {
  return cuda::AdagradHyper{p.lr, p.epsilon, p.wd, p.rescale_grad, p.clip_gradient};
}

/*!
 * \brief Where the row_sparse step writes the new values of state `in`: out itself (after
 *  copying in there unless they are the same array) when out is C-contiguous, else a contiguous
 *  copy of in that Finish copies into out.
 */
NDArray Work(const NDArray& in, const NDArray& out, const OpContext& ctx) {
  const DLTensor& t = in.tensor();
  if (out.IsContiguous()) {
    if (!out.same_as(in)) cuda::CopyConvert(t, out.tensor(), ctx.stream);
    return out;
  }
  NDArray work = NDArray::Empty(t.shape, t.ndim, t.dtype, ctx.device);
  cuda::CopyConvert(t, work.tensor(), ctx.stream);
  return work;
}

void Finish(const NDArray& work, const NDArray& out, const OpContext& ctx) {
  if (!work.same_as(out)) cuda::CopyConvert(work.tensor(), out.tensor(), ctx.stream);
}

void CheckGrad(const NDArray& grad, const char* fname) {
  MXFFI_CHECK(grad.storage_initialized(), ValueError)
      << fname << ": the row_sparse gradient's storage is not initialised";
}

void SGDDenseGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                 Span<const OpReqType>, Span<const DLTensor> out) {
  cuda::SGDDense(Hyper(attrs.get<SGDParam>()), in[0], in[1], out[0], ctx.stream);
}

void AdamDenseGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                  Span<const OpReqType>, Span<const DLTensor> out) {
  cuda::AdamDense(Hyper(attrs.get<AdamParam>()), in[0], in[1], in[2], in[3], out[0], out[1], out[2],
                  ctx.stream);
}

void SGDRowSparseGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                     Span<const OpReqType>, Span<const NDArray> out) {
  const SGDParam& p = attrs.get<SGDParam>();
  CheckGrad(in[1], "sgd_update");
  NDArray w = Work(in[0], out[0], ctx);
  cuda::SGDRows(Hyper(p), p.lazy_update, w.tensor(), in[1].sparse_data().tensor(),
                in[1].sparse_indices().tensor(), ctx.stream);
  Finish(w, out[0], ctx);
}

void AdamRowSparseGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                      Span<const OpReqType>, Span<const NDArray> out) {
  const AdamParam& p = attrs.get<AdamParam>();
  CheckGrad(in[1], "adam_update");
  NDArray w = Work(in[0], out[0], ctx), m = Work(in[2], out[1], ctx), v = Work(in[3], out[2], ctx);
  cuda::AdamRows(Hyper(p), p.lazy_update, w.tensor(), m.tensor(), v.tensor(),
                 in[1].sparse_data().tensor(), in[1].sparse_indices().tensor(), ctx.stream);
  Finish(w, out[0], ctx);
  Finish(m, out[1], ctx);
  Finish(v, out[2], ctx);
}

/*! \brief The dense and row_sparse GPU kernels of an op with state arrays (in[2...]). */
template <typename Param, typename H,
          void (*Dense)(const H&, const DLTensor&, const DLTensor&, const DLTensor*,
                        const DLTensor&, const DLTensor*, void*),
          void (*Rows)(const H&, bool, const DLTensor&, const DLTensor*, const DLTensor&,
                       const DLTensor&, void*)>
struct StateGPU {
  static void DenseFn(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                      Span<const OpReqType>, Span<const DLTensor> out) {
    DLTensor s[2], s_out[2];
    for (size_t j = 0; j + 2 < in.size(); ++j) {
      s[j] = in[2 + j];
      s_out[j] = out[1 + j];
    }
    Dense(Hyper(attrs.get<Param>()), in[0], in[1], s, out[0], s_out, ctx.stream);
  }
  static void RowsFn(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                     Span<const OpReqType>, Span<const NDArray> out) {
    const Param& p = attrs.get<Param>();
    CheckGrad(in[1], attrs.op->name.c_str());
    NDArray w = Work(in[0], out[0], ctx);
    std::vector<NDArray> st;
    DLTensor s[2];
    for (size_t j = 0; j + 2 < in.size(); ++j) {
      st.push_back(Work(in[2 + j], out[1 + j], ctx));
      s[j] = st[j].tensor();
    }
    Rows(Hyper(p), p.lazy_update, w.tensor(), s, in[1].sparse_data().tensor(),
         in[1].sparse_indices().tensor(), ctx.stream);
    Finish(w, out[0], ctx);
    for (size_t j = 0; j < st.size(); ++j) Finish(st[j], out[1 + j], ctx);
  }
};

using MomGPU = StateGPU<SGDMomParam, cuda::SGDMomHyper, cuda::SGDMomDense, cuda::SGDMomRows>;
using FtrlGPU = StateGPU<FtrlParam, cuda::FtrlHyper, cuda::FtrlDense, cuda::FtrlRows>;
using AdagradGPU =
    StateGPU<AdagradParam, cuda::AdagradHyper, cuda::AdagradDense, cuda::AdagradRows>;

}  // namespace

MXFFI_EXTEND_OP(sgd_update)
    .set_attr<FCompute>("FCompute<gpu>", SGDDenseGPU)
    .set_attr<FComputeEx>("FComputeEx<gpu>", SGDRowSparseGPU);

MXFFI_EXTEND_OP(adam_update)
    .set_attr<FCompute>("FCompute<gpu>", AdamDenseGPU)
    .set_attr<FComputeEx>("FComputeEx<gpu>", AdamRowSparseGPU);

MXFFI_EXTEND_OP(sgd_mom_update)
    .set_attr<FCompute>("FCompute<gpu>", MomGPU::DenseFn)
    .set_attr<FComputeEx>("FComputeEx<gpu>", MomGPU::RowsFn);

MXFFI_EXTEND_OP(ftrl_update)
    .set_attr<FCompute>("FCompute<gpu>", FtrlGPU::DenseFn)
    .set_attr<FComputeEx>("FComputeEx<gpu>", FtrlGPU::RowsFn);

MXFFI_EXTEND_OP(adagrad_update)
    .set_attr<FCompute>("FCompute<gpu>", AdagradGPU::DenseFn)
    .set_attr<FComputeEx>("FComputeEx<gpu>", AdagradGPU::RowsFn);

}  // namespace op
}  // namespace mxffi
