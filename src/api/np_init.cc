/*!
 * \file np_init.cc
 * \brief np.* API functions that make arrays (empty, zeros, ones, full, *_like, arange, array,
 *  asarray) or change their layout (reshape, transpose, copy, astype).
 */
#include <mxffi/container/complex.h>
#include <mxffi/registry.h>

#include <complex>
#include <cstring>
#include <optional>

#include "../ndarray/cuda/device.h"
#include "../op/dtype.h"
#include "../op/init/init_op.h"
#include "../op/sparse/elemwise_sparse.h"
#include "api_util.h"
#include "sparse_dot.h"

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

/*! \return whether dtype is complex64 or complex128. */
bool IsComplex(DLDataType dtype) {
  return dtype.code == kDLComplex && dtype.lanes == 1 && (dtype.bits == 64 || dtype.bits == 128);
}

}  // namespace

NDArray ComplexFull(const int64_t* shape, int ndim, DLDataType dtype, DLDevice device,
                    std::complex<double> value, const char* fname) {
  // Written on the host, then moved.
  const bool host = device.device_type == kDLCPU;
  NDArray out = NDArray::Empty(shape, ndim, dtype, host ? device : kCPU);
  const int64_t n = op::NumElements(out.tensor());
  if (dtype.bits == 64) {
    float* p = op::DataPtr<float>(out.tensor());
    for (int64_t i = 0; i < n; ++i) {
      p[2 * i] = static_cast<float>(value.real());
      p[2 * i + 1] = static_cast<float>(value.imag());
    }
  } else {
    double* p = op::DataPtr<double>(out.tensor());
    for (int64_t i = 0; i < n; ++i) {
      p[2 * i] = value.real();
      p[2 * i + 1] = value.imag();
    }
  }
  return host ? out : cuda::ToDevice(out, device, fname);
}

