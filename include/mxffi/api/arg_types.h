/*!
 * \file mxffi/api/arg_types.h
 * \brief Argument kinds of API functions: what a shape, a dtype, a device, an array or a number
 *  may be given as, each checked once, here, as the argument is converted.
 *
 * A typed body names the kinds it takes, and the registry reports them (registry.function_info,
 * Python's inspect.signature):
 *
 * \code
 * MXFFI_REGISTER_API("np.zeros")
 *     .arg("shape")
 *     .arg("dtype", nullptr)
 *     .arg("device", nullptr)
 *     .set_body_typed([](ShapeLike shape, DTypeLike dtype, DeviceLike device) { ... });
 * \endcode
 *
 * A value of the wrong type is a TypeError in the form every typed argument has
 * (`np.zeros: argument #1 'dtype' expected a data type (a str, a DataType or None), got
 * mxffi.Array`); a value of the right type that a kind refuses (a negative extent, an unknown
 * device) is an error naming the function and the argument:
 * `np.zeros: argument #0 'shape': negative dimensions are not allowed; got (2, -1)`.
 *
 * The kinds (docs/register_api.md#argument-kinds has the table):
 *  - ShapeLike: an int, a sequence of ints or a Shape, no extent negative; holds a TShape.
 *  - IntTupleLike: the same with any values (reshape's -1).
 *  - AxisLike: None, an int or a sequence of ints.
 *  - DTypeLike: None, a DataType, or a name DataTypeFromString reads.
 *  - DeviceLike: None, a Device, "cpu", "cuda:1", a DLPack (type, id) pair; the CPU or CUDA.
 *  - ScalarLike: a Python number (bool, int or float).
 *  - NDArrayLike: an mxffi ndarray (any storage) or a tensor lent for the call.
 *  - ArrayOrScalar: NDArrayLike or ScalarLike.
 *  - ArrayOrNumber: ArrayOrScalar, or a Python complex number (the elementwise operands).
 *  - ArrayLike: ArrayOrScalar, or nested sequences of numbers of one rectangular shape.
 *  - WritableArray: an mxffi ndarray the function writes into, not read-only.
 *  - StorageTypeLike: "default", "csr" or "row_sparse".
 *
 * Nothing here allocates on the way in (shapes are held inline, strings read in place), except
 * an NDArray wrapping a lent tensor. Values are borrowed for the call, as arguments are.
 */
#ifndef MXFFI_API_ARG_TYPES_H_
#define MXFFI_API_ARG_TYPES_H_

#include <mxffi/any.h>
#include <mxffi/container/complex.h>
#include <mxffi/container/shape.h>
#include <mxffi/container/string.h>
#include <mxffi/function.h>
#include <mxffi/ndarray/ndarray.h>
#include <mxffi/op/op.h>
#include <mxffi/optional.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace mxffi {

/*! \brief float64, numpy's default dtype (what a DTypeLike of None means where numpy says so). */
constexpr DLDataType kFloat64DType{kDLFloat, 64, 1};

/*! \brief An int, a sequence of ints (bools count as ints) or a Shape, with any values. */
class IntTupleLike : public TShape {
 public:
  using TShape::TShape;
  // User-provided, so that value-initialisation (std::optional's in_place) leaves the inline
  // extents unwritten instead of zeroing all kMaxNDim of them.
  IntTupleLike() {}  // NOLINT(modernize-use-equals-default)
};

/*! \brief A shape: an int, a sequence of ints or a Shape, none of the extents negative. */
class ShapeLike : public TShape {
 public:
  using TShape::TShape;
  // User-provided, so that value-initialisation (std::optional's in_place) leaves the inline
  // extents unwritten instead of zeroing all kMaxNDim of them.
  ShapeLike() {}  // NOLINT(modernize-use-equals-default)
};

