/*!
 * \file mxffi/any.h
 * \brief AnyView (borrowed) and Any (owning) over the 16-byte value cell, and TypeTraits,
 *  the one place that says how each C++ type goes in and out of a cell.
 *
 * TypeTraits<T> provides:
 *  - `static void CopyToAnyView(const T&, MXFFIAny*)`: borrow (arguments).
 *  - `static void MoveToAny(T, MXFFIAny*)`: transfer ownership (results).
 *  - `static std::optional<T> TryCast(const MXFFIAny*)`: checked conversion; nullopt when the
 *    cell does not hold something convertible to T. Never throws.
 *  - `static std::string TypeStr()`: the type's name, as registry.function_info reports it.
 *
 * and optionally, for argument kinds that check values as well as types (mxffi/api/arg_types.h):
 *  - `static bool ConvertArg(const MXFFIAny*, const details::ArgContext* ctx, T* out)`: the
 *    conversion a typed function's argument goes through, writing the value in place (a kind
 *    may be large: a shape holds its extents inline): false for a value of the wrong type; for
 *    a value of the right type that is out of bounds, an error naming the function and the
 *    argument (`*ctx`), or false when ctx is null. Without it, arguments go through TryCast.
 *  - `static std::string TypeDesc()`: what the type accepts, in the words of a TypeError
 *    ("a data type" in `expected a data type, got list`); without it, TypeStr().
 */
#ifndef MXFFI_ANY_H_
#define MXFFI_ANY_H_

#include <mxffi/error.h>

#include <cstring>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>

namespace mxffi {

template <typename T, typename = void>
struct TypeTraits;

struct FuncInfo;

namespace details {

/*!
 * \brief The argument a typed function is converting (the function's info and the argument's
 *  position), so that a conversion can raise an error naming both. Two words, passed by value;
 *  the text is made only when an error is raised: `MXFFI_THROW(ValueError) << ctx << ": ..."`
 *  streams `np.zeros: argument #0 'shape'`.
 */
class ArgContext {
 public:
  ArgContext(const FuncInfo* info, int32_t index) : info_(info), index_(index) {}
  const FuncInfo* info() const { return info_; }
  int32_t index() const { return index_; }
  /*! \return the function's registered name, or "<anonymous function>" (in function.h). */
  inline const char* func_name() const;
  /*!
   * \return Label() as the registry made it when the function was published, without a copy
   *  (a prefix to hand to a parser that names its caller); func_name() where there is none.
   */
  inline const char* label() const;
  /*! \return "np.zeros: argument #0 'shape'" (the name when the function registered one). */
  MXFFI_DLL std::string Label() const;

 private:
  const FuncInfo* info_;
  int32_t index_;
};

/*! \brief Streams ctx.Label(). */
MXFFI_DLL std::ostream& operator<<(std::ostream& os, const ArgContext& ctx);

inline bool IsObjectCode(int32_t type_index) { return type_index >= kMXFFIStaticObjectBegin; }

/*! \return a short name for what a cell holds: "int", "str", "mxffi.Array", ... */
MXFFI_DLL std::string CellTypeName(const MXFFIAny* cell);

/*! \brief Turn a borrowed cell into an owned one in place (raw strings become String objects). */
MXFFI_DLL void MaterializeOwned(MXFFIAny* cell);

inline void CellIncRef(const MXFFIAny* cell) {
  if (IsObjectCode(cell->type_index)) reinterpret_cast<Object*>(cell->v_obj)->IncRef();
}
inline void CellDecRef(const MXFFIAny* cell) {
  if (IsObjectCode(cell->type_index)) reinterpret_cast<Object*>(cell->v_obj)->DecRef();
}
inline void CellSetNone(MXFFIAny* cell) {
  cell->type_index = kMXFFINone;
  cell->small_len = 0;
  cell->v_int64 = 0;
}

/*! \brief Whether a reference type brings its own TypeTraits (marked _type_custom_traits). */
template <typename T, typename = void>
struct HasCustomTraits : std::false_type {};
template <typename T>
struct HasCustomTraits<T, std::void_t<decltype(T::_type_custom_traits)>> : std::true_type {};

}  // namespace details

class Any;

/*! \brief A borrowed value: no ownership, no refcount traffic. */
class AnyView {
 public:
  AnyView() { details::CellSetNone(&data_); }
  AnyView(std::nullptr_t) : AnyView() {}  // NOLINT(runtime/explicit)
  AnyView(const Any& any);                // NOLINT(runtime/explicit)
  template <typename T,
            typename = std::enable_if_t<!std::is_same_v<std::decay_t<T>, Any> &&
                                        !std::is_same_v<std::decay_t<T>, AnyView>>,
            typename = decltype(TypeTraits<std::decay_t<T>>::CopyToAnyView)>
  AnyView(const T& value) {  // NOLINT(runtime/explicit)
    details::CellSetNone(&data_);
    TypeTraits<std::decay_t<T>>::CopyToAnyView(value, &data_);
  }

