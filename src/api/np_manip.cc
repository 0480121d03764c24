/*!
 * \file np_manip.cc
 * \brief The array API's manipulation functions that are views of their input, as numpy's are:
 *  np.expand_dims, np.squeeze, np.permute_dims, np.matrix_transpose, np.swapaxes, np.moveaxis,
 *  np.broadcast_to (read-only, zero strides on the broadcast axes) and np.flip (negative
 *  strides). None of them copies or runs a kernel; a tensor lent for the call (a numpy array) is
 *  copied first, as np.transpose copies it, since the result outlives the call.
 */
#include <mxffi/registry.h>

#include <cstring>

#include "api_util.h"
#include "sparse_dot.h"

namespace mxffi {
namespace api {
namespace {

/*! \return a as an array the result may keep, refusing a sparse one by fname. */
NDArray DenseOf(const NDArrayLike& a, const char* fname) {
  MXFFI_CHECK(!a->is_sparse(), TypeError)
      << fname << ": takes a dense array; got storage type " << StorageTypeName(a->stype());
  return OwnedArray(a);
}

/*! \brief numpy's C-contiguous strides of shape, an extent of 0 counted as 1. */
void NumpyCompactStrides(const int64_t* shape, int ndim, int64_t* out) {
  int64_t s = 1;
  for (int i = ndim - 1; i >= 0; --i) {
    out[i] = s;
    s *= shape[i] > 0 ? shape[i] : 1;
  }
}

/*!
 * \brief Mark axes (a tuple, or an int) of an ndim-dimensional array in seen, each normalised;
 *  numpy's AxisError when one is out of range, ValueError "repeated axis" when one repeats.
 */
void MarkAxes(const AxisLike& axes, int ndim, bool* seen, const char* fname) {
  const TShape list = axes.axes();
  for (size_t i = 0; i < list.ndim(); ++i) {
    const int ax = NormalizeAxis(list[i], ndim, fname);
    MXFFI_CHECK(!seen[ax], ValueError) << fname << ": repeated axis; got " << list.ToString();
    seen[ax] = true;
  }
}

/*! \return a's itemsize in bytes. */
int64_t ItemSize(const DLTensor& t) { return (t.dtype.bits * t.dtype.lanes + 7) / 8; }

NDArray ExpandDims(const NDArrayLike& x, const AxisLike& axis, const char* fname) {
  MXFFI_CHECK(!axis.is_none(), TypeError)
      << fname << ": axis must be an int or a tuple of ints, got None";
  NDArray a = DenseOf(x, fname);
  const DLTensor& t = a.tensor();
  const int out_ndim = t.ndim + static_cast<int>(axis.axes().ndim());
  MXFFI_CHECK(out_ndim <= kMaxNDim, ValueError)
      << fname << ": the result would have " << out_ndim << " dimensions; at most " << kMaxNDim
      << " are supported";
  bool inserted[kMaxNDim] = {};
  MarkAxes(axis, out_ndim, inserted, fname);
  int64_t st[kMaxNDim], shape[kMaxNDim], strides[kMaxNDim];
  ElementStrides(t, st);
  for (int i = 0, k = 0; i < out_ndim; ++i) {
    if (inserted[i]) {
      shape[i] = 1;
    } else {
      shape[i] = t.shape[k];
      strides[i] = st[k++];
    }
  }
  if (a.IsContiguous()) {
    // numpy reshapes a contiguous array: C-contiguous strides throughout.
    NumpyCompactStrides(shape, out_ndim, strides);
  } else {
    // numpy's strides for the new unit axes of a non-contiguous array: the next axis's stride
    // times its extent, and the last real axis's stride (the itemsize for none) at the end.
    int64_t next = -1;
    for (int i = out_ndim - 1; i >= 0; --i) {
      if (!inserted[i]) {
        next = i;
        continue;
      }
      if (next >= 0) {
        strides[i] = strides[next] * shape[next];
      } else {
        int64_t last = 1;
        for (int j = i - 1; j >= 0; --j) {
          if (!inserted[j]) {
            last = strides[j];
            break;
          }
        }
        strides[i] = last;
      }
    }
  }
  return NDArray::View(a, shape, strides, out_ndim, 0);
}

NDArray Squeeze(const NDArrayLike& x, const AxisLike& axis, const char* fname) {
  NDArray a = DenseOf(x, fname);
  const DLTensor& t = a.tensor();
  bool drop[kMaxNDim] = {};
  if (axis.is_none()) {
    for (int i = 0; i < t.ndim; ++i) drop[i] = t.shape[i] == 1;
  } else {
    MarkAxes(axis, t.ndim, drop, fname);
    for (int i = 0; i < t.ndim; ++i) {
      MXFFI_CHECK(!drop[i] || t.shape[i] == 1, ValueError)
          << fname << ": cannot select an axis to squeeze out which has size not equal to one; "
          << "axis " << i << " of shape " << TShape(t.shape, t.ndim).ToString();
    }
  }
  int64_t st[kMaxNDim], shape[kMaxNDim], strides[kMaxNDim];
  ElementStrides(t, st);
  int k = 0;
  for (int i = 0; i < t.ndim; ++i) {
    if (drop[i]) continue;
    shape[k] = t.shape[i];
    strides[k++] = st[i];
  }
  return NDArray::View(a, shape, strides, k, 0);
}

/*! \return a view of a with axes i and j exchanged (both already normalised). */
NDArray SwapAxes(const NDArray& a, int i, int j) {
  const DLTensor& t = a.tensor();
  int64_t shape[kMaxNDim], strides[kMaxNDim];
  ElementStrides(t, strides);
  std::memcpy(shape, t.shape, sizeof(int64_t) * t.ndim);
  std::swap(shape[i], shape[j]);
  std::swap(strides[i], strides[j]);
  return NDArray::View(a, shape, strides, t.ndim, 0);
}

NDArray MoveAxis(const NDArrayLike& x, const AxisLike& source, const AxisLike& destination,
                 const char* fname) {
  MXFFI_CHECK(!source.is_none() && !destination.is_none(), TypeError)
      << fname << ": source and destination must be ints or tuples of ints, got None";
  NDArray a = DenseOf(x, fname);
  const DLTensor& t = a.tensor();
  const TShape src = source.axes(), dst = destination.axes();
  MXFFI_CHECK(src.ndim() == dst.ndim(), ValueError)
      << fname << ": `source` and `destination` arguments must have the same number of "
      << "elements; got " << src.ToString() << " and " << dst.ToString();
  bool src_seen[kMaxNDim] = {}, dst_seen[kMaxNDim] = {};
  int src_ax[kMaxNDim], dst_ax[kMaxNDim];
  for (size_t i = 0; i < src.ndim(); ++i) {
    src_ax[i] = NormalizeAxis(src[i], t.ndim, fname);
    MXFFI_CHECK(!src_seen[src_ax[i]], ValueError)
        << fname << ": repeated axis in `source` argument; got " << src.ToString();
    src_seen[src_ax[i]] = true;
  }
  for (size_t i = 0; i < dst.ndim(); ++i) {
    dst_ax[i] = NormalizeAxis(dst[i], t.ndim, fname);
    MXFFI_CHECK(!dst_seen[dst_ax[i]], ValueError)
        << fname << ": repeated axis in `destination` argument; got " << dst.ToString();
    dst_seen[dst_ax[i]] = true;
  }
  // The axes not moved keep their order in the places no destination names.
  int64_t perm[kMaxNDim];
  for (size_t i = 0; i < src.ndim(); ++i) perm[dst_ax[i]] = src_ax[i];
  for (int i = 0, k = 0; i < t.ndim; ++i) {
    if (dst_seen[i]) continue;
    while (src_seen[k]) ++k;
    perm[i] = k++;
  }
  int64_t st[kMaxNDim], shape[kMaxNDim], strides[kMaxNDim];
  ElementStrides(t, st);
  for (int i = 0; i < t.ndim; ++i) {
    shape[i] = t.shape[perm[i]];
    strides[i] = st[perm[i]];
  }
  return NDArray::View(a, shape, strides, t.ndim, 0);
}

/*! \return a read-only array sharing a's memory (numpy's broadcast_to result is read-only). */
NDArray ReadOnlyAlias(const NDArray& a) {
  if (a.read_only()) return a;
  DLManagedTensorVersioned* m = a.ToDLPackVersioned();
  m->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  try {
    return NDArray::FromDLPackVersioned(m);
  } catch (...) {
    if (m->deleter) m->deleter(m);
    throw;
  }
}

NDArray BroadcastTo(const NDArrayLike& x, const ShapeLike& shape, const char* fname) {
  NDArray a = DenseOf(x, fname);
  const DLTensor& t = a.tensor();
  const int ndim = static_cast<int>(shape.ndim());
  MXFFI_CHECK(ndim >= t.ndim, ValueError)
      << fname << ": cannot broadcast an array of shape " << TShape(t.shape, t.ndim).ToString()
      << " to the shape " << shape.ToString() << ", which has fewer dimensions";
  int64_t st[kMaxNDim], strides[kMaxNDim];
  ElementStrides(t, st);
  const int lead = ndim - t.ndim;
  for (int i = 0; i < ndim; ++i) {
    const int k = i - lead;
    if (k < 0) {
      strides[i] = 0;
      continue;
    }
    MXFFI_CHECK(t.shape[k] == shape[i] || t.shape[k] == 1, ValueError)
        << fname << ": cannot broadcast an array of shape " << TShape(t.shape, t.ndim).ToString()
        << " to the shape " << shape.ToString() << " (axis " << i << ": " << t.shape[k]
        << " against " << shape[i] << ")";
    strides[i] = t.shape[k] == shape[i] ? st[k] : 0;
  }
  return NDArray::View(ReadOnlyAlias(a), shape.data(), strides, ndim, 0);
}

NDArray Flip(const NDArrayLike& x, const AxisLike& axis, const char* fname) {
  NDArray a = DenseOf(x, fname);
  const DLTensor& t = a.tensor();
  bool flip[kMaxNDim] = {};
  if (axis.is_none()) {
    for (int i = 0; i < t.ndim; ++i) flip[i] = true;
  } else {
    MarkAxes(axis, t.ndim, flip, fname);
  }
  int64_t strides[kMaxNDim];
  ElementStrides(t, strides);
  int64_t offset = 0;
  bool empty = false;
  for (int i = 0; i < t.ndim; ++i) empty = empty || t.shape[i] == 0;
  for (int i = 0; i < t.ndim; ++i) {
    if (!flip[i]) continue;
    // The view starts at the last element along the axis and steps backwards.
    if (!empty) offset += (t.shape[i] - 1) * strides[i];
    strides[i] = -strides[i];
  }
  return NDArray::View(a, t.shape, strides, t.ndim, offset * ItemSize(t));
}

}  // namespace

MXFFI_REGISTER_API("np.expand_dims")
    .describe(
        "A view of x with a new axis of extent 1 at each place axis names (an int or a tuple of "
        "ints, counted in the result's dimensions; negative from the end).")
    .arg("x")
    .arg("axis", 0)
    .set_body_typed([](NDArrayLike x, AxisLike axis) {
      return ExpandDims(x, axis, "np.expand_dims");
    });

MXFFI_REGISTER_API("np.squeeze")
    .describe(
        "A view of x without the axes of extent 1: those axis names (an int or a tuple, each of "
        "extent 1, else ValueError), or all of them when axis is None.")
    .arg("x")
    .arg("axis", nullptr)
    .set_body_typed([](NDArrayLike x, AxisLike axis) { return Squeeze(x, axis, "np.squeeze"); });

MXFFI_REGISTER_API("np.permute_dims")
    .describe("A view of x with its axes permuted: axis i of the result is axis axes[i] of x.")
    .arg("x")
    .arg("axes")
    .set_body_typed([](NDArrayLike x, AxisLike axes) {
      return Transpose(x, axes, "np.permute_dims");
    });

MXFFI_REGISTER_API("np.matrix_transpose")
    .describe(
        "A view of x (at least 2-dimensional) with its last two axes swapped: each matrix of the "
        "stack transposed.")
    .arg("x")
    .set_body_typed([](NDArrayLike x) {
      constexpr const char* fname = "np.matrix_transpose";
      if (x->stype() == StorageType::kCSR) return CsrTransposeOf(x.array());
      NDArray a = DenseOf(x, fname);
      const int ndim = a.tensor().ndim;
      MXFFI_CHECK(ndim >= 2, ValueError)
          << fname << ": input array must be at least 2-dimensional, but it is " << ndim;
      return SwapAxes(a, ndim - 2, ndim - 1);
    });

MXFFI_REGISTER_API("np.swapaxes")
    .describe("A view of a with axes axis1 and axis2 exchanged.")
    .arg("a")
    .arg("axis1")
    .arg("axis2")
    .set_body_typed([](NDArrayLike x, int64_t axis1, int64_t axis2) {
      constexpr const char* fname = "np.swapaxes";
      NDArray a = DenseOf(x, fname);
      const int ndim = a.tensor().ndim;
      return SwapAxes(a, NormalizeAxis(axis1, ndim, fname), NormalizeAxis(axis2, ndim, fname));
    });

MXFFI_REGISTER_API("np.moveaxis")
    .describe(
        "A view of x with the axes source (an int or a tuple) moved to the places destination "
        "names; the other axes keep their order.")
    .arg("x")
    .arg("source")
    .arg("destination")
    .set_body_typed([](NDArrayLike x, AxisLike source, AxisLike destination) {
      return MoveAxis(x, source, destination, "np.moveaxis");
    });

MXFFI_REGISTER_API("np.broadcast_to")
    .describe(
        "A read-only view of x broadcast to shape (numpy's rules: x's axes align with the last "
        "ones of shape, each of extent 1 or equal); the broadcast axes have stride 0.")
    .arg("x")
    .arg("shape")
    .set_body_typed([](NDArrayLike x, ShapeLike shape) {
      return BroadcastTo(x, shape, "np.broadcast_to");
    });

MXFFI_REGISTER_API("np.broadcast_arrays")
    .describe(
        "The arrays broadcast against each other (numpy's rules): read-only views of one shape, "
        "in a list; the broadcast axes have stride 0.")
    .arg_variadic("arrays")
    .returns_list()
    .set_body_typed([](Array<NDArray> arrays) {
      constexpr const char* fname = "np.broadcast_arrays";
      TShape shape;  // the broadcast shape so far, of the longest ndim
      int64_t first = 0;
      for (int64_t i = 0; i < arrays.size(); ++i) {
        const DLTensor& t = arrays[i].tensor();
        TShape here(t.shape, t.ndim);
        const int nd = std::max(shape.ndim(), here.ndim());
        TShape out;
        out.resize(nd);
        for (int k = 0; k < nd; ++k) {
          const int a = k - (nd - shape.ndim()), b = k - (nd - here.ndim());
          const int64_t x = a >= 0 ? shape[a] : 1, y = b >= 0 ? here[b] : 1;
          MXFFI_CHECK(x == y || x == 1 || y == 1, ValueError)
              << fname << ": shape mismatch: objects cannot be broadcast to a single shape. "
              << "Mismatch is between arg " << first << " with shape "
              << TShape(arrays[first].tensor().shape, arrays[first].tensor().ndim).ToString()
              << " and arg " << i << " with shape " << here.ToString() << ".";
          out[k] = x == 1 ? y : x;
        }
        if (!(out == shape)) first = i;
        shape = out;
      }
      Array<NDArray> result;
      const ShapeLike target(shape.data(), shape.ndim());
      for (int64_t i = 0; i < arrays.size(); ++i) {
        result.push_back(BroadcastTo(NDArrayLike(arrays[i], false), target, fname));
      }
      return result;
    });

MXFFI_REGISTER_API("np.flip")
    .describe(
        "A view of x with the order of the elements reversed along axis (an int or a tuple), or "
        "along every axis when axis is None; its strides are negative there.")
    .arg("x")
    .arg("axis", nullptr)
    .set_body_typed([](NDArrayLike x, AxisLike axis) { return Flip(x, axis, "np.flip"); });

}  // namespace api
}  // namespace mxffi