namespace {

NDArray Fill(const Op* op, const ShapeLike& shape, DLDataType dtype, const DeviceLike& device,
             double value) {
  if (IsComplex(dtype)) {
    return ComplexFull(shape.data(), shape.ndim(), dtype, device.value_or(kCPU), value,
                       op->name.c_str());
  }
  InitParam p;
  p.shape = shape;
  p.dtype = dtype;
  p.value = value;
  return InvokeOp(op, p, {}, device.value_or(kCPU));
}

NDArray FillLike(const Op* op, const NDArray& src, const DTypeLike& dtype, const DeviceLike& device,
                 double value) {
  const DLTensor& t = src.tensor();
  if (IsComplex(dtype.value_or(t.dtype))) {
    return ComplexFull(t.shape, t.ndim, dtype.value_or(t.dtype), device.value_or(t.device), value,
                       op->name.c_str());
  }
  InitParam p;
  p.shape.assign(t.shape, t.ndim);
  p.dtype = dtype.value_or(t.dtype);
  p.value = value;
  return InvokeOp(op, p, {}, device.value_or(t.device));
}

/*!
 * \brief np.zeros_like of a csr or row_sparse array: the same storage type with no stored values
 *  (the zeros_like op), as MXNet's zeros_like.
 */
NDArray SparseZerosLike(const NDArray& src, const DTypeLike& dtype, const DeviceLike& device) {
  static const Op* op = Op::Get("zeros_like");
  const DLTensor& t = src.tensor();
  if (device.has_value()) {
    DLDevice d = device.value();
    MXFFI_CHECK(d.device_type == t.device.device_type && d.device_id == t.device.device_id,
                NotImplementedError)
        << "np.zeros_like: a sparse array's zeros_like is made on its own device (the CPU); got "
        << "device type " << d.device_type;
  }
  op::ZerosLikeParam p;
  if (dtype.has_value()) p.dtype = DTypeParam(dtype.value());
  return InvokeOp(op, p, {src});
}

/*!
 * \brief numpy's OverflowError for an int fill value that an integer dtype cannot hold (numpy 2
 *  refuses np.full(2, 300, dtype=int8) the same way), and a ValueError for one that float64, in
 *  which the fill value travels to the kernel, cannot hold exactly.
 */
void CheckIntFill(int64_t v, DLDataType dt, const char* fname) {
  if (dt.code != kDLInt && dt.code != kDLUInt) return;
  const int bits = dt.bits;
  bool fits = true;
  if (dt.code == kDLInt && bits < 64) {
    fits = v >= -(int64_t{1} << (bits - 1)) && v < (int64_t{1} << (bits - 1));
  } else if (dt.code == kDLUInt) {
    fits = v >= 0 && (bits >= 64 || v < (int64_t{1} << bits));
  }
  MXFFI_CHECK(fits, OverflowError)
      << fname << ": fill_value " << v << " is out of bounds for " << DataTypeToString(dt);
  MXFFI_CHECK(v <= (int64_t{1} << 53) && v >= -(int64_t{1} << 53), ValueError)
      << fname << ": fill_value " << v << " cannot be filled exactly into " << DataTypeToString(dt)
      << "; the fill travels as float64, exact for integers up to 2**53 in magnitude";
}

// ---- array() from numbers and nested sequences -------------------------------------------
// The sequence's shape and element types were checked when the argument was converted
// (ArrayLike); these walk its cells again to check the ints against the dtype and to copy.

/*!
 * \return an array element of a sequence (a kMXFFINDArray cell) as a contiguous host array of
 *  dtype: converted as numpy's array() converts it (an unsafe cast), moved from its device.
 */
NDArray ArrayCellAs(const MXFFIAny* c, DLDataType dtype, const char* fname) {
  static const Op* cast = Op::Get("_cast");
  NDArray a(ObjectPtr<Object>::CopyFromRaw(details::ObjectUnsafe::FromHeader(c->v_obj)));
  if (!op::SameDType(a.tensor().dtype, dtype)) {
    op::CastParam p;
    p.dtype = dtype;
    a = InvokeOp(cast, p, {a});
  }
  if (a.tensor().device.device_type != kDLCPU) a = cuda::ToDevice(a, kCPU, fname);
  return a.Contiguous();
}

template <typename DType>
void FillCells(const MXFFIAny* c, DType** out, DLDataType dtype, const char* fname) {
  if (c->type_index == kMXFFIArray) {
    const auto* a = reinterpret_cast<const MXFFIArrayObj*>(c->v_obj);
    for (int64_t i = 0; i < a->size; ++i) FillCells<DType>(&a->data[i], out, dtype, fname);
    return;
  }
  if (c->type_index == kMXFFINDArray) {
    const NDArray a = ArrayCellAs(c, dtype, fname);
    const int64_t n = op::NumElements(a.tensor());
    if (n > 0) std::memcpy(*out, op::DataPtr<DType>(a.tensor()), sizeof(DType) * n);
    *out += n;
    return;
  }
  std::complex<double> z;
  if (c->type_index == kMXFFIUInt64) {  // 2**63 to 2**64 - 1 (CheckIntCellsFit checked it)
    const uint64_t u = static_cast<uint64_t>(c->v_int64);
    if constexpr (std::is_integral_v<DType>) {
      *(*out)++ = static_cast<DType>(u);
    } else {
      *(*out)++ = DType(static_cast<double>(u));
    }
  } else if (c->type_index == kMXFFIFloat) {
    *(*out)++ = static_cast<DType>(c->v_float64);
  } else if (details::CellComplex(c, &z)) {  // only into bool (FromCells), as numpy: nonzero
    *(*out)++ = DType(static_cast<double>(z.real() != 0.0 || z.imag() != 0.0));
  } else if constexpr (std::is_same_v<DType, op::half_t> || std::is_same_v<DType, op::bf16_t>) {
    *(*out)++ = DType(static_cast<double>(c->v_int64));
  } else {
    *(*out)++ = static_cast<DType>(c->v_int64);
  }
}

/*! \brief numpy's check that a Python int fits the integer dtype it is stored as. */
void CheckIntCellsFit(const MXFFIAny* c, DLDataType dtype, const char* fname) {
  if (c->type_index == kMXFFIArray) {
    const auto* a = reinterpret_cast<const MXFFIArrayObj*>(c->v_obj);
    for (int64_t i = 0; i < a->size; ++i) CheckIntCellsFit(&a->data[i], dtype, fname);
    return;
  }
  if (c->type_index == kMXFFINDArray) return;  // arrays convert unsafely, as numpy's do
  if (c->type_index == kMXFFIUInt64) {
    MXFFI_CHECK(dtype.code == kDLUInt && dtype.bits == 64, OverflowError)
        << fname << ": Python integer " << static_cast<uint64_t>(c->v_int64)
        << " out of bounds for " << DataTypeToString(dtype);
    return;
  }
  if (c->type_index == kMXFFIFloat) {
    // A Python float: truncated toward zero, then checked as numpy checks it.
    if (dtype.code == kDLInt || dtype.code == kDLUInt)
      op::CheckFloatFitsInt(c->v_float64, dtype, fname);
    return;
  }
  if (c->type_index != kMXFFIInt) return;
  const int64_t x = c->v_int64;
  const int bits = dtype.bits;
  // Widths no integer kernel has (0, 7, 128, ...) are refused with the dtype, not here.
  if (bits < 1 || bits > 64) return;
  bool ok =
      dtype.code == kDLInt
          ? (bits == 64 || (x >= -(int64_t{1} << (bits - 1)) && x < (int64_t{1} << (bits - 1))))
          : (x >= 0 && (bits == 64 || x < (int64_t{1} << bits)));
  MXFFI_CHECK(ok, OverflowError) << fname << ": Python integer " << x << " out of bounds for "
                                 << DataTypeToString(dtype);
}

/*! \return whether cell holds a complex number (nested or one). */
bool HasComplexCell(const MXFFIAny* c) {
  if (c->type_index == kMXFFIArray) {
    const auto* a = reinterpret_cast<const MXFFIArrayObj*>(c->v_obj);
    for (int64_t i = 0; i < a->size; ++i) {
      if (HasComplexCell(&a->data[i])) return true;
    }
    return false;
  }
  if (c->type_index == kMXFFINDArray) {
    return reinterpret_cast<const MXFFINDArrayObj*>(c->v_obj)->tensor.dtype.code == kDLComplex;
  }
  return c->type_index == kMXFFIComplexView || c->type_index == kMXFFIComplex;
}

/*! \brief FillCells for a complex dtype: numbers of every kind, as (real, imaginary) pairs. */
template <typename Real>
void FillComplexCells(const MXFFIAny* c, Real** out, const char* fname) {
  if (c->type_index == kMXFFIArray) {
    const auto* a = reinterpret_cast<const MXFFIArrayObj*>(c->v_obj);
    for (int64_t i = 0; i < a->size; ++i) FillComplexCells<Real>(&a->data[i], out, fname);
    return;
  }
  if (c->type_index == kMXFFINDArray) {
    // No kernel casts to or from complex yet: complex elements are read as they are, real
    // ones through float64, here.
    const DLDataType from = reinterpret_cast<const MXFFINDArrayObj*>(c->v_obj)->tensor.dtype;
    const bool cplx = from.code == kDLComplex;
    const NDArray a = ArrayCellAs(c, cplx ? from : DLDataType{kDLFloat, 64, 1}, fname);
    const int64_t n = op::NumElements(a.tensor());
    for (int64_t i = 0; i < n; ++i) {
      if (cplx && from.bits == 64) {
        const float* p = op::DataPtr<float>(a.tensor());
        *(*out)++ = static_cast<Real>(p[2 * i]);
        *(*out)++ = static_cast<Real>(p[2 * i + 1]);
      } else if (cplx) {
        const double* p = op::DataPtr<double>(a.tensor());
        *(*out)++ = static_cast<Real>(p[2 * i]);
        *(*out)++ = static_cast<Real>(p[2 * i + 1]);
      } else {
        *(*out)++ = static_cast<Real>(op::DataPtr<double>(a.tensor())[i]);
        *(*out)++ = Real(0);
      }
    }
    return;
  }
  std::complex<double> v;
  if (!details::CellComplex(c, &v)) {
    v = c->type_index == kMXFFIFloat    ? c->v_float64
        : c->type_index == kMXFFIUInt64 ? static_cast<double>(static_cast<uint64_t>(c->v_int64))
                                        : static_cast<double>(c->v_int64);
  }
  *(*out)++ = static_cast<Real>(v.real());
  *(*out)++ = static_cast<Real>(v.imag());
}

/*! \return a new CPU array of shape and dtype holding the numbers of cell (nested or one). */
NDArray FromCells(const MXFFIAny* cell, const TShape& shape, DLDataType dtype, const char* fname) {
  if (dtype.code == kDLComplex && dtype.lanes == 1 && (dtype.bits == 64 || dtype.bits == 128)) {
    NDArray out = NDArray::Empty(shape.data(), shape.ndim(), dtype, kCPU);
    if (dtype.bits == 64) {
      float* p = op::DataPtr<float>(out.tensor());
      FillComplexCells<float>(cell, &p, fname);
    } else {
      double* p = op::DataPtr<double>(out.tensor());
      FillComplexCells<double>(cell, &p, fname);
    }
    return out;
  }
  MXFFI_CHECK(dtype.code == kDLBool || !HasComplexCell(cell), TypeError)
      << fname << ": cannot store a complex number in an array of " << DataTypeToString(dtype)
      << " (numpy's TypeError); take its .real or .imag, or ask for a complex dtype";
  if (dtype.code == kDLInt || dtype.code == kDLUInt) CheckIntCellsFit(cell, dtype, fname);
  NDArray out = NDArray::Empty(shape.data(), shape.ndim(), dtype, kCPU);
  MXFFI_TYPE_SWITCH(dtype, fname, DType, {
    DType* p = op::DataPtr<DType>(out.tensor());
    FillCells<DType>(cell, &p, dtype, fname);
  });
  return out;
}

}  // namespace