  int32_t type_index() const { return data_.type_index; }
  bool is_none() const { return data_.type_index == kMXFFINone; }
  /*! \return the value as T, or nullopt when it is not convertible. */
  template <typename T>
  std::optional<T> try_cast() const {
    return TypeTraits<T>::TryCast(&data_);
  }
  /*! \return the value as T; TypeError naming both types when it is not convertible. */
  template <typename T>
  T cast() const;
  /*! \return a short name for the held type ("int", "str", ...). */
  std::string GetTypeName() const { return details::CellTypeName(&data_); }

  const MXFFIAny* raw() const { return &data_; }
  static const AnyView* FromRaw(const MXFFIAny* cells) {
    return reinterpret_cast<const AnyView*>(cells);
  }

 protected:
  MXFFIAny data_;
  friend class Any;
};

/*! \brief An owned value: holds a reference when the payload is an object. */
class Any {
 public:
  Any() { details::CellSetNone(&data_); }
  Any(std::nullptr_t) : Any() {}  // NOLINT(runtime/explicit)
  Any(const Any& other) : data_(other.data_) { details::CellIncRef(&data_); }
  Any(Any&& other) noexcept : data_(other.data_) { details::CellSetNone(&other.data_); }
  explicit Any(const AnyView& view) : data_(view.data_) {
    if (details::IsObjectCode(data_.type_index)) {
      details::CellIncRef(&data_);
    } else {
      details::MaterializeOwned(&data_);
    }
  }
  template <typename T,
            typename = std::enable_if_t<!std::is_same_v<std::decay_t<T>, Any> &&
                                        !std::is_same_v<std::decay_t<T>, AnyView>>,
            typename = decltype(TypeTraits<std::decay_t<T>>::MoveToAny)>
  Any(T value) {  // NOLINT(runtime/explicit)
    details::CellSetNone(&data_);
    TypeTraits<std::decay_t<T>>::MoveToAny(std::move(value), &data_);
  }
  ~Any() { details::CellDecRef(&data_); }

  Any& operator=(const Any& other) {
    Any(other).swap(*this);
    return *this;
  }
  Any& operator=(Any&& other) noexcept {
    Any(std::move(other)).swap(*this);
    return *this;
  }
  void swap(Any& other) noexcept { std::swap(data_, other.data_); }

  int32_t type_index() const { return data_.type_index; }
  bool is_none() const { return data_.type_index == kMXFFINone; }
  template <typename T>
  std::optional<T> try_cast() const {
    return TypeTraits<T>::TryCast(&data_);
  }
  template <typename T>
  T cast() const {
    return AnyView(*this).cast<T>();
  }
  std::string GetTypeName() const { return details::CellTypeName(&data_); }

  const MXFFIAny* raw() const { return &data_; }
  /*! \brief Hand the cell to a C caller, who now owns it. */
  void MoveToRaw(MXFFIAny* out) {
    *out = data_;
    details::CellSetNone(&data_);
  }
  /*! \brief Adopt a cell the caller owns (e.g. a result of MXFFIFuncCall). */
  static Any MoveFromRaw(MXFFIAny* cell) {
    Any any;
    any.data_ = *cell;
    details::CellSetNone(cell);
    return any;
  }

