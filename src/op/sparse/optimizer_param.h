/*!
 * \file optimizer_param.h
 * \brief Parameters of sgd_mom_update, ftrl_update and adagrad_update (MXNet's names and
 *  defaults), the ops behind mxffi.nd.sparse's functions of the same names.
 */
#ifndef MXFFI_SRC_OP_SPARSE_OPTIMIZER_PARAM_H_
#define MXFFI_SRC_OP_SPARSE_OPTIMIZER_PARAM_H_

#include <mxffi/op/op.h>
#include <mxffi/op/param.h>

namespace mxffi {
namespace op {

/*! \brief sgd_mom_update's hyper-parameters. */
struct SGDMomParam : public dmlc::Parameter<SGDMomParam> {
  double lr;
  double momentum;
  double wd;
  double rescale_grad;
  double clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(SGDMomParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(momentum).set_default(0.0).describe("Decay of the momentum.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0).describe("Weight decay (L2 coefficient).");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0).describe("Factor applied to the gradient.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0)
        .describe("Clip the rescaled gradient to [-c, c]; a negative value turns clipping off.");
    DMLC_DECLARE_FIELD(lazy_update)
        .set_default(true)
        .describe("With a row_sparse gradient, update only the rows it stores.");
  }
};

/*! \brief ftrl_update's hyper-parameters. */
struct FtrlParam : public dmlc::Parameter<FtrlParam> {
  double lr;
  double lamda1;
  double beta;
  double wd;
  double rescale_grad;
  double clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(FtrlParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(lamda1).set_default(0.01).describe("L1 regularisation coefficient.");
    DMLC_DECLARE_FIELD(beta).set_default(1.0).describe("Per-coordinate learning rate offset.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0).describe("Weight decay (L2 coefficient).");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0).describe("Factor applied to the gradient.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0)
        .describe("Clip the rescaled gradient to [-c, c]; a negative value turns clipping off.");
    DMLC_DECLARE_FIELD(lazy_update)
        .set_default(true)
        .describe("With a row_sparse gradient, update only the rows it stores.");
  }
};

/*! \brief adagrad_update's hyper-parameters. */
struct AdagradParam : public dmlc::Parameter<AdagradParam> {
  double lr;
  double epsilon;
  double wd;
  double rescale_grad;
  double clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(AdagradParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-7).describe("Added to history under the sqrt.");
    DMLC_DECLARE_FIELD(wd).set_default(0.0).describe("Weight decay (L2 coefficient).");
    DMLC_DECLARE_FIELD(rescale_grad).set_default(1.0).describe("Factor applied to the gradient.");
    DMLC_DECLARE_FIELD(clip_gradient)
        .set_default(-1.0)
        .describe("Clip the rescaled gradient to [-c, c]; a negative value turns clipping off.");
    DMLC_DECLARE_FIELD(lazy_update)
        .set_default(true)
        .describe("With a row_sparse gradient, update only the rows it stores.");
  }
};

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_OPTIMIZER_PARAM_H_