/*!
 * \brief np.array's conversion of an array, a number or nested sequences (also how np_indexing.cc
 *  reads index and value arguments).
 */
namespace {

/*! \brief numpy's ValueError for copy=False where the result needs a copy (why says where). */
[[noreturn]] void ThrowCopyNeeded(const char* fname, const char* why) {
  MXFFI_THROW(ValueError) << fname
                          << ": unable to avoid a copy while creating an array as requested "
                             "(copy=False): "
                          << why;
}

}  // namespace

NDArray ArrayImpl(const ArrayLike& obj, const DTypeLike& dtype, const DeviceLike& device,
                  CopyMode copy, const char* fname) {
  // device None: where the input array is (the CPU for anything else).
  std::optional<DLDevice> want;
  if (device.has_value()) {
    want = device.value();
    if (want->device_type == kDLCUDA) cuda::CheckDevice(*want, fname);
  }
  static const Op* cast = Op::Get("_cast");
  NDArray out;
  if (obj.kind() == ArrayLike::Kind::kArray) {
    const NDArrayLike& a = obj.value().array();
    const DLDevice here = a->tensor().device;
    const bool moves = want.has_value() &&
                       (want->device_type != here.device_type || want->device_id != here.device_id);
    const DLDataType want_dtype = dtype.value_or(a->tensor().dtype);
    const bool same = op::SameDType(want_dtype, a->tensor().dtype);
    if (copy == CopyMode::kNever) {
      if (moves) ThrowCopyNeeded(fname, "the array is on another device");
      if (!same) ThrowCopyNeeded(fname, "the array has another dtype");
      if (a.borrowed()) {
        ThrowCopyNeeded(fname,
                        "the array is lent for the call only (mxffi.np.from_dlpack "
                        "shares a producer's memory)");
      }
      return a;
    }
    op::CastParam p;
    p.dtype = want_dtype;
    if (!moves) {
      if (same && copy == CopyMode::kIfNeeded && !a.borrowed()) return a;
      if (same) return CopyOf(a);
      return InvokeOp(cast, p, {a});
    }
    // A copy to another device; a dtype change is made on the CPU side (before a copy from
    // the host, after a copy to it) or on the source's device.
    if (same) return cuda::ToDevice(a, *want, fname);
    if (want->device_type == kDLCPU) return InvokeOp(cast, p, {cuda::ToDevice(a, *want, fname)});
    return cuda::ToDevice(InvokeOp(cast, p, {a}), *want, fname);
  }
  if (copy == CopyMode::kNever) {
    ThrowCopyNeeded(fname, obj.kind() == ArrayLike::Kind::kScalar
                               ? "a Python number becomes a new array"
                               : "a sequence becomes a new array");
  }
  if (obj.kind() == ArrayLike::Kind::kScalar) {
    const ScalarLike& s = obj.value().scalar();
    MXFFIAny cell;
    TypeTraits<ScalarLike>::CopyToAnyView(s, &cell);
    out = FromCells(&cell, TShape(), dtype.value_or(s.DefaultDType()), fname);
  } else {
    out =
        FromCells(obj.sequence(), obj.sequence_shape(), dtype.value_or(obj.SequenceDType()), fname);
  }
  return want.has_value() && want->device_type != kDLCPU ? cuda::ToDevice(out, *want, fname) : out;
}