 private:
  MXFFIAny data_;
  friend class AnyView;
};

inline AnyView::AnyView(const Any& any) : data_(any.data_) {}

static_assert(sizeof(Any) == sizeof(MXFFIAny) && sizeof(AnyView) == sizeof(MXFFIAny),
              "Any and AnyView are exactly one value cell");

template <typename T>
inline T AnyView::cast() const {
  std::optional<T> value = TypeTraits<T>::TryCast(&data_);
  if (!value.has_value()) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (data_.type_index == kMXFFIInt) {
        MXFFI_THROW(OverflowError)
            << "value " << data_.v_int64 << " out of range for " << TypeTraits<T>::TypeStr();
      }
      if (data_.type_index == kMXFFIUInt64) {
        MXFFI_THROW(OverflowError) << "value " << static_cast<uint64_t>(data_.v_int64)
                                   << " out of range for " << TypeTraits<T>::TypeStr();
      }
    }
    MXFFI_THROW(TypeError) << "cannot convert from type '" << GetTypeName() << "' to '"
                           << TypeTraits<T>::TypeStr() << "'";
  }
  return *std::move(value);
}

// Section: POD traits -------------------------------------------------------

template <>
struct TypeTraits<std::nullptr_t> {
  static void CopyToAnyView(std::nullptr_t, MXFFIAny* out) { details::CellSetNone(out); }
  static void MoveToAny(std::nullptr_t, MXFFIAny* out) { details::CellSetNone(out); }
  static std::optional<std::nullptr_t> TryCast(const MXFFIAny* src) {
    if (src->type_index == kMXFFINone) return nullptr;
    return std::nullopt;
  }
  static std::string TypeStr() { return "None"; }
};

template <>
struct TypeTraits<bool> {
  static void CopyToAnyView(bool v, MXFFIAny* out) {
    out->type_index = kMXFFIBool;
    out->v_int64 = v;
  }
  static void MoveToAny(bool v, MXFFIAny* out) { CopyToAnyView(v, out); }
  /*! \note ints are accepted as Python's bool(int) would, to 0/1. */
  static std::optional<bool> TryCast(const MXFFIAny* src) {
    if (src->type_index == kMXFFIBool || src->type_index == kMXFFIInt) return src->v_int64 != 0;
    return std::nullopt;
  }
  static std::string TypeStr() { return "bool"; }
};

/*! \brief Every integer type but bool; narrower types check the range. */
template <typename Int>
struct TypeTraits<Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>>> {
  static void CopyToAnyView(Int v, MXFFIAny* out) {
    // A uint64 past int64's range travels as kMXFFIUInt64 (its bits), never as a negative int.
    if constexpr (std::is_unsigned_v<Int> && sizeof(Int) == 8) {
      out->type_index = v > static_cast<uint64_t>(INT64_MAX) ? kMXFFIUInt64 : kMXFFIInt;
    } else {
      out->type_index = kMXFFIInt;
    }
    out->v_int64 = static_cast<int64_t>(v);
  }
  static void MoveToAny(Int v, MXFFIAny* out) { CopyToAnyView(v, out); }
  static std::optional<Int> TryCast(const MXFFIAny* src) {
    if (src->type_index == kMXFFIInt || src->type_index == kMXFFIBool) {
      int64_t v = src->v_int64;
      if constexpr (!std::is_same_v<Int, int64_t>) {
        if (!InRange(v)) return std::nullopt;
      }
      return static_cast<Int>(v);
    }
    if constexpr (std::is_unsigned_v<Int> && sizeof(Int) == 8) {
      if (src->type_index == kMXFFIUInt64) return static_cast<Int>(src->v_int64);
    }
    return std::nullopt;
  }
  static bool InRange(int64_t v) {
    if constexpr (std::is_unsigned_v<Int>) {
      return v >= 0 && static_cast<uint64_t>(v) <= std::numeric_limits<Int>::max();
    } else {
      return v >= std::numeric_limits<Int>::min() && v <= std::numeric_limits<Int>::max();
    }
  }
  static std::string TypeStr() {
    if constexpr (std::is_same_v<Int, int64_t>) {
      return "int";
    } else {
      return std::string(std::is_unsigned_v<Int> ? "uint" : "int") +
             std::to_string(sizeof(Int) * 8);
    }
  }
};