/*! \brief An axis argument: None (every axis), one int, or a sequence of ints. */
class AxisLike {
 public:
  AxisLike() = default;
  /*! \return whether None was given. */
  bool is_none() const { return kind_ == Kind::kNone; }
  /*! \return whether one int (not a sequence) was given. */
  bool is_int() const { return kind_ == Kind::kInt; }
  /*! \return the int given (is_int()). */
  int64_t axis() const { return axis_; }
  /*! \return the sequence given (neither None nor an int). */
  const TShape& tuple() const { return tuple_; }
  /*! \return the axes given: a sequence as it is, an int as a one-element tuple, None as (). */
  TShape axes() const { return is_int() ? TShape{axis_} : tuple_; }

  static AxisLike None() { return AxisLike(); }
  static AxisLike Int(int64_t axis) {
    AxisLike a;
    a.kind_ = Kind::kInt;
    a.axis_ = axis;
    return a;
  }
  static AxisLike Tuple(const TShape& axes) {
    AxisLike a;
    a.kind_ = Kind::kTuple;
    a.tuple_ = axes;
    return a;
  }

 private:
  enum class Kind : int32_t { kNone, kInt, kTuple };
  Kind kind_ = Kind::kNone;
  int64_t axis_ = 0;
  TShape tuple_;
  friend struct TypeTraits<AxisLike>;
};

/*!
 * \brief A data type argument: None, a DataType, or a name (str) numpy knows.
 * \note None is held as lanes == 0, which no data type has, so the whole value is 4 bytes.
 */
class DTypeLike {
 public:
  DTypeLike() = default;
  DTypeLike(DLDataType dtype) { std::memcpy(&word_, &dtype, sizeof(word_)); }  // NOLINT
  /*! \return whether a dtype (not None) was given. */
  bool has_value() const { return dtype().lanes != 0; }
  /*! \return the dtype; ValueError when None was given. */
  DLDataType value() const {
    if (!has_value()) MXFFI_THROW(ValueError) << "DTypeLike: no dtype was given (None)";
    return dtype();
  }
  /*! \return the dtype, or dflt when None was given. */
  DLDataType value_or(DLDataType dflt) const { return has_value() ? dtype() : dflt; }

 private:
  static_assert(sizeof(DLDataType) == sizeof(uint32_t), "DLDataType is 4 bytes");
  DLDataType dtype() const {
    DLDataType t;
    std::memcpy(&t, &word_, sizeof(t));
    return t;
  }
  // One word rather than three fields, so that it moves as one register.
  uint32_t word_ = 0;
};

/*!
 * \brief A device argument: None, a Device, a name, or a DLPack pair; the CPU or CUDA.
 * \note None is held as device type 0, which DLPack gives no device.
 */
class DeviceLike {
 public:
  DeviceLike() = default;
  DeviceLike(DLDevice device) : device_(device) {}  // NOLINT(runtime/explicit)
  /*! \return whether a device (not None) was given. */
  bool has_value() const { return device_.device_type != 0; }
  /*! \return the device; ValueError when None was given. */
  DLDevice value() const {
    if (!has_value()) MXFFI_THROW(ValueError) << "DeviceLike: no device was given (None)";
    return device_;
  }
  /*! \return the device, or dflt when None was given. */
  DLDevice value_or(DLDevice dflt) const { return has_value() ? device_ : dflt; }

 private:
  DLDevice device_{static_cast<DLDeviceType>(0), 0};
};

