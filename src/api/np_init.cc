/*!
 * \file np_init.cc
 * \brief np.* API functions that make arrays (empty, zeros, ones, full, *_like, arange, array,
 *  asarray) or change their layout (reshape, transpose, copy, astype).
 */
#include <mxffi/registry.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "../ndarray/cuda/device.h"
#include "../op/dtype.h"
#include "../op/init/init_op.h"
#include "../op/sparse/elemwise_sparse.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

using op::InitParam;

/*! \return a C-contiguous copy of a (the _copy op). */
NDArray CopyOf(const NDArray& a) {
  static const Op* copy = Op::Get("_copy");
  OpAttrs attrs;
  attrs.op = copy;
  return Invoke(attrs, Span<const NDArray>(&a, 1));
}

/*! \return a for a use that may outlive the call: a borrowed tensor is copied. */
NDArray OwnedArray(const AnyView& v, const char* fname, const char* arg) {
  NDArray a = ArrayArg(v, fname, arg);
  return v.type_index() == kMXFFIDLTensorPtr ? CopyOf(a) : a;
}

NDArray Fill(const char* fname, const Op* op, const AnyView& shape, const AnyView& dtype,
             const AnyView& device, double value) {
  InitParam p;
  ShapeArg(shape, fname, &p.shape);
  p.dtype = DTypeArg(dtype, fname, kFloat64);
  p.value = value;
  return InvokeOp(op, p, {}, DeviceArg(device, fname));
}

NDArray FillLike(const char* fname, const Op* op, const NDArray& src, const AnyView& dtype,
                 const AnyView& device, double value) {
  const DLTensor& t = src.tensor();
  InitParam p;
  p.shape.assign(t.shape, t.ndim);
  p.dtype = DTypeArg(dtype, fname, t.dtype);
  p.value = value;
  return InvokeOp(op, p, {}, device.is_none() ? t.device : DeviceArg(device, fname));
}

/*!
 * \brief np.zeros_like of a csr or row_sparse array: the same storage type with no stored values
 *  (the zeros_like op), as MXNet's zeros_like.
 */
NDArray SparseZerosLike(const NDArray& src, const AnyView& dtype, const AnyView& device) {
  const char* fname = "np.zeros_like";
  static const Op* op = Op::Get("zeros_like");
  const DLTensor& t = src.tensor();
  if (!device.is_none()) {
    DLDevice d = DeviceArg(device, fname);
    MXFFI_CHECK(d.device_type == t.device.device_type && d.device_id == t.device.device_id,
                NotImplementedError)
        << fname << ": a sparse array's zeros_like is made on its own device (the CPU); got "
        << "device type " << d.device_type;
  }
  op::ZerosLikeParam p;
  if (!dtype.is_none()) p.dtype = DTypeParam(DTypeArg(dtype, fname, t.dtype));
  return InvokeOp(op, p, {src});
}

/*! \brief The dtype numpy gives a Python scalar: bool, int64 or float64. */
/*!
 * \brief numpy's OverflowError for an int fill value that an integer dtype cannot hold (numpy 2
 *  refuses np.full(2, 300, dtype=int8) the same way), and a ValueError for one that float64, in
 *  which the fill value travels to the kernel, cannot hold exactly.
 */
void CheckIntFill(int64_t v, DLDataType dt) {
  if (dt.code != kDLInt && dt.code != kDLUInt) return;
  const int bits = dt.bits;
  bool fits = true;
  if (dt.code == kDLInt && bits < 64) {
    fits = v >= -(int64_t{1} << (bits - 1)) && v < (int64_t{1} << (bits - 1));
  } else if (dt.code == kDLUInt) {
    fits = v >= 0 && (bits >= 64 || v < (int64_t{1} << bits));
  }
  MXFFI_CHECK(fits, OverflowError)
      << "np.full: fill_value " << v << " is out of bounds for " << DataTypeToString(dt);
  MXFFI_CHECK(v <= (int64_t{1} << 53) && v >= -(int64_t{1} << 53), ValueError)
      << "np.full: fill_value " << v << " cannot be filled exactly into " << DataTypeToString(dt)
      << "; the fill travels as float64, exact for integers up to 2**53 in magnitude";
}