namespace {

// ---- views --------------------------------------------------------------------------------

NDArray Reshape(const NDArrayLike& a_arg, const IntTupleLike& shape_arg, CopyMode copy,
                const char* fname) {
  if (copy == CopyMode::kNever && a_arg.borrowed()) {
    MXFFI_THROW(ValueError) << fname
                            << ": cannot reshape without a copy (copy=False): the array is lent "
                               "for the call only";
  }
  NDArray a = copy == CopyMode::kAlways ? CopyOf(a_arg) : OwnedArray(a_arg);
  const DLTensor& t = a.tensor();
  TShape shape = shape_arg;
  int64_t size = op::NumElements(t), known = 1;
  int unknown = -1;
  for (int i = 0; i < shape.ndim(); ++i) {
    if (shape[i] == -1) {
      MXFFI_CHECK(unknown < 0, ValueError) << fname << ": can only specify one unknown dimension";
      unknown = i;
    } else {
      MXFFI_CHECK(shape[i] >= 0, ValueError)
          << fname << ": negative dimensions not allowed; got shape " << shape.ToString();
      // A product past int64 names no array this one can become (and must not wrap into one).
      MXFFI_CHECK(!__builtin_mul_overflow(known, shape[i], &known), ValueError)
          << fname << ": array is too big; shape " << shape.ToString()
          << " has more elements than int64 holds";
    }
  }
  if (unknown >= 0 && known != 0 && size % known == 0) shape[unknown] = size / known;
  if ((unknown >= 0 && (known == 0 || size % known != 0)) || (unknown < 0 && known != size)) {
    MXFFI_THROW(ValueError) << fname << ": cannot reshape array of size " << size << " into shape "
                            << shape.ToString();
  }
  if (!a.IsContiguous()) {
    MXFFI_CHECK(copy != CopyMode::kNever, ValueError)
        << fname << ": cannot reshape array of shape " << TShape(t.shape, t.ndim).ToString()
        << " into shape " << shape.ToString() << " without a copy (copy=False): it is not "
        << "contiguous";
    a = CopyOf(a);
  }
  return NDArray::View(a, shape.data(), nullptr, shape.ndim(), 0);
}

}  // namespace

