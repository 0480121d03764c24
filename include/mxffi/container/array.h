/*!
 * \file mxffi/container/array.h
 * \brief Array<T>: a shared, copy-on-write sequence of values (layout MXFFIArrayObj).
 */
#ifndef MXFFI_CONTAINER_ARRAY_H_
#define MXFFI_CONTAINER_ARRAY_H_

#include <mxffi/any.h>
#include <mxffi/container/string.h>

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace mxffi {

/*! \brief Payload of an Array: size owned cells at data (layout MXFFIArrayObj). */
class ArrayObj : public Object {
 public:
  MXFFIAny* data = nullptr;
  int64_t size = 0;
  int64_t capacity = 0;

  ArrayObj() = default;
  ArrayObj(const ArrayObj& other) : Object() {
    Reserve(other.size);
    for (int64_t i = 0; i < other.size; ++i) push_back(other.at(i));
  }
  ~ArrayObj() {
    for (int64_t i = 0; i < size; ++i) details::CellDecRef(&data[i]);
    if (data != InlineData()) std::free(data);
  }
  /*! \brief Where the cells of an array made with inline storage (MXFFIArrayCreate) start. */
  MXFFIAny* InlineData() { return reinterpret_cast<MXFFIAny*>(this + 1); }
  const Any& at(int64_t i) const { return reinterpret_cast<const Any*>(data)[i]; }
  Any& at(int64_t i) { return reinterpret_cast<Any*>(data)[i]; }
  void Reserve(int64_t n) {
    if (n <= capacity) return;
    // Cells stored inline (after the object, in its allocation) move to the heap on growth.
    bool inline_cells = data != nullptr && data == InlineData();
    auto* grown = static_cast<MXFFIAny*>(inline_cells ? std::malloc(sizeof(MXFFIAny) * n)
                                                      : std::realloc(data, sizeof(MXFFIAny) * n));
    if (grown == nullptr) {
      MXFFI_THROW(MemoryError) << "Array: cannot allocate " << n << " elements";
    }
    if (inline_cells) std::memcpy(grown, data, sizeof(MXFFIAny) * size);
    data = grown;
    capacity = n;
  }
  void push_back(Any v) {
    if (size == capacity) Reserve(capacity < 4 ? 4 : capacity * 2);
    new (&data[size]) Any(std::move(v));
    ++size;
  }

  static constexpr const char* _type_key = "mxffi.Array";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_STATIC_OBJECT_INFO(ArrayObj, Object, kMXFFIArray);
};

namespace details {
/*! \brief Throws IndexError naming the container, the index and the size. */
[[noreturn]] MXFFI_DLL void ThrowIndexError(const char* what, int64_t index, int64_t size);
}  // namespace details

/*!
 * \brief A sequence of T. Elements are checked to be T when an Array<T> is made from a value
 *  cell; mutation copies the payload first when it is shared (copy-on-write).
 */
template <typename T = Any>
class Array : public ObjectRef {
 public:
  Array() : ObjectRef(make_object<ArrayObj>()) {}
  Array(std::initializer_list<T> init) : Array() {
    for (const T& v : init) push_back(v);
  }
  explicit Array(const std::vector<T>& init) : Array() {
    for (const T& v : init) push_back(v);
  }
  explicit Array(ObjectPtr<Object> data) : ObjectRef(std::move(data)) {}

  int64_t size() const { return get()->size; }
  bool empty() const { return size() == 0; }
  /*! \brief Element i, bounds-checked (IndexError). */
  T operator[](int64_t i) const { return at(i); }
  T at(int64_t i) const {
    if (i < 0 || i >= size()) details::ThrowIndexError("Array", i, size());
    if constexpr (std::is_same_v<T, Any>) {
      return get()->at(i);
    } else {
      return get()->at(i).template cast<T>();
    }
  }
  T back() const { return at(size() - 1); }

  void push_back(const T& v) { CopyOnWrite()->push_back(Any(v)); }
  void pop_back() {
    if (empty()) details::ThrowIndexError("Array.pop_back", 0, 0);
    ArrayObj* p = CopyOnWrite();
    p->at(p->size - 1).~Any();
    --p->size;
  }
  void Set(int64_t i, const T& v) {
    if (i < 0 || i >= size()) details::ThrowIndexError("Array.Set", i, size());
    CopyOnWrite()->at(i) = Any(v);
  }
  void clear() {
    ArrayObj* p = CopyOnWrite();
    for (int64_t i = 0; i < p->size; ++i) p->at(i).~Any();
    p->size = 0;
  }
  std::vector<T> ToVector() const {
    std::vector<T> out;
    out.reserve(size());
    for (int64_t i = 0; i < size(); ++i) out.push_back(at(i));
    return out;
  }

  const ArrayObj* get() const { return static_cast<const ArrayObj*>(data_.get()); }
  const ArrayObj* operator->() const { return get(); }
  using ContainerType = ArrayObj;
  static constexpr bool _type_is_nullable = false;
  static constexpr bool _type_custom_traits = true;

 private:
  ArrayObj* CopyOnWrite() {
    if (!data_->unique()) data_ = make_object<ArrayObj>(*get());
    return static_cast<ArrayObj*>(data_.get());
  }
};

/*! \brief Array<T> from a cell: an Array object whose every element converts to T. */
template <typename T>
struct TypeTraits<Array<T>> : details::ObjectRefCellBase<Array<T>> {
  static std::optional<Array<T>> TryCast(const MXFFIAny* src) {
    if (src->type_index != kMXFFIArray) return std::nullopt;
    auto* obj = static_cast<ArrayObj*>(details::ObjectUnsafe::FromHeader(src->v_obj));
    if constexpr (!std::is_same_v<T, Any>) {
      for (int64_t i = 0; i < obj->size; ++i) {
        if (!TypeTraits<T>::TryCast(&obj->data[i]).has_value()) return std::nullopt;
      }
    }
    return Array<T>(ObjectPtr<Object>::CopyFromRaw(obj));
  }
  static std::string TypeStr() { return "Array[" + TypeTraits<T>::TypeStr() + "]"; }
};

}  // namespace mxffi

#endif  // MXFFI_CONTAINER_ARRAY_H_
