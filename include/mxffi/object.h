/*!
 * \file mxffi/object.h
 * \brief Object, ObjectPtr and ObjectRef: intrusive refcounting and O(1) type checks.
 */
#ifndef MXFFI_OBJECT_H_
#define MXFFI_OBJECT_H_

#include <mxffi/c_api.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace mxffi {

namespace details {

/*!
 * \brief Register (or look up) a type by key.
 * \param type_key unique key, e.g. "mxffi.Array".
 * \param static_index the fixed code of a static type, or -1 to allocate one.
 * \param parent_index the parent's type index.
 * \param depth depth in the hierarchy (Object is 0).
 * \param final whether the type forbids subtypes.
 * \return the type index. Registering a key twice returns the first index, so a type
 *  used from several shared libraries gets one index per process.
 */
MXFFI_DLL int32_t RegisterType(const char* type_key, int32_t static_index, int32_t parent_index,
                               int32_t depth, bool final);

/*! \brief Whether type `child` derives from `parent` at `parent_depth`: O(1), one table read. */
MXFFI_DLL bool IsDerivedFrom(int32_t child, int32_t parent, int32_t parent_depth);

/*! \brief The key of a type index, or "<unknown type N>". */
MXFFI_DLL const std::string& TypeIndex2Key(int32_t type_index);

struct ObjectUnsafe;

}  // namespace details

/*!
 * \brief Base of every object: the frozen MXFFIObject header and nothing else.
 * \note No virtual functions: the deleter in the header frees the right type, so
 *  objects cost one header and cross shared-library boundaries safely.
 */
class Object {
 public:
  static constexpr const char* _type_key = "mxffi.Object";
  static constexpr int32_t _type_index_static = kMXFFIObject;
  static constexpr int32_t _type_depth = 0;
  static constexpr bool _type_final = false;
  static int32_t RuntimeTypeIndex() { return kMXFFIObject; }

  Object() { header_ = MXFFIObject{0, kMXFFIObject, 0, nullptr}; }
  // A copy is a new object: it never copies the refcount or the deleter.
  Object(const Object&) : Object() {}
  Object& operator=(const Object&) { return *this; }

  /*! \return the type index of this object. */
  int32_t type_index() const { return header_.type_index; }
  /*! \return the type key of this object. */
  const std::string& GetTypeKey() const { return details::TypeIndex2Key(header_.type_index); }
  /*! \return whether this object is a T (or a subtype of T). */
  template <typename T>
  bool IsInstance() const;
  /*! \return the current strong reference count (for tests and copy-on-write). */
  int64_t use_count() const { return __atomic_load_n(&header_.ref_counter, __ATOMIC_RELAXED); }
  /*! \return whether this is the only reference. */
  bool unique() const { return use_count() == 1; }

  void IncRef() { __atomic_fetch_add(&header_.ref_counter, 1, __ATOMIC_RELAXED); }
  void DecRef() {
    if (__atomic_fetch_sub(&header_.ref_counter, 1, __ATOMIC_RELEASE) == 1) {
      __atomic_thread_fence(__ATOMIC_ACQUIRE);
      if (header_.deleter != nullptr) header_.deleter(this);
    }
  }

 protected:
  MXFFIObject header_;
  template <typename>
  friend class ObjectPtr;
  friend struct details::ObjectUnsafe;
};

namespace details {
/*! \brief Access to the header for the core's own code. */
struct ObjectUnsafe {
  static MXFFIObject* Header(Object* obj) { return &obj->header_; }
  static Object* FromHeader(void* header) { return reinterpret_cast<Object*>(header); }
  static void SetTypeIndex(Object* obj, int32_t index) { obj->header_.type_index = index; }
  static void SetDeleter(Object* obj, void (*deleter)(void*)) { obj->header_.deleter = deleter; }
};
}  // namespace details

template <typename T>
inline bool Object::IsInstance() const {
  int32_t index = header_.type_index;
  if constexpr (std::is_same_v<T, Object>) {
    return true;
  } else {
    int32_t target = T::RuntimeTypeIndex();
    if (index == target) return true;
    if constexpr (T::_type_final) {
      return false;
    } else {
      return details::IsDerivedFrom(index, target, T::_type_depth);
    }
  }
}

/*! \brief An owning pointer to an object of type T. */
template <typename T>
class ObjectPtr {
 public:
  ObjectPtr() = default;
  ObjectPtr(std::nullptr_t) {}  // NOLINT(runtime/explicit)
  ObjectPtr(const ObjectPtr& other) : ptr_(other.ptr_) {
    if (ptr_) ptr_->IncRef();
  }
  ObjectPtr(ObjectPtr&& other) noexcept : ptr_(other.ptr_) { other.ptr_ = nullptr; }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(const ObjectPtr<U>& other) : ptr_(other.get()) {  // NOLINT(runtime/explicit)
    if (ptr_) ptr_->IncRef();
  }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  ObjectPtr(ObjectPtr<U>&& other) : ptr_(other.release()) {}  // NOLINT(runtime/explicit)
  ~ObjectPtr() { reset(); }

  ObjectPtr& operator=(ObjectPtr other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }

  T* get() const { return ptr_; }
  T* operator->() const { return ptr_; }
  T& operator*() const { return *ptr_; }
  explicit operator bool() const { return ptr_ != nullptr; }
  bool operator==(const ObjectPtr& other) const { return ptr_ == other.ptr_; }
  bool operator!=(const ObjectPtr& other) const { return ptr_ != other.ptr_; }
  bool operator==(std::nullptr_t) const { return ptr_ == nullptr; }
  bool operator!=(std::nullptr_t) const { return ptr_ != nullptr; }
  int64_t use_count() const { return ptr_ ? ptr_->use_count() : 0; }