NDArray OwnedArray(const NDArrayLike& a) { return a.borrowed() ? CopyOf(a) : a.array(); }

NDArray Transpose(const NDArrayLike& a_arg, const AxisLike& axes_arg, const char* fname) {
  NDArray a = OwnedArray(a_arg);
  const DLTensor& t = a.tensor();
  int ndim = t.ndim;
  int64_t perm[kMaxNDim];
  if (a.stype() == StorageType::kCSR) {
    // A csr array: a new canonical csr transpose (axes (1, 0)), or itself (axes (0, 1)).
    if (!axes_arg.is_none()) {
      const TShape axes = axes_arg.axes();
      MXFFI_CHECK(axes.ndim() == 2, ValueError)
          << fname << ": axes don't match array; got " << axes.ToString() << " for an array of "
          << "2 dimensions";
      const int64_t first = NormalizeAxis(axes[0], 2, fname);
      MXFFI_CHECK(first != NormalizeAxis(axes[1], 2, fname), ValueError)
          << fname << ": repeated axis in transpose; got " << axes.ToString();
      if (first == 0) return a;
    }
    return CsrTransposeOf(a);
  }
  if (axes_arg.is_none()) {
    for (int i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
  } else {
    const TShape axes = axes_arg.axes();
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

MXFFI_REGISTER_API("np.empty")
    .describe("A new array of the given shape and dtype, without initialising its elements.")
    .arg("shape")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](ShapeLike shape, DTypeLike dtype, DeviceLike device) {
      return NDArray::Empty(shape.data(), shape.ndim(), dtype.value_or(kFloat64),
                            device.value_or(kCPU));
    });

MXFFI_REGISTER_API("np.zeros")
    .describe("A new array of the given shape and dtype, filled with zeros.")
    .arg("shape")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](ShapeLike shape, DTypeLike dtype, DeviceLike device) {
      static const Op* op = Op::Get("_zeros");
      return Fill(op, shape, dtype.value_or(kFloat64), device, 0.0);
    });

