/*!
 * \file mxffi/container/string.h
 * \brief String and Bytes: up to 7 bytes inline in the value cell (no heap), longer ones in a
 *  String/Bytes object with the frozen MXFFIStringObj layout. Embedded NUL bytes are kept.
 */
#ifndef MXFFI_CONTAINER_STRING_H_
#define MXFFI_CONTAINER_STRING_H_

#include <mxffi/any.h>

#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace mxffi {

/*! \brief Heap form of a String (text longer than 7 bytes); layout MXFFIStringObj. */
class StringObj : public Object {
 public:
  const char* data;
  int64_t size;
  static constexpr const char* _type_key = "mxffi.String";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_STATIC_OBJECT_INFO(StringObj, Object, kMXFFIString);
};

/*! \brief Heap form of Bytes (longer than 7 bytes); layout MXFFIStringObj. */
class BytesObj : public Object {
 public:
  const char* data;
  int64_t size;
  static constexpr const char* _type_key = "mxffi.Bytes";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_STATIC_OBJECT_INFO(BytesObj, Object, kMXFFIBytes);
};

namespace details {

/*! \brief Longest payload kept inline: 7 bytes plus a NUL in the 8-byte payload. */
constexpr size_t kSmallStrMaxLen = 7;

/*!
 * \brief Shared body of String and Bytes: an owned cell holding either the inline (small)
 *  form or the object form.
 */
template <typename ObjType, int32_t kSmallCode>
class BytesBase {
 public:
  BytesBase() : BytesBase(std::string_view()) {}
  BytesBase(std::string_view s) { Init(s.data(), s.size()); }    // NOLINT(runtime/explicit)
  BytesBase(const std::string& s) { Init(s.data(), s.size()); }  // NOLINT(runtime/explicit)
  BytesBase(const char* s) { Init(s, std::strlen(s)); }          // NOLINT(runtime/explicit)
  BytesBase(const char* s, size_t n) { Init(s, n); }
  BytesBase(const BytesBase& other) : cell_(other.cell_) { CellIncRef(&cell_); }
  BytesBase(BytesBase&& other) noexcept : cell_(other.cell_) { other.Init("", 0); }
  BytesBase& operator=(BytesBase other) noexcept {
    std::swap(cell_, other.cell_);
    return *this;
  }
  ~BytesBase() { CellDecRef(&cell_); }

  const char* data() const {
    return cell_.type_index == kSmallCode ? cell_.v_bytes
                                          : reinterpret_cast<MXFFIStringObj*>(cell_.v_obj)->data;
  }
  size_t size() const {
    return cell_.type_index == kSmallCode
               ? cell_.small_len
               : static_cast<size_t>(reinterpret_cast<MXFFIStringObj*>(cell_.v_obj)->size);
  }
  size_t length() const { return size(); }
  bool empty() const { return size() == 0; }
  const char* c_str() const { return data(); }
  /*! \return whether the payload is inline (no object). */
  bool is_small() const { return cell_.type_index == kSmallCode; }
  std::string_view view() const { return std::string_view(data(), size()); }
  operator std::string_view() const { return view(); }                  // NOLINT(runtime/explicit)
  operator std::string() const { return std::string(data(), size()); }  // NOLINT
  std::string str() const { return std::string(data(), size()); }
  char operator[](size_t i) const { return data()[i]; }
  int compare(std::string_view other) const { return view().compare(other); }

  /*! \brief The owned cell (for TypeTraits). */
  const MXFFIAny* raw() const { return &cell_; }
  /*! \brief Adopt an owned cell already known to hold this type. */
  static BytesBase FromOwnedCell(const MXFFIAny& cell) {
    BytesBase out;
    out.cell_ = cell;
    return out;
  }

