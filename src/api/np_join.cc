/*!
 * \file np_join.cc
 * \brief Joining and splitting arrays: np.concat (numpy's concatenate), np.stack and np.unstack;
 *  and np.diff, whose prepend= and append= join x first.
 *  concat and stack allocate the result once and write each input into its slice of it, a
 *  strided view, with the strided copy of NDArray::CopyFromTo (both devices, any element size,
 *  so complex arrays join too); an input of another dtype than the result's is converted first
 *  by the _cast op. unstack returns views.
 */
#include <mxffi/container/tuple.h>
#include <mxffi/registry.h>

#include <string>
#include <vector>

#include "../op/dtype.h"
#include "../op/elemwise/elemwise.h"
#include "../op/init/init_op.h"
#include "../op/promote.h"
#include "api_util.h"
#include "sparse_select.h"

namespace mxffi {
namespace api {
namespace {

/*! \return numpy's repr of a dtype in a casting message: dtype('float64'). */
std::string DTypeRepr(DLDataType t) { return "dtype('" + DataTypeToString(t) + "')"; }

/*!
 * \brief The inputs of a join checked (at least one, dense unless sparse_ok, on one device) and the
 * dtype of the result: dtype when given (each input castable to it under same_kind, numpy's default
 *  casting), else numpy's result_type over the inputs.
 */
DLDataType JoinDType(const Array<NDArray>& arrays, const DTypeLike& dtype, const char* verb,
                     const char* fname, bool sparse_ok = false) {
  MXFFI_CHECK(arrays.size() > 0, ValueError) << fname << ": need at least one array to " << verb;
  const DLDevice d0 = arrays[0].tensor().device;
  int r = -1;
  for (int64_t i = 0; i < arrays.size(); ++i) {
    const NDArray& a = arrays[i];
    MXFFI_CHECK(sparse_ok || !a.is_sparse(), TypeError)
        << fname << ": arrays[" << i << "] must be a dense array, got storage type "
        << StorageTypeName(a.stype());
    const DLTensor& t = a.tensor();
    MXFFI_CHECK(t.device.device_type == d0.device_type && t.device.device_id == d0.device_id,
                ValueError)
        << fname << ": arrays[" << i << "] is on " << DeviceToString(t.device)
        << " but arrays[0] on " << DeviceToString(d0) << "; all must be on one device";
    const int k = op::DTypeRuleIndex(t.dtype);
    MXFFI_CHECK(k >= 0, TypeError) << fname << ": unsupported dtype " << DataTypeToString(t.dtype)
                                   << " of arrays[" << i << "]";
    if (dtype.has_value()) {
      const int j = op::DTypeRuleIndex(dtype.value());
      MXFFI_CHECK(j >= 0, TypeError)
          << fname << ": unsupported dtype " << DataTypeToString(dtype.value());
      MXFFI_CHECK(op::CanCastIndex(k, j, op::Casting::kSameKind), TypeError)
          << fname << ": Cannot cast array data from " << DTypeRepr(t.dtype) << " to "
          << DTypeRepr(dtype.value()) << " according to the rule 'same_kind'";
      continue;
    }
    if (r < 0) {
      r = k;
      continue;
    }
    const int p = op::PromoteIndex(r, k);
    MXFFI_CHECK(p >= 0, TypeError)
        << fname << ": the dtypes " << DataTypeToString(op::DTypeAt(r)) << " and "
        << DataTypeToString(t.dtype) << " have no common dtype";
    r = p;
  }
  return dtype.has_value() ? dtype.value() : op::DTypeAt(r);
}

/*!
 * \brief Write src into dst (a view of the result: src's shape, the result's dtype and device).
 *  Another dtype is converted by the _cast op first (complex ones included: the joins' same_kind
 *  check has refused complex to real before).
 */
void WriteSlice(const NDArray& src, const NDArray& dst, const char* /*fname*/) {
  const DLTensor& s = src.tensor();
  const DLTensor& d = dst.tensor();
  if (op::SameDType(s.dtype, d.dtype)) {
    NDArray::CopyFromTo(s, d);
    return;
  }
  static const Op* cast = Op::Get("_cast");
  op::CastParam p;
  p.dtype = d.dtype;
  const NDArray c = InvokeOp(cast, p, {src});
  NDArray::CopyFromTo(c.tensor(), d);
}

/*!
 * \brief The array the result goes into: out (checked: dense, the result's shape, and each
 *  input castable to its dtype under same_kind) or a new one of shape and dtype.
 */
NDArray JoinTarget(const Array<NDArray>& arrays, const Optional<NDArray>& out, const TShape& shape,
                   DLDataType dtype, const char* fname) {
  const DLDevice device = arrays[0].tensor().device;
  if (!out.has_value()) return NDArray::Empty(shape.data(), shape.ndim(), dtype, device);
  const NDArray& o = *out;
  MXFFI_CHECK(!o.is_sparse(), TypeError)
      << fname << ": out must be a dense array, got a " << StorageTypeName(o.stype()) << " one";
  MXFFI_CHECK(!o.read_only(), ValueError) << fname << ": out is read-only";
  const DLTensor& t = o.tensor();
  MXFFI_CHECK(TShape(t.shape, t.ndim) == shape, ValueError)
      << fname << ": Output array is the wrong shape; got " << TShape(t.shape, t.ndim).ToString()
      << ", the result has shape " << shape.ToString();
  MXFFI_CHECK(t.device.device_type == device.device_type && t.device.device_id == device.device_id,
              ValueError)
      << fname << ": out is on " << DeviceToString(t.device) << " but the arrays on "
      << DeviceToString(device);
  const int j = op::DTypeRuleIndex(t.dtype);
  MXFFI_CHECK(j >= 0, TypeError) << fname << ": unsupported dtype " << DataTypeToString(t.dtype)
                                 << " of out";
  for (int64_t i = 0; i < arrays.size(); ++i) {
    const DLDataType from = arrays[i].tensor().dtype;
    MXFFI_CHECK(op::CanCastIndex(op::DTypeRuleIndex(from), j, op::Casting::kSameKind), TypeError)
        << fname << ": Cannot cast array data from " << DTypeRepr(from) << " to "
        << DTypeRepr(t.dtype) << " according to the rule 'same_kind'";
  }
  return o;
}

/*! \brief Element strides of t (C-contiguous where t has none) into out. */
void StridesOf(const DLTensor& t, int64_t* out) {
  if (t.strides != nullptr) {
    for (int i = 0; i < t.ndim; ++i) out[i] = t.strides[i];
  } else {
    NDArray::CompactStrides(t, out);
  }
}

void CheckOutDType(const Optional<NDArray>& out, const DTypeLike& dtype, const char* fname,
                   const char* name) {
  MXFFI_CHECK(!(out.has_value() && dtype.has_value()), TypeError)
      << fname << ": " << name
      << "() only takes `out` or `dtype` as an argument, but both were provided.";
}

/*! \return whether arrays (at least one) are all csr arrays. */
bool AllCsr(const Array<NDArray>& arrays) {
  for (int64_t i = 0; i < arrays.size(); ++i) {
    if (arrays[i].stype() != StorageType::kCSR) return false;
  }
  return arrays.size() > 0;
}

NDArray Concat(const Array<NDArray>& arrays, const Optional<int64_t>& axis,
               const Optional<NDArray>& out, const DTypeLike& dtype, const char* fname) {
  CheckOutDType(out, dtype, fname, "concatenate");
  if (AllCsr(arrays) && axis.has_value() && !out.has_value()) {
    // csr arrays along axis 0 stay csr (MXNet's Concat); along axis 1 they are refused below.
    MXFFI_CHECK(NormalizeAxis(*axis, 2, fname) == 0, TypeError)
        << fname << ": csr arrays are joined along axis 0 only (MXNet's rule), into a csr "
        << "array; got axis=" << *axis << " (convert them with tostype('default') first)";
    return CsrConcat(arrays, JoinDType(arrays, dtype, "concatenate", fname, true), fname);
  }
  const DLDataType rtype = JoinDType(arrays, dtype, "concatenate", fname);
  const int64_t n = arrays.size();
  if (!axis.has_value()) {
    // Each input, flattened in C order, fills the next run of the 1-d result.
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) total += op::NumElements(arrays[i].tensor());
    const TShape shape{total};
    NDArray result = JoinTarget(arrays, out, shape, rtype, fname);
    const int64_t step = result.tensor().strides != nullptr ? result.tensor().strides[0] : 1;
    const int64_t item = DataTypeBytes(result.tensor().dtype);
    int64_t at = 0;
    for (int64_t i = 0; i < n; ++i) {
      const DLTensor& t = arrays[i].tensor();
      const int64_t size = op::NumElements(t);
      if (size == 0) continue;
      int64_t strides[kMaxNDim];
      int64_t s = step;
      for (int d = t.ndim - 1; d >= 0; --d) {
        strides[d] = s;
        s *= t.shape[d];
      }
      WriteSlice(arrays[i], NDArray::View(result, t.shape, strides, t.ndim, at * step * item),
                 fname);
      at += size;
    }
    return result;
  }
  const DLTensor& t0 = arrays[0].tensor();
  MXFFI_CHECK(t0.ndim > 0, ValueError)
      << fname << ": zero-dimensional arrays cannot be concatenated";
  const int ax = NormalizeAxis(*axis, t0.ndim, fname);
  TShape shape(t0.shape, t0.ndim);
  for (int64_t i = 1; i < n; ++i) {
    const DLTensor& t = arrays[i].tensor();
    MXFFI_CHECK(t.ndim == t0.ndim, ValueError)
        << fname << ": all the input arrays must have same number of dimensions, but the array "
        << "at index 0 has " << t0.ndim << " dimension(s) and the array at index " << i << " has "
        << t.ndim << " dimension(s)";
    for (int d = 0; d < t.ndim; ++d) {
      if (d == ax) continue;
      MXFFI_CHECK(t.shape[d] == t0.shape[d], ValueError)
          << fname << ": all the input array dimensions except for the concatenation axis must "
          << "match exactly, but along dimension " << d << ", the array at index 0 has size "
          << t0.shape[d] << " and the array at index " << i << " has size " << t.shape[d];
    }
    shape[ax] += t.shape[ax];
  }
  NDArray result = JoinTarget(arrays, out, shape, rtype, fname);
  int64_t strides[kMaxNDim];
  StridesOf(result.tensor(), strides);
  const int64_t item = DataTypeBytes(result.tensor().dtype);
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    const DLTensor& t = arrays[i].tensor();
    if (op::NumElements(t) > 0) {
      WriteSlice(arrays[i],
                 NDArray::View(result, t.shape, strides, t.ndim, at * strides[ax] * item), fname);
    }
    at += t.shape[ax];
  }
  return result;
}

NDArray Stack(const Array<NDArray>& arrays, int64_t axis, const Optional<NDArray>& out,
              const DTypeLike& dtype, const char* fname) {
  CheckOutDType(out, dtype, fname, "stack");
  const DLDataType rtype = JoinDType(arrays, dtype, "stack", fname);
  const int64_t n = arrays.size();
  const DLTensor& t0 = arrays[0].tensor();
  MXFFI_CHECK(t0.ndim < kMaxNDim, ValueError)
      << fname << ": the result would have " << t0.ndim + 1 << " dimensions; at most " << kMaxNDim
      << " are supported";
  const int ax = NormalizeAxis(axis, t0.ndim + 1, fname);
  for (int64_t i = 1; i < n; ++i) {
    const DLTensor& t = arrays[i].tensor();
    MXFFI_CHECK(TShape(t.shape, t.ndim) == TShape(t0.shape, t0.ndim), ValueError)
        << fname << ": all input arrays must have the same shape; arrays[0] has shape "
        << TShape(t0.shape, t0.ndim).ToString() << " and arrays[" << i << "] has shape "
        << TShape(t.shape, t.ndim).ToString();
  }
  TShape shape;
  shape.resize(t0.ndim + 1);
  for (int d = 0, k = 0; d <= t0.ndim; ++d) shape[d] = d == ax ? n : t0.shape[k++];
  NDArray result = JoinTarget(arrays, out, shape, rtype, fname);
  if (op::NumElements(result.tensor()) == 0) return result;
  int64_t rs[kMaxNDim], strides[kMaxNDim];
  StridesOf(result.tensor(), rs);
  for (int d = 0, k = 0; d <= t0.ndim; ++d) {
    if (d != ax) strides[k++] = rs[d];
  }
  const int64_t item = DataTypeBytes(result.tensor().dtype);
  for (int64_t i = 0; i < n; ++i) {
    WriteSlice(arrays[i], NDArray::View(result, t0.shape, strides, t0.ndim, i * rs[ax] * item),
               fname);
  }
  return result;
}

/*!
 * \brief diff's prepend= or append= as an array to join with x along axis (normalised): a
 *  number or a 0-d array broadcast to x's shape with extent 1 along axis (numpy's rule), any
 *  other array as it is; on x's device.
 */
NDArray DiffPart(const ArrayLike& v, const NDArray& x, int axis, const char* fname) {
  const DLTensor& t = x.tensor();
  NDArray a = ArrayImpl(v, DTypeLike(), DeviceLike(t.device), CopyMode::kIfNeeded, fname);
  MXFFI_CHECK(!a.is_sparse(), TypeError)
      << fname << ": prepend and append must be dense arrays, got storage type "
      << StorageTypeName(a.stype());
  if (a.tensor().ndim != 0) return a;
  int64_t shape[kMaxNDim], strides[kMaxNDim] = {};
  for (int d = 0; d < t.ndim; ++d) shape[d] = d == axis ? 1 : t.shape[d];
  return NDArray::View(a, shape, strides, t.ndim, 0);
}

/*! \return a view of a's elements [start, start + len) along axis. */
NDArray AxisSlice(const NDArray& a, int axis, int64_t start, int64_t len) {
  const DLTensor& t = a.tensor();
  int64_t shape[kMaxNDim], strides[kMaxNDim];
  StridesOf(t, strides);
  for (int d = 0; d < t.ndim; ++d) shape[d] = t.shape[d];
  shape[axis] = len;
  const int64_t offset = len > 0 ? start * strides[axis] * DataTypeBytes(t.dtype) : 0;
  return NDArray::View(a, shape, strides, t.ndim, offset);
}

NDArray Diff(const NDArrayLike& x_arg, int64_t axis, int64_t n, const Optional<ArrayLike>& prepend,
             const Optional<ArrayLike>& append, const char* fname) {
  MXFFI_CHECK(!x_arg->is_sparse(), TypeError)
      << fname << ": takes a dense array; got storage type " << StorageTypeName(x_arg->stype());
  MXFFI_CHECK(n >= 0, ValueError) << fname << ": order must be non-negative but got " << n;
  NDArray a = x_arg;
  const int ndim = a.tensor().ndim;
  MXFFI_CHECK(ndim >= 1, ValueError)
      << fname << ": diff requires input that is at least one dimensional";
  const int ax = NormalizeAxis(axis, ndim, fname);
  if (prepend.has_value() || append.has_value()) {
    Array<NDArray> parts;
    if (prepend.has_value()) parts.push_back(DiffPart(*prepend, a, ax, fname));
    parts.push_back(a);
    if (append.has_value()) parts.push_back(DiffPart(*append, a, ax, fname));
    a = Concat(parts, Optional<int64_t>(ax), Optional<NDArray>(), DTypeLike(), fname);
  }
  if (n == 0) return x_arg.borrowed() && a.same_as(x_arg.array()) ? OwnedArray(x_arg) : a;
  const DLDataType dt = a.tensor().dtype;
  MXFFI_CHECK(op::DTypeRuleIndex(dt) >= 0, TypeError)
      << fname << ": unsupported dtype " << DataTypeToString(dt);
  // numpy's diff: a[1:] - a[:-1], n times; bools compare with not_equal (no bool subtract).
  static const Op* subtract = Op::Get("_npi_subtract");
  static const Op* not_equal = Op::Get("_npi_not_equal");
  OpAttrs attrs;
  attrs.op = dt.code == kDLBool ? not_equal : subtract;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t len = std::max<int64_t>(a.tensor().shape[ax] - 1, 0);
    const NDArray pair[2] = {AxisSlice(a, ax, 1, len), AxisSlice(a, ax, 0, len)};
    a = Invoke(attrs, Span<const NDArray>(pair, 2));
    if (len == 0) break;
  }
  return a;
}
}  // namespace