MXFFI_REGISTER_API("np.ones")
    .describe("A new array of the given shape and dtype, filled with ones.")
    .arg("shape")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](ShapeLike shape, DTypeLike dtype, DeviceLike device) {
      static const Op* op = Op::Get("_ones");
      return Fill(op, shape, dtype.value_or(kFloat64), device, 1.0);
    });

NDArray Full(const ShapeLike& shape, const ScalarLike& fill_value, DLDataType dtype,
             const DeviceLike& device, const char* fname) {
  static const Op* op = Op::Get("_full");
  if (fill_value.is_int()) CheckIntFill(fill_value.int_value(), dtype, fname);
  if (fill_value.is_float()) op::CheckFloatFitsInt(fill_value.value(), dtype, fname);
  return Fill(op, shape, dtype, device, fill_value.value());
}

NDArray FullOf(const ShapeLike& shape, const ArrayLike& fill_value, const DTypeLike& dtype,
               const DeviceLike& device, const char* fname) {
  if (fill_value.kind() == ArrayLike::Kind::kScalar) {
    const ScalarLike& s = fill_value.value().scalar();
    return Full(shape, s, dtype.value_or(s.DefaultDType()), device, fname);
  }
  std::complex<double> z;
  if (fill_value.kind() == ArrayLike::Kind::kSequence && fill_value.sequence_shape().ndim() == 0 &&
      details::CellComplex(fill_value.sequence(), &z)) {
    // A Python complex: into a complex dtype, as numpy; a real dtype cannot hold it.
    const DLDataType dt = dtype.value_or(DLDataType{kDLComplex, 128, 1});
    MXFFI_CHECK(IsComplex(dt), TypeError)
        << fname << ": cannot store a complex number in an array of " << DataTypeToString(dt)
        << " (numpy's TypeError); take its .real or .imag, or ask for a complex dtype";
    return ComplexFull(shape.data(), shape.ndim(), dt, device.value_or(kCPU), z, fname);
  }
  // An array or a sequence: broadcast to shape, as numpy's full does, in its dtype (or dtype).
  const NDArray value = ArrayImpl(fill_value, dtype, device, CopyMode::kIfNeeded, fname);
  MXFFI_CHECK(!value.is_sparse(), TypeError)
      << fname << ": fill_value must be dense, got storage type " << StorageTypeName(value.stype());
  const DLTensor& v = value.tensor();
  const int nd = shape.ndim();
  bool fits = v.ndim <= nd;
  std::vector<int64_t> strides(static_cast<size_t>(nd), 0);
  const NDArray c = value.Contiguous();
  int64_t step = 1;
  for (int i = v.ndim - 1; fits && i >= 0; --i) {
    const int o = nd - v.ndim + i;
    if (v.shape[i] == shape[o]) {
      strides[static_cast<size_t>(o)] = v.shape[i] == 1 ? 0 : step;
    } else {
      fits = v.shape[i] == 1;
    }
    step *= v.shape[i];
  }
  MXFFI_CHECK(fits, ValueError) << fname << ": could not broadcast fill_value from shape "
                                << TShape(v.shape, v.ndim).ToString() << " into shape "
                                << shape.ToString();
  const NDArray view = NDArray::View(c, shape.data(), strides.data(), nd, 0);
  NDArray out = NDArray::Copy(view.tensor());
  const DLDevice want = device.value_or(v.device);
  return want.device_type == out.tensor().device.device_type &&
                 want.device_id == out.tensor().device.device_id
             ? out
             : cuda::ToDevice(out, want, fname);
}

MXFFI_REGISTER_API("np.full")
    .describe(
        "A new array of the given shape filled with fill_value: a number (dtype None takes its "
        "own: bool, int64, float64 or complex128) or an array broadcast to the shape (dtype "
        "None keeps the array's), as numpy's full.")
    .arg("shape")
    .arg("fill_value")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](ShapeLike shape, ArrayLike fill_value, DTypeLike dtype, DeviceLike device) {
      return FullOf(shape, fill_value, dtype, device, "np.full");
    });

MXFFI_REGISTER_API("np.zeros_like")
    .describe("An array of zeros with the shape and dtype of a.")
    .arg("a")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](NDArrayLike a, DTypeLike dtype, DeviceLike device) {
      static const Op* op = Op::Get("_zeros");
      if (a->is_sparse()) return SparseZerosLike(a, dtype, device);
      return FillLike(op, a, dtype, device, 0.0);
    });