/*! \brief A Python number: bool, int (int64) or float. */
class ScalarLike {
 public:
  /*!
   * \brief The kinds, ordered by how they widen. kComplex is never a ScalarLike's own kind (a
   *  ScalarLike parameter refuses complex numbers): it is the widest element kind of a sequence
   *  or a complex number given to ArrayLike.
   */
  enum class Kind : int32_t { kBool = 0, kInt = 1, kFloat = 2, kComplex = 3 };
  ScalarLike() = default;
  static ScalarLike Bool(bool v) { return ScalarLike(Kind::kBool, v ? 1 : 0, v ? 1.0 : 0.0); }
  static ScalarLike Int(int64_t v) { return ScalarLike(Kind::kInt, v, static_cast<double>(v)); }
  static ScalarLike Float(double v) { return ScalarLike(Kind::kFloat, 0, v); }

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_int() const { return kind_ == Kind::kInt; }
  bool is_float() const { return kind_ == Kind::kFloat; }
  /*! \return a bool or an int as it is (0 for a float). */
  int64_t int_value() const { return i_; }
  /*! \return the number as a double. */
  double value() const { return f_; }
  /*! \return the dtype numpy gives the number alone: bool, int64 or float64. */
  DLDataType DefaultDType() const {
    return is_bool()  ? DLDataType{kDLBool, 8, 1}
           : is_int() ? DLDataType{kDLInt, 64, 1}
                      : DLDataType{kDLFloat, 64, 1};
  }

 private:
  ScalarLike(Kind kind, int64_t i, double f) : kind_(kind), i_(i), f_(f) {}
  Kind kind_ = Kind::kInt;
  int64_t i_ = 0;
  double f_ = 0.0;
};

class NDArrayLike;
namespace details {
inline bool ReadArray(const MXFFIAny* src, NDArrayLike* out);
}  // namespace details

/*!
 * \brief An array argument: an mxffi ndarray of any storage type, or a dense tensor lent for
 *  the call (a numpy array, a DLPack producer, a buffer), wrapped without a copy.
 */
class NDArrayLike {
 public:
  NDArrayLike() = default;
  NDArrayLike(NDArray array, bool borrowed) : array_(std::move(array)), borrowed_(borrowed) {}
  const NDArray& array() const { return array_; }
  operator const NDArray&() const { return array_; }  // NOLINT(runtime/explicit)
  const NDArray* operator->() const { return &array_; }
  const NDArray& operator*() const { return array_; }
  /*!
   * \return whether the array is a tensor lent for the call only (copy it before keeping it or
   *  returning it).
   */
  bool borrowed() const { return borrowed_; }
  /*! \return the array, moved out (no reference count traffic). */
  NDArray Take() { return std::move(array_); }

 private:
  NDArray array_;
  bool borrowed_ = false;
  friend bool details::ReadArray(const MXFFIAny* src, NDArrayLike* out);
};

/*! \brief An operand that is an array (NDArrayLike) or a Python number (ScalarLike). */
class ArrayOrScalar {
 public:
  ArrayOrScalar() = default;
  ArrayOrScalar(NDArrayLike array) : array_(std::move(array)), is_array_(true) {}  // NOLINT
  ArrayOrScalar(ScalarLike scalar) : scalar_(scalar) {}                            // NOLINT
  bool is_array() const { return is_array_; }
  /*! \return the array (undefined for a number). */
  const NDArrayLike& array() const { return array_; }
  /*! \return the array, moved out (no reference count traffic); undefined for a number. */
  NDArray TakeArray() { return array_.Take(); }
  /*! \return the number (meaningless for an array). */
  const ScalarLike& scalar() const { return scalar_; }

 private:
  NDArrayLike array_;
  ScalarLike scalar_;
  bool is_array_ = false;
  friend struct TypeTraits<ArrayOrScalar>;
};

/*!
 * \brief An operand of the elementwise functions: an array or a Python number, complex numbers
 *  included (ArrayOrScalar refuses them, so no function reads only the real part of one by
 *  mistake; a function taking ArrayOrNumber handles is_complex()).
 */
class ArrayOrNumber {
 public:
  ArrayOrNumber() = default;
  ArrayOrNumber(ArrayOrScalar value) : value_(std::move(value)) {}  // NOLINT
  bool is_complex() const { return is_complex_; }
  /*! \return the complex number (meaningless unless is_complex()). */
  std::complex<double> complex_value() const { return complex_; }
  /*! \return the array or real number (meaningless when is_complex()). */
  ArrayOrScalar* operand() { return &value_; }
  const ArrayOrScalar& operand() const { return value_; }