 private:
  void Init(const char* s, size_t n) {
    CellSetNone(&cell_);
    if (n <= kSmallStrMaxLen) {
      cell_.type_index = kSmallCode;
      cell_.small_len = static_cast<uint32_t>(n);
      if (n != 0) std::memcpy(cell_.v_bytes, s, n);
      cell_.v_bytes[n] = '\0';
    } else {
      ObjectPtr<ObjType> obj = make_inplace_object<ObjType>(n + 1);
      char* payload = reinterpret_cast<char*>(obj.get()) + sizeof(ObjType);
      std::memcpy(payload, s, n);
      payload[n] = '\0';
      obj->data = payload;
      obj->size = static_cast<int64_t>(n);
      cell_.type_index = ObjType::RuntimeTypeIndex();
      cell_.v_obj = ObjectUnsafe::Header(obj.release());
    }
  }
  MXFFIAny cell_;
};

template <typename O, int32_t C>
inline bool operator==(const BytesBase<O, C>& a, std::string_view b) {
  return a.view() == b;
}
template <typename O, int32_t C>
inline bool operator==(const BytesBase<O, C>& a, const BytesBase<O, C>& b) {
  return a.view() == b.view();
}
template <typename O, int32_t C>
inline bool operator==(const BytesBase<O, C>& a, const char* b) {
  return a.view() == std::string_view(b);
}
template <typename O, int32_t C>
inline bool operator!=(const BytesBase<O, C>& a, const BytesBase<O, C>& b) {
  return !(a == b);
}
template <typename O, int32_t C>
inline bool operator<(const BytesBase<O, C>& a, const BytesBase<O, C>& b) {
  return a.view() < b.view();
}
template <typename O, int32_t C>
inline std::ostream& operator<<(std::ostream& os, const BytesBase<O, C>& s) {
  return os.write(s.data(), static_cast<std::streamsize>(s.size()));
}

/*! \brief The text in a string cell of any form, or false when the cell is no string. */
inline bool CellStrView(const MXFFIAny* src, std::string_view* out) {
  switch (src->type_index) {
    case kMXFFISmallStr:
      *out = std::string_view(src->v_bytes, src->small_len);
      return true;
    case kMXFFIRawStr:
      *out = std::string_view(src->v_c_str);
      return true;
    case kMXFFIStrView: {
      auto* a = static_cast<const MXFFIByteArray*>(src->v_ptr);
      *out = std::string_view(a->data, a->size);
      return true;
    }
    case kMXFFIString: {
      auto* s = reinterpret_cast<const MXFFIStringObj*>(src->v_obj);
      *out = std::string_view(s->data, static_cast<size_t>(s->size));
      return true;
    }
    case kMXFFIBufferStr:  // a result written into a buffer the caller lent
      *out = std::string_view(static_cast<const char*>(src->v_ptr), src->small_len);
      return true;
    default:
      return false;
  }
}

/*! \brief The bytes in a bytes cell of any form, or false when the cell is no bytes. */
inline bool CellBytesView(const MXFFIAny* src, std::string_view* out) {
  switch (src->type_index) {
    case kMXFFISmallBytes:
      *out = std::string_view(src->v_bytes, src->small_len);
      return true;
    case kMXFFIBytesView: {
      auto* a = static_cast<const MXFFIByteArray*>(src->v_ptr);
      *out = std::string_view(a->data, a->size);
      return true;
    }
    case kMXFFIBytes: {
      auto* s = reinterpret_cast<const MXFFIStringObj*>(src->v_obj);
      *out = std::string_view(s->data, static_cast<size_t>(s->size));
      return true;
    }
    default:
      return false;
  }
}

}  // namespace details

/*! \brief An immutable UTF-8 string: inline up to 7 bytes, else a shared String object. */
class String : public details::BytesBase<StringObj, kMXFFISmallStr> {
 public:
  using details::BytesBase<StringObj, kMXFFISmallStr>::BytesBase;
  String(const details::BytesBase<StringObj, kMXFFISmallStr>& b)  // NOLINT(runtime/explicit)
      : details::BytesBase<StringObj, kMXFFISmallStr>(b) {}
};

/*! \brief An immutable byte string: inline up to 7 bytes, else a shared Bytes object. */
class Bytes : public details::BytesBase<BytesObj, kMXFFISmallBytes> {
 public:
  using details::BytesBase<BytesObj, kMXFFISmallBytes>::BytesBase;
  Bytes(const details::BytesBase<BytesObj, kMXFFISmallBytes>& b)  // NOLINT(runtime/explicit)
      : details::BytesBase<BytesObj, kMXFFISmallBytes>(b) {}
};

