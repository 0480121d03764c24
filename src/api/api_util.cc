/*!
 * \file api_util.cc
 * \brief Argument readers shared by the API functions.
 */
#include "api_util.h"

#include <algorithm>
#include <string_view>

namespace mxffi {
namespace api {

DLDevice DeviceArg(const AnyView& v, const char* fname) {
  switch (v.type_index()) {
    case kMXFFINone:
      return DLDevice{kDLCPU, 0};
    case kMXFFIDevice:
      return v.raw()->v_device;
    default:
      break;
  }
  if (std::optional<std::string> s = v.try_cast<std::string>()) {
    std::string_view text = *s;
    std::string_view kind = text.substr(0, text.find(':'));
    int64_t id = 0;
    if (kind.size() < text.size()) {
      // Decimal digits only: strtoll alone would also take "+1", " 1" and "-0".
      std::string_view digits = text.substr(kind.size() + 1);
      bool decimal =
          !digits.empty() && digits.size() <= 10 &&
          std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
      id = decimal ? std::strtoll(std::string(digits).c_str(), nullptr, 10) : -1;
      if (id < 0 || id > INT32_MAX) kind = "";
    }
    if (kind == "cpu") return DLDevice{kDLCPU, static_cast<int32_t>(id)};
    if (kind == "cuda" || kind == "gpu") return DLDevice{kDLCUDA, static_cast<int32_t>(id)};
    MXFFI_THROW(ValueError) << fname << ": unknown device '" << text
                            << "'; expected 'cpu', 'cpu:0', 'cuda' or 'cuda:1'";
  }
  if (std::optional<Array<Any>> a = v.try_cast<Array<Any>>()) {
    if (a->size() == 2) {
      std::optional<int64_t> type = (*a)[0].try_cast<int64_t>();
      std::optional<int64_t> id = (*a)[1].try_cast<int64_t>();
      if (type && id && *type > 0 && *type < 64 && *id >= 0 && *id <= INT32_MAX) {
        return DLDevice{static_cast<DLDeviceType>(*type), static_cast<int32_t>(*id)};
      }
    }
    MXFFI_THROW(ValueError) << fname
                            << ": a device tuple must be (device_type, device_id) as DLPack "
                               "gives it, e.g. (1, 0)";
  }
  MXFFI_THROW(TypeError) << fname << ": device expected a str, a Device or a (type, id) pair, got "
                         << v.GetTypeName();
}

void ShapeArg(const AnyView& v, const char* fname, TShape* out, bool check_negative) {
  if (v.type_index() == kMXFFIInt) {
    out->resize(1);
    (*out)[0] = v.raw()->v_int64;
  } else if (v.type_index() == kMXFFIArray) {
    const MXFFIArrayObj* a = reinterpret_cast<const MXFFIArrayObj*>(v.raw()->v_obj);
    MXFFI_CHECK(a->size <= kMaxNDim, ValueError)
        << fname << ": maximum supported dimension for an ndarray is " << kMaxNDim << ", found "
        << a->size;
    out->resize(static_cast<size_t>(a->size));
    for (int64_t i = 0; i < a->size; ++i) {
      const MXFFIAny& c = a->data[i];
      if (c.type_index == kMXFFIInt) {
        (*out)[i] = c.v_int64;
      } else if (c.type_index == kMXFFIBool) {
        (*out)[i] = c.v_int64;
      } else {
        MXFFI_THROW(TypeError) << fname << ": shape[" << i << "] expected an int, got "
                               << AnyView::FromRaw(&c)->GetTypeName();
      }
    }
  } else if (v.type_index() == kMXFFIShape) {
    const MXFFIShapeObj* s = reinterpret_cast<const MXFFIShapeObj*>(v.raw()->v_obj);
    out->assign(s->data, static_cast<size_t>(s->size));
  } else {
    MXFFI_THROW(TypeError) << fname << ": shape expected an int or a sequence of ints, got "
                           << v.GetTypeName();
  }
  if (check_negative) {
    for (int i = 0; i < out->ndim(); ++i) {
      MXFFI_CHECK((*out)[i] >= 0, ValueError)
          << fname << ": negative dimensions are not allowed; got shape " << out->ToString();
    }
  }
}

double NumberArg(const AnyView& v, const char* fname, const char* arg) {
  switch (v.type_index()) {
    case kMXFFIInt:
    case kMXFFIBool:
      return static_cast<double>(v.raw()->v_int64);
    case kMXFFIFloat:
      return v.raw()->v_float64;
    default:
      MXFFI_THROW(TypeError) << fname << ": " << arg << " expected a number, got "
                             << v.GetTypeName();
  }
  __builtin_unreachable();
}

int NormalizeAxis(int64_t axis, int ndim, const char* fname) {
  if (axis < -ndim || axis >= ndim) {
    MXFFI_THROW(AxisError) << fname << ": axis " << axis
                           << " is out of bounds for array of dimension " << ndim;
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

}  // namespace api
}  // namespace mxffi