 private:
  ArrayOrScalar value_;
  std::complex<double> complex_;
  bool is_complex_ = false;
  friend struct TypeTraits<ArrayOrNumber>;
};

/*!
 * \brief What numpy's array() takes: an array, a Python number, or (nested) sequences of
 *  numbers of one rectangular shape. A sequence is checked (shape, element types) when the
 *  argument is converted; its elements stay where they are, in the borrowed argument.
 */
class ArrayLike {
 public:
  enum class Kind : int32_t { kArray = 0, kScalar = 1, kSequence = 2 };
  ArrayLike() = default;
  ArrayLike(ArrayOrScalar value)  // NOLINT(runtime/explicit)
      : value_(std::move(value)), kind_(value_.is_array() ? Kind::kArray : Kind::kScalar) {}
  /*!
   * \brief A sequence (an Array cell, borrowed for the call) of the given shape, whose
   *  elements make the given dtype (WalkSequenceArg); or, with an empty shape, one complex
   *  number's cell.
   */
  static ArrayLike Sequence(const MXFFIAny* cell, const TShape& shape, DLDataType dtype) {
    ArrayLike a;
    a.kind_ = Kind::kSequence;
    a.cell_ = cell;
    a.shape_ = shape;
    a.dtype_ = dtype;
    return a;
  }

  Kind kind() const { return kind_; }
  /*! \return the array or the number (for kArray and kScalar). */
  const ArrayOrScalar& value() const { return value_; }
  /*! \return the sequence's cell (kSequence), borrowed for the call. */
  const MXFFIAny* sequence() const { return cell_; }
  /*! \return the sequence's shape (kSequence). */
  const TShape& sequence_shape() const { return shape_; }
  /*!
   * \return the dtype numpy gives the sequence: its numbers' widest kind (bool, int64,
   *  float64, complex128) promoted with the dtypes of the arrays among its elements; float64
   *  when it holds neither.
   */
  DLDataType SequenceDType() const { return dtype_; }

 private:
  ArrayOrScalar value_;
  Kind kind_ = Kind::kScalar;
  const MXFFIAny* cell_ = nullptr;
  TShape shape_;
  DLDataType dtype_ = kFloat64DType;
};

/*! \brief An array a function writes into: an mxffi ndarray (not a lent tensor), writable. */
class WritableArray {
 public:
  WritableArray() = default;
  explicit WritableArray(NDArray array) : array_(std::move(array)) {}
  const NDArray& array() const { return array_; }
  operator const NDArray&() const { return array_; }  // NOLINT(runtime/explicit)
  const NDArray* operator->() const { return &array_; }
  const NDArray& operator*() const { return array_; }

 private:
  NDArray array_;
};

/*! \brief A storage type named as MXNet names it: "default", "csr" or "row_sparse". */
class StorageTypeLike {
 public:
  StorageTypeLike() = default;
  StorageTypeLike(StorageType stype) : stype_(stype) {}  // NOLINT(runtime/explicit)
  StorageType value() const { return stype_; }
  operator StorageType() const { return stype_; }  // NOLINT(runtime/explicit)

 private:
  StorageType stype_ = StorageType::kDefault;
};

