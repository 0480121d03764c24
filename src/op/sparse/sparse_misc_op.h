/*!
 * \file sparse_misc_op.h
 * \brief Parameters of sparse_retain, slice_rows, add_n, sgd_update and adam_update, the
 *  ops behind mxffi.nd.sparse's functions of the same names.
 */
#ifndef MXFFI_SRC_OP_SPARSE_SPARSE_MISC_OP_H_
#define MXFFI_SRC_OP_SPARSE_SPARSE_MISC_OP_H_

#include <mxffi/op/op.h>
#include <mxffi/op/param.h>

#include <cstdint>

namespace mxffi {
namespace op {

/*! \brief slice_rows: rows [begin, end) of a dense, csr or row_sparse array. */
struct SliceRowsParam : public dmlc::Parameter<SliceRowsParam> {
  int64_t begin;
  int64_t end;
  DMLC_DECLARE_PARAMETER(SliceRowsParam) {
    DMLC_DECLARE_FIELD(begin).describe("First row kept, in [0, rows].");
    DMLC_DECLARE_FIELD(end).describe("One past the last row kept, in [begin, rows].");
  }
};

/*! \brief sgd_update's hyper-parameters (MXNet's names and defaults). */
struct SGDParam : public dmlc::Parameter<SGDParam> {
  double lr;
  double wd;
  double rescale_grad;
  double clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(SGDParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate.");
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

/*! \brief adam_update's hyper-parameters (MXNet's names and defaults). */
struct AdamParam : public dmlc::Parameter<AdamParam> {
  double lr;
  double beta1;
  double beta2;
  double epsilon;
  double wd;
  double rescale_grad;
  double clip_gradient;
  bool lazy_update;
  DMLC_DECLARE_PARAMETER(AdamParam) {
    DMLC_DECLARE_FIELD(lr).describe("Learning rate (bias correction folded in by the caller).");
    DMLC_DECLARE_FIELD(beta1).set_default(0.9).describe("Decay of the first moment.");
    DMLC_DECLARE_FIELD(beta2).set_default(0.999).describe("Decay of the second moment.");
    DMLC_DECLARE_FIELD(epsilon).set_default(1e-8).describe("Added to sqrt(var).");
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

/*! \brief add_n's parameter: how many arrays it sums, which is its number of inputs. */
struct AddNParam : public dmlc::Parameter<AddNParam> {
  int num_args;
  DMLC_DECLARE_PARAMETER(AddNParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe(
        "Number of arrays summed: the op's number of inputs.");
  }
};

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_SPARSE_MISC_OP_H_
