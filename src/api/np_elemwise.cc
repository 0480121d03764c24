/*!
 * \file np_elemwise.cc
 * \brief np.* elementwise functions: add, subtract, multiply, divide, power, maximum, minimum,
 *  floor_divide, remainder (mod), divmod, bitwise_and/or/xor, left_shift and right_shift (with
 *  their array-API names bitwise_left_shift, bitwise_right_shift), the comparisons (equal,
 *  not_equal, less, less_equal, greater, greater_equal), logical_and/or/xor, negative,
 *  positive, absolute (abs), square, sqrt, exp, log, sign, sin, invert (bitwise_invert),
 *  logical_not, quadratic; the shared bodies of every np.* ufunc (np_ufunc.h).
 *
 * Operands are arrays (mxffi or numpy) or Python numbers. A number next to an array is weakly
 * typed (NEP 50) and goes to a `_npi_<op>_scalar` op as a parameter, never as an array, so
 * `x + 1` allocates nothing but the result. `dtype=` picks the dtype the op computes in, as
 * numpy's ufuncs do (inputs cast to it under same_kind rules); `out=` writes into an mxffi
 * array, casting the result to its dtype under same_kind rules and broadcasting to its shape.
 * csr and row_sparse operands go to the ops as they are; the ops dispatch on storage type
 * (src/op/sparse/: sparse kernels where the result stays sparse, else the dense fallback).
 */
#include <mxffi/container/array.h>
#include <mxffi/container/tuple.h>
#include <mxffi/registry.h>

#include <complex>
#include <optional>

#include "../op/dtype.h"
#include "../op/elemwise/broadcast.h"
#include "../op/elemwise/elemwise.h"
#include "../op/elemwise/quadratic_op.h"
#include "../op/init/init_op.h"
#include "../op/sparse/cast_storage.h"
#include "api_util.h"
#include "np_ufunc.h"