MXFFI_REGISTER_API("np.ones_like")
    .describe("An array of ones with the shape and dtype of a.")
    .arg("a")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .set_body_typed([](NDArrayLike a, DTypeLike dtype, DeviceLike device) {
      static const Op* op = Op::Get("_ones");
      return FillLike(op, a, dtype, device, 1.0);
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
    .set_body_typed([](ScalarLike start, Optional<ScalarLike> stop, Optional<ScalarLike> step,
                       DTypeLike dtype, DeviceLike device) {
      static const Op* op = Op::Get("_arange");
      op::ArangeParam p;
      bool all_int = !start.is_float();
      if (!stop.has_value()) {
        p.start = 0;
        p.stop = start.value();
      } else {
        p.start = start.value();
        p.stop = stop->value();
        all_int = all_int && !stop->is_float();
      }
      p.step = step.has_value() ? step->value() : 1.0;
      all_int = all_int && !(step.has_value() && step->is_float());
      p.dtype = dtype.value_or(all_int ? kInt64 : kFloat64);
      op::ArangeLength(p, "np.arange");
      return InvokeOp(op, p, {}, device.value_or(kCPU));
    });

MXFFI_REGISTER_API("np.array")
    .describe(
        "A new array from an ndarray, a numpy array, a number or nested lists of numbers: "
        "copy=True (the default) always copies, None copies only when it must, False never "
        "(ValueError where a copy is needed), as numpy 2.")
    .arg("object")
    .arg("dtype", nullptr)
    .arg("copy", true)
    .arg("device", nullptr)
    .set_body_typed([](ArrayLike obj, DTypeLike dtype, Optional<bool> copy, DeviceLike device) {
      return ArrayImpl(obj, dtype, device, CopyModeOf(copy), "np.array");
    });

MXFFI_REGISTER_API("np.asarray")
    .describe(
        "a itself when it is an mxffi array of the requested dtype and device, else np.array(a). "
        "copy=None (the default) copies only when it must, True always, False never "
        "(ValueError where a copy is needed).")
    .arg("a")
    .arg("dtype", nullptr)
    .arg("device", nullptr)
    .arg("copy", nullptr)
    .set_body_typed([](ArrayLike a, DTypeLike dtype, DeviceLike device, Optional<bool> copy) {
      return ArrayImpl(a, dtype, device, CopyModeOf(copy), "np.asarray");
    });

MXFFI_REGISTER_API("np.copy")
    .describe("A C-contiguous copy of a.")
    .arg("a")
    .set_body_typed([](NDArrayLike a) { return CopyOf(a); });

MXFFI_REGISTER_API("np.astype")
    .describe(
        "a converted to dtype (None is float64, as in numpy) on device (None: a's): a new array, "
        "or a itself when copy=False and neither changes.")
    .arg("a")
    .arg("dtype")
    .arg("copy", true)
    .arg("device", nullptr)
    .set_body_typed([](NDArrayLike a, DTypeLike dtype, bool copy, DeviceLike device) {
      const DLDataType want = dtype.value_or(kFloat64);
      return ArrayImpl(ArrayLike(ArrayOrScalar(std::move(a))), DTypeLike(want), device,
                       copy ? CopyMode::kAlways : CopyMode::kIfNeeded, "np.astype");
    });

MXFFI_REGISTER_API("np.reshape")
    .describe(
        "a with a new shape (one extent may be -1): a view when a is contiguous (copy=None), a "
        "copy (copy=True), or a ValueError where a view cannot be (copy=False).")
    .arg("a")
    .arg("shape")
    .arg("copy", nullptr)
    .set_body_typed([](NDArrayLike a, IntTupleLike shape, Optional<bool> copy) {
      return Reshape(a, shape, CopyModeOf(copy), "np.reshape");
    });

MXFFI_REGISTER_API("np.transpose")
    .describe("A view of a with its axes permuted (reversed when axes is None).")
    .arg("a")
    .arg("axes", nullptr)
    .set_body_typed([](NDArrayLike a, AxisLike axes) {
      return Transpose(a, axes, "np.transpose");
    });

}  // namespace api
}  // namespace mxffi