DLDataType ScalarDType(const AnyView& v) {
  return v.type_index() == kMXFFIBool ? kBool : v.type_index() == kMXFFIInt ? kInt64 : kFloat64;
}

// ---- array() from nested sequences ------------------------------------------------------

/*! \brief Shape and element kind of a nested sequence, found in one walk. */
struct NestedInfo {
  TShape shape;
  bool shape_set = false;
  int kind = 0;  // 0 bool, 1 int, 2 float: the widest Python scalar seen
  bool any = false;
};

void WalkNested(const AnyView& v, int depth, TShape* cur, NestedInfo* info, const char* fname) {
  if (v.type_index() == kMXFFIArray) {
    Array<Any> a = v.cast<Array<Any>>();
    if (depth >= kMaxNDim) {
      MXFFI_THROW(ValueError) << fname << ": nesting deeper than " << kMaxNDim << " levels";
    }
    cur->resize(depth + 1);
    (*cur)[depth] = a.size();
    if (a.size() == 0) {
      // An empty list ends this branch: its depth is part of the shape.
      if (!info->shape_set) {
        info->shape = *cur;
        info->shape_set = true;
      } else if (info->shape != *cur) {
        goto inhomogeneous;
      }
      return;
    }
    for (int64_t i = 0; i < a.size(); ++i) {
      WalkNested(a[i], depth + 1, cur, info, fname);
      cur->resize(depth + 1);
      (*cur)[depth] = a.size();
    }
    return;
  }
  if (v.type_index() == kMXFFIInt || v.type_index() == kMXFFIBool ||
      v.type_index() == kMXFFIFloat) {
    TShape here;
    here.assign(cur->data(), depth);
    if (!info->shape_set) {
      info->shape = here;
      info->shape_set = true;
    } else if (info->shape != here) {
      goto inhomogeneous;
    }
    int k = v.type_index() == kMXFFIBool ? 0 : v.type_index() == kMXFFIInt ? 1 : 2;
    info->kind = info->any ? std::max(info->kind, k) : k;
    info->any = true;
    return;
  }
  MXFFI_THROW(TypeError) << fname << ": cannot make an array element from " << v.GetTypeName()
                         << "; expected numbers and nested lists of them";
inhomogeneous:
  MXFFI_THROW(ValueError) << fname
                          << ": setting an array element with a sequence. The requested array "
                             "has an inhomogeneous shape; the first element has shape "
                          << info->shape.ToString();
}

template <typename DType>
void FillNested(const AnyView& v, DType** out) {
  if (v.type_index() == kMXFFIArray) {
    Array<Any> a = v.cast<Array<Any>>();
    for (int64_t i = 0; i < a.size(); ++i) FillNested<DType>(a[i], out);
    return;
  }
  const MXFFIAny* c = v.raw();
  if (c->type_index == kMXFFIFloat) {
    *(*out)++ = static_cast<DType>(c->v_float64);
  } else if constexpr (std::is_same_v<DType, op::half_t> || std::is_same_v<DType, op::bf16_t>) {
    *(*out)++ = DType(static_cast<double>(c->v_int64));
  } else {
    *(*out)++ = static_cast<DType>(c->v_int64);
  }
}

/*! \brief numpy's check that a Python int fits the integer dtype it is stored as. */
void CheckIntFits(const AnyView& v, DLDataType dtype, const char* fname) {
  if (v.type_index() == kMXFFIArray) {
    Array<Any> a = v.cast<Array<Any>>();
    for (int64_t i = 0; i < a.size(); ++i) CheckIntFits(a[i], dtype, fname);
    return;
  }
  if (v.type_index() != kMXFFIInt) return;
  int64_t x = v.raw()->v_int64;
  int bits = dtype.bits;
  // Widths no integer kernel has (0, 7, 128, ...) are refused with the dtype, not here.
  if (bits < 1 || bits > 64) return;
  bool ok =
      dtype.code == kDLInt
          ? (bits == 64 || (x >= -(int64_t{1} << (bits - 1)) && x < (int64_t{1} << (bits - 1))))
          : (x >= 0 && (bits == 64 || x < (int64_t{1} << bits)));
  MXFFI_CHECK(ok, OverflowError) << fname << ": Python integer " << x << " out of bounds for "
                                 << DataTypeToString(dtype);
}