namespace details {

// The cold halves of the conversions below, in src/api/arg_types.cc: each raises the error
// of one check, naming the argument.

/*! \brief TypeError for element i of a sequence of ints that is no int. */
[[noreturn]] MXFFI_DLL void ThrowIntTupleElement(const ArgContext& ctx, int64_t i,
                                                 const MXFFIAny* item);
/*! \brief ValueError for a sequence of more than kMaxNDim ints. */
[[noreturn]] MXFFI_DLL void ThrowTooManyDims(const ArgContext& ctx, int64_t n);
/*! \brief ValueError for a shape with a negative extent. */
[[noreturn]] MXFFI_DLL void ThrowNegativeDim(const ArgContext& ctx, const TShape& shape);
/*! \brief A dtype name read with DataTypeFromString into out; false where it raises. */
MXFFI_DLL bool TryParseDType(std::string_view text, DTypeLike* out);
/*! \brief ValueError for a DataType cell with no lanes. */
[[noreturn]] MXFFI_DLL void ThrowZeroLanes(const ArgContext& ctx);
/*! \brief A device from a name or a (type, id) pair; errors name the argument (ctx). */
MXFFI_DLL bool ParseDeviceArg(const MXFFIAny* src, const ArgContext* ctx, DLDevice* out);
/*! \brief NotImplementedError for a device that is neither the CPU nor CUDA. */
[[noreturn]] MXFFI_DLL void ThrowUnsupportedDevice(const ArgContext& ctx, DLDevice device);
/*! \brief A storage type name; ValueError naming the argument for another str. */
MXFFI_DLL bool ParseStorageTypeArg(std::string_view text, const ArgContext* ctx, StorageType* out);
/*!
 * \brief Walk a nested sequence of numbers and arrays (an array element stands for the nested
 *  sequences of its shape, as numpy reads it): its shape and the dtype numpy gives it; errors
 *  name ctx.
 */
MXFFI_DLL bool WalkSequenceArg(const MXFFIAny* src, const ArgContext* ctx, TShape* shape,
                               DLDataType* dtype);
/*! \brief TypeError for a lent tensor where an array is written in place. */
[[noreturn]] MXFFI_DLL void ThrowNotWritable(const ArgContext& ctx, const MXFFIAny* src);

/*!
 * \brief Read an int, a sequence of ints or a Shape into out.
 * \param any_negative set to whether a value is negative (checked as the values are read).
 * \return false when src is none of these, or (without ctx) holds something else but ints;
 *  with ctx, an element that is no int and too many elements raise errors naming ctx.
 */
MXFFI_DLL bool ReadIntTuple(const MXFFIAny* src, const ArgContext* ctx, TShape* out,
                            bool* any_negative);

/*! \brief An NDArray cell's array, or a lent tensor wrapped, into out; false for others. */
inline bool ReadArray(const MXFFIAny* src, NDArrayLike* out) {
  if (src->type_index == kMXFFINDArray) {
    out->array_ = NDArray(ObjectPtr<Object>::CopyFromRaw(ObjectUnsafe::FromHeader(src->v_obj)));
    out->borrowed_ = false;
    return true;
  }
  if (src->type_index == kMXFFIDLTensorPtr) {
    out->array_ = NDArray::FromBorrowed(*static_cast<const DLTensor*>(src->v_ptr));
    out->borrowed_ = true;
    return true;
  }
  return false;
}

/*! \brief A bool, int or float cell as a number into out; false for anything else. */
inline bool ReadScalar(const MXFFIAny* src, ScalarLike* out) {
  switch (src->type_index) {
    case kMXFFIBool:
      *out = ScalarLike::Bool(src->v_int64 != 0);
      return true;
    case kMXFFIInt:
      *out = ScalarLike::Int(src->v_int64);
      return true;
    case kMXFFIFloat:
      *out = ScalarLike::Float(src->v_float64);
      return true;
    default:
      return false;
  }
}

}  // namespace details

template <>
struct TypeTraits<IntTupleLike>
    : details::ConvertArgTraits<IntTupleLike, TypeTraits<IntTupleLike>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext* ctx, IntTupleLike* out) {
    bool any_negative;
    return details::ReadIntTuple(src, ctx, out, &any_negative);
  }
  static void MoveToAny(const IntTupleLike& v, MXFFIAny* out) {
    TypeTraits<Shape>::MoveToAny(Shape(v.data(), v.size()), out);
  }
  static std::string TypeStr() { return "IntTupleLike"; }
  static std::string TypeDesc() { return "an int or a sequence of ints"; }
};

