/*!
 * \file function.cc
 * \brief The call path (MXFFIFuncCall), Functions made from C callbacks, and the messages of
 *  argument conversion failures.
 */
#include <mxffi/container/array.h>
#include <mxffi/function.h>
#include <mxffi/registry.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace mxffi {
namespace details {
namespace {

std::string FuncName(const FuncInfo* info) {
  return info && !info->name.empty() ? info->name : std::string("<anonymous function>");
}

/*! \brief A Function wrapping a C callback and the resource it is called with. */
class CFunctionObj : public FunctionObj {
 public:
  CFunctionObj(void* resource, MXFFISafeCallType callback, void (*deleter)(void*))
      : resource_(resource), callback_(callback), deleter_(deleter) {
    safe_call = SafeCall;
  }
  ~CFunctionObj() {
    if (deleter_ != nullptr) deleter_(resource_);
  }

 private:
  static int SafeCall(void* self, const MXFFIAny* args, int32_t num_args, MXFFIAny* result) {
    auto* obj = static_cast<CFunctionObj*>(ObjectUnsafe::FromHeader(self));
    return obj->callback_(obj->resource_, args, num_args, result);
  }
  void* resource_;
  MXFFISafeCallType callback_;
  void (*deleter_)(void*);
};

}  // namespace

std::string ArgContext::Label() const {
  std::ostringstream os;
  os << *this;
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const ArgContext& ctx) {
  os << ctx.func_name() << ": argument #" << ctx.index();
  const FuncInfo* info = ctx.info();
  if (info && ctx.index() >= 0 && ctx.index() < static_cast<int32_t>(info->arg_names.size())) {
    os << " '" << info->arg_names[static_cast<size_t>(ctx.index())] << "'";
  }
  return os;
}

void ThrowArgError(const FuncInfo* info, int32_t index, const std::string& expected,
                   const AnyView& actual, bool integral_expected) {
  std::ostringstream os;
  os << ArgContext(info, index);
  if (integral_expected && actual.type_index() == kMXFFIInt) {
    os << " value " << actual.raw()->v_int64 << " out of range for " << expected;
    throw Error("OverflowError", os.str());
  }
  if (actual.type_index() == kMXFFIUInt64) {
    // An int past int64 (2**63 to 2**64 - 1) where no uint64 is taken.
    os << " value " << static_cast<uint64_t>(actual.raw()->v_int64);
    if (integral_expected && expected != "int") {
      os << " out of range for " << expected;
    } else {
      os << " does not fit in int64";
    }
    throw Error("OverflowError", os.str());
  }
  os << " expected " << expected << ", got " << actual.GetTypeName();
  if (actual.type_index() == kMXFFIArray && expected.rfind("Array[", 0) == 0) {
    // An Array whose elements did not fit: their types say more than the container's.
    const auto* arr = static_cast<const ArrayObj*>(ObjectUnsafe::FromHeader(actual.raw()->v_obj));
    std::vector<std::string> seen;
    for (int64_t i = 0; i < arr->size && seen.size() < 4; ++i) {
      std::string name = CellTypeName(&arr->data[i]);
      if (std::find(seen.begin(), seen.end(), name) == seen.end()) seen.push_back(name);
    }
    if (!seen.empty()) {
      os << " of ";
      for (size_t i = 0; i < seen.size(); ++i) os << (i ? ", " : "") << seen[i];
    }
  }
  throw Error("TypeError", os.str());
}

void ThrowArityError(const FuncInfo* info, int32_t expected_min, int32_t expected_max,
                     int32_t actual) {
  std::ostringstream os;
  os << FuncName(info) << ": expected ";
  if (expected_min == expected_max) {
    os << expected_max;
  } else {
    os << expected_min << " to " << expected_max;
  }
  os << (expected_max == 1 ? " argument" : " arguments") << ", got " << actual;
  throw Error("TypeError", os.str());
}

Function MakeCFunction(void* resource, MXFFISafeCallType callback, void (*deleter)(void*)) {
  return Function(ObjectPtr<Object>(make_object<CFunctionObj>(resource, callback, deleter)));
}

}  // namespace details
}  // namespace mxffi

extern "C" {

/*! \brief The checks of MXFFIFuncCall's rare cases, kept out of line so the hot path stays a
 *  test and a tail call. Returns 0 when the call may go on. */
[[gnu::noinline, gnu::cold]] static int FuncCallCheckSlow(MXFFIObject* header, const MXFFIAny* args,
                                                          int32_t num_args) {
  // Subtypes of Function registered at run time share the layout; anything else is refused.
  try {
    if (header == nullptr) MXFFI_THROW(TypeError) << "MXFFIFuncCall: func is NULL";
    const mxffi::Object* obj = mxffi::details::ObjectUnsafe::FromHeader(header);
    if (!obj->IsInstance<mxffi::FunctionObj>()) {
      MXFFI_THROW(TypeError) << "MXFFIFuncCall: func is not a Function; got " << obj->GetTypeKey();
    }
    if (num_args < 0) {
      MXFFI_THROW(ValueError) << "MXFFIFuncCall: num_args is " << num_args << "; expected >= 0";
    }
    if (num_args > 0 && args == nullptr) {
      MXFFI_THROW(ValueError) << "MXFFIFuncCall: args is NULL but num_args is " << num_args;
    }
  } catch (...) {
    return mxffi::details::SetErrorFromCurrentException();
  }
  return 0;
}

int MXFFIFuncCall(MXFFIObjectHandle func, const MXFFIAny* args, int32_t num_args,
                  MXFFIAny* result) {
  auto* header = static_cast<MXFFIObject*>(func);
  // A call without arguments tests num_args once; one with arguments, its sign and args.
  if (__builtin_expect(header != nullptr && header->type_index == kMXFFIFunction, 1) &&
      (num_args == 0 || (num_args > 0 && args != nullptr))) {
    return reinterpret_cast<MXFFIFunctionObj*>(header)->safe_call(header, args, num_args, result);
  }
  if (FuncCallCheckSlow(header, args, num_args) != 0) return -1;
  return reinterpret_cast<MXFFIFunctionObj*>(header)->safe_call(header, args, num_args, result);
}

int MXFFIFuncCreate(void* resource, MXFFISafeCallType callback, void (*deleter)(void*),
                    MXFFIObjectHandle* out) {
  try {
    if (callback == nullptr) {
      MXFFI_THROW(ValueError) << "MXFFIFuncCreate: callback is NULL";
    }
    // Checked before anything is made: on error the resource stays the caller's.
    if (out == nullptr) {
      MXFFI_THROW(ValueError) << "MXFFIFuncCreate: out is NULL";
    }
    mxffi::Function f = mxffi::details::MakeCFunction(resource, callback, deleter);
    *out = mxffi::details::ObjectUnsafe::Header(
        const_cast<mxffi::Object*>(static_cast<const mxffi::Object*>(f.get())));
    const_cast<mxffi::FunctionObj*>(f.get())->IncRef();
    return 0;
  } catch (...) {
    return mxffi::details::SetErrorFromCurrentException();
  }
}

}  // extern "C"
