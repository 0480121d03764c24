/*!
 * \file c_api.cc
 * \brief C ABI entry points for objects and type keys.
 */
#include <mxffi/c_api.h>
#include <mxffi/error.h>
#include <mxffi/function.h>

namespace mxffi {
namespace details {
bool LookupTypeKey(const char* key, int32_t* out);
bool TypeIndexKnown(int32_t type_index);
}  // namespace details
}  // namespace mxffi

using mxffi::details::ObjectUnsafe;

extern "C" {

int MXFFIObjectIncRef(MXFFIObjectHandle obj) {
  if (obj == nullptr) {
    MXFFIErrorSet("ValueError", "MXFFIObjectIncRef: obj is NULL", nullptr);
    return -1;
  }
  ObjectUnsafe::FromHeader(obj)->IncRef();
  return 0;
}

int MXFFIObjectFree(MXFFIObjectHandle obj) {
  if (obj != nullptr) ObjectUnsafe::FromHeader(obj)->DecRef();
  return 0;
}

int MXFFIObjectGetTypeIndex(MXFFIObjectHandle obj, int32_t* out) {
  if (obj == nullptr || out == nullptr) {
    MXFFIErrorSet("ValueError",
                  obj == nullptr ? "MXFFIObjectGetTypeIndex: obj is NULL"
                                 : "MXFFIObjectGetTypeIndex: out is NULL",
                  nullptr);
    return -1;
  }
  *out = static_cast<MXFFIObject*>(obj)->type_index;
  return 0;
}

int MXFFITypeKey2Index(const char* type_key, int32_t* out) {
  try {
    MXFFI_CHECK(type_key != nullptr, ValueError) << "MXFFITypeKey2Index: type_key is NULL";
    MXFFI_CHECK(out != nullptr, ValueError) << "MXFFITypeKey2Index: out is NULL";
    if (!mxffi::details::LookupTypeKey(type_key, out)) {
      MXFFI_THROW(KeyError) << "MXFFITypeKey2Index: no type registered as '" << type_key << "'";
    }
    return 0;
  } catch (...) {
    return mxffi::details::SetErrorFromCurrentException();
  }
}

int MXFFITypeIndex2Key(int32_t type_index, const char** out) {
  try {
    MXFFI_CHECK(out != nullptr, ValueError) << "MXFFITypeIndex2Key: out is NULL";
    if (!mxffi::details::TypeIndexKnown(type_index)) {
      MXFFI_THROW(KeyError) << "MXFFITypeIndex2Key: no type with index " << type_index;
    }
    *out = mxffi::details::TypeIndex2Key(type_index).c_str();
    return 0;
  } catch (...) {
    return mxffi::details::SetErrorFromCurrentException();
  }
}

}  // extern "C"