namespace mxffi {
namespace api {
namespace {

using op::BinaryKind;
using op::ScalarValue;
using op::UnaryKind;

/*! \brief One operand of a ufunc: an array, or a Python number. */
struct Operand {
  std::optional<NDArray> array;
  ScalarValue scalar;
};

Operand ToOperand(ArrayOrScalar* v) {
  Operand x;
  if (v->is_array()) {
    x.array = v->TakeArray();
    return x;
  }
  const ScalarLike& s = v->scalar();
  x.scalar = s.is_bool()  ? ScalarValue::Bool(s.int_value() != 0)
             : s.is_int() ? ScalarValue::Int(s.int_value())
                          : ScalarValue::Float(s.value());
  return x;
}

/*! \return out= as an mxffi array, or nullopt for None. */
std::optional<NDArray> OutArray(const Optional<WritableArray>& out) {
  if (!out.has_value()) return std::nullopt;
  return out->array();
}

NDArray Cast(const NDArray& a, DLDataType dtype) {
  static const Op* cast = Op::Get("_cast");
  op::CastParam p;
  p.dtype = dtype;
  return InvokeOp(cast, p, {a});
}

/*! \return the number s as a new 0-d array of dtype. */
NDArray ScalarArray(const ScalarValue& s, DLDataType dtype, const char* fname) {
  if (s.kind == op::ScalarKind::kInt) op::CheckIntFits(s.i, dtype, fname);
  NDArray a = NDArray::Empty(nullptr, 0, dtype, DLDevice{kDLCPU, 0});
  MXFFI_TYPE_SWITCH(dtype, fname, T, {
    T* p = op::DataPtr<T>(a.tensor());
    *p = s.kind == op::ScalarKind::kFloat ? op::elemwise::ConvertOne<T, double>(s.f)
                                          : op::elemwise::ConvertOne<T, int64_t>(s.i);
  });
  return a;
}

/*!
 * \brief Prepare input #index for computing in dtype (numpy's dtype=): an array is cast to it
 *  when numpy's same_kind rule allows; a number must be of a kind dtype holds.
 */
void ToLoopDType(Operand* x, DLDataType dtype, const char* fname, int index) {
  DLDataType from = x->array ? x->array->tensor().dtype : x->scalar.DefaultDType();
  bool ok = x->array ? op::CanCastSameKind(from, dtype)
                     : (x->scalar.kind == op::ScalarKind::kBool ||
                        (x->scalar.kind == op::ScalarKind::kInt && dtype.code != kDLBool) ||
                        op::IsFloating(dtype) || dtype.code == kDLComplex);
  MXFFI_CHECK(ok, TypeError) << fname << ": cannot cast input " << index << " from "
                             << DataTypeToString(from) << " to " << DataTypeToString(dtype)
                             << " with casting rule 'same_kind'";
  if (x->array) {
    if (!op::SameDType(from, dtype)) x->array = Cast(*x->array, dtype);
  } else if (x->scalar.kind == op::ScalarKind::kInt) {
    op::CheckIntFits(x->scalar.i, dtype, fname);
  }
}

/*! \return a view of a broadcast to shape (stride 0 along the broadcast dimensions). */
NDArray BroadcastView(const NDArray& a, const TShape& shape) {
  const DLTensor& t = a.tensor();
  int64_t strides[kMaxNDim];
  const int lead = shape.ndim() - t.ndim;
  int64_t compact = 1;
  for (int d = shape.ndim() - 1; d >= 0; --d) {
    if (d < lead) {
      strides[d] = 0;
      continue;
    }
    const int64_t extent = t.shape[d - lead];
    const int64_t st = t.strides != nullptr ? t.strides[d - lead] : compact;
    compact *= extent;
    strides[d] = extent == 1 && shape[d] != 1 ? 0 : st;
  }
  return NDArray::View(a, shape.data(), strides, shape.ndim(), 0);
}

/*!
 * \brief Run the op into out: broadcast the inputs up to out's shape when the result's shape
 *  broadcasts to it, and cast the result to out's dtype when numpy's same_kind rule allows.
 */
NDArray InvokeInto(const OpAttrs& attrs, NDArray* inputs, size_t nin, const TShape& shape,
                   DLDataType dtype, const NDArray& out, const char* fname) {
  const DLTensor& o = out.tensor();
  TShape oshape(o.shape, o.ndim);
  if (oshape != shape) {
    bool fits = shape.ndim() <= oshape.ndim();
    for (int i = 0; fits && i < shape.ndim(); ++i) {
      int64_t d = shape[i], od = oshape[oshape.ndim() - shape.ndim() + i];
      fits = d == od || d == 1;
    }
    MXFFI_CHECK(fits, ValueError) << fname << ": non-broadcastable output operand with shape "
                                  << op::NumpyShapeString(oshape)
                                  << " doesn't match the broadcast shape "
                                  << op::NumpyShapeString(shape);
    for (size_t i = 0; i < nin; ++i) {
      // A sparse array has no dense elements to view: broadcasting takes a dense copy.
      if (inputs[i].is_sparse())
        inputs[i] = op::CastStorage(inputs[i], StorageType::kDefault, fname);
      inputs[i] = BroadcastView(inputs[i], oshape);
    }
  }
  if (op::SameDType(o.dtype, dtype)) {
    NDArray result = out;
    Invoke(attrs, Span<const NDArray>(inputs, nin), Span<NDArray>(&result, 1));
    return out;
  }
  MXFFI_CHECK(op::CanCastSameKind(dtype, o.dtype), TypeError)
      << fname << ": cannot cast the result from " << DataTypeToString(dtype) << " to out's "
      << DataTypeToString(o.dtype) << " with casting rule 'same_kind'";
  NDArray tmp = Invoke(attrs, Span<const NDArray>(inputs, nin));
  static const Op* cast = Op::Get("_cast");
  op::CastParam p;
  p.dtype = o.dtype;
  OpAttrs cast_attrs;
  cast_attrs.op = cast;
  cast_attrs.param = &p;
  NDArray result = out;
  Invoke(cast_attrs, Span<const NDArray>(&tmp, 1), Span<NDArray>(&result, 1));
  return out;
}

}  // namespace

NDArray BinaryAPI(BinaryKind kind, const BinaryOps& ops, ArrayOrScalar* x1, ArrayOrScalar* x2,
                  const Optional<WritableArray>& out_arg, const DTypeLike& dtype_arg) {
  const char* fname = op::BinaryName(kind);
  Operand a = ToOperand(x1);
  Operand b = ToOperand(x2);
  std::optional<NDArray> out = OutArray(out_arg);
  std::optional<DLDataType> dtype;
  if (dtype_arg.has_value() && op::IsBoolResult(kind)) {
    // numpy 2 reads dtype= as the output's dtype: a comparison or logical op has only bool
    // loops, so bool is accepted (and changes nothing) and anything else is refused.
    const DLDataType d = dtype_arg.value();
    MXFFI_CHECK(d.code == kDLBool && d.bits == 8 && d.lanes == 1, TypeError)
        << fname << ": no loop computes a " << DataTypeToString(d) << " result; expected "
        << "dtype=bool or None, got dtype=" << DataTypeToString(d);
  } else if (dtype_arg.has_value()) {
    dtype = dtype_arg.value();
    DLDataType r = op::BinaryResultType(kind, *dtype, *dtype);
    MXFFI_CHECK(op::SameDType(r, *dtype), TypeError)
        << fname << ": no loop computes in dtype=" << DataTypeToString(*dtype) << " (" << fname
        << " of " << DataTypeToString(*dtype) << " inputs gives " << DataTypeToString(r) << ")";
    ToLoopDType(&a, *dtype, fname, 0);
    ToLoopDType(&b, *dtype, fname, 1);
  }
  if (!a.array && !b.array) {
    // Two Python numbers: numpy makes the first an array of its default dtype (bool, int64,
    // float64) and the second stays weak, giving np.add(2, 3) -> int64, (2, 3.0) -> float64.
    a.array = ScalarArray(a.scalar, dtype ? *dtype : a.scalar.DefaultDType(), fname);
  }
  OpAttrs attrs;
  op::BinaryScalarParam param;
  NDArray inputs[2];
  size_t nin = 1;
  TShape shape;
  DLDataType rtype;
  if (a.array && b.array) {
    attrs.op = ops.array;
    inputs[0] = *a.array;
    inputs[1] = *b.array;
    nin = 2;
    if (!out) return Invoke(attrs, Span<const NDArray>(inputs, 2));
    const DLTensor &ta = inputs[0].tensor(), &tb = inputs[1].tensor();
    op::BroadcastShapes(TShape(ta.shape, ta.ndim), TShape(tb.shape, tb.ndim), &shape, fname);
    rtype = op::BinaryResultType(kind, ta.dtype, tb.dtype);
  } else {
    attrs.op = a.array ? ops.scalar : ops.rscalar;
    param.scalar = a.array ? b.scalar : a.scalar;
    attrs.param = &param;
    inputs[0] = a.array ? *a.array : *b.array;
    if (!out) return Invoke(attrs, Span<const NDArray>(inputs, 1));
    const DLTensor& t = inputs[0].tensor();
    shape.assign(t.shape, t.ndim);
    rtype = op::ScalarResultType(kind, t.dtype, param.scalar);
  }
  return InvokeInto(attrs, inputs, nin, shape, rtype, *out, fname);
}

NDArray UnaryAPI(UnaryKind kind, const Op* unary, ArrayOrScalar* x_arg,
                 const Optional<WritableArray>& out_arg, const DTypeLike& dtype_arg) {
  const char* fname = op::UnaryName(kind);
  Operand x = ToOperand(x_arg);
  std::optional<NDArray> out = OutArray(out_arg);
  if (dtype_arg.has_value() && op::IsBoolResult(kind)) {
    // As for the comparisons: logical_not, isnan, isinf, isfinite and signbit have only bool
    // results, so dtype=bool changes nothing (and names no input dtype).
    const DLDataType d = dtype_arg.value();
    MXFFI_CHECK(d.code == kDLBool && d.bits == 8 && d.lanes == 1, TypeError)
        << fname << ": no loop computes a " << DataTypeToString(d) << " result; expected "
        << "dtype=bool or None, got dtype=" << DataTypeToString(d);
    if (!x.array) x.array = ScalarArray(x.scalar, x.scalar.DefaultDType(), fname);
  } else if (dtype_arg.has_value()) {
    DLDataType dtype = dtype_arg.value();
    DLDataType r = op::UnaryResultType(kind, dtype);
    MXFFI_CHECK(op::SameDType(r, dtype), TypeError)
        << fname << ": no loop computes in dtype=" << DataTypeToString(dtype) << " (" << fname
        << " of " << DataTypeToString(dtype) << " gives " << DataTypeToString(r) << ")";
    if (!x.array) x.array = ScalarArray(x.scalar, x.scalar.DefaultDType(), fname);
    ToLoopDType(&x, dtype, fname, 0);
  } else if (!x.array) {
    x.array = ScalarArray(x.scalar, x.scalar.DefaultDType(), fname);
  }
  OpAttrs attrs;
  attrs.op = unary;
  NDArray input = *x.array;
  if (!out) return Invoke(attrs, Span<const NDArray>(&input, 1));
  const DLTensor& t = input.tensor();
  return InvokeInto(attrs, &input, 1, TShape(t.shape, t.ndim), op::UnaryResultType(kind, t.dtype),
                    *out, fname);
}

namespace {

/*!
 * \brief x made an array or a real number: a complex number becomes a 0-d array of the dtype
 *  numpy's weak promotion gives it next to other (an array, a number, or another complex).
 */
ArrayOrScalar* RealOperand(ArrayOrNumber* x, const ArrayOrNumber* other, const char* fname) {
  if (!x->is_complex()) return x->operand();
  DLDataType dtype{kDLComplex, 128, 1};
  DLDevice device{kDLCPU, 0};
  if (other != nullptr && !other->is_complex() && other->operand().is_array()) {
    const DLTensor& t = other->operand().array().array().tensor();
    dtype = op::PromoteWithComplex(t.dtype);
    device = t.device;
  }
  NDArray a = ComplexFull(nullptr, 0, dtype, device, x->complex_value(), fname);
  *x = ArrayOrNumber(ArrayOrScalar(NDArrayLike(std::move(a), false)));
  return x->operand();
}

}  // namespace

NDArray BinaryAPI(BinaryKind kind, const BinaryOps& ops, ArrayOrNumber* x1, ArrayOrNumber* x2,
                  const Optional<WritableArray>& out_arg, const DTypeLike& dtype_arg) {
  if (!x1->is_complex() && !x2->is_complex()) {
    return BinaryAPI(kind, ops, x1->operand(), x2->operand(), out_arg, dtype_arg);
  }
  const char* fname = op::BinaryName(kind);
  ArrayOrScalar* a = RealOperand(x1, x2, fname);
  ArrayOrScalar* b = RealOperand(x2, x1, fname);
  return BinaryAPI(kind, ops, a, b, out_arg, dtype_arg);
}

NDArray UnaryAPI(UnaryKind kind, const Op* unary, ArrayOrNumber* x_arg,
                 const Optional<WritableArray>& out_arg, const DTypeLike& dtype_arg) {
  return UnaryAPI(kind, unary, RealOperand(x_arg, nullptr, op::UnaryName(kind)), out_arg,
                  dtype_arg);
}

MXFFI_NP_BINARY("add", BinaryKind::kAdd, "_npi_add", "_npi_add_scalar", "_npi_add_scalar",
                "x1 + x2, elementwise.");
MXFFI_NP_BINARY("subtract", BinaryKind::kSubtract, "_npi_subtract", "_npi_subtract_scalar",
                "_npi_rsubtract_scalar", "x1 - x2, elementwise.");
MXFFI_NP_BINARY("multiply", BinaryKind::kMultiply, "_npi_multiply", "_npi_multiply_scalar",
                "_npi_multiply_scalar", "x1 * x2, elementwise.");
MXFFI_NP_BINARY("divide", BinaryKind::kDivide, "_npi_true_divide", "_npi_true_divide_scalar",
                "_npi_rtrue_divide_scalar",
                "x1 / x2, elementwise (true division: integers give float64).");
MXFFI_NP_BINARY("power", BinaryKind::kPower, "_npi_power", "_npi_power_scalar",
                "_npi_rpower_scalar", "x1 ** x2, elementwise.");
MXFFI_NP_BINARY("maximum", BinaryKind::kMaximum, "_npi_maximum", "_npi_maximum_scalar",
                "_npi_rmaximum_scalar", "The larger of x1 and x2, elementwise; NaN propagates.");
MXFFI_NP_BINARY("minimum", BinaryKind::kMinimum, "_npi_minimum", "_npi_minimum_scalar",
                "_npi_rminimum_scalar", "The smaller of x1 and x2, elementwise; NaN propagates.");

MXFFI_NP_BINARY_ASYM("floor_divide", BinaryKind::kFloorDivide, "floor_divide",
                     "x1 // x2, elementwise, rounding toward minus infinity.");
MXFFI_NP_BINARY_ASYM("remainder", BinaryKind::kRemainder, "remainder",
                     "x1 % x2, elementwise, with the sign of x2.");
MXFFI_NP_BINARY_ASYM("mod", BinaryKind::kRemainder, "remainder",
                     "x1 % x2, elementwise, with the sign of x2 (np.remainder).");
MXFFI_NP_BINARY_SYM("bitwise_and", BinaryKind::kBitwiseAnd, "bitwise_and",
                    "x1 & x2, elementwise, for integers and bools.");
MXFFI_NP_BINARY_SYM("bitwise_or", BinaryKind::kBitwiseOr, "bitwise_or",
                    "x1 | x2, elementwise, for integers and bools.");
MXFFI_NP_BINARY_SYM("bitwise_xor", BinaryKind::kBitwiseXor, "bitwise_xor",
                    "x1 ^ x2, elementwise, for integers and bools.");
MXFFI_NP_BINARY_ASYM("left_shift", BinaryKind::kLeftShift, "left_shift",
                     "x1 << x2, elementwise, for integers.");
MXFFI_NP_BINARY_ASYM("bitwise_left_shift", BinaryKind::kLeftShift, "left_shift",
                     "x1 << x2, elementwise, for integers (np.left_shift).");
MXFFI_NP_BINARY_ASYM("right_shift", BinaryKind::kRightShift, "right_shift",
                     "x1 >> x2, elementwise, for integers.");
MXFFI_NP_BINARY_ASYM("bitwise_right_shift", BinaryKind::kRightShift, "right_shift",
                     "x1 >> x2, elementwise, for integers (np.right_shift).");
MXFFI_NP_BINARY_SYM("equal", BinaryKind::kEqual, "equal", "x1 == x2, elementwise, as bools.");
MXFFI_NP_BINARY_SYM("not_equal", BinaryKind::kNotEqual, "not_equal",
                    "x1 != x2, elementwise, as bools.");
MXFFI_NP_BINARY_ASYM("less", BinaryKind::kLess, "less", "x1 < x2, elementwise, as bools.");
MXFFI_NP_BINARY_ASYM("less_equal", BinaryKind::kLessEqual, "less_equal",
                     "x1 <= x2, elementwise, as bools.");
MXFFI_NP_BINARY_ASYM("greater", BinaryKind::kGreater, "greater", "x1 > x2, elementwise, as bools.");
MXFFI_NP_BINARY_ASYM("greater_equal", BinaryKind::kGreaterEqual, "greater_equal",
                     "x1 >= x2, elementwise, as bools.");
MXFFI_NP_BINARY_SYM("logical_and", BinaryKind::kLogicalAnd, "logical_and",
                    "x1 and x2, elementwise, as bools.");
MXFFI_NP_BINARY_SYM("logical_or", BinaryKind::kLogicalOr, "logical_or",
                    "x1 or x2, elementwise, as bools.");
MXFFI_NP_BINARY_SYM("logical_xor", BinaryKind::kLogicalXor, "logical_xor",
                    "x1 xor x2, elementwise, as bools.");

MXFFI_REGISTER_API("np.divmod")
    .describe(
        "(x1 // x2, x1 % x2), elementwise: numpy's divmod, a tuple of two arrays (np.floor_divide "
        "and np.remainder of the same operands, with their dtypes and errors).")
    .arg("x1")
    .arg("x2")
    .set_body_typed([](ArrayOrNumber x1, ArrayOrNumber x2) {
      static const BinaryOps fd{Op::Get("_npi_floor_divide"), Op::Get("_npi_floor_divide_scalar"),
                                Op::Get("_npi_rfloor_divide_scalar")};
      static const BinaryOps rem{Op::Get("_npi_remainder"), Op::Get("_npi_remainder_scalar"),
                                 Op::Get("_npi_rremainder_scalar")};
      ArrayOrNumber y1 = x1, y2 = x2;  // BinaryAPI takes its operands' arrays
      NDArray q = BinaryAPI(BinaryKind::kFloorDivide, fd, &x1, &x2, {}, DTypeLike());
      NDArray r = BinaryAPI(BinaryKind::kRemainder, rem, &y1, &y2, {}, DTypeLike());
      return ADT::Tuple({Any(std::move(q)), Any(std::move(r))});
    });

MXFFI_NP_UNARY("negative", UnaryKind::kNegative, "_npi_negative", "-x, elementwise.");
MXFFI_NP_UNARY("absolute", UnaryKind::kAbsolute, "_npi_absolute", "|x|, elementwise.");
MXFFI_NP_UNARY("abs", UnaryKind::kAbsolute, "_npi_absolute", "|x|, elementwise (np.absolute).");
MXFFI_NP_UNARY("square", UnaryKind::kSquare, "_npi_square", "x * x, elementwise.");
MXFFI_NP_UNARY("sqrt", UnaryKind::kSqrt, "_npi_sqrt", "The square root, elementwise.");
MXFFI_NP_UNARY("exp", UnaryKind::kExp, "_npi_exp", "e ** x, elementwise.");
MXFFI_NP_UNARY("log", UnaryKind::kLog, "_npi_log", "The natural logarithm, elementwise.");
MXFFI_NP_UNARY("sign", UnaryKind::kSign, "_npi_sign", "-1, 0 or 1 by the sign of x, elementwise.");
// [np_sin.begin]
MXFFI_NP_UNARY("sin", UnaryKind::kSin, "_npi_sin", "The sine of x (radians), elementwise.");
// [np_sin.end]
MXFFI_NP_UNARY("positive", UnaryKind::kPositive, "_npi_positive", "+x, elementwise (a copy).");
MXFFI_NP_UNARY("invert", UnaryKind::kInvert, "_npi_invert", "~x, elementwise.");
MXFFI_NP_UNARY("bitwise_invert", UnaryKind::kInvert, "_npi_invert", "~x, elementwise (np.invert).");
MXFFI_NP_UNARY("logical_not", UnaryKind::kLogicalNot, "_npi_logical_not",
               "not x, elementwise, as bools.");

NDArray Quadratic(const NDArray& x, double a, double b, double c) {
  static const Op* op = Op::Get("quadratic");
  op::QuadraticParam p;
  p.a = a;
  p.b = b;
  p.c = c;
  return InvokeOp(op, p, {x});
}

MXFFI_REGISTER_API("np.quadratic")
    .describe(
        "a*x**2 + b*x + c, elementwise (the `quadratic` op). A float x keeps its dtype; an "
        "integer or bool x gives float64.")
    .arg("x")
    .arg("a", 0.0)
    .arg("b", 0.0)
    .arg("c", 0.0)
    .set_body_typed([](NDArrayLike x, double a, double b, double c) {
      return Quadratic(x, a, b, c);
    });

}  // namespace api
}  // namespace mxffi
