/*!
 * \file np_tile.cc
 * \brief The manipulation functions that make a new array from x's elements moved or repeated:
 *  np.roll, np.tile and np.repeat. roll and tile, and repeat by one count, are strided copies
 *  (NDArray::CopyFromTo, on x's device) from views of x whose broadcast axes have stride 0
 *  into the new array; repeat by a count per element gathers (the _npi_advanced_gather op)
 *  along the axis with the indices the counts give.
 */
#include <mxffi/registry.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "../ndarray/cuda/device.h"
#include "../op/dtype.h"
#include "../op/indexing/indexing_op.h"
#include "../op/type_switch.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

/*! \brief Up to 2 * kMaxNDim axes of a strided layout over some array's memory. */
struct Layout {
  int ndim = 0;
  int64_t shape[2 * kMaxNDim];
  int64_t strides[2 * kMaxNDim];
  char* data = nullptr;

  void Push(int64_t extent, int64_t stride) {
    shape[ndim] = extent;
    strides[ndim++] = stride;
  }
  /*! \return the layout as a DLTensor of t's dtype and device (valid while this lives). */
  DLTensor Tensor(const DLTensor& t) {
    DLTensor out = t;
    out.data = data;
    out.byte_offset = 0;
    out.ndim = ndim;
    out.shape = shape;
    out.strides = strides;
    return out;
  }
};

/*! \return where t's element 0 is. */
char* Base(const DLTensor& t) { return static_cast<char*>(t.data) + t.byte_offset; }

/*! \brief Give dst C-contiguous strides for its shape. */
void Compact(Layout* dst) {
  int64_t s = 1;
  for (int i = dst->ndim - 1; i >= 0; --i) {
    dst->strides[i] = s;
    s *= dst->shape[i];
  }
}

/*!
 * \brief Copy src into dst (one shape), their neighbouring axes merged first where both allow
 *  (stride[d - 1] == stride[d] * shape[d]), so that a tile of many axes stays within the CUDA
 *  copy's 32.
 */
void CopyMerged(const DLTensor& like, Layout src, Layout dst) {
  int k = 0;
  for (int d = 0; d < src.ndim; ++d) {
    if (k > 0 && src.strides[k - 1] == src.strides[d] * src.shape[d] &&
        dst.strides[k - 1] == dst.strides[d] * dst.shape[d]) {
      src.shape[k - 1] *= src.shape[d];
      dst.shape[k - 1] *= dst.shape[d];
      src.strides[k - 1] = src.strides[d];
      dst.strides[k - 1] = dst.strides[d];
      continue;
    }
    src.shape[k] = src.shape[d];
    dst.shape[k] = dst.shape[d];
    src.strides[k] = src.strides[d];
    dst.strides[k++] = dst.strides[d];
  }
  src.ndim = dst.ndim = k;
  NDArray::CopyFromTo(src.Tensor(like), dst.Tensor(like));
}

NDArray Refuse(const NDArrayLike& x, const char* fname) {
  MXFFI_CHECK(!x->is_sparse(), TypeError)
      << fname << ": takes a dense array; got storage type " << StorageTypeName(x->stype());
  return x.array();
}

/*! \return x's elements as a 1-d layout (a contiguous copy kept in *hold when x is strided). */
Layout Flat(const NDArray& x, NDArray* hold) {
  *hold = x.Contiguous();
  Layout l;
  l.data = Base(hold->tensor());
  l.Push(hold->numel(), 1);
  return l;
}

/*!
 * \brief Copy the blocks of a roll: along each axis d with shift s[d] (in [1, extent)), dst's
 *  [s, n) takes src's [0, n - s) and dst's [0, s) takes src's [n - s, n). One copy per
 *  combination of the two halves of the rolled axes.
 */
void CopyRolled(const DLTensor& like, Layout src, Layout dst, const int64_t* shift, int d) {
  for (; d < src.ndim && shift[d] == 0; ++d) {
  }
  if (d == src.ndim) {
    CopyMerged(like, src, dst);
    return;
  }
  const int64_t n = src.shape[d], k = shift[d];
  const int64_t elem = DataTypeBytes(like.dtype);
  Layout a = src, b = dst;
  a.shape[d] = b.shape[d] = n - k;
  b.data += k * dst.strides[d] * elem;
  CopyRolled(like, a, b, shift, d + 1);
  a = src;
  b = dst;
  a.shape[d] = b.shape[d] = k;
  a.data += (n - k) * src.strides[d] * elem;
  CopyRolled(like, a, b, shift, d + 1);
}

