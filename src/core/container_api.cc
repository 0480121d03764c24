/*!
 * \file container_api.cc
 * \brief Globals that build and read containers across the C ABI ("container.*"); a lent
 *  tensor put into one is copied (Element).
 */
#include <mxffi/container/map.h>
#include <mxffi/container/shape.h>
#include <mxffi/container/tuple.h>
#include <mxffi/registry.h>

#include "lent_tensor.h"

namespace mxffi {

// MXFFIArrayCreate's cells start right after the object, where the C layout says they do.
static_assert(sizeof(ArrayObj) == sizeof(MXFFIArrayObj), "ArrayObj must match MXFFIArrayObj");

namespace {

/*! \brief Python-style index: negative counts from the end; IndexError outside. */
int64_t NormalizeIndex(const char* func, int64_t i, int64_t size) {
  int64_t j = i < 0 ? i + size : i;
  if (j < 0 || j >= size) {
    MXFFI_THROW(IndexError) << func << ": index " << i << " out of range for size " << size;
  }
  return j;
}

/*!
 * \brief An argument as a container element. A tensor lent for the call (a numpy array in a
 *  Python list, which becomes an Array through a call of its own) lives only until that call
 *  returns, before the Array is used: the element is a copy the container owns, never the
 *  pointer.
 */
Any Element(const AnyView& arg) {
  if (arg.type_index() == kMXFFIDLTensorPtr) {
    return details::OwnedCopyOfLentTensor(*static_cast<const DLTensor*>(arg.raw()->v_ptr));
  }
  return Any(arg);
}

}  // namespace

MXFFI_REGISTER_API("container.array")
    .describe("An Array of the arguments.")
    .set_body([](PackedArgs args, Any* rv) {
      Array<Any> out;
      for (int32_t i = 0; i < args.size(); ++i) out.push_back(Element(args[i]));
      *rv = out;
    });

MXFFI_REGISTER_API("container.array_size").arg("array").set_body_typed([](Array<Any> a) {
  return a.size();
});

MXFFI_REGISTER_API("container.array_get_item")
    .describe("Element i of an Array (negative i counts from the end); IndexError outside.")
    .arg("array")
    .arg("i")
    .set_body_typed([](Array<Any> a, int64_t i) {
      return a[NormalizeIndex("container.array_get_item", i, a.size())];
    });

MXFFI_REGISTER_API("container.map")
    .describe("A Map from alternating key and value arguments.")
    .set_body([](PackedArgs args, Any* rv) {
      if (args.size() % 2 != 0) {
        MXFFI_THROW(TypeError) << "container.map: expected key, value pairs, got " << args.size()
                               << " arguments";
      }
      Map<Any, Any> out;
      for (int32_t i = 0; i < args.size(); i += 2) out.Set(Any(args[i]), Element(args[i + 1]));
      *rv = out;
    });

MXFFI_REGISTER_API("container.map_size").arg("map").set_body_typed([](Map<Any, Any> m) {
  return m.size();
});

MXFFI_REGISTER_API("container.map_get_item")
    .describe("The value for key; KeyError naming the key when absent.")
    .arg("map")
    .arg("key")
    .set_body_typed([](Map<Any, Any> m, Any key) {
      const Any* v = m->Find(key);
      if (v == nullptr) details::ThrowKeyError("container.map_get_item", key);
      return *v;
    });

MXFFI_REGISTER_API("container.map_contains")
    .arg("map")
    .arg("key")
    .set_body_typed([](Map<Any, Any> m, Any key) { return m->Find(key) != nullptr; });

MXFFI_REGISTER_API("container.map_items")
    .describe("The entries of a Map as a flat Array [k0, v0, k1, v1, ...] in insertion order.")
    .arg("map")
    .set_body_typed([](Map<Any, Any> m) {
      Array<Any> out;
      for (const auto& kv : m->entries) {
        out.push_back(kv.first);
        out.push_back(kv.second);
      }
      return out;
    });

MXFFI_REGISTER_API("container.adt")
    .describe("An ADT with tag (first argument) and the remaining arguments as fields.")
    .set_body([](PackedArgs args, Any* rv) {
      if (args.size() < 1) MXFFI_THROW(TypeError) << "container.adt: expected a tag, got nothing";
      std::optional<int64_t> tag = args[0].try_cast<int64_t>();
      MXFFI_CHECK(tag.has_value(), TypeError)
          << "container.adt: the tag expected an int, got " << args[0].GetTypeName();
      MXFFI_CHECK(*tag >= INT32_MIN && *tag <= INT32_MAX, OverflowError)
          << "container.adt: the tag " << *tag << " does not fit in int32";
      std::vector<Any> fields;
      for (int32_t i = 1; i < args.size(); ++i) fields.push_back(Element(args[i]));
      *rv = ADT(static_cast<int32_t>(*tag), fields);
    });

MXFFI_REGISTER_API("container.adt_tag").arg("adt").set_body_typed([](ADT a) { return a.tag(); });

MXFFI_REGISTER_API("container.adt_size")
    .describe("The number of fields of an ADT.")
    .arg("adt")
    .set_body_typed([](ADT a) { return static_cast<int64_t>(a.size()); });

MXFFI_REGISTER_API("container.adt_get_item")
    .arg("adt")
    .arg("i")
    .set_body_typed([](ADT a, int64_t i) {
      return a[NormalizeIndex("container.adt_get_item", i, a.size())];
    });

MXFFI_REGISTER_API("container.shape")
    .describe("A Shape from int arguments.")
    .set_body([](PackedArgs args, Any* rv) {
      std::vector<int64_t> dims;
      for (int32_t i = 0; i < args.size(); ++i) {
        std::optional<int64_t> d = args[i].try_cast<int64_t>();
        if (!d.has_value() || args[i].type_index() != kMXFFIInt) {
          MXFFI_THROW(TypeError) << "container.shape: argument #" << i << " expected int, got "
                                 << args[i].GetTypeName();
        }
        dims.push_back(*d);
      }
      *rv = Shape(dims);
    });

}  // namespace mxffi