MXFFI_REGISTER_API("np.concat")
    .describe(
        "The arrays (a sequence, at least one) joined along axis: they have one ndim and the same "
        "extents but along axis; axis=None joins them flattened (C order) into a 1-d array. The "
        "result's dtype is numpy's result_type of the inputs.")
    .arg("arrays")
    .positional_only()
    .keyword_only()
    .arg("axis", 0)
    .set_body_typed([](Array<NDArray> arrays, Optional<int64_t> axis) {
      return Concat(arrays, axis, Optional<NDArray>(), DTypeLike(), "np.concat");
    });

MXFFI_REGISTER_API("np.concatenate")
    .describe(
        "numpy's concatenate: the arrays joined along axis (None: flattened), into out when "
        "given (its shape the result's, each input castable to its dtype under same_kind), or "
        "as dtype when given (not with out), else numpy's result_type of the inputs.")
    .arg("arrays")
    .arg("axis", 0)
    .arg("out", nullptr)
    .keyword_only()
    .arg("dtype", nullptr)
    .set_body_typed([](Array<NDArray> arrays, Optional<int64_t> axis, Optional<NDArray> out,
                       DTypeLike dtype) {
      return Concat(arrays, axis, out, dtype, "np.concatenate");
    });

MXFFI_REGISTER_API("np.stack")
    .describe(
        "The arrays (a sequence, at least one, all of one shape) joined along a new axis, axis "
        "of the result (negative from the end of the result's ndim + 1 axes); into out or as "
        "dtype as np.concatenate; else numpy's result_type of the inputs.")
    .arg("arrays")
    .positional_only()
    .keyword_only()
    .arg("axis", 0)
    .arg("out", nullptr)
    .arg("dtype", nullptr)
    .set_body_typed([](Array<NDArray> arrays, int64_t axis, Optional<NDArray> out,
                       DTypeLike dtype) { return Stack(arrays, axis, out, dtype, "np.stack"); });

