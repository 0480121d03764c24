/*!
 * \file np_reduce.cc
 * \brief np.sum, np.mean, np.max, np.min: numpy's reductions over an axis, a tuple of axes or
 *  all of them.
 */
#include <mxffi/registry.h>

#include "../op/reduce/reduce_op.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

using op::ReduceParam;

/*!
 * \brief Read axis (None, an int, or a sequence of ints) for an ndim-dimensional input.
 *  Range and duplicates are checked by the op, so ops.invoke gets the same errors.
 */
dmlc::optional<TShape> AxisArg(const AnyView& v, int ndim, const char* fname) {
  switch (v.type_index()) {
    case kMXFFINone:
      return dmlc::optional<TShape>();
    case kMXFFIInt: {
      int64_t a = v.raw()->v_int64;
      // numpy lets an int axis of 0 or -1 name "all axes" of a 0-d array; a tuple may not.
      if (ndim == 0 && (a == 0 || a == -1)) return dmlc::optional<TShape>(TShape());
      return dmlc::optional<TShape>(TShape{a});
    }
    case kMXFFIArray: {
      Array<Any> items = v.cast<Array<Any>>();
      MXFFI_CHECK(items.size() <= kMaxNDim, ValueError)
          << fname << ": axis has " << items.size() << " entries; at most " << kMaxNDim;
      TShape axes;
      for (int64_t i = 0; i < items.size(); ++i) {
        Any item = items[i];
        MXFFI_CHECK(item.type_index() == kMXFFIInt, TypeError)
            << fname << ": axis[" << i << "] expected an int, got " << item.GetTypeName();
        axes.push_back(item.raw()->v_int64);
      }
      return dmlc::optional<TShape>(axes);
    }
    case kMXFFIShape: {
      TShape axes;
      ShapeArg(v, fname, &axes, false);
      return dmlc::optional<TShape>(axes);
    }
    default:
      MXFFI_THROW(TypeError) << fname << ": axis expected None, an int or a tuple of ints, got "
                             << v.GetTypeName();
  }
  __builtin_unreachable();
}

NDArray Reduce(const char* fname, const Op* op, const AnyView& a, const AnyView& axis,
               const AnyView& dtype, bool keepdims) {
  NDArray x = ArrayArg(a, fname, "a");
  ReduceParam p;
  p.axis = AxisArg(axis, x.tensor().ndim, fname);
  p.keepdims = keepdims;
  if (!dtype.is_none()) p.dtype = DTypeParam(DTypeArg(dtype, fname, kFloat64));
  return InvokeOp(op, p, {x});
}

}  // namespace

MXFFI_REGISTER_API("np.sum")
    .describe(
        "Sum of the elements over axis (None: all). bool and signed integers sum as int64, "
        "unsigned ones as uint64, floats in their own dtype; dtype= overrides.")
    .arg("a")
    .arg("axis", nullptr)
    .arg("dtype", nullptr)
    .arg("keepdims", false)
    .set_body_typed([](AnyView a, AnyView axis, AnyView dtype, bool keepdims) {
      static const Op* op = Op::Get("_sum");
      return Reduce("np.sum", op, a, axis, dtype, keepdims);
    });

MXFFI_REGISTER_API("np.mean")
    .describe(
        "Arithmetic mean over axis (None: all). bool and integers average as float64, floats "
        "in their own dtype (float16 accumulating in float32); dtype= overrides.")
    .arg("a")
    .arg("axis", nullptr)
    .arg("dtype", nullptr)
    .arg("keepdims", false)
    .set_body_typed([](AnyView a, AnyView axis, AnyView dtype, bool keepdims) {
      static const Op* op = Op::Get("_mean");
      return Reduce("np.mean", op, a, axis, dtype, keepdims);
    });

MXFFI_REGISTER_API("np.max")
    .describe("Maximum over axis (None: all); NaN propagates. ValueError for an empty reduction.")
    .arg("a")
    .arg("axis", nullptr)
    .arg("keepdims", false)
    .set_body_typed([](AnyView a, AnyView axis, bool keepdims) {
      static const Op* op = Op::Get("_max");
      return Reduce("np.max", op, a, axis, AnyView(), keepdims);
    });

MXFFI_REGISTER_API("np.min")
    .describe("Minimum over axis (None: all); NaN propagates. ValueError for an empty reduction.")
    .arg("a")
    .arg("axis", nullptr)
    .arg("keepdims", false)
    .set_body_typed([](AnyView a, AnyView axis, bool keepdims) {
      static const Op* op = Op::Get("_min");
      return Reduce("np.min", op, a, axis, AnyView(), keepdims);
    });

}  // namespace api
}  // namespace mxffi
