/*!
 * \file reduce_op.h
 * \brief Parameters and dtype rules of the reductions (_sum, _mean, _prod, _max, _min, _all,
 *  _any, _count_nonzero, _argmax, _argmin), as numpy has them.
 */
#ifndef MXFFI_SRC_OP_REDUCE_REDUCE_OP_H_
#define MXFFI_SRC_OP_REDUCE_REDUCE_OP_H_

#include <dmlc/optional.h>
#include <mxffi/op/param.h>

#include "reduce_plan.h"

namespace mxffi {
namespace op {

// dmlc::optional swaps its raw storage, empty or not, which GCC reports as a read of an
// uninitialised value once it inlines the swap; the bytes of an empty optional are never used.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

/*! \brief The reductions (_sum, _mean, _prod, _max, _min, _all, _any, _count_nonzero, _argmax,
 *  _argmin): which axes, whether to keep them, the result dtype. */
struct ReduceParam : public dmlc::Parameter<ReduceParam> {
  dmlc::optional<TShape> axis;
  bool keepdims;
  DTypeParam dtype;
  DMLC_DECLARE_PARAMETER(ReduceParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<TShape>())
        .describe("Axes to reduce over (negative counts from the end); None means all.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the reduced axes as dimensions of extent 1.");
    DMLC_DECLARE_FIELD(dtype)
        .set_default(DTypeParam())
        .describe("Type to accumulate in and return (_sum, _mean); None follows numpy's rules.");
  }
};

/*! \brief _var and _std: which axes, whether to keep them, the degrees of freedom removed. */
struct VarParam : public dmlc::Parameter<VarParam> {
  dmlc::optional<TShape> axis;
  bool keepdims;
  double correction;
  DMLC_DECLARE_PARAMETER(VarParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<TShape>())
        .describe("Axes to reduce over (negative counts from the end); None means all.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the reduced axes as dimensions of extent 1.");
    DMLC_DECLARE_FIELD(correction)
        .set_default(0.0)
        .describe("Subtracted from the count before dividing (numpy's ddof).");
  }
};

#pragma GCC diagnostic pop

/*!
 * \brief The reduced axes of an ndim-dimensional input as a mask (bit i: axis i reduced).
 * \throws AxisError for an axis outside [-ndim, ndim); ValueError "duplicate value in 'axis'"
 *  for an axis given twice (after normalising).
 */
uint64_t ReduceAxesMask(const dmlc::optional<TShape>& axis, int ndim, const char* fname);

/*! \return the shape of the result: the reduced axes dropped, or kept as 1 with keepdims. */
TShape ReduceOutShape(const TShape& in, uint64_t mask, bool keepdims);

static_assert(kReduceMaxDims == kMaxNDim, "a reduction plan has as many axes as an array");

/*! \return the plan of reducing t over the axes in mask (bit i: axis i), shared by the CPU and
 *  GPU kernels so both lay the loops out alike. With keep_order the reduced axes stay in C
 *  order (not sorted by stride), so a reduced element's position in the plan's reduced
 *  dimensions is its C-order index among them (argmax, argmin). */
ReducePlan MakeReducePlan(const DLTensor& t, uint64_t mask, bool keep_order = false);

/*!
 * \brief numpy's result dtype of np.sum and np.prod: bool and signed integers narrower than int64
 * give int64, unsigned ones uint64, every other dtype its own; dtype overrides.
 */
DLDataType SumType(DLDataType in, const DTypeParam& dtype);

/*!
 * \brief numpy's result dtype of np.mean: bool and integers give float64, floats their own
 *  (float16 accumulating in float32); dtype overrides.
 */
DLDataType MeanType(DLDataType in, const DTypeParam& dtype);

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_REDUCE_REDUCE_OP_H_