template <>
struct TypeTraits<ShapeLike> : details::ConvertArgTraits<ShapeLike, TypeTraits<ShapeLike>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext* ctx, ShapeLike* out) {
    bool any_negative;
    if (!details::ReadIntTuple(src, ctx, out, &any_negative)) return false;
    if (any_negative) {
      if (ctx == nullptr) return false;
      details::ThrowNegativeDim(*ctx, *out);
    }
    return true;
  }
  static void MoveToAny(const ShapeLike& v, MXFFIAny* out) {
    TypeTraits<Shape>::MoveToAny(Shape(v.data(), v.size()), out);
  }
  static std::string TypeStr() { return "ShapeLike"; }
  static std::string TypeDesc() { return "a shape (an int or a sequence of ints)"; }
};

template <>
struct TypeTraits<AxisLike> : details::ConvertArgTraits<AxisLike, TypeTraits<AxisLike>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext* ctx, AxisLike* out) {
    switch (src->type_index) {
      case kMXFFINone:
        out->kind_ = AxisLike::Kind::kNone;
        return true;
      case kMXFFIInt:
        out->kind_ = AxisLike::Kind::kInt;
        out->axis_ = src->v_int64;
        return true;
      default: {
        bool any_negative;
        if (!details::ReadIntTuple(src, ctx, &out->tuple_, &any_negative)) return false;
        out->kind_ = AxisLike::Kind::kTuple;
        return true;
      }
    }
  }
  static void MoveToAny(const AxisLike& v, MXFFIAny* out) {
    if (v.is_none()) {
      details::CellSetNone(out);
    } else if (v.is_int()) {
      TypeTraits<int64_t>::MoveToAny(v.axis(), out);
    } else {
      const TShape axes = v.axes();
      TypeTraits<Shape>::MoveToAny(Shape(axes.data(), axes.size()), out);
    }
  }
  static std::string TypeStr() { return "AxisLike"; }
  static std::string TypeDesc() { return "None, an int or a sequence of ints"; }
};

template <>
struct TypeTraits<DTypeLike> : details::ConvertArgTraits<DTypeLike, TypeTraits<DTypeLike>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext* ctx, DTypeLike* out) {
    switch (src->type_index) {
      case kMXFFINone:
        *out = DTypeLike();
        return true;
      case kMXFFIDataType:
        // lanes == 0 would read as None; no data type has it (DataTypeFromString refuses it).
        if (src->v_dtype.lanes == 0) {
          if (ctx == nullptr) return false;
          details::ThrowZeroLanes(*ctx);
        }
        *out = DTypeLike(src->v_dtype);
        return true;
      default:
        break;
    }
    std::string_view text;
    if (!details::CellStrView(src, &text)) return false;
    if (ctx == nullptr) return details::TryParseDType(text, out);
    // The parser names its caller: the argument's label, so its errors name the argument.
    *out = DTypeLike(DataTypeFromString(text, ctx->label()));
    return true;
  }
  static void CopyToAnyView(const DTypeLike& v, MXFFIAny* out) {
    if (v.has_value()) {
      TypeTraits<DLDataType>::CopyToAnyView(v.value(), out);
    } else {
      details::CellSetNone(out);
    }
  }
  static void MoveToAny(const DTypeLike& v, MXFFIAny* out) { CopyToAnyView(v, out); }
  static std::string TypeStr() { return "DTypeLike"; }
  static std::string TypeDesc() { return "a data type (a str, a DataType or None)"; }
};