NDArray FromNested(const AnyView& obj, const AnyView& dtype_arg, const char* fname) {
  NestedInfo info;
  TShape cur;
  WalkNested(obj, 0, &cur, &info, fname);
  DLDataType deflt = info.kind == 0 ? kBool : info.kind == 1 ? kInt64 : kFloat64;
  if (!info.any) deflt = kFloat64;  // numpy: an empty list is float64
  DLDataType dtype = DTypeArg(dtype_arg, fname, deflt);
  if (dtype.code == kDLInt || dtype.code == kDLUInt) CheckIntFits(obj, dtype, fname);
  NDArray out = NDArray::Empty(info.shape.data(), info.shape.ndim(), dtype, DLDevice{kDLCPU, 0});
  MXFFI_TYPE_SWITCH(dtype, fname, DType, {
    DType* p = op::DataPtr<DType>(out.tensor());
    FillNested<DType>(obj, &p);
  });
  return out;
}

NDArray ArrayImpl(const AnyView& obj, const AnyView& dtype, const AnyView& device, bool copy,
                  const char* fname) {
  // device None: where the input array is (the CPU for anything else).
  std::optional<DLDevice> want;
  if (!device.is_none()) {
    DLDevice dev = DeviceArg(device, fname);
    MXFFI_CHECK(dev.device_type == kDLCPU || dev.device_type == kDLCUDA, NotImplementedError)
        << fname << ": device type " << dev.device_type
        << " is not supported; only the CPU (1) and CUDA (2) are";
    if (dev.device_type == kDLCUDA) cuda::CheckDevice(dev, fname);
    want = dev;
  }
  static const Op* cast = Op::Get("_cast");
  if (std::optional<NDArray> a = TryArray(obj)) {
    const DLDevice here = a->tensor().device;
    const bool moves = want.has_value() &&
                       (want->device_type != here.device_type || want->device_id != here.device_id);
    DLDataType want_dtype = DTypeArg(dtype, fname, a->tensor().dtype);
    bool same = op::SameDType(want_dtype, a->tensor().dtype);
    op::CastParam p;
    p.dtype = want_dtype;
    if (!moves) {
      if (same && !copy && obj.type_index() == kMXFFINDArray) return *a;
      if (same) return CopyOf(*a);
      return InvokeOp(cast, p, {*a});
    }
    // A copy to another device; a dtype change is made on the CPU side (before a copy from
    // the host, after a copy to it) or on the source's device.
    if (same) return cuda::ToDevice(*a, *want, fname);
    if (want->device_type == kDLCPU) return InvokeOp(cast, p, {cuda::ToDevice(*a, *want, fname)});
    return cuda::ToDevice(InvokeOp(cast, p, {*a}), *want, fname);
  }
  NDArray out = FromNested(obj, dtype, fname);
  return want.has_value() && want->device_type != kDLCPU ? cuda::ToDevice(out, *want, fname) : out;
}

// ---- views --------------------------------------------------------------------------------

NDArray Reshape(const AnyView& a_arg, const AnyView& shape_arg, const char* fname) {
  NDArray a = OwnedArray(a_arg, fname, "a");
  const DLTensor& t = a.tensor();
  TShape shape;
  ShapeArg(shape_arg, fname, &shape, false);
  int64_t size = op::NumElements(t), known = 1;
  int unknown = -1;
  for (int i = 0; i < shape.ndim(); ++i) {
    if (shape[i] == -1) {
      MXFFI_CHECK(unknown < 0, ValueError) << fname << ": can only specify one unknown dimension";
      unknown = i;
    } else {
      MXFFI_CHECK(shape[i] >= 0, ValueError)
          << fname << ": negative dimensions not allowed; got shape " << shape.ToString();
      known *= shape[i];
    }
  }
  if (unknown >= 0 && known != 0 && size % known == 0) shape[unknown] = size / known;
  if ((unknown >= 0 && (known == 0 || size % known != 0)) || (unknown < 0 && known != size)) {
    MXFFI_THROW(ValueError) << fname << ": cannot reshape array of size " << size << " into shape "
                            << shape.ToString();
  }
  if (!a.IsContiguous()) a = CopyOf(a);
  return NDArray::View(a, shape.data(), nullptr, shape.ndim(), 0);
}