NDArray Roll(const NDArrayLike& x_arg, const IntTupleLike& shift, const AxisLike& axis,
             const char* fname) {
  NDArray x = Refuse(x_arg, fname);
  const DLTensor& t = x.tensor();
  NDArray out = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
  if (out.numel() == 0) return out;
  NDArray hold;
  Layout src, dst;
  int64_t total[kMaxNDim] = {};
  if (axis.is_none()) {
    src = Flat(x, &hold);
    for (size_t i = 0; i < shift.ndim(); ++i) total[0] += shift[i];
  } else {
    const TShape axes = axis.axes();
    const size_t ns = shift.ndim(), na = axes.ndim();
    MXFFI_CHECK(ns == na || ns == 1 || na == 1, ValueError)
        << fname << ": shift and axis must be of one length, or one of them a single value; got "
        << shift.ToString() << " and " << axes.ToString();
    const size_t pairs = ns == 1 ? na : ns;
    for (size_t i = 0; i < pairs; ++i) {
      const int ax = NormalizeAxis(axes[na == 1 ? 0 : i], t.ndim, fname);
      total[ax] += shift[ns == 1 ? 0 : i];
    }
    src.data = Base(t);
    ElementStrides(t, src.strides);
    for (int i = 0; i < t.ndim; ++i) src.shape[i] = t.shape[i];
    src.ndim = t.ndim;
  }
  dst.ndim = src.ndim;
  for (int i = 0; i < src.ndim; ++i) dst.shape[i] = src.shape[i];
  Compact(&dst);
  dst.data = Base(out.tensor());
  int64_t shifts[2 * kMaxNDim] = {};
  for (int i = 0; i < src.ndim; ++i) {
    const int64_t n = src.shape[i];
    shifts[i] = ((total[i] % n) + n) % n;  // numpy's modulo: the shift into [0, n)
  }
  CopyRolled(t, src, dst, shifts, 0);
  return out;
}

NDArray Tile(const NDArrayLike& x_arg, const ShapeLike& reps, const char* fname) {
  NDArray x = Refuse(x_arg, fname);
  const DLTensor& t = x.tensor();
  const int nr = static_cast<int>(reps.ndim());
  const int nd = std::max(nr, t.ndim);
  MXFFI_CHECK(nd <= kMaxNDim, ValueError)
      << fname << ": the result would have " << nd << " dimensions; at most " << kMaxNDim
      << " are supported";
  int64_t st[kMaxNDim];
  ElementStrides(t, st);
  // x's axes aligned with the last ones of the result, each rep count with the first.
  Layout src, dst;
  src.data = Base(t);
  int64_t out_shape[kMaxNDim];
  for (int i = 0; i < nd; ++i) {
    const int xi = i - (nd - t.ndim), ri = i - (nd - nr);
    const int64_t extent = xi >= 0 ? t.shape[xi] : 1, stride = xi >= 0 ? st[xi] : 0;
    const int64_t r = ri >= 0 ? reps[ri] : 1;
    out_shape[i] = extent * r;
    // The result's axis i is (r, extent) in C order: the copies outside, x's axis inside.
    if (r != 1) src.Push(r, 0);
    if (extent != 1) src.Push(extent, stride);
  }
  NDArray out = NDArray::Empty(out_shape, nd, t.dtype, t.device);
  if (out.numel() == 0) return out;
  dst.ndim = src.ndim;
  for (int i = 0; i < src.ndim; ++i) dst.shape[i] = src.shape[i];
  Compact(&dst);
  dst.data = Base(out.tensor());
  CopyMerged(t, src, dst);
  return out;
}

/*! \return the repeat counts repeats gives, read on the host as int64 (numpy's 'safe' cast). */
std::vector<int64_t> Counts(const ArrayLike& repeats, const char* fname) {
  if (repeats.kind() == ArrayLike::Kind::kScalar) {
    const ScalarLike& s = repeats.value().scalar();
    MXFFI_CHECK(!s.is_float(), TypeError)
        << fname << ": repeats must be integers; got the float " << s.value();
    return {s.int_value()};
  }
  const NDArray r = ArrayImpl(repeats, DTypeLike(), DeviceLike(kCPU), CopyMode::kIfNeeded, fname);
  const DLTensor& rt = r.tensor();
  // An empty sequence is float64 as numpy makes it, but holds no count to refuse.
  if (repeats.kind() == ArrayLike::Kind::kSequence && r.numel() == 0 && rt.ndim == 1) return {};
  MXFFI_CHECK(rt.dtype.code == kDLInt || rt.dtype.code == kDLUInt || rt.dtype.code == kDLBool,
              TypeError)
      << fname << ": repeats must be integers; got an array of dtype "
      << DataTypeToString(rt.dtype);
  MXFFI_CHECK(rt.ndim <= 1, ValueError)
      << fname << ": repeats must be an int or a 1-d array; got " << rt.ndim << " dimensions";
  const NDArray c = r.Contiguous();
  std::vector<int64_t> out(static_cast<size_t>(c.numel()));
  MXFFI_TYPE_SWITCH(rt.dtype, fname, DType, {
    const DType* p = op::DataPtr<const DType>(c.tensor());
    for (size_t i = 0; i < out.size(); ++i) {
      if constexpr (std::is_same_v<DType, uint64_t>) {
        MXFFI_CHECK(p[i] <= static_cast<uint64_t>(INT64_MAX), ValueError)
            << fname << ": the count " << p[i] << " is too large";
      }
      out[i] = static_cast<int64_t>(p[i]);
    }
  });
  return out;
}