template <>
struct TypeTraits<DeviceLike> : details::ConvertArgTraits<DeviceLike, TypeTraits<DeviceLike>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext* ctx, DeviceLike* out) {
    DLDevice device;
    if (src->type_index == kMXFFINone) {
      *out = DeviceLike();
      return true;
    }
    if (src->type_index == kMXFFIDevice) {
      device = src->v_device;
    } else if (!details::ParseDeviceArg(src, ctx, &device)) {
      return false;
    }
    if (device.device_type != kDLCPU && device.device_type != kDLCUDA) {
      if (ctx == nullptr) return false;
      details::ThrowUnsupportedDevice(*ctx, device);
    }
    *out = DeviceLike(device);
    return true;
  }
  static void CopyToAnyView(const DeviceLike& v, MXFFIAny* out) {
    if (v.has_value()) {
      TypeTraits<DLDevice>::CopyToAnyView(v.value(), out);
    } else {
      details::CellSetNone(out);
    }
  }
  static void MoveToAny(const DeviceLike& v, MXFFIAny* out) { CopyToAnyView(v, out); }
  static std::string TypeStr() { return "DeviceLike"; }
  static std::string TypeDesc() {
    return "a device (a str, a Device, a (device_type, device_id) pair or None)";
  }
};

template <>
struct TypeTraits<ScalarLike> : details::ConvertArgTraits<ScalarLike, TypeTraits<ScalarLike>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext*, ScalarLike* out) {
    return details::ReadScalar(src, out);
  }
  static void CopyToAnyView(const ScalarLike& v, MXFFIAny* out) {
    if (v.is_bool()) {
      TypeTraits<bool>::CopyToAnyView(v.int_value() != 0, out);
    } else if (v.is_int()) {
      TypeTraits<int64_t>::CopyToAnyView(v.int_value(), out);
    } else {
      TypeTraits<double>::CopyToAnyView(v.value(), out);
    }
  }
  static void MoveToAny(const ScalarLike& v, MXFFIAny* out) { CopyToAnyView(v, out); }
  static std::string TypeStr() { return "ScalarLike"; }
  static std::string TypeDesc() { return "a number"; }
};

template <>
struct TypeTraits<NDArrayLike> : details::ConvertArgTraits<NDArrayLike, TypeTraits<NDArrayLike>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext*, NDArrayLike* out) {
    return details::ReadArray(src, out);
  }
  static void CopyToAnyView(const NDArrayLike& v, MXFFIAny* out) {
    TypeTraits<NDArray>::CopyToAnyView(v.array(), out);
  }
  static void MoveToAny(const NDArrayLike& v, MXFFIAny* out) {
    TypeTraits<NDArray>::MoveToAny(v.array(), out);
  }
  static std::string TypeStr() { return "NDArrayLike"; }
  static std::string TypeDesc() { return "an ndarray"; }
};

template <>
struct TypeTraits<ArrayOrScalar>
    : details::ConvertArgTraits<ArrayOrScalar, TypeTraits<ArrayOrScalar>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext*, ArrayOrScalar* out) {
    if (details::ReadScalar(src, &out->scalar_)) {
      out->is_array_ = false;
      return true;
    }
    out->is_array_ = true;
    return details::ReadArray(src, &out->array_);
  }
  static void MoveToAny(const ArrayOrScalar& v, MXFFIAny* out) {
    if (v.is_array()) {
      TypeTraits<NDArrayLike>::MoveToAny(v.array(), out);
    } else {
      TypeTraits<ScalarLike>::MoveToAny(v.scalar(), out);
    }
  }
  static std::string TypeStr() { return "ArrayOrScalar"; }
  static std::string TypeDesc() { return "an ndarray or a number"; }
};

template <>
struct TypeTraits<ArrayOrNumber>
    : details::ConvertArgTraits<ArrayOrNumber, TypeTraits<ArrayOrNumber>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext* ctx, ArrayOrNumber* out) {
    if (details::CellComplex(src, &out->complex_)) {
      out->is_complex_ = true;
      return true;
    }
    out->is_complex_ = false;
    return TypeTraits<ArrayOrScalar>::ConvertArg(src, ctx, &out->value_);
  }
  static void MoveToAny(const ArrayOrNumber& v, MXFFIAny* out) {
    if (v.is_complex()) {
      details::CellSetComplex(v.complex_value(), out);
    } else {
      TypeTraits<ArrayOrScalar>::MoveToAny(v.operand(), out);
    }
  }
  static std::string TypeStr() { return "ArrayOrNumber"; }
  static std::string TypeDesc() { return "an ndarray or a number"; }
};