NDArray Transpose(const AnyView& a_arg, const AnyView& axes_arg, const char* fname) {
  NDArray a = OwnedArray(a_arg, fname, "a");
  const DLTensor& t = a.tensor();
  int ndim = t.ndim;
  int64_t perm[kMaxNDim];
  if (axes_arg.is_none()) {
    for (int i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
  } else {
    TShape axes;
    ShapeArg(axes_arg, fname, &axes, false);
    MXFFI_CHECK(axes.ndim() == ndim, ValueError)
        << fname << ": axes don't match array; got " << axes.ToString() << " for an array of "
        << ndim << " dimensions";
    bool seen[kMaxNDim] = {};
    for (int i = 0; i < ndim; ++i) {
      perm[i] = NormalizeAxis(axes[i], ndim, fname);
      MXFFI_CHECK(!seen[perm[i]], ValueError)
          << fname << ": repeated axis in transpose; got " << axes.ToString();
      seen[perm[i]] = true;
    }
  }
  int64_t strides[kMaxNDim], new_shape[kMaxNDim], new_strides[kMaxNDim];
  if (t.strides) {
    std::memcpy(strides, t.strides, sizeof(int64_t) * ndim);
  } else {
    NDArray::CompactStrides(t, strides);
  }
  for (int i = 0; i < ndim; ++i) {
    new_shape[i] = t.shape[perm[i]];
    new_strides[i] = strides[perm[i]];
  }
  return NDArray::View(a, new_shape, new_strides, ndim, 0);
}

}  // namespace

MXFFI_REGISTER_API("np.empty")
    .describe("A new array of the given shape and dtype, without initialising its elements.")
    .arg("shape")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](AnyView shape, AnyView dtype, AnyView device) {
      TShape s;
      ShapeArg(shape, "np.empty", &s);
      return NDArray::Empty(s.data(), s.ndim(), DTypeArg(dtype, "np.empty", kFloat64),
                            DeviceArg(device, "np.empty"));
    });

MXFFI_REGISTER_API("np.zeros")
    .describe("A new array of the given shape and dtype, filled with zeros.")
    .arg("shape")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](AnyView shape, AnyView dtype, AnyView device) {
      static const Op* op = Op::Get("_zeros");
      return Fill("np.zeros", op, shape, dtype, device, 0.0);
    });

MXFFI_REGISTER_API("np.ones")
    .describe("A new array of the given shape and dtype, filled with ones.")
    .arg("shape")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](AnyView shape, AnyView dtype, AnyView device) {
      static const Op* op = Op::Get("_ones");
      return Fill("np.ones", op, shape, dtype, device, 1.0);
    });

MXFFI_REGISTER_API("np.full")
    .describe(
        "A new array of the given shape filled with fill_value; dtype None takes the value's "
        "(bool, int64 or float64).")
    .arg("shape")
    .arg("fill_value")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](AnyView shape, AnyView fill_value, AnyView dtype, AnyView device) {
      static const Op* op = Op::Get("_full");
      double v = NumberArg(fill_value, "np.full", "fill_value");
      if (fill_value.type_index() == kMXFFIInt) {
        CheckIntFill(fill_value.raw()->v_int64,
                     dtype.is_none() ? kInt64 : DTypeArg(dtype, "np.full", kFloat64));
      }
      if (dtype.is_none()) return Fill("np.full", op, shape, ScalarDType(fill_value), device, v);
      return Fill("np.full", op, shape, dtype, device, v);
    });

MXFFI_REGISTER_API("np.zeros_like")
    .describe("An array of zeros with the shape and dtype of a.")
    .arg("a")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](AnyView a, AnyView dtype, AnyView device) {
      static const Op* op = Op::Get("_zeros");
      NDArray src = ArrayArg(a, "np.zeros_like", "a");
      if (src.is_sparse()) return SparseZerosLike(src, dtype, device);
      return FillLike("np.zeros_like", op, src, dtype, device, 0.0);
    });

