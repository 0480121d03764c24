/*!
 * \file np_complex.cc
 * \brief np.real, np.imag (views of a complex array's parts, as numpy's .real and .imag),
 *  np.conj and np.conjugate (the conjugate ufunc), and np.clip (the array API standard's
 *  clip(x, /, min=None, max=None), numpy 2's maximum then minimum).
 */
#include <mxffi/registry.h>

#include "../op/elemwise/elemwise.h"
#include "../op/init/init_op.h"
#include "api_util.h"
#include "np_ufunc.h"

namespace mxffi {
namespace api {
namespace {

using op::BinaryKind;
using op::UnaryKind;

/*!
 * \return part (0: real, 1: imaginary) of the complex array a as a view of the real dtype of its
 *  parts: the same shape, the element strides doubled, the imaginary part one element on.
 */
NDArray PartView(const NDArray& a, int part) {
  const DLTensor& t = a.tensor();
  const int nd = t.ndim;
  int64_t strides[kMaxNDim];
  int64_t step = 1;
  for (int d = nd - 1; d >= 0; --d) {
    strides[d] = 2 * (t.strides != nullptr ? t.strides[d] : step);
    step *= t.shape[d];
  }
  const DLDataType real{kDLFloat, static_cast<uint8_t>(t.dtype.bits / 2), 1};
  NDArray view = NDArray::View(a, t.shape, strides, nd, part * (t.dtype.bits / 16));
  // The view was made with a's dtype and doubled strides; its elements are the parts. The view is
  // new and not yet shared: its dtype is set once here, before anyone reads it.
  const_cast<NDArrayObj*>(view.get())->tensor.dtype = real;
  return view;
}

NDArray RealOrImag(const NDArrayLike& x, int part, const char* fname) {
  NDArray a = OwnedArray(x);
  const DLTensor& t = a.tensor();
  MXFFI_CHECK(a.stype() == StorageType::kDefault, TypeError)
      << fname << ": expected a dense array, got storage type " << StorageTypeName(a.stype());
  if (t.dtype.code == kDLComplex) return PartView(a, part);
  if (part == 0) return a;  // numpy: the real part of a real array is the array
  // numpy: the imaginary part of a real array is zeros of its dtype.
  static const Op* zeros = Op::Get("_zeros");
  op::InitParam p;
  p.shape = TShape(t.shape, t.ndim);
  p.dtype = t.dtype;
  return InvokeOp(zeros, p, {}, t.device);
}

/*! \return a C-contiguous copy of a (the _copy op). */
NDArray CopyOf(const NDArray& a) {
  static const Op* copy = Op::Get("_copy");
  OpAttrs attrs;
  attrs.op = copy;
  return Invoke(attrs, Span<const NDArray>(&a, 1));
}

NDArray ClipAPI(ArrayOrScalar* x, Optional<ArrayOrScalar>* lo, Optional<ArrayOrScalar>* hi,
                const Optional<WritableArray>& out) {
  static const BinaryOps max_ops{Op::Get("_npi_maximum"), Op::Get("_npi_maximum_scalar"),
                                 Op::Get("_npi_rmaximum_scalar")};
  static const BinaryOps min_ops{Op::Get("_npi_minimum"), Op::Get("_npi_minimum_scalar"),
                                 Op::Get("_npi_rminimum_scalar")};
  static const Op* positive = Op::Get("_npi_positive");
  if (x->is_array()) {
    const DLDataType dt = x->array()->tensor().dtype;
    MXFFI_CHECK(dt.code != kDLComplex, TypeError)
        << "np.clip: unsupported dtype " << DataTypeToString(dt)
        << " (complex numbers have no order)";
  }
  const bool has_lo = lo->has_value(), has_hi = hi->has_value();
  Optional<WritableArray> none;
  if (!has_lo && !has_hi) {
    // numpy 2: no bounds is x unchanged, as a new array (or written into out).
    if (x->is_array() && x->array()->tensor().dtype.code == kDLBool && !out.has_value()) {
      return CopyOf(x->array());
    }
    return UnaryAPI(UnaryKind::kPositive, positive, x, out, DTypeLike());
  }
  if (has_lo && has_hi) {
    ArrayOrScalar l = lo->value(), h = hi->value();
    ArrayOrScalar low(
        NDArrayLike(BinaryAPI(BinaryKind::kMaximum, max_ops, x, &l, none, DTypeLike()), false));
    return BinaryAPI(BinaryKind::kMinimum, min_ops, &low, &h, out, DTypeLike());
  }
  if (has_lo) {
    ArrayOrScalar l = lo->value();
    return BinaryAPI(BinaryKind::kMaximum, max_ops, x, &l, out, DTypeLike());
  }
  ArrayOrScalar h = hi->value();
  return BinaryAPI(BinaryKind::kMinimum, min_ops, x, &h, out, DTypeLike());
}

}  // namespace

MXFFI_REGISTER_API("np.real")
    .describe(
        "The real part of x: for a complex array a view of its real parts in the real dtype of "
        "the parts (numpy's x.real: writing it writes x), for a real array x itself.")
    .arg("x")
    .positional_only()
    .set_body_typed([](NDArrayLike x) { return RealOrImag(x, 0, "np.real"); });

MXFFI_REGISTER_API("np.imag")
    .describe(
        "The imaginary part of x: for a complex array a view of its imaginary parts in the real "
        "dtype of the parts (numpy's x.imag), for a real array a new array of zeros of its dtype.")
    .arg("x")
    .positional_only()
    .set_body_typed([](NDArrayLike x) { return RealOrImag(x, 1, "np.imag"); });

MXFFI_NP_UNARY("conjugate", UnaryKind::kConjugate, "_npi_conjugate",
               "The complex conjugate, elementwise (real dtypes: a copy; bools give int8).");
MXFFI_NP_UNARY("conj", UnaryKind::kConjugate, "_npi_conjugate",
               "The complex conjugate, elementwise (np.conjugate).");

MXFFI_REGISTER_API("np.clip")
    .describe(
        "x limited to [min, max], elementwise: numpy's maximum(x, min) then minimum(.., max) "
        "(NaN propagates from x and from the bounds; a bound of None is no bound; neither: a "
        "copy of x). Python number bounds are weak (NEP 50), so the result keeps x's dtype; "
        "array bounds promote with it. out= is an mxffi array to write into. Complex x is a "
        "TypeError.")
    .arg("x")
    .positional_only()
    .arg("min", nullptr)
    .arg("max", nullptr)
    .keyword_only()
    .arg("out", nullptr)
    .set_body_typed([](ArrayOrScalar x, Optional<ArrayOrScalar> lo, Optional<ArrayOrScalar> hi,
                       Optional<WritableArray> out) { return ClipAPI(&x, &lo, &hi, out); });

}  // namespace api
}  // namespace mxffi
