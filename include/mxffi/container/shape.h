/*!
 * \file mxffi/container/shape.h
 * \brief Shape: an immutable tuple of int64 extents stored inline (layout MXFFIShapeObj).
 */
#ifndef MXFFI_CONTAINER_SHAPE_H_
#define MXFFI_CONTAINER_SHAPE_H_

#include <mxffi/any.h>
#include <mxffi/container/array.h>

#include <initializer_list>
#include <ostream>
#include <vector>

namespace mxffi {

/*! \brief Payload of a Shape; the extents follow this struct in the same allocation. */
class ShapeObj : public Object {
 public:
  const int64_t* data = nullptr;
  int64_t size = 0;

  static constexpr const char* _type_key = "mxffi.Shape";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_STATIC_OBJECT_INFO(ShapeObj, Object, kMXFFIShape);
};

/*! \brief Reference to a Shape. */
class Shape : public ObjectRef {
 public:
  Shape() : Shape(nullptr, 0) {}
  Shape(std::initializer_list<int64_t> dims) : Shape(dims.begin(), dims.size()) {}
  explicit Shape(const std::vector<int64_t>& dims) : Shape(dims.data(), dims.size()) {}
  Shape(const int64_t* dims, size_t n) : ObjectRef(Make(dims, n)) {}
  explicit Shape(ObjectPtr<Object> data) : ObjectRef(std::move(data)) {}

  int64_t size() const { return get()->size; }
  int64_t ndim() const { return size(); }
  const int64_t* data() const { return get()->data; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size(); }
  /*! \brief Extent i, bounds-checked (IndexError). */
  int64_t operator[](int64_t i) const {
    if (i < 0 || i >= size()) details::ThrowIndexError("Shape", i, size());
    return data()[i];
  }
  /*! \return the product of the extents (1 for a 0-d shape). */
  int64_t Product() const {
    int64_t p = 1;
    for (int64_t d : *this) p *= d;
    return p;
  }
  bool operator==(const Shape& other) const {
    return size() == other.size() && std::equal(begin(), end(), other.begin());
  }

  const ShapeObj* get() const { return static_cast<const ShapeObj*>(data_.get()); }
  const ShapeObj* operator->() const { return get(); }
  using ContainerType = ShapeObj;
  static constexpr bool _type_is_nullable = false;
  static constexpr bool _type_custom_traits = true;

 private:
  static ObjectPtr<Object> Make(const int64_t* dims, size_t n) {
    ObjectPtr<ShapeObj> obj = make_inplace_object<ShapeObj>(sizeof(int64_t) * n);
    auto* storage = reinterpret_cast<int64_t*>(obj.get() + 1);
    for (size_t i = 0; i < n; ++i) storage[i] = dims[i];
    obj->data = storage;
    obj->size = static_cast<int64_t>(n);
    return ObjectPtr<Object>(std::move(obj));
  }
};

inline std::ostream& operator<<(std::ostream& os, const Shape& s) {
  os << '(';
  for (int64_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s.data()[i];
  return os << (s.size() == 1 ? ",)" : ")");
}

/*! \brief A Shape from a cell: a Shape object, or an Array whose elements are all ints. */
template <>
struct TypeTraits<Shape> : details::ObjectRefCellBase<Shape> {
  static std::optional<Shape> TryCast(const MXFFIAny* src) {
    if (src->type_index == kMXFFIShape) {
      return Shape(ObjectPtr<Object>::CopyFromRaw(details::ObjectUnsafe::FromHeader(src->v_obj)));
    }
    if (src->type_index == kMXFFIArray) {
      auto* arr = reinterpret_cast<const MXFFIArrayObj*>(src->v_obj);
      std::vector<int64_t> dims;
      dims.reserve(static_cast<size_t>(arr->size));
      for (int64_t i = 0; i < arr->size; ++i) {
        if (arr->data[i].type_index != kMXFFIInt) return std::nullopt;
        dims.push_back(arr->data[i].v_int64);
      }
      return Shape(dims);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "Shape"; }
};

}  // namespace mxffi

#endif  // MXFFI_CONTAINER_SHAPE_H_
