/*!
 * \file reflection.cc
 * \brief The field table of reflected types, and the globals bindings read it through.
 */
#include <mxffi/error.h>
#include <mxffi/reflection.h>
#include <mxffi/registry.h>

#include <memory>
#include <mutex>
#include <unordered_map>

namespace mxffi {
namespace details {
std::vector<int32_t> TypeAncestors(int32_t type_index);
}  // namespace details

namespace reflection {
namespace {

struct FieldTable {
  std::mutex mutex;
  std::unordered_map<int32_t, std::vector<std::unique_ptr<FieldInfo>>> fields;
  static FieldTable* Global() {
    static auto* table = new FieldTable();
    return table;
  }
};

const Object* ObjectOf(const AnyView& v, const char* func) {
  if (!details::IsObjectCode(v.type_index())) {
    MXFFI_THROW(TypeError) << func << ": expected an object, got " << v.GetTypeName();
  }
  return details::ObjectUnsafe::FromHeader(v.raw()->v_obj);
}

}  // namespace

void RegisterField(int32_t type_index, FieldInfo field) {
  FieldTable* t = FieldTable::Global();
  std::lock_guard<std::mutex> lock(t->mutex);
  t->fields[type_index].push_back(std::make_unique<FieldInfo>(std::move(field)));
}

std::vector<const FieldInfo*> ListFields(int32_t type_index) {
  FieldTable* t = FieldTable::Global();
  std::lock_guard<std::mutex> lock(t->mutex);
  std::vector<const FieldInfo*> out;
  for (int32_t ancestor : details::TypeAncestors(type_index)) {  // root first
    auto found = t->fields.find(ancestor);
    if (found == t->fields.end()) continue;
    for (const auto& f : found->second) out.push_back(f.get());
  }
  return out;
}

MXFFI_REGISTER_API("object.field_names")
    .describe("Names of the reflected fields of a type, its ancestors' first.")
    .arg("type_index")
    .set_body_typed([](int32_t type_index) {
      Array<String> names;
      for (const FieldInfo* f : ListFields(type_index)) names.push_back(String(f->name));
      return names;
    });

MXFFI_REGISTER_API("object.get_field")
    .describe("Field number i of obj, in the order of object.field_names.")
    .arg("obj")
    .arg("i")
    .set_body_typed([](AnyView obj, int64_t i) {
      const Object* o = ObjectOf(obj, "object.get_field");
      std::vector<const FieldInfo*> fields = ListFields(o->type_index());
      if (i < 0 || i >= static_cast<int64_t>(fields.size())) {
        MXFFI_THROW(IndexError) << "object.get_field: field index " << i << " out of range for "
                                << o->GetTypeKey() << " with " << fields.size() << " fields";
      }
      return fields[static_cast<size_t>(i)]->getter(o);
    });

MXFFI_REGISTER_API("object.get_attr")
    .describe("The reflected field called name of obj; AttributeError when there is none.")
    .arg("obj")
    .arg("name")
    .set_body_typed([](AnyView obj, std::string_view name) {
      const Object* o = ObjectOf(obj, "object.get_attr");
      for (const FieldInfo* f : ListFields(o->type_index())) {
        if (f->name == name) return f->getter(o);
      }
      MXFFI_THROW(AttributeError) << "object.get_attr: '" << o->GetTypeKey()
                                  << "' object has no attribute '" << name << "'";
    });

}  // namespace reflection
}  // namespace mxffi

namespace mxffi {
namespace {

MXFFI_STATIC_INIT_BLOCK() {
  reflection::ObjectDef<ErrorObj>()
      .def_ro("kind", &ErrorObj::kind, "the error kind, e.g. \"ValueError\"")
      .def_ro("message", &ErrorObj::message, "the message");
}

}  // namespace
}  // namespace mxffi