MXFFI_REGISTER_API("np.ones_like")
    .describe("An array of ones with the shape and dtype of a.")
    .arg("a")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](AnyView a, AnyView dtype, AnyView device) {
      static const Op* op = Op::Get("_ones");
      return FillLike("np.ones_like", op, ArrayArg(a, "np.ones_like", "a"), dtype, device, 1.0);
    });

MXFFI_REGISTER_API("np.arange")
    .describe(
        "Evenly spaced values in [start, stop): arange(stop), arange(start, stop[, step]). "
        "dtype None gives int64 when every argument is an int, else float64.")
    .arg("start")
    .arg("stop", nullptr)
    .arg("step", nullptr)
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](AnyView start, AnyView stop, AnyView step, AnyView dtype, AnyView device) {
      static const Op* op = Op::Get("_arange");
      op::ArangeParam p;
      bool all_int = start.type_index() != kMXFFIFloat;
      if (stop.is_none()) {
        p.start = 0;
        p.stop = NumberArg(start, "np.arange", "stop");
      } else {
        p.start = NumberArg(start, "np.arange", "start");
        p.stop = NumberArg(stop, "np.arange", "stop");
        all_int = all_int && stop.type_index() != kMXFFIFloat;
      }
      p.step = step.is_none() ? 1.0 : NumberArg(step, "np.arange", "step");
      all_int = all_int && step.type_index() != kMXFFIFloat;
      p.dtype = DTypeArg(dtype, "np.arange", all_int ? kInt64 : kFloat64);
      op::ArangeLength(p, "np.arange");
      return InvokeOp(op, p, {}, DeviceArg(device, "np.arange"));
    });

MXFFI_REGISTER_API("np.array")
    .describe(
        "A new array from an ndarray, a numpy array, a number or nested lists of numbers "
        "(always a copy unless copy=False and nothing needs converting).")
    .arg("object")
    .arg("dtype", nullptr)
    .arg("copy", true)
    .arg("device", nullptr)
    .set_body_typed([](AnyView obj, AnyView dtype, bool copy, AnyView device) {
      return ArrayImpl(obj, dtype, device, copy, "np.array");
    });

MXFFI_REGISTER_API("np.asarray")
    .describe("a itself when it is an mxffi array of the requested dtype, else np.array(a).")
    .arg("a")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](AnyView a, AnyView dtype, AnyView device) {
      return ArrayImpl(a, dtype, device, false, "np.asarray");
    });

MXFFI_REGISTER_API("np.copy")
    .describe("A C-contiguous copy of a.")
    .arg("a")
    .set_body_typed([](AnyView a) { return CopyOf(ArrayArg(a, "np.copy", "a")); });

MXFFI_REGISTER_API("np.astype")
    .describe("a converted to dtype (a copy, as numpy's astype).")
    .arg("a")
    .arg("dtype")
    .set_body_typed([](AnyView a, AnyView dtype) {
      static const Op* op = Op::Get("_cast");
      op::CastParam p;
      p.dtype = DTypeArg(dtype, "np.astype", kFloat64);
      MXFFI_CHECK(!dtype.is_none(), TypeError) << "np.astype: dtype must not be None";
      return InvokeOp(op, p, {ArrayArg(a, "np.astype", "a")});
    });

MXFFI_REGISTER_API("np.reshape")
    .describe("a with a new shape (one extent may be -1); a view when a is contiguous.")
    .arg("a")
    .arg("shape")
    .set_body_typed([](AnyView a, AnyView shape) { return Reshape(a, shape, "np.reshape"); });

MXFFI_REGISTER_API("np.transpose")
    .describe("A view of a with its axes permuted (reversed when axes is None).")
    .arg("a")
    .arg("axes", nullptr)
    .set_body_typed([](AnyView a, AnyView axes) { return Transpose(a, axes, "np.transpose"); });

}  // namespace api
}  // namespace mxffi