template <>
struct TypeTraits<ArrayLike> : details::ConvertArgTraits<ArrayLike, TypeTraits<ArrayLike>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext* ctx, ArrayLike* out) {
    if (src->type_index == kMXFFIComplexView || src->type_index == kMXFFIComplex) {
      // A complex number: a 0-d sequence of one element, which FromCells writes.
      *out = ArrayLike::Sequence(src, TShape(), DLDataType{kDLComplex, 128, 1});
      return true;
    }
    if (src->type_index == kMXFFIUInt64) {  // an int past int64: numpy's uint64, the same way
      *out = ArrayLike::Sequence(src, TShape(), DLDataType{kDLUInt, 64, 1});
      return true;
    }
    if (src->type_index == kMXFFIArray) {
      TShape shape;
      DLDataType dtype;
      if (!details::WalkSequenceArg(src, ctx, &shape, &dtype)) return false;
      *out = ArrayLike::Sequence(src, shape, dtype);
      return true;
    }
    ArrayOrScalar v;
    if (!TypeTraits<ArrayOrScalar>::ConvertArg(src, ctx, &v)) return false;
    *out = ArrayLike(std::move(v));
    return true;
  }
  static std::string TypeStr() { return "ArrayLike"; }
  static std::string TypeDesc() {
    return "an array, a number or a nested sequence of numbers and arrays";
  }
};

template <>
struct TypeTraits<WritableArray>
    : details::ConvertArgTraits<WritableArray, TypeTraits<WritableArray>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext* ctx, WritableArray* out) {
    if (src->type_index == kMXFFIDLTensorPtr && ctx != nullptr) {
      details::ThrowNotWritable(*ctx, src);
    }
    if (src->type_index != kMXFFINDArray) return false;
    NDArray a(ObjectPtr<Object>::CopyFromRaw(details::ObjectUnsafe::FromHeader(src->v_obj)));
    if (a.read_only()) {
      if (ctx == nullptr) return false;
      details::ThrowNotWritable(*ctx, src);
    }
    *out = WritableArray(std::move(a));
    return true;
  }
  static void CopyToAnyView(const WritableArray& v, MXFFIAny* out) {
    TypeTraits<NDArray>::CopyToAnyView(v.array(), out);
  }
  static void MoveToAny(const WritableArray& v, MXFFIAny* out) {
    TypeTraits<NDArray>::MoveToAny(v.array(), out);
  }
  static std::string TypeStr() { return "WritableArray"; }
  static std::string TypeDesc() { return "a writable mxffi ndarray"; }
};

template <>
struct TypeTraits<StorageTypeLike>
    : details::ConvertArgTraits<StorageTypeLike, TypeTraits<StorageTypeLike>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext* ctx,
                         StorageTypeLike* out) {
    std::string_view text;
    if (!details::CellStrView(src, &text)) return false;
    StorageType stype;
    if (!details::ParseStorageTypeArg(text, ctx, &stype)) return false;
    *out = StorageTypeLike(stype);
    return true;
  }
  static void CopyToAnyView(const StorageTypeLike& v, MXFFIAny* out) {
    TypeTraits<const char*>::CopyToAnyView(StorageTypeName(v.value()), out);
  }
  static std::string TypeStr() { return "StorageTypeLike"; }
  static std::string TypeDesc() {
    return "a storage type ('default', 'csr', 'row_sparse' or 'coo')";
  }
};

}  // namespace mxffi

#endif  // MXFFI_API_ARG_TYPES_H_
