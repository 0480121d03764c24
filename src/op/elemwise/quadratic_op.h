/*!
 * \file quadratic_op.h
 * \brief The `quadratic` op, a*x**2 + b*x + c elementwise: its parameters and dense pieces,
 *  shared with the layers that extend the op (the sparse one adds storage-aware kernels).
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_QUADRATIC_OP_H_
#define MXFFI_SRC_OP_ELEMWISE_QUADRATIC_OP_H_

#include <mxffi/op/param.h>

namespace mxffi {
namespace op {

/*! \brief The coefficients of a*x**2 + b*x + c. */
struct QuadraticParam : public dmlc::Parameter<QuadraticParam> {
  double a;
  double b;
  double c;
  DMLC_DECLARE_PARAMETER(QuadraticParam) {
    DMLC_DECLARE_FIELD(a).set_default(0.0).describe("Coefficient of the quadratic term.");
    DMLC_DECLARE_FIELD(b).set_default(0.0).describe("Coefficient of the linear term.");
    DMLC_DECLARE_FIELD(c).set_default(0.0).describe("Constant term.");
  }
};

/*!
 * \brief The output dtype: a float input keeps its dtype, an integer or bool input gives
 *  float64 (what numpy gives for a*x**2 + b*x + c with float coefficients).
 */
void QuadraticType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out);

/*!
 * \brief The dense kernel: out = a*x*x + b*x + c, computed in the output dtype (float32 for
 *  float16 and bfloat16, rounded once); the input may be strided.
 */
void QuadraticCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                      Span<const OpReqType> req, Span<const DLTensor> out);

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_ELEMWISE_QUADRATIC_OP_H_