NDArray Repeat(const NDArrayLike& x_arg, const ArrayLike& repeats, const Optional<int64_t>& axis,
               const char* fname) {
  NDArray x = Refuse(x_arg, fname);
  const std::vector<int64_t> counts = Counts(repeats, fname);
  for (int64_t c : counts) {
    MXFFI_CHECK(c >= 0, ValueError)
        << fname << ": repeats may not contain negative values; got " << c;
  }
  NDArray hold;
  const DLTensor& t = x.tensor();
  Layout src;
  int ax;
  if (!axis.has_value()) {
    src = Flat(x, &hold);
    ax = 0;
  } else {
    ax = NormalizeAxis(*axis, t.ndim, fname);
    src.data = Base(t);
    ElementStrides(t, src.strides);
    for (int i = 0; i < t.ndim; ++i) src.shape[i] = t.shape[i];
    src.ndim = t.ndim;
  }
  const int64_t n = src.shape[ax];
  if (counts.size() != 1) {
    MXFFI_CHECK(static_cast<int64_t>(counts.size()) == n, ValueError)
        << fname << ": repeats has " << counts.size() << " values but the axis has extent " << n;
    // Element j of the axis, counts[j] times: a gather with those indices.
    std::vector<int64_t> idx;
    for (int64_t j = 0; j < n; ++j) idx.insert(idx.end(), counts[j], j);
    const int64_t len = static_cast<int64_t>(idx.size());
    NDArray host = NDArray::Empty(&len, 1, DLDataType{kDLInt, 64, 1}, kCPU);
    std::copy(idx.begin(), idx.end(), op::DataPtr<int64_t>(host.tensor()));
    NDArray index = t.device.device_type == kDLCPU ? host : cuda::ToDevice(host, t.device, fname);
    NDArray base = axis.has_value() ? x : NDArray::View(hold, &src.shape[0], nullptr, 1, 0);
    static const Op* gather = Op::Get("_npi_advanced_gather");
    op::AdvancedIndexParam p;
    p.num_args = 2;
    p.axis = ax;
    return InvokeOp(gather, p, {base, index});
  }
  // One count for every element: x's axis ax followed by a stride-0 axis of the count.
  const int64_t r = counts[0];
  Layout in, dst;
  in.data = src.data;
  int64_t out_shape[kMaxNDim];
  for (int i = 0; i < src.ndim; ++i) {
    in.Push(src.shape[i], src.strides[i]);
    out_shape[i] = src.shape[i];
    if (i == ax) {
      in.Push(r, 0);
      out_shape[i] *= r;
    }
  }
  NDArray out = NDArray::Empty(out_shape, src.ndim, t.dtype, t.device);
  if (out.numel() == 0) return out;
  dst.ndim = in.ndim;
  for (int i = 0; i < in.ndim; ++i) dst.shape[i] = in.shape[i];
  Compact(&dst);
  dst.data = Base(out.tensor());
  CopyMerged(t, in, dst);
  return out;
}

}  // namespace

MXFFI_REGISTER_API("np.roll")
    .describe(
        "A new array of x's elements shifted by shift along axis (ints or tuples of ints, "
        "paired, a single one paired with each of the other), those past the end coming in at "
        "the start; axis None rolls the flattened elements and keeps x's shape.")
    .arg("x")
    .arg("shift")
    .arg("axis", nullptr)
    .set_body_typed([](NDArrayLike x, IntTupleLike shift, AxisLike axis) {
      return Roll(x, shift, axis, "np.roll");
    });

MXFFI_REGISTER_API("np.tile")
    .describe(
        "A new array of x repeated repetitions[i] times along axis i (the shorter of x's shape "
        "and repetitions padded with leading ones).")
    .arg("x")
    .arg("repetitions")
    .set_body_typed([](NDArrayLike x, ShapeLike repetitions) {
      return Tile(x, repetitions, "np.tile");
    });

MXFFI_REGISTER_API("np.repeat")
    .describe(
        "A new array with each element of x along axis (None: of the flattened x) repeated "
        "repeats times: one int for all, or a 1-d integer array of one count per element.")
    .arg("x")
    .arg("repeats")
    .arg("axis", nullptr)
    .set_body_typed([](NDArrayLike x, ArrayLike repeats, Optional<int64_t> axis) {
      return Repeat(x, repeats, axis, "np.repeat");
    });

}  // namespace api
}  // namespace mxffi