  void reset() {
    if (ptr_) ptr_->DecRef();
    ptr_ = nullptr;
  }
  /*! \brief Give up ownership without decrementing. */
  T* release() {
    T* p = ptr_;
    ptr_ = nullptr;
    return p;
  }
  /*! \brief Adopt a pointer whose reference the caller already owns. */
  static ObjectPtr MoveFromRaw(T* raw) {
    ObjectPtr p;
    p.ptr_ = raw;
    return p;
  }
  /*! \brief Take a new reference to a raw pointer. */
  static ObjectPtr CopyFromRaw(T* raw) {
    if (raw) raw->IncRef();
    return MoveFromRaw(raw);
  }

 private:
  T* ptr_ = nullptr;
};

namespace details {
template <typename T>
void DefaultObjectDeleter(void* self) {
  delete static_cast<T*>(reinterpret_cast<Object*>(self));
}

template <typename T>
void InplaceObjectDeleter(void* self) {
  T* obj = static_cast<T*>(reinterpret_cast<Object*>(self));
  obj->~T();
  ::operator delete(static_cast<void*>(obj));
}

template <typename T>
ObjectPtr<T> FinishObject(T* obj, void (*deleter)(void*)) {
  ObjectUnsafe::SetTypeIndex(obj, T::RuntimeTypeIndex());
  ObjectUnsafe::SetDeleter(obj, deleter);
  return ObjectPtr<T>::CopyFromRaw(obj);
}
}  // namespace details

/*! \brief Allocate an object of type T. */
template <typename T, typename... Args>
ObjectPtr<T> make_object(Args&&... args) {
  return details::FinishObject(new T(std::forward<Args>(args)...),
                               details::DefaultObjectDeleter<T>);
}

/*!
 * \brief Allocate an object of type T followed by extra_bytes of storage in the same block
 *  (strings, shapes and tuples keep their payload inline: one allocation per object).
 */
template <typename T, typename... Args>
ObjectPtr<T> make_inplace_object(size_t extra_bytes, Args&&... args) {
  void* mem = ::operator new(sizeof(T) + extra_bytes);
  T* obj;
  try {
    obj = new (mem) T(std::forward<Args>(args)...);
  } catch (...) {
    ::operator delete(mem);
    throw;
  }
  return details::FinishObject(obj, details::InplaceObjectDeleter<T>);
}

/*! \brief Base of every reference type: one pointer to an object, possibly null. */
class ObjectRef {
 public:
  using ContainerType = Object;
  static constexpr bool _type_is_nullable = true;

  ObjectRef() = default;
  explicit ObjectRef(ObjectPtr<Object> data) : data_(std::move(data)) {}

  const Object* get() const { return data_.get(); }
  const Object* operator->() const { return data_.get(); }
  bool defined() const { return data_ != nullptr; }
  bool same_as(const ObjectRef& other) const { return data_ == other.data_; }
  int64_t use_count() const { return data_.use_count(); }
  /*! \return the type index, or kMXFFINone when null. */
  int32_t type_index() const { return data_ ? data_->type_index() : kMXFFINone; }
  /*! \brief Checked downcast; returns a null reference when the object is not a T. */
  template <typename TRef>
  TRef as() const {
    using C = typename TRef::ContainerType;
    if (data_ && data_->IsInstance<C>()) return TRef(ObjectPtr<Object>(data_));
    return TRef(ObjectPtr<Object>());
  }

  const ObjectPtr<Object>& data() const { return data_; }

 protected:
  ObjectPtr<Object> data_;
  /*! \brief Mutable access for copy-on-write containers. */
  Object* get_mutable() const { return data_.get(); }
};

/*! \brief Declare a type whose index is allocated when first used. */
#define MXFFI_DECLARE_OBJECT_INFO(TypeName, ParentType)                                         \
  static constexpr int32_t _type_depth = ParentType::_type_depth + 1;                           \
  static constexpr int32_t _type_index_static = -1;                                             \
  static int32_t RuntimeTypeIndex() {                                                           \
    static const int32_t index =                                                                \
        ::mxffi::details::RegisterType(TypeName::_type_key, -1, ParentType::RuntimeTypeIndex(), \
                                       _type_depth, TypeName::_type_final);                     \
    return index;                                                                               \
  }                                                                                             \
  using _parent_type = ParentType

/*! \brief Declare a type with a fixed code from MXFFITypeCode (the core's own types). */
#define MXFFI_DECLARE_STATIC_OBJECT_INFO(TypeName, ParentType, Code)            \
  static constexpr int32_t _type_depth = ParentType::_type_depth + 1;           \
  static constexpr int32_t _type_index_static = Code;                           \
  /* static codes and their keys are registered when the type table is built */ \
  static constexpr int32_t RuntimeTypeIndex() { return Code; }                  \
  using _parent_type = ParentType

/*!
 * \brief Constructors and accessors of a nullable reference type RefName over ObjName.
 * \note get() is const-correct; mutation goes through the reference type's own methods.
 */
#define MXFFI_DEFINE_OBJECT_REF_METHODS(RefName, ParentRef, ObjName)                         \
  RefName() = default;                                                                       \
  explicit RefName(::mxffi::ObjectPtr<::mxffi::Object> data) : ParentRef(std::move(data)) {} \
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<ObjName, U>>>          \
  RefName(::mxffi::ObjectPtr<U> data) /* NOLINT(runtime/explicit) */                         \
      : ParentRef(::mxffi::ObjectPtr<::mxffi::Object>(std::move(data))) {}                   \
  const ObjName* get() const { return static_cast<const ObjName*>(data_.get()); }            \
  const ObjName* operator->() const { return get(); }                                        \
  using ContainerType = ObjName

}  // namespace mxffi

#endif  // MXFFI_OBJECT_H_
