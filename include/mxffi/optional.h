/*!
 * \file mxffi/optional.h
 * \brief Optional<T>: a value that may be None.
 */
#ifndef MXFFI_OPTIONAL_H_
#define MXFFI_OPTIONAL_H_

#include <mxffi/any.h>

#include <optional>
#include <utility>

namespace mxffi {

/*! \brief T or None; converts from a None cell or anything T converts from. */
template <typename T>
class Optional {
 public:
  Optional() = default;
  Optional(std::nullopt_t) {}                      // NOLINT(runtime/explicit)
  Optional(std::nullptr_t) {}                      // NOLINT(runtime/explicit)
  Optional(T value) : value_(std::move(value)) {}  // NOLINT(runtime/explicit)

  bool has_value() const { return value_.has_value(); }
  explicit operator bool() const { return has_value(); }
  /*! \brief The value; ValueError when None. */
  const T& value() const {
    if (!value_.has_value()) MXFFI_THROW(ValueError) << "Optional: value is None";
    return *value_;
  }
  T value_or(T other) const { return value_.has_value() ? *value_ : std::move(other); }
  const T& operator*() const { return value(); }
  const T* operator->() const { return &value(); }

 private:
  std::optional<T> value_;
};

namespace details {
/*! \brief Optional<T>'s ConvertArg, for a T that has one: None, or T with T's value checks. */
template <typename T, bool = HasConvertArg<T>::value>
struct OptionalConvertArg {};
template <typename T>
struct OptionalConvertArg<T, true> {
  static bool ConvertArg(const MXFFIAny* src, const ArgContext* ctx, Optional<T>* out) {
    if (src->type_index == kMXFFINone) {
      *out = Optional<T>();
      return true;
    }
    T v;
    if (!TypeTraits<T>::ConvertArg(src, ctx, &v)) return false;
    *out = Optional<T>(std::move(v));
    return true;
  }
};
}  // namespace details

template <typename T>
struct TypeTraits<Optional<T>> : details::OptionalConvertArg<T> {
  static void CopyToAnyView(const Optional<T>& v, MXFFIAny* out) {
    if (v.has_value()) {
      TypeTraits<T>::CopyToAnyView(*v, out);
    } else {
      details::CellSetNone(out);
    }
  }
  static void MoveToAny(Optional<T> v, MXFFIAny* out) {
    if (v.has_value()) {
      TypeTraits<T>::MoveToAny(*v, out);
    } else {
      details::CellSetNone(out);
    }
  }
  static std::optional<Optional<T>> TryCast(const MXFFIAny* src) {
    if (src->type_index == kMXFFINone) return Optional<T>();
    std::optional<T> v = TypeTraits<T>::TryCast(src);
    if (!v.has_value()) return std::nullopt;
    return Optional<T>(*std::move(v));
  }
  static std::string TypeStr() { return "Optional[" + TypeTraits<T>::TypeStr() + "]"; }
  /*! \brief "None or <T's description>" for an argument kind; else the type's name. */
  static std::string TypeDesc() {
    if constexpr (details::HasTypeDesc<T>::value) {
      return "None or " + TypeTraits<T>::TypeDesc();
    } else {
      return TypeStr();
    }
  }
};

}  // namespace mxffi

#endif  // MXFFI_OPTIONAL_H_
