/*!
 * \file np_reduce.cc
 * \brief np.sum, np.mean, np.prod, np.max, np.min, np.all, np.any, np.count_nonzero, np.argmax,
 *  np.argmin: numpy's reductions over an axis, a tuple
 * of axes or all of them, into a new array or into out= (an mxffi array of the result's shape,
 * which may overlap a; the result is converted to its dtype unsafely, as numpy does).
 */
#include <mxffi/registry.h>

#include "../op/reduce/reduce_op.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

using op::ReduceParam;

/*!
 * \brief axis as the reduce op's parameter. Range and duplicates are checked by the op, so
 *  ops.invoke gets the same errors.
 */
dmlc::optional<TShape> AxisParam(const AxisLike& axis, int ndim) {
  if (axis.is_none()) return dmlc::optional<TShape>();
  // numpy lets an int axis of 0 or -1 name "all axes" of a 0-d array; a tuple may not.
  if (axis.is_int() && ndim == 0 && (axis.axis() == 0 || axis.axis() == -1)) {
    return dmlc::optional<TShape>(TShape());
  }
  if (axis.is_int()) return dmlc::optional<TShape>(TShape{axis.axis()});
  return dmlc::optional<TShape>(axis.tuple());
}

NDArray Reduce(const Op* op, const NDArray& x, const AxisLike& axis, const DTypeLike& dtype,
               bool keepdims, const Optional<WritableArray>& out, const char* fname) {
  ReduceParam p;
  p.axis = AxisParam(axis, x.tensor().ndim);
  p.keepdims = keepdims;
  if (dtype.has_value()) p.dtype = DTypeParam(dtype.value());
  if (!out.has_value()) return InvokeOp(op, p, {x});
  // numpy converts a reduction's result into out= unsafely (np.sum(floats, out=int_array)).
  OpAttrs attrs;
  attrs.op = op;
  attrs.param = &p;
  return InvokeIntoOut(attrs, Span<const NDArray>(&x, 1), out->array(), false, fname);
}

/*! \brief argmax and argmin take None or one int axis (numpy: a TypeError for a tuple). */
void CheckOneAxis(const AxisLike& axis, const char* fname) {
  MXFFI_CHECK(axis.is_none() || axis.is_int(), TypeError)
      << fname << ": argument #1 'axis' expected None or an int, got the sequence "
      << axis.tuple().ToString();
}

}  // namespace

MXFFI_REGISTER_API("np.sum")
    .describe(
        "Sum of the elements over axis (None: all). bool and signed integers sum as int64, "
        "unsigned ones as uint64, floats in their own dtype; dtype= overrides. out= is an mxffi "
        "array of the result's shape (converted unsafely, as numpy; it may overlap a).")
    .arg("a")
    .arg("axis", nullptr)
    .arg("dtype", nullptr)
    .arg("keepdims", false)
    .arg("out", nullptr)
    .set_body_typed([](NDArrayLike a, AxisLike axis, DTypeLike dtype, bool keepdims,
                       Optional<WritableArray> out) {
      static const Op* op = Op::Get("_sum");
      return Reduce(op, a, axis, dtype, keepdims, out, "np.sum");
    });

MXFFI_REGISTER_API("np.mean")
    .describe(
        "Arithmetic mean over axis (None: all). bool and integers average as float64, floats "
        "in their own dtype (float16 accumulating in float32); dtype= overrides. out= as in "
        "np.sum.")
    .arg("a")
    .arg("axis", nullptr)
    .arg("dtype", nullptr)
    .arg("keepdims", false)
    .arg("out", nullptr)
    .set_body_typed([](NDArrayLike a, AxisLike axis, DTypeLike dtype, bool keepdims,
                       Optional<WritableArray> out) {
      static const Op* op = Op::Get("_mean");
      return Reduce(op, a, axis, dtype, keepdims, out, "np.mean");
    });

MXFFI_REGISTER_API("np.prod")
    .describe(
        "Product of the elements over axis (None: all). bool and signed integers multiply as "
        "int64, unsigned ones as uint64 (wrapping), floats in their own dtype; dtype= overrides; "
        "the product of nothing is 1. out= as in np.sum.")
    .arg("a")
    .arg("axis", nullptr)
    .arg("dtype", nullptr)
    .arg("keepdims", false)
    .arg("out", nullptr)
    .set_body_typed([](NDArrayLike a, AxisLike axis, DTypeLike dtype, bool keepdims,
                       Optional<WritableArray> out) {
      static const Op* op = Op::Get("_prod");
      return Reduce(op, a, axis, dtype, keepdims, out, "np.prod");
    });

/*!
 * \brief np.<Name>(a, axis=None, keepdims=False, out=None): the reduction op OpName in the
 *  input's own result dtype (no dtype= argument).
 */
#define MXFFI_NP_REDUCE(Name, OpName, Doc)                                               \
  MXFFI_REGISTER_API("np." Name)                                                         \
      .describe(Doc)                                                                     \
      .arg("a")                                                                          \
      .arg("axis", nullptr)                                                              \
      .arg("keepdims", false)                                                            \
      .arg("out", nullptr)                                                               \
      .set_body_typed(                                                                   \
          [](NDArrayLike a, AxisLike axis, bool keepdims, Optional<WritableArray> out) { \
            static const Op* op = Op::Get(OpName);                                       \
            return Reduce(op, a, axis, DTypeLike(), keepdims, out, "np." Name);          \
          })

