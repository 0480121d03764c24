/*!
 * \file mxffi/reflection.h
 * \brief Field reflection: a type declares its fields once; bindings look a field up by name
 *  once per type and then read it by index, with no string-keyed walk per access.
 *
 * \code
 * MXFFI_STATIC_INIT_BLOCK() {
 *   mxffi::reflection::ObjectDef<PointObj>().def_ro("x", &PointObj::x, "abscissa");
 * }
 * \endcode
 * Python reads them through the globals object.field_names(type_index),
 * object.get_field(obj, i) and object.get_attr(obj, name).
 */
#ifndef MXFFI_REFLECTION_H_
#define MXFFI_REFLECTION_H_

#include <mxffi/any.h>
#include <mxffi/container/array.h>
#include <mxffi/container/string.h>

#include <functional>
#include <string>
#include <vector>

namespace mxffi {
namespace reflection {

/*! \brief One declared field: name, doc, type name and a getter. */
struct FieldInfo {
  std::string name;
  std::string doc;
  std::string type;
  std::function<Any(const Object*)> getter;
};

/*! \brief Record a field of type_index (fields of parents come first when listed). */
MXFFI_DLL void RegisterField(int32_t type_index, FieldInfo field);
/*! \return the fields of a type, its ancestors' first. */
MXFFI_DLL std::vector<const FieldInfo*> ListFields(int32_t type_index);

/*! \brief Declares the fields of T. */
template <typename T>
class ObjectDef {
 public:
  ObjectDef() : type_index_(T::RuntimeTypeIndex()) {}
  /*! \brief A read-only field. */
  template <typename Class, typename F>
  ObjectDef& def_ro(const char* name, F Class::*member, const char* doc = "") {
    static_assert(std::is_base_of_v<Class, T>, "the member must belong to T or a parent");
    RegisterField(type_index_, FieldInfo{name, doc, TypeTraits<F>::TypeStr(),
                                         [member](const Object* obj) -> Any {
                                           return Any(static_cast<const T*>(obj)->*member);
                                         }});
    return *this;
  }

 private:
  int32_t type_index_;
};

}  // namespace reflection
}  // namespace mxffi

#endif  // MXFFI_REFLECTION_H_
