/*!
 * \file mxffi/container/tuple.h
 * \brief ADT: an immutable tag plus fields stored inline (layout MXFFIADTObj). A tuple is an
 *  ADT with tag 0; multi-output operators return one.
 */
#ifndef MXFFI_CONTAINER_TUPLE_H_
#define MXFFI_CONTAINER_TUPLE_H_

#include <mxffi/any.h>
#include <mxffi/container/array.h>

#include <vector>

namespace mxffi {

/*! \brief Payload of an ADT; the fields follow this struct in the same allocation. */
class ADTObj : public Object {
 public:
  int32_t tag = 0;
  int32_t size = 0;

  const Any* fields() const { return reinterpret_cast<const Any*>(this + 1); }
  ~ADTObj() {
    Any* f = reinterpret_cast<Any*>(this + 1);
    for (int32_t i = 0; i < size; ++i) f[i].~Any();
  }

  static constexpr const char* _type_key = "mxffi.ADT";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_STATIC_OBJECT_INFO(ADTObj, Object, kMXFFIADT);
};

/*! \brief Reference to an ADT. */
class ADT : public ObjectRef {
 public:
  /*! \brief Make an ADT with a tag and fields. */
  ADT(int32_t tag, const std::vector<Any>& fields) : ObjectRef(Make(tag, fields)) {}
  /*! \brief A tuple: tag 0. */
  static ADT Tuple(const std::vector<Any>& fields) { return ADT(0, fields); }
  explicit ADT(ObjectPtr<Object> data) : ObjectRef(std::move(data)) {}

  int32_t tag() const { return get()->tag; }
  int64_t size() const { return get()->size; }
  /*! \brief Field i, bounds-checked (IndexError). */
  const Any& operator[](int64_t i) const {
    if (i < 0 || i >= size()) details::ThrowIndexError("ADT", i, size());
    return get()->fields()[i];
  }

  const ADTObj* get() const { return static_cast<const ADTObj*>(data_.get()); }
  const ADTObj* operator->() const { return get(); }
  using ContainerType = ADTObj;
  static constexpr bool _type_is_nullable = false;

 private:
  static ObjectPtr<Object> Make(int32_t tag, const std::vector<Any>& fields) {
    ObjectPtr<ADTObj> obj = make_inplace_object<ADTObj>(sizeof(Any) * fields.size());
    obj->tag = tag;
    Any* f = reinterpret_cast<Any*>(obj.get() + 1);
    for (const Any& v : fields) {
      new (&f[obj->size]) Any(v);
      ++obj->size;
    }
    return ObjectPtr<Object>(std::move(obj));
  }
};

}  // namespace mxffi

#endif  // MXFFI_CONTAINER_TUPLE_H_