/*! \brief Floating point: ints and bools are accepted, as Python's float(x) would. */
template <typename Float>
struct TypeTraits<Float, std::enable_if_t<std::is_floating_point_v<Float>>> {
  static void CopyToAnyView(Float v, MXFFIAny* out) {
    out->type_index = kMXFFIFloat;
    out->v_float64 = static_cast<double>(v);
  }
  static void MoveToAny(Float v, MXFFIAny* out) { CopyToAnyView(v, out); }
  static std::optional<Float> TryCast(const MXFFIAny* src) {
    if (src->type_index == kMXFFIFloat) return static_cast<Float>(src->v_float64);
    if (src->type_index == kMXFFIUInt64) {
      return static_cast<Float>(static_cast<uint64_t>(src->v_int64));
    }
    if (src->type_index == kMXFFIInt || src->type_index == kMXFFIBool) {
      return static_cast<Float>(src->v_int64);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return sizeof(Float) == 4 ? "float32" : "float"; }
};

/*! \brief void*: an unowned opaque pointer; None converts to nullptr. */
template <>
struct TypeTraits<void*> {
  static void CopyToAnyView(void* v, MXFFIAny* out) {
    if (v == nullptr) {
      details::CellSetNone(out);
    } else {
      out->type_index = kMXFFIOpaquePtr;
      out->v_ptr = v;
    }
  }
  static void MoveToAny(void* v, MXFFIAny* out) { CopyToAnyView(v, out); }
  static std::optional<void*> TryCast(const MXFFIAny* src) {
    if (src->type_index == kMXFFIOpaquePtr) return src->v_ptr;
    if (src->type_index == kMXFFINone) return static_cast<void*>(nullptr);
    return std::nullopt;
  }
  static std::string TypeStr() { return "void*"; }
};

template <>
struct TypeTraits<DLDataType> {
  static void CopyToAnyView(DLDataType v, MXFFIAny* out) {
    out->type_index = kMXFFIDataType;
    out->v_int64 = 0;
    out->v_dtype = v;
  }
  static void MoveToAny(DLDataType v, MXFFIAny* out) { CopyToAnyView(v, out); }
  static std::optional<DLDataType> TryCast(const MXFFIAny* src) {
    if (src->type_index == kMXFFIDataType) return src->v_dtype;
    return std::nullopt;
  }
  static std::string TypeStr() { return "DataType"; }
};

template <>
struct TypeTraits<DLDevice> {
  static void CopyToAnyView(DLDevice v, MXFFIAny* out) {
    out->type_index = kMXFFIDevice;
    out->v_int64 = 0;
    out->v_device = v;
  }
  static void MoveToAny(DLDevice v, MXFFIAny* out) { CopyToAnyView(v, out); }
  static std::optional<DLDevice> TryCast(const MXFFIAny* src) {
    if (src->type_index == kMXFFIDevice) return src->v_device;
    return std::nullopt;
  }
  static std::string TypeStr() { return "Device"; }
};

/*! \brief DLTensor*: a borrowed tensor pointer; an NDArray object yields its DLTensor. */
template <>
struct TypeTraits<DLTensor*> {
  static void CopyToAnyView(DLTensor* v, MXFFIAny* out) {
    out->type_index = kMXFFIDLTensorPtr;
    out->v_ptr = v;
  }
  static void MoveToAny(DLTensor* v, MXFFIAny* out) { CopyToAnyView(v, out); }
  static std::optional<DLTensor*> TryCast(const MXFFIAny* src) {
    if (src->type_index == kMXFFIDLTensorPtr) return static_cast<DLTensor*>(src->v_ptr);
    if (src->type_index == kMXFFINDArray) {
      // A sparse array has no dense tensor to lend.
      MXFFINDArrayObj* a = reinterpret_cast<MXFFINDArrayObj*>(src->v_obj);
      if (a->stype != kMXFFIStorageDefault) return std::nullopt;
      return &a->tensor;
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "DLTensor*"; }
};

/*! \brief const char*: arguments only (borrowed), so no MoveToAny. */
template <>
struct TypeTraits<const char*> {
  static void CopyToAnyView(const char* v, MXFFIAny* out) {
    out->type_index = kMXFFIRawStr;
    out->v_c_str = v;
  }
  /*! \brief Copies into a String (defined in container/string.h). */
  static void MoveToAny(const char* v, MXFFIAny* out);
  /*! \brief As a function's result: into a buffer the caller lent where it fits (string.h). */
  static void MoveToResult(const char* v, MXFFIAny* out);
  static std::string TypeStr() { return "str"; }
};
template <size_t N>
struct TypeTraits<char[N]> : public TypeTraits<const char*> {};

// Section: object references -------------------------------------------------

namespace details {
/*! \brief Putting a reference into a cell: its object (None when null), shared by every
 *  reference type's TypeTraits. */
template <typename TRef>
struct ObjectRefCellBase {
  static void CopyToAnyView(const TRef& ref, MXFFIAny* out) {
    if (!ref.defined()) {
      CellSetNone(out);
      return;
    }
    out->type_index = ref->type_index();
    out->v_obj = ObjectUnsafe::Header(const_cast<Object*>(static_cast<const Object*>(ref.get())));
  }
  static void MoveToAny(const TRef& ref, MXFFIAny* out) {
    CopyToAnyView(ref, out);
    if (ref.defined()) const_cast<Object*>(static_cast<const Object*>(ref.get()))->IncRef();
  }
};
}  // namespace details

/*! \brief Any ObjectRef subtype: an object cell whose type is (a subtype of) ContainerType. */
template <typename TRef>
struct TypeTraits<TRef, std::enable_if_t<std::is_base_of_v<ObjectRef, TRef> &&
                                         !std::is_base_of_v<std::exception, TRef> &&
                                         !details::HasCustomTraits<TRef>::value>>
    : details::ObjectRefCellBase<TRef> {
  using Container = typename TRef::ContainerType;
  static std::optional<TRef> TryCast(const MXFFIAny* src) {
    if (src->type_index == kMXFFINone) {
      if constexpr (TRef::_type_is_nullable) return TRef();
      return std::nullopt;
    }
    if (!details::IsObjectCode(src->type_index)) return std::nullopt;
    Object* obj = details::ObjectUnsafe::FromHeader(src->v_obj);
    if (!obj->IsInstance<Container>()) return std::nullopt;
    return TRef(ObjectPtr<Object>::CopyFromRaw(obj));
  }
  static std::string TypeStr() { return Container::_type_key; }
};

/*! \brief Error is an exception and an object reference at once. */
template <>
struct TypeTraits<Error> : details::ObjectRefCellBase<Error> {
  static std::optional<Error> TryCast(const MXFFIAny* src) {
    if (src->type_index != kMXFFIError) return std::nullopt;
    auto* obj = static_cast<ErrorObj*>(details::ObjectUnsafe::FromHeader(src->v_obj));
    return Error(ObjectPtr<ErrorObj>::CopyFromRaw(obj));
  }
  static std::string TypeStr() { return "mxffi.Error"; }
};

/*! \brief Any and AnyView pass through. */
template <>
struct TypeTraits<Any> {
  static void MoveToAny(Any v, MXFFIAny* out) { v.MoveToRaw(out); }
  static std::optional<Any> TryCast(const MXFFIAny* src) { return Any(*AnyView::FromRaw(src)); }
  static std::string TypeStr() { return "Any"; }
};
template <>
struct TypeTraits<AnyView> {
  static std::optional<AnyView> TryCast(const MXFFIAny* src) { return *AnyView::FromRaw(src); }
  static std::string TypeStr() { return "Any"; }
};

// Section: argument conversion -------------------------------------------------

namespace details {

template <typename T, typename = void>
struct HasConvertArg : std::false_type {};
template <typename T>
struct HasConvertArg<T, std::void_t<decltype(TypeTraits<T>::ConvertArg(
                            std::declval<const MXFFIAny*>(), std::declval<const ArgContext*>(),
                            std::declval<T*>()))>> : std::true_type {};

template <typename T, typename = void>
struct HasTypeDesc : std::false_type {};
template <typename T>
struct HasTypeDesc<T, std::void_t<decltype(TypeTraits<T>::TypeDesc())>> : std::true_type {};

/*!
 * \brief TypeTraits of a kind with ConvertArg: TryCast made from it (nullopt where ConvertArg
 *  fails without a context). Derive TypeTraits<T> from it.
 */
template <typename T, typename Derived>
struct ConvertArgTraits {
  static std::optional<T> TryCast(const MXFFIAny* src) {
    std::optional<T> out(std::in_place);
    if (!Derived::ConvertArg(src, nullptr, &*out)) return std::nullopt;
    return out;
  }
};

/*! \return what T accepts, for `expected <this>, got <type>`: TypeDesc() or TypeStr(). */
template <typename T>
inline std::string TypeDescOf() {
  if constexpr (HasTypeDesc<T>::value) {
    return TypeTraits<T>::TypeDesc();
  } else {
    return TypeTraits<T>::TypeStr();
  }
}

}  // namespace details

}  // namespace mxffi

#endif  // MXFFI_ANY_H_