extern "C" {

int MXFFIArrayCreate(const MXFFIAny* items, int64_t n, MXFFIObjectHandle* out) {
  try {
    MXFFI_CHECK(out != nullptr, ValueError) << "MXFFIArrayCreate: out is NULL";
    MXFFI_CHECK(n >= 0, ValueError) << "MXFFIArrayCreate: n is " << n << "; expected >= 0";
    MXFFI_CHECK(n == 0 || items != nullptr, ValueError)
        << "MXFFIArrayCreate: items is NULL but n is " << n;
    using mxffi::ArrayObj;
    mxffi::ObjectPtr<ArrayObj> obj =
        mxffi::make_inplace_object<ArrayObj>(sizeof(MXFFIAny) * static_cast<size_t>(n));
    obj->data = n > 0 ? obj->InlineData() : nullptr;
    obj->capacity = n;
    for (int64_t i = 0; i < n; ++i) {
      const int32_t code = items[i].type_index;
      if (code == kMXFFINone || code == kMXFFIInt || code == kMXFFIBool || code == kMXFFIFloat ||
          code == kMXFFIUInt64) {
        obj->data[i] = items[i];  // plain values: nothing to own
      } else {
        // Codes between the plain ones and the objects name no type: such a cell would make an
        // Array that no reader can convert, so it is refused here.
        MXFFI_CHECK(code >= 0 && (code <= kMXFFIBytesView || code >= kMXFFIStaticObjectBegin),
                    TypeError)
            << "MXFFIArrayCreate: items[" << i << "] has type code " << code
            << ", which names no type";
        new (&obj->data[i]) mxffi::Any(*mxffi::AnyView::FromRaw(&items[i]));
      }
      obj->size = i + 1;
    }
    ArrayObj* raw = obj.get();
    raw->IncRef();
    *out = mxffi::details::ObjectUnsafe::Header(raw);
    return 0;
  } catch (...) {
    return mxffi::details::SetErrorFromCurrentException();
  }
}

}  // extern "C"