namespace details {
/*! \brief TypeTraits shared by String and Bytes: both forms in, the owned cell out. */
template <typename S, bool (*kView)(const MXFFIAny*, std::string_view*), const char* kName>
struct StringTraitsBase {
  static void CopyToAnyView(const S& s, MXFFIAny* out) { *out = *s.raw(); }
  static void MoveToAny(S s, MXFFIAny* out) {
    *out = *s.raw();
    CellIncRef(out);
  }
  static std::optional<S> TryCast(const MXFFIAny* src) {
    std::string_view v;
    if (!kView(src, &v)) return std::nullopt;
    if (IsObjectCode(src->type_index)) {
      // Share the object instead of copying the text.
      CellIncRef(src);
      return S(S::FromOwnedCell(*src));
    }
    return S(v);
  }
  static std::string TypeStr() { return kName; }
};
inline constexpr char kStrName[] = "str";
inline constexpr char kBytesName[] = "bytes";
}  // namespace details

template <>
struct TypeTraits<String>
    : details::StringTraitsBase<String, details::CellStrView, details::kStrName> {};
template <>
struct TypeTraits<Bytes>
    : details::StringTraitsBase<Bytes, details::CellBytesView, details::kBytesName> {};

namespace details {
/*!
 * \brief Text as a function's result: inline up to 7 bytes; longer, into the buffer the caller
 *  lent (a kMXFFIResultBuffer result cell, docs/c_abi.md) when it fits with its NUL, which
 *  allocates nothing; else a new String.
 */
inline void MoveTextToResult(std::string_view s, MXFFIAny* out) {
  if (s.size() > kSmallStrMaxLen && out->type_index == kMXFFIResultBuffer &&
      s.size() < out->small_len) {
    char* buf = static_cast<char*>(out->v_ptr);
    const size_t n = s.size();
    if (n <= 16) {  // 8 to 16 bytes: two 8-byte copies, overlapping, rather than a memcpy call
      uint64_t head, tail;
      std::memcpy(&head, s.data(), 8);
      std::memcpy(&tail, s.data() + n - 8, 8);
      std::memcpy(buf, &head, 8);
      std::memcpy(buf + n - 8, &tail, 8);
    } else {
      std::memcpy(buf, s.data(), n);
    }
    buf[n] = '\0';
    out->type_index = kMXFFIBufferStr;
    out->small_len = static_cast<uint32_t>(s.size());
    return;
  }
  TypeTraits<String>::MoveToAny(String(s), out);
}
}  // namespace details

/*! \brief std::string: copied in, copied out (as a String, or into a lent result buffer). */
template <>
struct TypeTraits<std::string> {
  static void MoveToAny(const std::string& s, MXFFIAny* out) {
    TypeTraits<String>::MoveToAny(String(s), out);
  }
  static void MoveToResult(const std::string& s, MXFFIAny* out) {
    details::MoveTextToResult(s, out);
  }
  static std::optional<std::string> TryCast(const MXFFIAny* src) {
    std::string_view v;
    if (!details::CellStrView(src, &v)) return std::nullopt;
    return std::string(v);
  }
  static std::string TypeStr() { return "str"; }
};

/*!
 * \brief std::string_view: borrowed from an argument for the call, no copy; as a result, copied
 *  (into a lent result buffer where the caller gave one).
 */
template <>
struct TypeTraits<std::string_view> {
  static void MoveToAny(std::string_view s, MXFFIAny* out) {
    TypeTraits<String>::MoveToAny(String(s), out);
  }
  static void MoveToResult(std::string_view s, MXFFIAny* out) { details::MoveTextToResult(s, out); }
  static std::optional<std::string_view> TryCast(const MXFFIAny* src) {
    std::string_view v;
    if (!details::CellStrView(src, &v)) return std::nullopt;
    return v;
  }
  static std::string TypeStr() { return "str"; }
};

inline void TypeTraits<const char*>::MoveToAny(const char* s, MXFFIAny* out) {
  TypeTraits<String>::MoveToAny(String(s), out);
}
inline void TypeTraits<const char*>::MoveToResult(const char* s, MXFFIAny* out) {
  details::MoveTextToResult(s, out);
}

}  // namespace mxffi

template <>
struct std::hash<mxffi::String> {
  size_t operator()(const mxffi::String& s) const {
    return std::hash<std::string_view>()(s.view());
  }
};

#endif  // MXFFI_CONTAINER_STRING_H_