MXFFI_REGISTER_API("np.unstack")
    .describe(
        "x split along axis into a tuple of x.shape[axis] views of x, each without that axis "
        "(the array API's unstack; x at least 1-d).")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("axis", 0)
    .set_body_typed([](NDArrayLike x, int64_t axis) {
      constexpr const char* fname = "np.unstack";
      MXFFI_CHECK(!x->is_sparse(), TypeError)
          << fname << ": takes a dense array; got storage type " << StorageTypeName(x->stype());
      const NDArray a = OwnedArray(x);
      const DLTensor& t = a.tensor();
      MXFFI_CHECK(t.ndim > 0, ValueError) << fname << ": Input array must be at least 1-d.";
      const int ax = NormalizeAxis(axis, t.ndim, fname);
      int64_t st[kMaxNDim], shape[kMaxNDim], strides[kMaxNDim];
      StridesOf(t, st);
      for (int d = 0, k = 0; d < t.ndim; ++d) {
        if (d == ax) continue;
        shape[k] = t.shape[d];
        strides[k++] = st[d];
      }
      const int64_t item = DataTypeBytes(t.dtype);
      std::vector<Any> parts;
      parts.reserve(static_cast<size_t>(t.shape[ax]));
      for (int64_t i = 0; i < t.shape[ax]; ++i) {
        parts.emplace_back(NDArray::View(a, shape, strides, t.ndim - 1, i * st[ax] * item));
      }
      return ADT::Tuple(parts);
    });

MXFFI_REGISTER_API("np.diff")
    .describe(
        "The n-th discrete difference of x along axis: x[1:] - x[:-1] along it, n times (bool: "
        "x[1:] != x[:-1], as numpy). prepend and append (a number or a 0-d array, broadcast to "
        "x's shape with extent 1 along axis, or an array of x's shape but along axis) are "
        "joined to x first, their dtypes promoting with x's.")
    .arg("x")
    .positional_only()
    .keyword_only()
    .arg("axis", -1)
    .arg("n", 1)
    .arg("prepend", nullptr)
    .arg("append", nullptr)
    .set_body_typed([](NDArrayLike x, int64_t axis, int64_t n, Optional<ArrayLike> prepend,
                       Optional<ArrayLike> append) {
      return Diff(x, axis, n, prepend, append, "np.diff");
    });

}  // namespace api
}  // namespace mxffi
