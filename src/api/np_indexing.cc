/*!
 * \file np_indexing.cc
 * \brief np.* functions of indexing (nonzero, where, take, take_along_axis, copyto,
 *  shares_memory, may_share_memory) and the entry points of an array's advanced indexing, once
 *  its key is normalised: ndarray.advanced_gather / advanced_scatter (k integer arrays of one
 *  shape over consecutive axes) and ndarray.boolean_gather / boolean_scatter (a boolean mask
 *  over them).
 *  The ndarray.* ones belong to the array type, not to numpy's namespace: the first two take
 *  any number of index arrays, as packed calls.
 *
 * All of them run on the indexing ops (src/op/indexing): one gather kernel serves take,
 * take_along_axis and advanced indexing, one nonzero kernel np.nonzero (and boolean masks);
 * np.where runs its own select op (src/op/where).
 */
#include <mxffi/container/tuple.h>
#include <mxffi/registry.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "../ndarray/cuda/device.h"
#include "../op/elemwise/elemwise.h"
#include "../op/indexing/indexing_op.h"
#include "../op/init/init_op.h"
#include "../op/overlap.h"
#include "../op/promote.h"
#include "api_util.h"
#include "sparse_select.h"

namespace mxffi {
namespace api {

/*!
 * \brief np.where's result: an array, or with the condition alone np.nonzero's tuple. Its own
 *  type only so that the signature says which two it may be (registry.function_info: the
 *  union of mxffi.NDArray and mxffi.ADT) rather than Any.
 */
struct ArrayOrTuple {
  Any value;
};

}  // namespace api

template <>
struct TypeTraits<api::ArrayOrTuple> {
  static void MoveToAny(api::ArrayOrTuple v, MXFFIAny* out) { v.value.MoveToRaw(out); }
  static std::string TypeStr() { return "Union[mxffi.NDArray, mxffi.ADT]"; }
};

namespace api {

namespace {

using op::AdvancedIndexParam;

constexpr DLDataType kInt64Type{kDLInt, 64, 1};

TShape ShapeOf(const NDArray& a) { return TShape(a.tensor().shape, a.tensor().ndim); }

bool IsInteger(DLDataType t) { return (t.code == kDLInt || t.code == kDLUInt) && t.lanes == 1; }

/*! \return a C-contiguous (n,) view of a's elements in C order (a copy when a is strided). */
NDArray Flatten(const NDArray& a) {
  static const Op* copy = Op::Get("_copy");
  NDArray c = a;
  if (!a.IsContiguous()) {
    OpAttrs attrs;
    attrs.op = copy;
    c = Invoke(attrs, Span<const NDArray>(&a, 1));
  }
  const int64_t n = op::NumElements(c.tensor());
  return NDArray::View(c, &n, nullptr, 1, 0);
}

/*! \return a viewed with the given shape: a's trailing extents match or are 1 (stride 0). */
NDArray BroadcastTo(const NDArray& a, const TShape& shape) {
  const DLTensor& t = a.tensor();
  int64_t strides[kMaxNDim], own[kMaxNDim];
  if (t.strides != nullptr) {
    for (int d = 0; d < t.ndim; ++d) own[d] = t.strides[d];
  } else {
    NDArray::CompactStrides(t, own);
  }
  const int lead = shape.ndim() - t.ndim;
  for (int d = 0; d < shape.ndim(); ++d) {
    strides[d] = d < lead || t.shape[d - lead] == 1 ? 0 : own[d - lead];
  }
  return NDArray::View(a, shape.data(), strides, shape.ndim(), 0);
}

/*! \brief The gather: x indexed by idx (integer arrays of one shape) from axis on. */
NDArray Gather(const NDArray& x, const std::vector<NDArray>& idx, int axis) {
  static const Op* op = Op::Get("_npi_advanced_gather");
  AdvancedIndexParam p;
  p.num_args = static_cast<int>(idx.size()) + 1;
  p.axis = axis;
  std::vector<NDArray> inputs;
  inputs.reserve(idx.size() + 1);
  inputs.push_back(x);
  inputs.insert(inputs.end(), idx.begin(), idx.end());
  OpAttrs attrs;
  attrs.op = op;
  attrs.param = &p;
  return Invoke(attrs, Span<const NDArray>(inputs));
}

/*! \brief x[..., idx, ...] = values in place (values already on x's device). */
void Scatter(const NDArray& x, const NDArray& values, const std::vector<NDArray>& idx, int axis,
             const char* fname) {
  static const Op* op = Op::Get("_npi_advanced_scatter");
  MXFFI_CHECK(!x.is_sparse(), TypeError)
      << fname << ": x must be a dense array, got a " << StorageTypeName(x.stype()) << " one";
  AdvancedIndexParam p;
  p.num_args = static_cast<int>(idx.size()) + 2;
  p.axis = axis;
  std::vector<NDArray> inputs;
  inputs.reserve(idx.size() + 2);
  inputs.push_back(x);
  inputs.push_back(values);
  inputs.insert(inputs.end(), idx.begin(), idx.end());
  OpAttrs attrs;
  attrs.op = op;
  attrs.param = &p;
  NDArray out = x;
  Invoke(attrs, Span<const NDArray>(inputs), Span<NDArray>(&out, 1));
}

/*! \return the coordinates of a's nonzero elements, one int64 array per dimension (a is 1-d+). */
std::vector<NDArray> NonzeroRows(const NDArray& a) {
  static const Op* count_op = Op::Get("_npi_count_nonzero");
  static const Op* nonzero_op = Op::Get("_npi_nonzero");
  op::NonzeroParam p;
  const DLTensor& t = a.tensor();
  if (!a.is_sparse() && t.device.device_type == kDLCPU) {
    // The count op's CPU kernel, run here: no array for one number.
    DLTensor count{};
    count.data = &p.count;
    count.device = t.device;
    count.dtype = kInt64Type;
    op::CountNonzero(op::cpu{}, OpContext(), t, count, "_npi_count_nonzero");
  } else {
    OpAttrs attrs;
    attrs.op = count_op;
    NDArray count = Invoke(attrs, Span<const NDArray>(&a, 1));
    NDArray host = NDArray::Empty(nullptr, 0, kInt64Type, kCPU);
    NDArray::CopyFromTo(count.tensor(), host.tensor());
    p.count = *static_cast<const int64_t*>(host.data());
  }
  const NDArray rows = InvokeOp(nonzero_op, p, {a});
  const int ndim = a.tensor().ndim;
  std::vector<NDArray> out;
  out.reserve(ndim);
  for (int d = 0; d < ndim; ++d) {
    out.push_back(NDArray::View(rows, &p.count, nullptr, 1, static_cast<int64_t>(d) * p.count * 8));
  }
  return out;
}

/*!
 * \return axis for a boolean mask over x's axes axis..axis+mask.ndim-1; numpy's IndexError
 *  where an extent differs (an empty extent of the mask matches any, as numpy's).
 */
int MaskAxis(const NDArray& x, int64_t axis, const NDArray& mask, const char* fname) {
  const DLTensor& t = x.tensor();
  const DLTensor& m = mask.tensor();
  MXFFI_CHECK(m.dtype.code == kDLBool && m.ndim > 0, TypeError)
      << fname << ": mask must be a boolean array of at least one dimension; got a " << m.ndim
      << "-d " << DataTypeToString(m.dtype) << " array";
  const int a = static_cast<int>(axis < 0 ? axis + t.ndim : axis);
  MXFFI_CHECK(a >= 0 && a + m.ndim <= t.ndim, IndexError)
      << fname << ": too many indices for array: array is " << t.ndim << "-dimensional, but "
      << (a < 0 ? 0 : a) + m.ndim << " were indexed";
  for (int d = 0; d < m.ndim; ++d) {
    // numpy lets an empty extent of a mask stand against any extent (it selects nothing).
    MXFFI_CHECK(m.shape[d] == t.shape[a + d] || m.shape[d] == 0, IndexError)
        << "boolean index did not match indexed array along axis " << a + d << "; size of axis is "
        << t.shape[a + d] << " but size of corresponding boolean axis is " << m.shape[d];
  }
  return a;
}

/*! \return an integer index argument as an array on device (bools read as 0 and 1). */
NDArray IndexArray(const ArrayLike& indices, DLDevice device, const char* fname) {
  NDArray idx = ArrayImpl(indices, DTypeLike(), DeviceLike(device), CopyMode::kIfNeeded, fname);
  const DLDataType t = idx.tensor().dtype;
  if (t.code == kDLBool) return CastTo(idx, kInt64Type);
  MXFFI_CHECK(IsInteger(t), TypeError)
      << fname << ": indices must be an integer array; got dtype " << DataTypeToString(t);
  return idx;
}

/*! \brief The index arrays of a packed call, args[first..], as arrays. */
std::vector<NDArray> PackedIndices(PackedArgs args, int first, const char* fname) {
  MXFFI_CHECK(args.size() > first, TypeError)
      << fname << ": expected at least one index array after the first " << first
      << " arguments, got " << args.size() << " arguments";
  std::vector<NDArray> idx;
  idx.reserve(args.size() - first);
  for (int32_t i = first; i < args.size(); ++i) {
    std::optional<NDArrayLike> a = TypeTraits<NDArrayLike>::TryCast(args[i].raw());
    if (!a.has_value()) {
      details::ThrowArgError(details::GetFuncInfo(fname).get(), i,
                             TypeTraits<NDArrayLike>::TypeDesc(), args[i], false);
    }
    idx.push_back(a->array());
  }
  return idx;
}

/*! \return args[i] as an int (the axis of the packed functions). */
int PackedAxis(PackedArgs args, int i, const char* fname) {
  std::optional<int64_t> axis = args[i].try_cast<int64_t>();
  if (!axis.has_value()) {
    details::ThrowArgError(details::GetFuncInfo(fname).get(), i, "an int", args[i], false);
  }
  MXFFI_CHECK(*axis >= -kMaxNDim && *axis <= kMaxNDim, AxisError)
      << fname << ": axis " << *axis << " is out of bounds";
  return static_cast<int>(*axis);
}

/*!
 * \return values for x[...] = values: an array as it is (the op converts it as numpy's
 *  assignment does); a Python int that x's integer dtype cannot hold is numpy's OverflowError.
 */
NDArray AssignedValues(const ArrayLike& values, const NDArray& x, const char* fname) {
  const DLTensor& t = x.tensor();
  if (values.kind() == ArrayLike::Kind::kScalar) {
    const ScalarLike& s = values.value().scalar();
    if (s.is_int() && (t.dtype.code == kDLInt || t.dtype.code == kDLUInt)) {
      op::CheckIntFits(s.int_value(), t.dtype, fname);
    }
  }
  return ArrayImpl(values, DTypeLike(), DeviceLike(t.device), CopyMode::kIfNeeded, fname);
}

/*! \brief numpy's may_share_memory/shares_memory on two arguments. */
bool SharesMemory(const ArrayLike& a, const ArrayLike& b, int64_t max_work, const char* fname) {
  if (a.kind() != ArrayLike::Kind::kArray || b.kind() != ArrayLike::Kind::kArray) return false;
  const NDArray& x = a.value().array();
  const NDArray& y = b.value().array();
  MXFFI_CHECK(!x.is_sparse() && !y.is_sparse(), TypeError)
      << fname << ": takes dense arrays; got storage types " << StorageTypeName(x.stype())
      << " and " << StorageTypeName(y.stype());
  if (max_work == 0) return op::BoundsOverlap(x.tensor(), y.tensor());
  const op::Overlap r = op::SharesMemory(x.tensor(), y.tensor(), max_work);
  MXFFI_CHECK(r != op::Overlap::kTooHard, RuntimeError)
      << fname << ": Exceeded max_work (" << max_work << ")";
  return r == op::Overlap::kYes;
}

/*! \return whether numpy's can_cast(from, to, casting) holds for the supported dtypes. */
bool CanCast(DLDataType from, DLDataType to, op::Casting casting) {
  if (casting == op::Casting::kUnsafe || op::SameDType(from, to)) return true;
  const int i = op::DTypeIndex(from), j = op::DTypeIndex(to);
  return i >= 0 && j >= 0 && op::CanCastIndex(i, j, casting);
}

/*! \return src viewed with dst's shape (numpy's broadcasting of an assigned value). */
NDArray BroadcastInto(const NDArray& src, const TShape& shape, const char* fname) {
  const DLTensor& t = src.tensor();
  bool fits = true;
  for (int i = 0; fits && i < t.ndim; ++i) {
    const int64_t e = t.shape[t.ndim - 1 - i];
    fits = e == 1 || (i < shape.ndim() && e == shape[shape.ndim() - 1 - i]);
  }
  MXFFI_CHECK(fits, ValueError) << fname << ": could not broadcast input array from shape "
                                << ShapeOf(src).ToString() << " into shape " << shape.ToString();
  if (t.ndim <= shape.ndim()) return BroadcastTo(src, shape);
  // Leading extents of 1 beyond dst's dimensions are dropped first.
  const int drop = t.ndim - shape.ndim();
  int64_t strides[kMaxNDim];
  if (t.strides != nullptr) {
    for (int d = 0; d < t.ndim; ++d) strides[d] = t.strides[d];
  } else {
    NDArray::CompactStrides(t, strides);
  }
  NDArray tail = NDArray::View(src, t.shape + drop, strides + drop, shape.ndim(), 0);
  return BroadcastTo(tail, shape);
}

/*!
 * \brief Write src (of dst's shape) into dst, converting to dst's dtype: the _copy op, or _cast
 *  where the dtypes differ. Invoke computes through a temporary where src overlaps dst.
 */
void WriteInto(const NDArray& src, const NDArray& dst) {
  static const Op* copy = Op::Get("_copy");
  static const Op* cast = Op::Get("_cast");
  NDArray out = dst;
  OpAttrs attrs;
  op::CastParam p;
  if (op::SameDType(src.tensor().dtype, dst.tensor().dtype)) {
    attrs.op = copy;
  } else {
    p.dtype = dst.tensor().dtype;
    attrs.op = cast;
    attrs.param = &p;
  }
  Invoke(attrs, Span<const NDArray>(&src, 1), Span<NDArray>(&out, 1));
}

}  // namespace

MXFFI_REGISTER_API("np.nonzero")
    .describe(
        "The indices of the nonzero elements of a: a tuple of int64 arrays, one per dimension, "
        "in C order (numpy's nonzero; a 0-d a is a ValueError, as in numpy 2).")
    .arg("a")
    .set_body_typed([](NDArrayLike a_arg) {
      const NDArray& a = a_arg;
      MXFFI_CHECK(a.tensor().ndim > 0, ValueError)
          << "np.nonzero: Calling nonzero on 0d arrays is not allowed. Use "
          << "np.atleast_1d(scalar).nonzero() instead. If the context of this error is of the "
          << "form `arr[nonzero(cond)]`, just use `arr[cond]`.";
      const std::vector<NDArray> rows = NonzeroRows(a);
      return ADT::Tuple(std::vector<Any>(rows.begin(), rows.end()));
    });

namespace {

/*!
 * \brief x[mask] for a CPU mask over the leading axes of a C-contiguous CPU x: the selected
 *  blocks copied in one pass over the mask, with no index arrays made (what numpy does for
 *  this key). nullopt for every other case, which goes through nonzero and the gather.
 */
std::optional<NDArray> BooleanGatherLeading(const NDArray& x, int axis, const NDArray& mask) {
  const DLTensor& t = x.tensor();
  const DLTensor& m = mask.tensor();
  if (axis != 0 || x.is_sparse() || mask.is_sparse() || t.device.device_type != kDLCPU ||
      m.device.device_type != kDLCPU || m.dtype.bits != 8 || m.dtype.lanes != 1 ||
      !NDArray::IsContiguous(t) || !NDArray::IsContiguous(m)) {
    return std::nullopt;
  }
  const int64_t n = mask.numel();
  const uint8_t* mp = static_cast<const uint8_t*>(mask.data());
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += mp[i] != 0;
  std::vector<int64_t> shape(1 + t.ndim - m.ndim);
  shape[0] = count;
  int64_t inner = 1;
  for (int d = m.ndim; d < t.ndim; ++d) {
    shape[1 + d - m.ndim] = t.shape[d];
    inner *= t.shape[d];
  }
  NDArray out = NDArray::Empty(shape, t.dtype, t.device);
  const size_t block = static_cast<size_t>(inner) * ((t.dtype.bits * t.dtype.lanes + 7) / 8);
  if (block == 0 || count == 0) return out;
  const char* src = static_cast<const char*>(x.data());
  char* dst = static_cast<char*>(out.data());
  for (int64_t i = 0; i < n; ++i) {
    if (mp[i] != 0) {
      std::memcpy(dst, src + static_cast<size_t>(i) * block, block);
      dst += block;
    }
  }
  return out;
}

}  // namespace

MXFFI_REGISTER_API("ndarray.boolean_gather")
    .describe(
        "x[..., mask, ...] with the boolean mask over the axes axis..axis+mask.ndim-1 (numpy's "
        "boolean indexing): those axes become one, of the mask's number of True elements.")
    .arg("x")
    .arg("axis")
    .arg("mask")
    .set_body_typed([](NDArrayLike x, int64_t axis, NDArrayLike mask) {
      constexpr const char* fname = "ndarray.boolean_gather";
      const int a = MaskAxis(x, axis, mask, fname);
      if (std::optional<NDArray> out = BooleanGatherLeading(x, a, mask)) return *out;
      return Gather(x, NonzeroRows(mask), a);
    });

MXFFI_REGISTER_API("ndarray.boolean_scatter")
    .describe(
        "x[..., mask, ...] = values, in place, returning x: values broadcast to the selected "
        "shape and convert as numpy's assignment converts.")
    .arg("x")
    .arg("values")
    .arg("axis")
    .arg("mask")
    .set_body_typed([](WritableArray x, ArrayLike values, int64_t axis, NDArrayLike mask) {
      constexpr const char* fname = "ndarray.boolean_scatter";
      const NDArray& target = x.array();
      const int a = MaskAxis(target, axis, mask, fname);
      Scatter(target, AssignedValues(values, target, fname), NonzeroRows(mask), a, fname);
      return target;
    });

MXFFI_REGISTER_API("np.take")
    .describe(
        "Elements of x at indices along axis (None: of x flattened), as numpy.take: the result "
        "has shape x.shape[:axis] + indices.shape + x.shape[axis+1:]. Negative indices count "
        "from the end; one out of range is an IndexError. A csr x with axis=0 and 1-D indices "
        "gives a csr array (its rows gathered); other sparse cases a dense one.")
    .arg("x")
    .arg("indices")
    .arg("axis", nullptr)
    .set_body_typed([](NDArrayLike x_arg, ArrayLike indices, Optional<int64_t> axis_arg) {
      constexpr const char* fname = "np.take";
      NDArray x = x_arg;
      int axis = 0;
      if (!axis_arg.has_value()) {
        x = Flatten(x);
      } else {
        axis = NormalizeAxis(*axis_arg, x.tensor().ndim, fname);
      }
      NDArray idx = IndexArray(indices, x.tensor().device, fname);
      if (x.stype() == StorageType::kCSR && axis == 0 && idx.tensor().ndim == 1) {
        return CsrTake(x, idx, 0, fname);  // csr rows gathered: csr (numpy's raise mode)
      }
      return Gather(x, {idx}, axis);
    });

MXFFI_REGISTER_API("np.take_along_axis")
    .describe(
        "Elements of arr picked along axis by indices (numpy.take_along_axis): indices has "
        "arr's number of dimensions and broadcasts against arr on the others; axis None reads "
        "arr flattened with 1-d indices.")
    .arg("arr")
    .arg("indices")
    .arg("axis", -1)
    .set_body_typed([](NDArrayLike arr_arg, NDArrayLike indices_arg, Optional<int64_t> axis_arg) {
      constexpr const char* fname = "np.take_along_axis";
      static const Op* arange = Op::Get("_arange");
      NDArray arr = arr_arg;
      NDArray indices = indices_arg;
      const DLDataType it = indices.tensor().dtype;
      MXFFI_CHECK(IsInteger(it), IndexError)
          << fname << ": `indices` must be an integer array; got dtype " << DataTypeToString(it);
      int axis;
      if (!axis_arg.has_value()) {
        MXFFI_CHECK(indices.tensor().ndim == 1, ValueError)
            << fname << ": when axis=None, `indices` must have a single dimension; got "
            << indices.tensor().ndim;
        arr = Flatten(arr);
        axis = 0;
      } else {
        axis = NormalizeAxis(*axis_arg, arr.tensor().ndim, fname);
      }
      const TShape as = ShapeOf(arr), is = ShapeOf(indices);
      MXFFI_CHECK(as.ndim() == is.ndim(), ValueError)
          << fname << ": `indices` and `arr` must have the same number of dimensions; got "
          << is.ndim() << " and " << as.ndim();
      // The index arrays broadcast together: indices, and along every other axis d the
      // positions 0..arr.shape[d]-1 (one arange, viewed per axis).
      TShape b = is;
      int64_t longest = 1;
      for (int d = 0; d < as.ndim(); ++d) {
        longest = std::max(longest, as[d]);
        if (d == axis) continue;
        MXFFI_CHECK(as[d] == is[d] || as[d] == 1 || is[d] == 1, ValueError)
            << fname << ": shape mismatch: indexing arrays could not be broadcast together "
            << "with shapes " << as.ToString() << " (arr) and " << is.ToString()
            << " (indices) along axis " << d;
        b[d] = is[d] == 1 ? as[d] : is[d];
      }
      const DLDevice device = arr.tensor().device;
      op::ArangeParam ap;
      ap.start = 0;
      ap.stop = static_cast<double>(longest);
      ap.step = 1;
      ap.dtype = kInt64Type;
      const NDArray positions = InvokeOp(arange, ap, {}, device);
      std::vector<NDArray> idx(as.ndim());
      for (int d = 0; d < as.ndim(); ++d) {
        if (d == axis) {
          idx[d] = BroadcastTo(CastTo(indices, kInt64Type), b);
          continue;
        }
        int64_t strides[kMaxNDim] = {};
        strides[d] = as[d] == 1 ? 0 : 1;
        idx[d] = NDArray::View(positions, b.data(), strides, b.ndim(), 0);
      }
      return Gather(arr, idx, 0);
    });

MXFFI_REGISTER_API("ndarray.advanced_gather")
    .describe(
        "x[..., i_0, ..., i_{k-1}, ...] for integer arrays of one shape over the axes axis.."
        "axis+k-1: ndarray.advanced_gather(x, axis, i_0, ..., i_{k-1}). Advanced indexing's read, "
        "after the key is normalised.")
    .set_body([](PackedArgs args, Any* ret) {
      constexpr const char* fname = "ndarray.advanced_gather";
      MXFFI_CHECK(args.size() >= 3, TypeError)
          << fname << ": expected (x, axis, *indices) with at least one index array, got "
          << args.size() << " arguments";
      std::optional<NDArrayLike> x = TypeTraits<NDArrayLike>::TryCast(args[0].raw());
      if (!x.has_value()) {
        details::ThrowArgError(details::GetFuncInfo(fname).get(), 0,
                               TypeTraits<NDArrayLike>::TypeDesc(), args[0], false);
      }
      const int axis = PackedAxis(args, 1, fname);
      *ret = Gather(x->array(), PackedIndices(args, 2, fname), axis);
    });

MXFFI_REGISTER_API("ndarray.advanced_scatter")
    .describe(
        "x[..., i_0, ..., i_{k-1}, ...] = values, in place, returning x: "
        "ndarray.advanced_scatter(x, values, axis, i_0, ..., i_{k-1}). values (an array, a number "
        "or nested sequences) broadcasts to the indexed shape and converts as numpy's "
        "assignment converts; where positions repeat, the last write wins.")
    .set_body([](PackedArgs args, Any* ret) {
      constexpr const char* fname = "ndarray.advanced_scatter";
      MXFFI_CHECK(args.size() >= 4, TypeError)
          << fname << ": expected (x, values, axis, *indices) with at least one index array, "
          << "got " << args.size() << " arguments";
      std::optional<WritableArray> x = TypeTraits<WritableArray>::TryCast(args[0].raw());
      if (!x.has_value()) {
        details::ThrowArgError(details::GetFuncInfo(fname).get(), 0,
                               TypeTraits<WritableArray>::TypeDesc(), args[0], false);
      }
      std::optional<ArrayLike> values = TypeTraits<ArrayLike>::TryCast(args[1].raw());
      if (!values.has_value()) {
        details::ThrowArgError(details::GetFuncInfo(fname).get(), 1,
                               TypeTraits<ArrayLike>::TypeDesc(), args[1], false);
      }
      const NDArray& target = x->array();
      const int axis = PackedAxis(args, 2, fname);
      Scatter(target, AssignedValues(*values, target, fname), PackedIndices(args, 3, fname), axis,
              fname);
      *ret = target;
    });

MXFFI_REGISTER_API("np.shares_memory")
    .describe(
        "Whether a and b have memory in common, exactly (numpy.shares_memory). max_work bounds "
        "the search (None: no bound, 0: the bounds test only); a RuntimeError when exceeded. "
        "Anything but two arrays shares nothing.")
    .arg("a")
    .arg("b")
    .arg("max_work", nullptr)
    .set_body_typed([](ArrayLike a, ArrayLike b, Optional<int64_t> max_work) {
      return SharesMemory(a, b, max_work.has_value() ? *max_work : -1, "np.shares_memory");
    });

MXFFI_REGISTER_API("np.may_share_memory")
    .describe(
        "Whether a and b might have memory in common (numpy.may_share_memory): by default the "
        "bounds test alone, which may answer True for interleaved views; max_work as in "
        "shares_memory.")
    .arg("a")
    .arg("b")
    .arg("max_work", nullptr)
    .set_body_typed([](ArrayLike a, ArrayLike b, Optional<int64_t> max_work) {
      return SharesMemory(a, b, max_work.has_value() ? *max_work : 0, "np.may_share_memory");
    });

MXFFI_REGISTER_API("np.copyto")
    .describe(
        "Copy src into dst (numpy.copyto): src (an array, a number or nested sequences) "
        "broadcasts to dst's shape and converts under casting ('no', 'equiv', 'safe', "
        "'same_kind' or 'unsafe'). src may overlap dst: the result is as if src were copied "
        "first.")
    .arg("dst")
    .arg("src")
    .arg("casting", "same_kind")
    .set_body_typed([](WritableArray dst_arg, ArrayLike src_arg, String casting_arg) {
      constexpr const char* fname = "np.copyto";
      const std::string casting(casting_arg.data(), casting_arg.size());
      op::Casting rule;
      MXFFI_CHECK(op::ParseCasting(casting, &rule), ValueError)
          << fname << ": casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
          << "'unsafe'; got '" << casting << "'";
      const NDArray& dst = dst_arg.array();
      MXFFI_CHECK(!dst.is_sparse(), TypeError) << fname << ": dst must be a dense array, got a "
                                               << StorageTypeName(dst.stype()) << " one";
      const DLTensor& d = dst.tensor();
      bool weak_int = false;
      if (src_arg.kind() == ArrayLike::Kind::kScalar) {
        // A Python int is weak (NEP 50): any integer dtype takes it when the value fits, and
        // one that does not fit is an OverflowError whatever the casting rule.
        const ScalarLike& s = src_arg.value().scalar();
        if (s.is_int() && (d.dtype.code == kDLInt || d.dtype.code == kDLUInt)) {
          op::CheckIntFits(s.int_value(), d.dtype, fname);
          weak_int = true;
        }
      }
      NDArray src =
          ArrayImpl(src_arg, DTypeLike(), DeviceLike(d.device), CopyMode::kIfNeeded, fname);
      const DLDataType from = src.tensor().dtype;
      MXFFI_CHECK(weak_int || CanCast(from, d.dtype, rule), TypeError)
          << fname << ": Cannot cast "
          << (src_arg.kind() == ArrayLike::Kind::kScalar ? "scalar" : "array data")
          << " from dtype('" << DataTypeToString(from) << "') to dtype('"
          << DataTypeToString(d.dtype) << "') according to the rule '" << casting << "'";
      WriteInto(BroadcastInto(src, TShape(d.shape, d.ndim), fname), dst);
    });

MXFFI_REGISTER_API("ndarray.assign")
    .describe(
        "dst[...] = value with numpy's assignment rules: value broadcast to dst's shape (its "
        "leading extents of 1 beyond dst's dimensions dropped) and cast to dst's dtype as "
        "assignment casts (any cast for an array; a number or a sequence must fit an integer "
        "dtype: OverflowError otherwise, as numpy 2). A value overlapping dst is read as if "
        "copied first. The array type's item assignment writes through it.")
    .arg("dst")
    .arg("value")
    .set_body_typed([](WritableArray dst_arg, ArrayLike value) {
      constexpr const char* fname = "ndarray.assign";
      const NDArray& dst = dst_arg;
      dst.CheckStorageKnown(fname, "the destination");
      MXFFI_CHECK(!dst.is_sparse(), TypeError)
          << fname << ": the destination is " << StorageTypeName(dst.stype())
          << "; item assignment is for dense arrays";
      const DLTensor& d = dst.tensor();
      NDArray src;
      if (value.kind() == ArrayLike::Kind::kArray) {
        const NDArrayLike& v = value.value().array();
        v->CheckStorageKnown(fname, "the value");
        MXFFI_CHECK(!v->is_sparse(), TypeError)
            << fname << ": the value is " << StorageTypeName(v->stype())
            << "; convert it with tostype('default') first";
        src = v.array();
        const DLDevice here = src.tensor().device;
        if (here.device_type != d.device.device_type || here.device_id != d.device.device_id) {
          src = cuda::ToDevice(src, d.device, fname);
        }
      } else {
        // Numbers and sequences are read in dst's dtype: an int that does not fit raises.
        src =
            ArrayImpl(value, DTypeLike(d.dtype), DeviceLike(d.device), CopyMode::kIfNeeded, fname);
      }
      WriteInto(BroadcastInto(src, TShape(d.shape, d.ndim), fname), dst);
    });

namespace {

/*! \return whether x is a Python complex number (ArrayLike holds it as a 0-d sequence). */
bool IsComplexNumber(const ArrayLike& x) {
  if (x.kind() != ArrayLike::Kind::kSequence || x.sequence_shape().ndim() != 0) return false;
  const int32_t type = x.sequence()->type_index;
  return type == kMXFFIComplexView || type == kMXFFIComplex;
}

/*!
 * \return the dtype numpy's where gives x1 and x2: arrays and sequences are strong, Python
 *  numbers weak (NEP 50: a complex number next to float16 or float32 gives complex64, next to
 *  an integer complex128), two numbers their own default dtypes promoted.
 */
DLDataType WhereDType(const ArrayLike& x1, const ArrayLike& x2, const char* fname) {
  int strong = -1;
  int num_weak = 0;
  op::ScalarKind weak[2];
  bool weak_complex = false;
  for (const ArrayLike* x : {&x1, &x2}) {
    if (x->kind() == ArrayLike::Kind::kScalar) {
      const ScalarLike& s = x->value().scalar();
      weak[num_weak++] = s.is_bool()  ? op::ScalarKind::kBool
                         : s.is_int() ? op::ScalarKind::kInt
                                      : op::ScalarKind::kFloat;
      continue;
    }
    if (IsComplexNumber(*x)) {
      weak_complex = true;
      continue;
    }
    const DLDataType t = x->kind() == ArrayLike::Kind::kArray ? x->value().array()->tensor().dtype
                                                              : x->SequenceDType();
    const int j = op::DTypeRuleIndex(t);
    MXFFI_CHECK(j >= 0, TypeError) << fname << ": unsupported dtype " << DataTypeToString(t);
    const int r = strong < 0 ? j : op::PromoteIndex(strong, j);
    MXFFI_CHECK(r >= 0, TypeError) << fname << ": x1 and x2 have no common dtype ("
                                   << DataTypeToString(t) << " is one of them)";
    strong = r;
  }
  constexpr DLDataType kComplex128{kDLComplex, 128, 1};
  if (strong < 0) {  // two Python numbers: their default dtypes, promoted
    bool has_float = false, has_int = false;
    for (int i = 0; i < num_weak; ++i) {
      has_float |= weak[i] == op::ScalarKind::kFloat;
      has_int |= weak[i] == op::ScalarKind::kInt;
    }
    return weak_complex ? kComplex128
           : has_float  ? DLDataType{kDLFloat, 64, 1}
           : has_int    ? DLDataType{kDLInt, 64, 1}
                        : DLDataType{kDLBool, 8, 1};
  }
  DLDataType t = op::DTypeAt(strong);
  for (int i = 0; i < num_weak; ++i) t = op::PromoteWithScalar(t, weak[i]);
  return weak_complex ? op::PromoteWithComplex(t) : t;
}

/*!
 * \return x as where's input of dtype on device: an array of both as it is (a tensor lent for
 *  the call included: the op only reads it), otherwise cast or moved, or a number or sequence
 *  made into an array.
 */
NDArray WhereOperand(const ArrayLike& x, DLDataType dtype, DLDevice device, const char* what,
                     const char* fname) {
  if (x.kind() == ArrayLike::Kind::kArray) {
    const NDArray& a = x.value().array();
    MXFFI_CHECK(!a.is_sparse(), TypeError)
        << fname << ": " << what << " must be dense, got storage type "
        << StorageTypeName(a.stype());
    const DLTensor& t = a.tensor();
    if (op::SameDType(t.dtype, dtype) && t.device.device_type == device.device_type &&
        t.device.device_id == device.device_id) {
      return a;
    }
  }
  return ArrayImpl(x, DTypeLike(dtype), DeviceLike(device), CopyMode::kIfNeeded, fname);
}

}  // namespace

MXFFI_REGISTER_API("np.where")
    .describe(
        "x1 where condition is true, else x2, elementwise (numpy.where of three arguments): the "
        "three broadcast together; x1 and x2 promote as numpy's operators promote them (Python "
        "numbers weak, NEP 50); condition is read as x != 0 (NaN is true). A new array, on "
        "condition's device (the CPU when condition is no array). With condition alone, "
        "np.nonzero(condition), as numpy.")
    .arg("condition")
    .arg("x1", nullptr)
    .arg("x2", nullptr)
    .set_body_typed([](ArrayLike condition, Optional<ArrayLike> x1,
                       Optional<ArrayLike> x2) -> ArrayOrTuple {
      constexpr const char* fname = "np.where";
      static const Op* op = Op::Get("_npi_where");
      NDArray inputs[3];
      if (condition.kind() == ArrayLike::Kind::kArray) {
        // A csr condition with dense x1 and x2 of its shape runs the op's csr kernel (MXNet's);
        // other sparse conditions the fallback.
        inputs[0] = condition.value().array();
      } else {
        inputs[0] = ArrayImpl(condition, DTypeLike(), DeviceLike(), CopyMode::kIfNeeded, fname);
      }
      if (!x1.has_value() || !x2.has_value()) {
        MXFFI_CHECK(!x1.has_value() && !x2.has_value(), ValueError)
            << fname << ": either both or neither of x1 and x2 should be given";
        MXFFI_CHECK(inputs[0].tensor().ndim > 0, ValueError)
            << fname << ": Calling nonzero on 0d arrays is not allowed. Use "
            << "np.atleast_1d(scalar).nonzero() instead. If the context of this error is of the "
            << "form `arr[nonzero(cond)]`, just use `arr[cond]`.";
        const std::vector<NDArray> rows = NonzeroRows(inputs[0]);
        return {Any(ADT::Tuple(std::vector<Any>(rows.begin(), rows.end())))};
      }
      const DLDataType dt = WhereDType(*x1, *x2, fname);
      const DLDevice dev = inputs[0].tensor().device;
      inputs[1] = WhereOperand(*x1, dt, dev, "x1", fname);
      inputs[2] = WhereOperand(*x2, dt, dev, "x2", fname);
      OpAttrs attrs;
      attrs.op = op;
      return {Any(Invoke(attrs, Span<const NDArray>(inputs, 3)))};
    });

}  // namespace api
}  // namespace mxffi