MXFFI_NP_REDUCE("max", "_max",
                "Maximum over axis (None: all); NaN propagates. ValueError for an empty "
                "reduction. out= as in np.sum.");
MXFFI_NP_REDUCE("min", "_min",
                "Minimum over axis (None: all); NaN propagates. ValueError for an empty "
                "reduction. out= as in np.sum.");
MXFFI_NP_REDUCE("all", "_all",
                "Whether every element over axis (None: all) is nonzero: a bool array. Any dtype "
                "is read as x != 0 (NaN is true); all of nothing is True. out= as in np.sum.");
MXFFI_NP_REDUCE("any", "_any",
                "Whether any element over axis (None: all) is nonzero: a bool array. Any dtype is "
                "read as x != 0 (NaN is true); any of nothing is False. out= as in np.sum.");
#undef MXFFI_NP_REDUCE

MXFFI_REGISTER_API("np.count_nonzero")
    .describe(
        "The number of nonzero elements over axis (None: all) as int64; NaN counts, -0.0 does "
        "not.")
    .arg("a")
    .arg("axis", nullptr)
    .arg("keepdims", false)
    .set_body_typed([](NDArrayLike a, AxisLike axis, bool keepdims) {
      static const Op* op = Op::Get("_count_nonzero");
      return Reduce(op, a, axis, DTypeLike(), keepdims, Optional<WritableArray>(),
                    "np.count_nonzero");
    });

MXFFI_REGISTER_API("np.argmax")
    .describe(
        "Index (int64) of the largest element over axis; None: the index into the flattened "
        "array (C order). The first occurrence wins, and the first NaN where there is one. "
        "ValueError for an empty reduction. out= as in np.sum.")
    .arg("a")
    .arg("axis", nullptr)
    .arg("out", nullptr)
    .arg("keepdims", false)
    .set_body_typed([](NDArrayLike a, AxisLike axis, Optional<WritableArray> out, bool keepdims) {
      static const Op* op = Op::Get("_argmax");
      CheckOneAxis(axis, "np.argmax");
      return Reduce(op, a, axis, DTypeLike(), keepdims, out, "np.argmax");
    });

MXFFI_REGISTER_API("np.argmin")
    .describe(
        "Index (int64) of the smallest element over axis; None: the index into the flattened "
        "array (C order). The first occurrence wins, and the first NaN where there is one. "
        "ValueError for an empty reduction. out= as in np.sum.")
    .arg("a")
    .arg("axis", nullptr)
    .arg("out", nullptr)
    .arg("keepdims", false)
    .set_body_typed([](NDArrayLike a, AxisLike axis, Optional<WritableArray> out, bool keepdims) {
      static const Op* op = Op::Get("_argmin");
      CheckOneAxis(axis, "np.argmin");
      return Reduce(op, a, axis, DTypeLike(), keepdims, out, "np.argmin");
    });

namespace {

/*! \brief np.var and np.std: ddof is numpy's name of the array API's correction. */
NDArray Variance(const char* opname, const NDArray& a, const AxisLike& axis,
                 const Optional<WritableArray>& out, Optional<double> ddof, bool keepdims,
                 Optional<double> correction, const char* fname) {
  MXFFI_CHECK(!(ddof.has_value() && correction.has_value()), ValueError)
      << fname
      << ": ddof and correction are one argument and cannot both be given; got ddof=" << *ddof
      << " and correction=" << *correction;
  op::VarParam p;
  p.axis = AxisParam(axis, a.tensor().ndim);
  p.keepdims = keepdims;
  p.correction = ddof.has_value() ? *ddof : correction.value_or(0.0);
  const Op* op = Op::Get(opname);
  if (!out.has_value()) return InvokeOp(op, p, {a});
  OpAttrs attrs;
  attrs.op = op;
  attrs.param = &p;
  return InvokeIntoOut(attrs, Span<const NDArray>(&a, 1), out->array(), false, fname);
}

}  // namespace

MXFFI_REGISTER_API("np.var")
    .describe(
        "Variance over axis (None: all): the mean of the squared deviations from the mean, "
        "dividing by the count less correction (numpy's ddof; give one of the two). bool and "
        "integers compute in float64, floats in their own dtype (float16 and bfloat16 in "
        "float32); two passes with pairwise sums, as numpy. out= as in np.sum.")
    .arg("a")
    .arg("axis", nullptr)
    .arg("out", nullptr)
    .arg("ddof", nullptr)
    .arg("keepdims", false)
    .arg("correction", nullptr)
    .set_body_typed([](NDArrayLike a, AxisLike axis, Optional<WritableArray> out,
                       Optional<double> ddof, bool keepdims, Optional<double> correction) {
      return Variance("_var", a, axis, out, ddof, keepdims, correction, "np.var");
    });

MXFFI_REGISTER_API("np.std")
    .describe(
        "Standard deviation over axis (None: all): the square root of np.var, with its "
        "correction (ddof) and dtypes. out= as in np.sum.")
    .arg("a")
    .arg("axis", nullptr)
    .arg("out", nullptr)
    .arg("ddof", nullptr)
    .arg("keepdims", false)
    .arg("correction", nullptr)
    .set_body_typed([](NDArrayLike a, AxisLike axis, Optional<WritableArray> out,
                       Optional<double> ddof, bool keepdims, Optional<double> correction) {
      return Variance("_std", a, axis, out, ddof, keepdims, correction, "np.std");
    });

}  // namespace api
}  // namespace mxffi
